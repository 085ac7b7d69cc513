//! Simulated time: integer nanoseconds.
//!
//! [`Time`] is an instant since the start of the simulation; [`Dur`] is a span. Both wrap a `u64`
//! count of nanoseconds (enough for 584 years). There is no floating-point clock anywhere in the
//! simulator, so event ordering never depends on rounding. Conversions to and from milliseconds and
//! seconds are explicit and named by unit.

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// Nanoseconds per microsecond.
pub const NS_PER_US: u64 = 1_000;
/// Nanoseconds per millisecond.
pub const NS_PER_MS: u64 = 1_000_000;
/// Nanoseconds per second.
pub const NS_PER_S: u64 = 1_000_000_000;

/// An instant of simulated time, in nanoseconds since the start of the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Time(pub u64);

/// A span of simulated time, in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Dur(pub u64);

impl Time {
    /// The start of the simulation.
    pub const ZERO: Time = Time(0);
    /// A time later than any event (used for "never").
    pub const MAX: Time = Time(u64::MAX);

    /// From whole nanoseconds.
    pub const fn from_nanos(ns: u64) -> Time {
        Time(ns)
    }
    /// From whole milliseconds.
    pub const fn from_millis(ms: u64) -> Time {
        Time(ms * NS_PER_MS)
    }
    /// From whole seconds.
    pub const fn from_secs(s: u64) -> Time {
        Time(s * NS_PER_S)
    }
    /// Nanoseconds since the start.
    pub const fn nanos(self) -> u64 {
        self.0
    }
    /// Seconds since the start, as a float (for reporting only).
    pub fn secs_f64(self) -> f64 {
        self.0 as f64 / NS_PER_S as f64
    }
    /// Milliseconds since the start, as a float (for reporting only).
    pub fn millis_f64(self) -> f64 {
        self.0 as f64 / NS_PER_MS as f64
    }
    /// `self - earlier`, or zero if `earlier` is later.
    pub fn saturating_since(self, earlier: Time) -> Dur {
        Dur(self.0.saturating_sub(earlier.0))
    }
}

impl Dur {
    /// Zero length.
    pub const ZERO: Dur = Dur(0);
    /// Longer than any simulation.
    pub const MAX: Dur = Dur(u64::MAX);

    /// From whole nanoseconds.
    pub const fn from_nanos(ns: u64) -> Dur {
        Dur(ns)
    }
    /// From whole microseconds.
    pub const fn from_micros(us: u64) -> Dur {
        Dur(us * NS_PER_US)
    }
    /// From whole milliseconds.
    pub const fn from_millis(ms: u64) -> Dur {
        Dur(ms * NS_PER_MS)
    }
    /// From whole seconds.
    pub const fn from_secs(s: u64) -> Dur {
        Dur(s * NS_PER_S)
    }
    /// From fractional milliseconds, rounded to the nearest nanosecond (inputs only).
    pub fn from_millis_f64(ms: f64) -> Dur {
        Dur((ms * NS_PER_MS as f64).round().max(0.0) as u64)
    }
    /// From fractional microseconds, rounded to the nearest nanosecond (inputs only).
    pub fn from_micros_f64(us: f64) -> Dur {
        Dur((us * NS_PER_US as f64).round().max(0.0) as u64)
    }
    /// From fractional seconds, rounded to the nearest nanosecond (inputs only).
    pub fn from_secs_f64(s: f64) -> Dur {
        Dur((s * NS_PER_S as f64).round().max(0.0) as u64)
    }
    /// Length in nanoseconds.
    pub const fn nanos(self) -> u64 {
        self.0
    }
    /// Length in seconds, as a float.
    pub fn secs_f64(self) -> f64 {
        self.0 as f64 / NS_PER_S as f64
    }
    /// Length in milliseconds, as a float.
    pub fn millis_f64(self) -> f64 {
        self.0 as f64 / NS_PER_MS as f64
    }
    /// Multiply by an integer, saturating.
    pub fn saturating_mul(self, k: u64) -> Dur {
        Dur(self.0.saturating_mul(k))
    }
}

impl Add<Dur> for Time {
    type Output = Time;
    fn add(self, d: Dur) -> Time {
        Time(self.0.saturating_add(d.0))
    }
}
impl AddAssign<Dur> for Time {
    fn add_assign(&mut self, d: Dur) {
        self.0 = self.0.saturating_add(d.0);
    }
}
impl Sub<Time> for Time {
    type Output = Dur;
    /// Panics in debug builds if `rhs` is later: time differences are never negative.
    fn sub(self, rhs: Time) -> Dur {
        debug_assert!(self.0 >= rhs.0, "time went backwards: {} < {}", self.0, rhs.0);
        Dur(self.0.saturating_sub(rhs.0))
    }
}
impl Sub<Dur> for Time {
    type Output = Time;
    fn sub(self, d: Dur) -> Time {
        Time(self.0.saturating_sub(d.0))
    }
}
impl Add for Dur {
    type Output = Dur;
    fn add(self, d: Dur) -> Dur {
        Dur(self.0.saturating_add(d.0))
    }
}
impl AddAssign for Dur {
    fn add_assign(&mut self, d: Dur) {
        self.0 = self.0.saturating_add(d.0);
    }
}
impl Sub for Dur {
    type Output = Dur;
    fn sub(self, d: Dur) -> Dur {
        Dur(self.0.saturating_sub(d.0))
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.6} s", self.secs_f64())
    }
}
impl fmt::Display for Dur {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.3} ms", self.millis_f64())
    }
}

/// A data rate in bits per second. Rates are configuration and estimates, so they are floats;
/// transmission times computed from them are rounded up to whole nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd)]
pub struct Rate(pub f64);

impl Rate {
    /// From megabits per second (10^6 bit/s, as Mahimahi and ns-3 count).
    pub fn from_mbps(mbps: f64) -> Rate {
        Rate(mbps * 1e6)
    }
    /// From bytes per second.
    pub fn from_bytes_per_sec(bps: f64) -> Rate {
        Rate(bps * 8.0)
    }
    /// Bits per second.
    pub fn bps(self) -> f64 {
        self.0
    }
    /// Megabits per second.
    pub fn mbps(self) -> f64 {
        self.0 / 1e6
    }
    /// Bytes per second.
    pub fn bytes_per_sec(self) -> f64 {
        self.0 / 8.0
    }
    /// Time to put `bytes` on the wire at this rate, rounded up to a whole nanosecond.
    /// Returns `Dur::MAX` for a zero rate.
    pub fn transfer_time(self, bytes: u64) -> Dur {
        if self.0 <= 0.0 {
            return Dur::MAX;
        }
        Dur(((bytes as f64 * 8.0 * NS_PER_S as f64) / self.0).ceil() as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_constructors_agree() {
        assert_eq!(Time::from_millis(3), Time::from_nanos(3_000_000));
        assert_eq!(Dur::from_secs(2), Dur::from_millis(2000));
        assert_eq!(Dur::from_millis_f64(1.5), Dur::from_micros(1500));
        assert_eq!(Time::from_millis(5) - Time::from_millis(2), Dur::from_millis(3));
    }

    #[test]
    fn transfer_time_of_an_mtu_at_12_mbps_is_1_ms() {
        assert_eq!(Rate::from_mbps(12.0).transfer_time(1500), Dur::from_millis(1));
        assert_eq!(Rate(0.0).transfer_time(1), Dur::MAX);
    }
}
