//! The CoDel control law, shared by the CoDel queue ([`crate::queue::codel`]) and C2TCP's
//! condition detector ([`crate::cc::c2tcp`]): while a standing delay persists, act again after
//! `interval / √count`, `count` being the number of actions so far (RFC 8289 §5.7).
//!
//! Two arithmetics of the same law, both exact reproductions of what their users follow:
//! * [`control_law`]: the RFC's `interval / sqrt(count)` in `f64`, rounded to the nearest
//!   nanosecond (the CoDel queue; see its module doc for why not Linux's fixed point).
//! * [`newton_step`] and [`control_law_rec_inv_sqrt`]: Linux's (`include/net/codel.h`,
//!   `codel_Newton_step`, `codel_control_law`) 16-bit fixed-point reciprocal square root refined
//!   by one Newton step per increment of `count` (C2TCP's reference kernel patch reuses them).

use crate::time::{Dur, Time};

/// Bits of CoDel's reciprocal square root (Linux `include/net/codel.h` `REC_INV_SQRT_BITS`, u16).
const REC_INV_SQRT_SHIFT: u32 = 32 - 16;

/// RFC 8289 §5.7 control law: `t + interval / √count`, rounded to the nearest nanosecond
/// (`count` 0 is treated as 1).
pub fn control_law(t: Time, interval: Dur, count: u32) -> Time {
    let step = interval.0 as f64 / f64::from(count.max(1)).sqrt();
    t + Dur(step.round() as u64)
}

/// Linux `codel_Newton_step` on the 16-bit reciprocal square root: one Newton iteration
/// `x ← x (3 − count x²) / 2` towards `1/√count`, in the kernel's fixed point (wrapping as there).
pub fn newton_step(rec_inv_sqrt: u16, count: u32) -> u16 {
    let invsqrt = u64::from(rec_inv_sqrt) << REC_INV_SQRT_SHIFT;
    let invsqrt2 = (invsqrt * invsqrt) >> 32;
    let mut val = (3u64 << 32).wrapping_sub(u64::from(count).wrapping_mul(invsqrt2));
    val >>= 2; // "avoid overflow in following multiply"
    val = val.wrapping_mul(invsqrt) >> (32 - 2 + 1);
    (val >> REC_INV_SQRT_SHIFT) as u16
}

/// Linux CoDel `control_law`: `t + interval · rec_inv_sqrt` (`reciprocal_scale`).
pub fn control_law_rec_inv_sqrt(t: Time, interval: Dur, rec_inv_sqrt: u16) -> Time {
    let scale = u128::from(rec_inv_sqrt) << REC_INV_SQRT_SHIFT;
    let step = (u128::from(interval.nanos()) * scale) >> 32;
    t + Dur::from_nanos(u64::try_from(step).unwrap_or(u64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn control_law_is_interval_over_sqrt_count() {
        let t = Time::from_millis(209);
        let i = Dur::from_millis(100);
        assert_eq!(control_law(t, i, 1), Time::from_millis(309));
        assert_eq!(control_law(t, i, 2), Time(209 * MS + 70_710_678));
        assert_eq!(control_law(t, i, 4), Time::from_millis(259));
        assert_eq!(control_law(t, i, 0), Time::from_millis(309));
    }

    #[test]
    fn newton_step_matches_the_kernel_fixed_point() {
        let mut x = newton_step(u16::MAX, 1);
        let mut seq = vec![x];
        for n in 2..=5 {
            x = newton_step(x, n);
            seq.push(x);
        }
        // 0.99998, 0.50002, 0.5625, 0.48779, 0.44151 (exact 1/√N: 1, 0.707, 0.577, 0.5, 0.447).
        assert_eq!(seq, [65535, 32769, 36864, 31968, 28935]);
        for n in 6..=400 {
            x = newton_step(x, n);
        }
        let exact = 1.0 / 400f64.sqrt();
        assert!((f64::from(x) / 65536.0 - exact).abs() < 0.01 * exact);
        assert_eq!(
            control_law_rec_inv_sqrt(Time::from_millis(1000), Dur::from_millis(100), 32769),
            Time::from_nanos(1_050_001_525)
        );
    }

    #[test]
    fn both_arithmetics_agree_within_the_newton_error() {
        // After a few steps the fixed point is within ~1 % of the exact law.
        let (t, i) = (Time::ZERO, Dur::from_millis(100));
        let mut x = u16::MAX;
        for n in 1..=50 {
            x = newton_step(x, n);
            let exact = control_law(t, i, n).0 as f64;
            let fixed = control_law_rec_inv_sqrt(t, i, x).0 as f64;
            if n >= 10 {
                assert!((fixed - exact).abs() < 0.01 * exact, "count {n}: {fixed} vs {exact}");
            }
        }
    }
}
