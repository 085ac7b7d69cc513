//! Links: what takes packets out of a hop's queue and when.
//!
//! * [`TraceLink`] follows Mahimahi's `mm-link` exactly (`link_queue.cc`, `rationalize()`): the trace
//!   lists millisecond timestamps, each line is one delivery opportunity of [`OPPORTUNITY_BYTES`]
//!   bytes; opportunities are counted in bytes, so several small packets share one and a packet larger
//!   than the bytes left carries over into later opportunities; bytes with nothing queued are wasted;
//!   at the end the trace wraps around (`base += last timestamp`) unless it is played `once`.
//!   A link can start `offset` ms into its trace ([`TraceLink::with_offset`]): Mahimahi starts
//!   replaying when the shell starts, before the sender inside it connects, so the flows meet the
//!   trace at some phase; opportunities before the offset happened before simulated time 0.
//!   Packets depart at the opportunity's time (no serialisation delay within an opportunity).
//!   Mahimahi counts TUN frames, which carry 4 bytes of header besides the IP packet, so a 1500-byte
//!   IP packet fills a 1504-byte opportunity exactly; we charge [`TUN_OVERHEAD`] per packet likewise.
//! * [`RateLink`] serialises one packet at a time at a piecewise-constant rate (a constant link is a
//!   one-step schedule); a step change mid-packet applies to the rest of that packet.
//!
//! Both also tell the router the capacity over a recent window (μ in ABC): for a trace link the
//! opportunity bytes in the window, used or wasted; for a rate link the integral of its rate.

use crate::error::{Error, Result};
use crate::packet::Packet;
use crate::time::{Dur, Rate, Time, NS_PER_MS, NS_PER_S};
use std::collections::VecDeque;
use std::sync::Arc;

/// Bytes per delivery opportunity (Mahimahi `PACKET_SIZE`: 1500-byte MTU + 4-byte TUN header).
pub const OPPORTUNITY_BYTES: u32 = 1504;
/// Per-packet framing bytes a trace link charges on top of the IP size (Mahimahi's TUN header).
pub const TUN_OVERHEAD: u32 = 4;

/// A parsed Mahimahi trace: opportunity timestamps in ms, non-decreasing, last one > 0.
#[derive(Clone, Debug, PartialEq)]
pub struct Trace {
    /// Where it came from (for messages).
    pub name: String,
    /// Opportunity times in ms from the start of one period.
    pub ms: Vec<u64>,
}

/// Largest timestamp accepted (about 11.6 days), so that `ms * 1e6` never overflows over many wraps.
const MAX_TRACE_MS: u64 = 1_000_000_000;

/// The largest trace file [`Trace::load`] reads, bytes (1 GiB; the bundled traces are < 10 MB).
pub const MAX_TRACE_BYTES: u64 = 1 << 30;

/// What a non-regular file is, for error messages.
pub(crate) fn file_kind(meta: &std::fs::Metadata) -> &'static str {
    let ft = meta.file_type();
    if ft.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if ft.is_char_device() {
            return "a character device";
        }
        if ft.is_block_device() {
            return "a block device";
        }
        if ft.is_socket() {
            return "a socket";
        }
    }
    "a special file"
}

impl Trace {
    /// Parse trace text. `name` is used in error messages (normally the file path).
    ///
    /// Accepts LF or CRLF line ends and blank lines at the very end; anything else that is not a
    /// non-negative integer is an error naming the line.
    pub fn parse(name: &str, text: &str) -> Result<Trace> {
        let err = |line: usize, msg: String| Error::Trace {
            path: name.to_string(),
            line,
            msg,
        };
        let mut ms = Vec::new();
        let lines: Vec<&str> = text.split('\n').collect();
        let mut last_nonblank = lines.len();
        while last_nonblank > 0 && lines[last_nonblank - 1].trim().is_empty() {
            last_nonblank -= 1;
        }
        let mut prev = 0u64;
        for (i, raw) in lines[..last_nonblank].iter().enumerate() {
            let line = raw.strip_suffix('\r').unwrap_or(raw).trim();
            let v: u64 = line.parse().map_err(|_| {
                let shown: String = line.chars().take(40).collect();
                err(
                    i + 1,
                    format!("expected a non-negative integer (milliseconds), found '{shown}'"),
                )
            })?;
            if v > MAX_TRACE_MS {
                return Err(err(
                    i + 1,
                    format!("timestamp {v} ms is larger than the maximum {MAX_TRACE_MS}"),
                ));
            }
            if v < prev {
                return Err(err(i + 1, format!("timestamps must not decrease ({v} after {prev})")));
            }
            prev = v;
            ms.push(v);
        }
        if ms.is_empty() {
            return Err(err(
                0,
                "the trace is empty; expected one millisecond timestamp per line".into(),
            ));
        }
        if prev == 0 {
            return Err(err(
                0,
                "the last timestamp must be greater than 0 (Mahimahi rule)".into(),
            ));
        }
        Ok(Trace {
            name: name.to_string(),
            ms,
        })
    }

    /// Read and parse a trace file: a regular file of at most [`MAX_TRACE_BYTES`] (a FIFO, a
    /// device or a directory is refused before reading, so `/dev/zero` or a pipe cannot exhaust
    /// memory or block).
    pub fn load(path: &str) -> Result<Trace> {
        use std::io::Read;
        let fail = |msg: String| Error::Trace {
            path: path.to_string(),
            line: 0,
            msg,
        };
        let meta = std::fs::metadata(path).map_err(|e| fail(format!("cannot read: {e}")))?;
        if !meta.is_file() {
            return Err(fail(format!("not a regular file (it is {})", file_kind(&meta))));
        }
        if meta.len() > MAX_TRACE_BYTES {
            return Err(fail(format!(
                "{} bytes; a trace file may have at most {MAX_TRACE_BYTES} bytes (1 GiB)",
                meta.len()
            )));
        }
        let file = std::fs::File::open(path).map_err(|e| fail(format!("cannot read: {e}")))?;
        // Bounded read: the file may have grown (or been swapped) since the check.
        let mut bytes = Vec::with_capacity(meta.len() as usize);
        file.take(MAX_TRACE_BYTES + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| fail(format!("cannot read: {e}")))?;
        if bytes.len() as u64 > MAX_TRACE_BYTES {
            return Err(fail(format!("more than {MAX_TRACE_BYTES} bytes (1 GiB)")));
        }
        let text = String::from_utf8(bytes)
            .map_err(|_| fail("cannot read: stream did not contain valid UTF-8".to_string()))?;
        Trace::parse(path, &text)
    }

    /// Length of one period in ms (the last timestamp).
    pub fn period_ms(&self) -> u64 {
        *self.ms.last().unwrap_or(&1)
    }

    /// Mean capacity in Mbit/s, counting [`OPPORTUNITY_BYTES`] per line.
    pub fn mean_mbps(&self) -> f64 {
        self.ms.len() as f64 * OPPORTUNITY_BYTES as f64 * 8.0 / (self.period_ms() as f64 * 1e3)
    }
}

/// Mahimahi-style trace-driven link state.
#[derive(Clone, Debug)]
pub struct TraceLink {
    trace: Arc<Trace>,
    once: bool,
    /// Index of the next opportunity in `trace.ms`.
    next: usize,
    /// Trace time of the start of the current period, ms.
    base_ms: u64,
    /// Trace time at simulated time 0, ms: opportunity `base_ms + m` happens at `base_ms + m - offset_ms`.
    offset_ms: u64,
    /// Whether a `once` trace has been used up.
    finished: bool,
    /// Bytes of the packet in transit still to send (0 if none).
    in_transit_left: u32,
    /// Recent opportunity bytes per timestamp (time, bytes) for capacity windows, and their sum.
    recent: VecDeque<(Time, u64)>,
    recent_bytes: u64,
    /// Longest window anyone asks about.
    keep: Dur,
}

impl TraceLink {
    /// A link following `trace`, wrapping around unless `once`.
    pub fn new(trace: Arc<Trace>, once: bool) -> TraceLink {
        TraceLink::with_offset(trace, once, 0)
    }

    /// A link that is `offset_ms` into `trace` at simulated time 0 (the replay started that long
    /// before): opportunities at trace times below `offset_ms` are gone, the one at trace time
    /// `m ≥ offset_ms` comes at `m − offset_ms`. A wrapping trace takes the offset modulo its
    /// period; a `once` trace with an offset beyond its last line has no opportunities left.
    /// An offset of 0 is [`TraceLink::new`].
    pub fn with_offset(trace: Arc<Trace>, once: bool, offset_ms: u64) -> TraceLink {
        let offset_ms = if once { offset_ms } else { offset_ms % trace.period_ms() };
        let next = trace.ms.partition_point(|&m| m < offset_ms);
        let mut link = TraceLink {
            trace,
            once,
            next,
            base_ms: 0,
            offset_ms,
            finished: false,
            in_transit_left: 0,
            recent: VecDeque::new(),
            recent_bytes: 0,
            keep: Dur::ZERO,
        };
        link.wrap();
        link
    }

    /// How far into its trace the link is at simulated time 0, ms (after reduction modulo the
    /// period for a wrapping trace).
    pub fn offset_ms(&self) -> u64 {
        self.offset_ms
    }

    /// The trace this link follows.
    pub fn trace(&self) -> &Trace {
        &self.trace
    }

    /// Use every opportunity due at or before `now`, exactly as Mahimahi's `rationalize()`: each
    /// opportunity carries [`OPPORTUNITY_BYTES`]; packets are pulled from `dequeue` while bytes
    /// remain, a packet larger than what is left stays in `in_transit` and finishes in a later
    /// opportunity, and bytes with nothing to send are wasted. Finished packets go to `depart`.
    pub fn serve(
        &mut self,
        now: Time,
        in_transit: &mut Option<Packet>,
        dequeue: impl FnMut(&mut Self) -> Option<Packet>,
        mut depart: impl FnMut(Packet),
    ) {
        self.serve_timed(now, in_transit, dequeue, |_, p| depart(p));
    }

    /// [`TraceLink::serve`], also telling `depart` the time of the opportunity that finished each
    /// packet (the real-time emulator schedules deliveries from it; the simulator calls `serve` at
    /// that very time).
    pub fn serve_timed(
        &mut self,
        now: Time,
        in_transit: &mut Option<Packet>,
        mut dequeue: impl FnMut(&mut Self) -> Option<Packet>,
        mut depart: impl FnMut(Time, Packet),
    ) {
        while matches!(self.next_opportunity(), Some(t) if t <= now) {
            let at = self.take_opportunity();
            let mut left = OPPORTUNITY_BYTES;
            while left > 0 {
                if self.in_transit_left == 0 {
                    let Some(pkt) = dequeue(self) else {
                        // Nothing to send: this and every other opportunity due by `now` is
                        // wasted (no packet can arrive during this call, and dequeueing from an
                        // empty queue again changes nothing). Skipping them in one step keeps
                        // dense traces (millions of opportunities per ms) from stalling the run.
                        self.skip_due(now);
                        return;
                    };
                    self.in_transit_left = pkt.size + TUN_OVERHEAD;
                    *in_transit = Some(pkt);
                }
                let amount = left.min(self.in_transit_left);
                self.in_transit_left -= amount;
                left -= amount;
                if self.in_transit_left == 0 {
                    if let Some(p) = in_transit.take() {
                        depart(at, p);
                    }
                }
            }
        }
    }

    /// Consume every opportunity due at or before `now` unused, one step per distinct timestamp.
    fn skip_due(&mut self, now: Time) {
        let now_ms = now.0 / NS_PER_MS + self.offset_ms;
        while !self.finished {
            let m = self.trace.ms[self.next];
            if self.base_ms + m > now_ms {
                break;
            }
            let run = self.trace.ms[self.next..].partition_point(|&x| x <= m);
            self.record(Time((self.base_ms + m - self.offset_ms) * NS_PER_MS), run as u64);
            self.next += run;
            self.wrap();
        }
    }

    /// Start the next period if the current one is used up.
    fn wrap(&mut self) {
        if self.next == self.trace.ms.len() {
            self.next = 0;
            if self.once {
                self.finished = true;
            } else {
                self.base_ms += self.trace.period_ms();
            }
        }
    }

    /// Remember `count` opportunities at `t` for capacity windows (one entry per timestamp).
    fn record(&mut self, t: Time, count: u64) {
        if self.keep == Dur::ZERO {
            return;
        }
        let bytes = count * OPPORTUNITY_BYTES as u64;
        match self.recent.back_mut() {
            Some(back) if back.0 == t => back.1 += bytes,
            _ => self.recent.push_back((t, bytes)),
        }
        self.recent_bytes += bytes;
    }

    /// Remember opportunities for capacity windows up to `window` long.
    pub fn keep_window(&mut self, window: Dur) {
        self.keep = self.keep.max(window);
    }

    /// Time of the next opportunity, or `None` when a `once` trace is finished.
    pub fn next_opportunity(&self) -> Option<Time> {
        if self.finished {
            None
        } else {
            Some(Time(
                (self.base_ms + self.trace.ms[self.next] - self.offset_ms) * NS_PER_MS,
            ))
        }
    }

    /// Consume the next opportunity (which must be due); returns its time.
    pub fn take_opportunity(&mut self) -> Time {
        let t = self.next_opportunity().expect("take_opportunity on a finished trace");
        self.next += 1;
        self.wrap();
        self.record(t, 1);
        t
    }

    /// Opportunity bytes in `(now - window, now]`; `window` must not exceed what was asked for with
    /// [`TraceLink::keep_window`].
    pub fn capacity_bytes(&mut self, now: Time, window: Dur) -> u64 {
        let horizon = now - self.keep;
        while let Some(&(t, b)) = self.recent.front() {
            if t > horizon {
                break;
            }
            self.recent.pop_front();
            self.recent_bytes -= b;
        }
        if window >= self.keep {
            return self.recent_bytes;
        }
        self.bytes_since(now - window)
    }

    /// Recorded opportunity bytes at times after `from` (entries older than the kept window may
    /// still be there until [`TraceLink::capacity_bytes`] prunes them; they are not counted).
    #[inline]
    fn bytes_since(&self, from: Time) -> u64 {
        self.recent
            .iter()
            .rev()
            .take_while(|(t, _)| *t > from)
            .map(|(_, b)| *b)
            .sum()
    }

    /// Opportunity bytes in `[from, to)` computed from the trace (for reporting).
    pub fn opportunity_bytes_between(&self, from: Time, to: Time) -> u64 {
        let p = self.trace.period_ms() * NS_PER_MS;
        let n = self.trace.ms.len() as u64;
        // Opportunities of one period at offsets strictly below x.
        let below = |x: u64| self.trace.ms.partition_point(|&m| m * NS_PER_MS < x) as u64;
        // Period k holds offsets k·P + m for every trace value m in (0..=P]; all periods before
        // q − 1 are complete at time t = q·P + r, period q − 1 is complete except offsets ≥ r + P,
        // and period q has those below r. Times here are trace times (simulated time + offset).
        let count_trace_before = |t: Time| -> u64 {
            if self.once {
                return below(t.0);
            }
            let (q, r) = (t.0 / p, t.0 % p);
            if q == 0 {
                below(r)
            } else {
                (q - 1) * n + below(r + p) + below(r)
            }
        };
        let o = Time(self.offset_ms * NS_PER_MS);
        let skipped = count_trace_before(o);
        let count_before = |t: Time| count_trace_before(Time(t.0 + o.0)) - skipped;
        (count_before(to).saturating_sub(count_before(from))) * OPPORTUNITY_BYTES as u64
    }
}

/// One step of a rate schedule.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Step {
    /// When this rate starts (relative to the start of a period).
    pub at: Time,
    /// The rate from then on.
    pub rate: Rate,
}

/// A link that serialises packets at a piecewise-constant rate.
#[derive(Clone, Debug)]
pub struct RateLink {
    steps: Vec<Step>,
    /// If set, the schedule repeats with this period.
    period: Option<Dur>,
    /// Constant-rate links: the transmission times of a full data segment ([`crate::packet::MTU`])
    /// and of a pure ACK ([`crate::packet::ACK_BYTES`]), computed once by the same expression
    /// [`RateLink::finish_time`] uses, so the per-packet path skips a division and a `ceil`.
    quick: Option<[(u32, Dur); 2]>,
}

impl RateLink {
    /// A constant-rate link.
    pub fn constant(rate: Rate) -> Result<RateLink> {
        RateLink::schedule(vec![Step { at: Time::ZERO, rate }], None)
    }

    /// A schedule of rate steps (the first must start at 0, times increasing, rates ≥ 0 and finite),
    /// repeating every `period` if given (which must be later than the last step).
    pub fn schedule(steps: Vec<Step>, period: Option<Dur>) -> Result<RateLink> {
        let bad = |msg: String| {
            Err(Error::Param {
                key: "link.steps".into(),
                msg,
            })
        };
        if steps.is_empty() {
            return bad("a rate schedule needs at least one step".into());
        }
        if steps[0].at != Time::ZERO {
            return bad("the first step must start at time 0".into());
        }
        for w in steps.windows(2) {
            if w[1].at <= w[0].at {
                return bad("step times must be strictly increasing".into());
            }
        }
        for s in &steps {
            if !(s.rate.0.is_finite() && s.rate.0 >= 0.0) {
                return bad(format!("rate {} bit/s is not a finite non-negative number", s.rate.0));
            }
        }
        if steps.iter().all(|s| s.rate.0 == 0.0) {
            return bad("at least one step needs a positive rate".into());
        }
        if let Some(p) = period {
            if p.0 <= steps.last().map(|s| s.at.0).unwrap_or(0) {
                return bad("the repeat period must be longer than the last step's start".into());
            }
        }
        let mut link = RateLink {
            steps,
            period,
            quick: None,
        };
        if link.steps.len() == 1 && link.period.is_none() {
            let sizes = [crate::packet::MTU, crate::packet::ACK_BYTES];
            link.quick = Some(sizes.map(|b| (b, link.finish_time(Time::ZERO, b) - Time::ZERO)));
        }
        Ok(link)
    }

    /// Rate in force at `t`, and the time at which it next changes (`Time::MAX` if never).
    fn segment(&self, t: Time) -> (Rate, Time) {
        let (offset, base) = match self.period {
            Some(p) => {
                let k = t.0 / p.0;
                (Time(t.0 - k * p.0), k * p.0)
            }
            None => (t, 0),
        };
        let i = self.steps.partition_point(|s| s.at <= offset) - 1;
        let end = match (self.steps.get(i + 1), self.period) {
            (Some(next), _) => Time(base + next.at.0),
            (None, Some(p)) => Time(base + p.0),
            (None, None) => Time::MAX,
        };
        (self.steps[i].rate, end)
    }

    /// When a packet of `bytes` that starts at `start` finishes (`Time::MAX` if never).
    pub fn finish_time(&self, start: Time, bytes: u32) -> Time {
        if let Some(q) = &self.quick {
            if let Some(&(_, need)) = q.iter().find(|&&(b, _)| b == bytes) {
                return start + need;
            }
        }
        let mut left_bits = bytes as f64 * 8.0;
        let mut t = start;
        // A schedule has finitely many steps per period, so this loop ends: each pass moves to the
        // next step; if a full period passes with no progress the schedule would be all-zero,
        // which `schedule` rejects.
        loop {
            let (rate, end) = self.segment(t);
            if rate.0 > 0.0 {
                let need = Dur(((left_bits * NS_PER_S as f64) / rate.0).ceil() as u64);
                if end == Time::MAX || t + need <= end {
                    return t + need;
                }
                left_bits -= rate.0 * (end - t).secs_f64();
            } else if end == Time::MAX {
                return Time::MAX;
            }
            t = end;
        }
    }

    /// Bytes the link could carry in `[from, to)` (the integral of the rate).
    pub fn capacity_bytes_between(&self, from: Time, to: Time) -> f64 {
        let mut bits = 0.0;
        let mut t = from;
        while t < to {
            let (rate, end) = self.segment(t);
            let stop = end.min(to);
            bits += rate.0 * (stop - t).secs_f64();
            t = stop;
        }
        bits / 8.0
    }

    /// The rate at `t`.
    pub fn rate_at(&self, t: Time) -> Rate {
        self.segment(t).0
    }
}

/// A hop's link.
#[derive(Clone, Debug)]
pub enum Link {
    /// Mahimahi trace.
    Trace(TraceLink),
    /// Piecewise-constant rate.
    Rate(RateLink),
    /// 802.11n A-MPDU aggregation ([`crate::wifi`]); boxed so ordinary links stay small.
    Wifi(Box<crate::wifi::WifiLink>),
}

impl Link {
    /// Bytes charged against the link for a packet of `ip_bytes`.
    pub fn wire_bytes(&self, ip_bytes: u32) -> u32 {
        match self {
            Link::Trace(_) => ip_bytes + TUN_OVERHEAD,
            Link::Rate(_) => ip_bytes,
            Link::Wifi(_) => crate::wifi::subframe_bytes(ip_bytes),
        }
    }

    /// Capacity in bytes per second over `(now - window, now]` (the router's μ).
    pub fn capacity_rate(&mut self, now: Time, window: Dur) -> f64 {
        // Always the full window, as the router's rate counters (and the artifact's 20 ms divisor):
        // early in a run both μ and cr are underestimated alike.
        let w = if window.0 == 0 { Dur(1) } else { window };
        let bytes = match self {
            Link::Trace(l) => l.capacity_bytes(now, w) as f64,
            Link::Rate(l) => l.capacity_bytes_between(now - w, now),
            // ABC's estimator (its own window T), not the trace capacity.
            Link::Wifi(l) => return l.estimate(now, None),
        };
        bytes / w.secs_f64()
    }

    /// Mean capacity in bytes per second: a trace's mean rate over one period (every
    /// opportunity counted), a rate link's mean over `[0, end)`.
    pub fn mean_rate(&self, end: Time) -> f64 {
        match self {
            Link::Trace(l) => l.trace.mean_mbps() * 1e6 / 8.0,
            Link::Rate(l) => {
                let end = if end.0 == 0 { Time(1) } else { end };
                l.capacity_bytes_between(Time::ZERO, end) / end.secs_f64()
            }
            Link::Wifi(l) => {
                let end = if end.0 == 0 { Time(1) } else { end };
                l.truth_between(Time::ZERO, end) / end.secs_f64()
            }
        }
    }

    /// Opportunity / capacity bytes in `[from, to)`, for utilisation.
    pub fn capacity_between(&self, from: Time, to: Time) -> f64 {
        match self {
            Link::Trace(l) => l.opportunity_bytes_between(from, to) as f64,
            Link::Rate(l) => l.capacity_bytes_between(from, to),
            Link::Wifi(l) => l.truth_between(from, to),
        }
    }

    /// Packets the link itself holds besides a hop's `tx` slot (a Wi-Fi batch and its MAC buffers).
    pub fn held(&self) -> u64 {
        match self {
            Link::Wifi(l) => l.held() as u64,
            _ => 0,
        }
    }
}

impl crate::queue::LinkSchedule for Link {
    fn capacity_between(&self, from: Time, to: Time) -> f64 {
        Link::capacity_between(self, from, to)
    }
    fn overhead(&self) -> u32 {
        self.wire_bytes(0)
    }
    fn capacity_recent(&self, now: Time, window: Dur) -> f64 {
        match self {
            Link::Trace(l) => l.capacity_recent(now, window),
            // As `capacity_rate` measures it.
            Link::Rate(l) => l.capacity_bytes_between(now - window, now),
            Link::Wifi(_) => crate::queue::schedule_recent(self, now, window),
        }
    }
}

/// A trace link alone (the emulator's hops): opportunities in the interval, Mahimahi's per-packet
/// overhead.
impl crate::queue::LinkSchedule for TraceLink {
    fn capacity_between(&self, from: Time, to: Time) -> f64 {
        self.opportunity_bytes_between(from, to) as f64
    }
    fn overhead(&self) -> u32 {
        TUN_OVERHEAD
    }
    fn capacity_recent(&self, now: Time, window: Dur) -> f64 {
        // What `capacity_bytes` counts, without pruning (`window` within `keep_window`'s).
        self.bytes_since(now - window) as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_crlf_and_trailing_blank_lines() {
        let t = Trace::parse("x", "1\r\n1\r\n3\r\n\r\n").unwrap();
        assert_eq!(t.ms, vec![1, 1, 3]);
    }

    #[test]
    fn rejects_bad_traces_with_line_numbers() {
        let e = Trace::parse("f.up", "1\n2\nabc\n").unwrap_err();
        assert!(matches!(e, Error::Trace { line: 3, .. }), "{e}");
        let e = Trace::parse("f.up", "5\n4\n").unwrap_err();
        assert!(matches!(e, Error::Trace { line: 2, .. }), "{e}");
        assert!(Trace::parse("f", "").is_err());
        assert!(Trace::parse("f", "0\n0\n").is_err());
        assert!(Trace::parse("f", "1\n\n2\n").is_err());
        assert!(Trace::parse("f", "-1\n").is_err());
        assert!(Trace::parse("f", "99999999999999999999\n").is_err());
    }

    #[test]
    fn bw12_is_12_mbit() {
        let t = Trace::parse("bw12", "1\n").unwrap();
        assert!((t.mean_mbps() - 12.032).abs() < 1e-9);
    }

    #[test]
    fn trace_wraps_around_by_last_timestamp() {
        let tr = Arc::new(Trace::parse("x", "1\n1\n3\n").unwrap());
        let mut l = TraceLink::new(tr.clone(), false);
        let times: Vec<u64> = (0..6).map(|_| l.take_opportunity().0 / NS_PER_MS).collect();
        assert_eq!(times, vec![1, 1, 3, 4, 4, 6]);
        let mut once = TraceLink::new(tr, true);
        for _ in 0..3 {
            once.take_opportunity();
        }
        assert_eq!(once.next_opportunity(), None);
    }

    #[test]
    fn offset_shifts_the_first_opportunities_and_wraps() {
        // Trace 1,1,3 (period 3): opportunities at trace times 1,1,3,4,4,6,7,7,9... An offset of
        // 2 ms puts simulated time 0 at trace time 2: the next ones come at 3−2, 4−2, ...
        let tr = Arc::new(Trace::parse("x", "1\n1\n3\n").unwrap());
        let take = |l: &mut TraceLink| (0..5).map(|_| l.take_opportunity().0 / NS_PER_MS).collect::<Vec<_>>();
        let mut l = TraceLink::with_offset(tr.clone(), false, 2);
        assert_eq!(l.offset_ms(), 2);
        assert_eq!(take(&mut l), vec![1, 2, 2, 4, 5]);
        // An opportunity exactly at the offset comes at time 0; a wrapping trace takes the
        // offset modulo its period (23 ms ≡ 2 ms).
        let mut at1 = TraceLink::with_offset(tr.clone(), false, 1);
        assert_eq!(take(&mut at1), vec![0, 0, 2, 3, 3]);
        let mut wrapped = TraceLink::with_offset(tr.clone(), false, 3 * 7 + 2);
        assert_eq!(wrapped.offset_ms(), 2);
        assert_eq!(take(&mut wrapped), vec![1, 2, 2, 4, 5]);
        let mut zero = TraceLink::with_offset(tr.clone(), false, 0);
        assert_eq!(take(&mut zero), take(&mut TraceLink::new(tr.clone(), false)));
        // Played once, an offset shortens the trace; one beyond the last line leaves nothing.
        let mut once = TraceLink::with_offset(tr.clone(), true, 2);
        assert_eq!(once.take_opportunity(), Time::from_millis(1));
        assert_eq!(once.next_opportunity(), None);
        assert_eq!(
            TraceLink::with_offset(tr.clone(), true, 3).next_opportunity(),
            Some(Time::ZERO)
        );
        assert_eq!(TraceLink::with_offset(tr, true, 4).next_opportunity(), None);
    }

    #[test]
    fn offset_capacity_counts_match_the_opportunities_taken() {
        let tr = Arc::new(Trace::parse("x", "0\n1\n1\n4\n5\n5\n7\n").unwrap());
        for once in [false, true] {
            for offset in 0..9 {
                let mut l = TraceLink::with_offset(tr.clone(), once, offset);
                let mut times = Vec::new();
                while let Some(t) = l.next_opportunity() {
                    if t > Time::from_millis(30) {
                        break;
                    }
                    times.push(l.take_opportunity());
                }
                for (a, b) in [(0, 1), (0, 7), (2, 9), (3, 30), (6, 20)] {
                    let (from, to) = (Time::from_millis(a), Time::from_millis(b));
                    let n = times.iter().filter(|&&t| t >= from && t < to).count() as u64;
                    assert_eq!(
                        l.opportunity_bytes_between(from, to),
                        n * 1504,
                        "once {once} offset {offset} [{a}, {b})"
                    );
                }
            }
        }
    }

    #[test]
    fn opportunity_bytes_between_counts_wraps() {
        let tr = Arc::new(Trace::parse("x", "1\n1\n3\n").unwrap());
        let l = TraceLink::new(tr, false);
        // Opportunities at 1,1,3,4,4,6,7,7,9...: [0, 6 ms) holds 5 of them.
        assert_eq!(l.opportunity_bytes_between(Time::ZERO, Time::from_millis(6)), 5 * 1504);
        assert_eq!(
            l.opportunity_bytes_between(Time::from_millis(4), Time::from_millis(5)),
            2 * 1504
        );
    }

    #[test]
    fn capacity_window_counts_recent_opportunities() {
        let tr = Arc::new(Trace::parse("x", "1\n2\n3\n4\n").unwrap());
        let mut l = TraceLink::new(tr, false);
        l.keep_window(Dur::from_millis(2));
        for _ in 0..4 {
            l.take_opportunity();
        }
        // (2 ms, 4 ms] holds the opportunities at 3 and 4 ms.
        assert_eq!(l.capacity_bytes(Time::from_millis(4), Dur::from_millis(2)), 2 * 1504);
    }

    #[test]
    fn capacity_recent_counts_what_abc_counts_without_pruning() {
        use crate::queue::LinkSchedule;
        // Opportunities at 1, 1, 3, 5, 5, 5 ms; a 2 ms window, as capacity_bytes counts it:
        // (now − 2 ms, now], of several at one ms only those taken so far.
        let tr = Arc::new(Trace::parse("x", "1\n1\n3\n5\n5\n5\n").unwrap());
        let mut l = TraceLink::new(tr, false);
        l.keep_window(Dur::from_millis(2));
        let w = Dur::from_millis(2);
        let want = [1504.0, 2.0 * 1504.0, 1504.0, 1504.0, 2.0 * 1504.0, 3.0 * 1504.0];
        for (i, want) in want.into_iter().enumerate() {
            let t = l.take_opportunity();
            assert_eq!(l.capacity_recent(t, w), want, "after opportunity {i} at {t:?}");
            assert_eq!(l.capacity_bytes(t, w) as f64, want);
        }
        // Through the enum too; a rate link counts [now − w, now) of its rate, as capacity_rate.
        assert_eq!(Link::Trace(l).capacity_recent(Time::from_millis(5), w), 3.0 * 1504.0);
        let rate = Link::Rate(RateLink::constant(Rate::from_mbps(12.0)).unwrap());
        assert_eq!(rate.capacity_recent(Time::from_millis(5), w), 3000.0);
        assert_eq!(rate.capacity_recent(Time::from_millis(5), w) / 0.002, {
            let mut r = rate.clone();
            r.capacity_rate(Time::from_millis(5), w)
        });
    }

    fn serve_all(
        l: &mut TraceLink,
        now_ms: u64,
        q: &mut std::collections::VecDeque<Packet>,
        tx: &mut Option<Packet>,
    ) -> Vec<u32> {
        let mut out = Vec::new();
        l.serve(Time::from_millis(now_ms), tx, |_| q.pop_front(), |p| out.push(p.seq));
        out
    }

    fn sized(seq: u32, size: u32) -> Packet {
        let mut p = Packet::data(0, seq, size, crate::packet::Ecn::NotEct, Time::ZERO);
        p.size = size;
        p
    }

    #[test]
    fn small_packets_share_an_opportunity_and_big_ones_carry_over() {
        // One opportunity per ms. Worked by hand with Mahimahi's byte counting (1504 B each):
        // ms 1: 500+4 and 500+4 fit (496 left), the 1496-byte packet (1500 B with TUN header)
        //       takes the remaining 496 B and carries 1004 B over;
        // ms 2: it finishes (1004 B), then 400+4 fits (96 left, nothing else queued: wasted);
        // ms 3: nothing queued: the whole opportunity is wasted.
        let tr = Arc::new(Trace::parse("x", "1\n2\n3\n").unwrap());
        let mut l = TraceLink::new(tr, false);
        let mut q: std::collections::VecDeque<Packet> = [sized(0, 500), sized(1, 500), sized(2, 1496), sized(3, 400)]
            .into_iter()
            .collect();
        let mut tx = None;
        assert_eq!(serve_all(&mut l, 1, &mut q, &mut tx), vec![0, 1]);
        assert_eq!(tx.map(|p| p.seq), Some(2));
        assert_eq!(serve_all(&mut l, 2, &mut q, &mut tx), vec![2, 3]);
        q.push_back(sized(4, 100));
        assert_eq!(serve_all(&mut l, 3, &mut q, &mut tx), vec![4]);
        assert!(tx.is_none());
    }

    #[test]
    fn several_opportunities_in_one_ms_and_catch_up() {
        // Two opportunities at 1 ms and one at 3 ms; serving at 3 ms uses all three.
        let tr = Arc::new(Trace::parse("x", "1\n1\n3\n").unwrap());
        let mut l = TraceLink::new(tr, false);
        let mut q: std::collections::VecDeque<Packet> = (0..5).map(|i| sized(i, 1500)).collect();
        let mut tx = None;
        assert_eq!(serve_all(&mut l, 3, &mut q, &mut tx), vec![0, 1, 2]);
        assert_eq!(l.next_opportunity(), Some(Time::from_millis(4)));
    }

    #[test]
    fn idle_serving_skips_like_taking_opportunities_one_by_one() {
        // Wasted opportunities are skipped in bulk; the link ends up exactly where taking them
        // one at a time would leave it, with the same capacity windows.
        idle_bulk_matches_single(0, false);
    }

    /// As above, for links that start into their trace or play it once.
    #[test]
    fn idle_serving_with_an_offset_or_once_skips_like_taking_opportunities_one_by_one() {
        for (offset, once) in [(2, false), (4, false), (0, true), (2, true), (5, true)] {
            idle_bulk_matches_single(offset, once);
        }
    }

    fn idle_bulk_matches_single(offset: u64, once: bool) {
        let tr = Arc::new(Trace::parse("x", "0\n1\n1\n1\n2\n5\n5\n").unwrap());
        let (mut bulk, mut single) = (
            TraceLink::with_offset(tr.clone(), once, offset),
            TraceLink::with_offset(tr, once, offset),
        );
        bulk.keep_window(Dur::from_millis(3));
        single.keep_window(Dur::from_millis(3));
        for now_ms in [0, 1, 4, 5, 9, 17, 18] {
            let now = Time::from_millis(now_ms);
            bulk.serve(now, &mut None, |_| None, |_| panic!("nothing to send"));
            while single.next_opportunity().is_some_and(|t| t <= now) {
                single.take_opportunity();
            }
            assert_eq!(
                bulk.next_opportunity(),
                single.next_opportunity(),
                "at {now_ms} ms, offset {offset}, once {once}"
            );
            for w in [1, 2, 3] {
                let w = Dur::from_millis(w);
                assert_eq!(
                    bulk.capacity_bytes(now, w),
                    single.capacity_bytes(now, w),
                    "at {now_ms} ms, offset {offset}, once {once}"
                );
            }
        }
    }

    #[test]
    fn rate_schedule_integrates_across_steps() {
        let l = RateLink::schedule(
            vec![
                Step {
                    at: Time::ZERO,
                    rate: Rate::from_mbps(12.0),
                },
                Step {
                    at: Time::from_millis(1),
                    rate: Rate::from_mbps(24.0),
                },
            ],
            Some(Dur::from_millis(2)),
        )
        .unwrap();
        // 1500 B takes 1 ms at 12 Mbit/s; 3000 B = 1 ms at 12 + 0.5 ms at 24.
        assert_eq!(l.finish_time(Time::ZERO, 1500), Time::from_millis(1));
        assert_eq!(l.finish_time(Time::ZERO, 3000), Time::from_nanos(1_500_000));
        assert!((l.capacity_bytes_between(Time::ZERO, Time::from_millis(4)) - 9000.0).abs() < 1e-6);
        assert_eq!(l.rate_at(Time::from_millis(3)), Rate::from_mbps(24.0));
    }

    #[test]
    fn zero_rate_step_stalls_until_next_step() {
        let l = RateLink::schedule(
            vec![
                Step {
                    at: Time::ZERO,
                    rate: Rate(0.0),
                },
                Step {
                    at: Time::from_millis(10),
                    rate: Rate::from_mbps(12.0),
                },
            ],
            None,
        )
        .unwrap();
        assert_eq!(l.finish_time(Time::ZERO, 1500), Time::from_millis(11));
        assert!(RateLink::schedule(
            vec![Step {
                at: Time::ZERO,
                rate: Rate(0.0)
            }],
            None
        )
        .is_err());
        assert!(RateLink::constant(Rate(f64::NAN)).is_err());
    }

    #[test]
    fn trace_limits_and_mean_rate() {
        // The largest timestamp is accepted, one more is refused on its own line.
        assert_eq!(Trace::parse("f", "1000000000\n").unwrap().period_ms(), 1_000_000_000);
        let e = Trace::parse("f", "5\n1000000001\n").unwrap_err();
        assert!(matches!(e, Error::Trace { line: 2, .. }), "{e}");
        assert!(e.to_string().contains("larger than the maximum"), "{e}");
        assert_eq!(Trace::parse("f", "1\n2\n\n").unwrap().ms, vec![1, 2]);
        // Three 1504-byte opportunities every 4 ms: 3 · 1504 · 8 bit / 4 ms = 9.024 Mbit/s.
        let t = Trace::parse("t", "1\n1\n4\n").unwrap();
        assert_eq!(t.period_ms(), 4);
        assert!((t.mean_mbps() - 9.024).abs() < 1e-12, "{}", t.mean_mbps());
        let l = Link::Trace(TraceLink::new(Arc::new(t), false));
        assert!((l.mean_rate(Time::from_secs(3)) - 1_128_000.0).abs() < 1e-6);
    }

    #[test]
    fn trace_load_reads_regular_files_and_names_what_it_refuses() {
        let dir = std::env::temp_dir().join(format!("accelbrake-link-load-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let good = dir.join("good.up");
        std::fs::write(&good, "1\n1\n3\n").unwrap();
        let path = good.to_str().unwrap();
        let t = Trace::load(path).unwrap();
        assert_eq!((t.name.as_str(), t.ms.clone()), (path, vec![1, 1, 3]));
        let bad = dir.join("bad.up");
        std::fs::write(&bad, [b'1', b'\n', 0xff, b'\n']).unwrap();
        let e = Trace::load(bad.to_str().unwrap()).unwrap_err().to_string();
        assert!(e.contains("valid UTF-8") && e.contains("bad.up"), "{e}");
        let e = Trace::load(dir.to_str().unwrap()).unwrap_err().to_string();
        assert!(e.contains("not a regular file (it is a directory)"), "{e}");
        let e = Trace::load(dir.join("missing.up").to_str().unwrap())
            .unwrap_err()
            .to_string();
        assert!(e.contains("cannot read") && e.contains("missing.up"), "{e}");
        #[cfg(unix)]
        {
            let e = Trace::load("/dev/null").unwrap_err().to_string();
            assert!(e.contains("(it is a character device)"), "{e}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn capacity_window_prunes_at_the_horizon_and_keeps_one_entry_per_timestamp() {
        let tr = Arc::new(Trace::parse("x", "1\n1\n2\n3\n4\n").unwrap());
        let mut l = TraceLink::new(tr, false);
        l.keep_window(Dur::from_millis(1));
        l.keep_window(Dur::from_millis(3));
        l.keep_window(Dur::from_millis(2)); // the longest window is kept
        while l.next_opportunity().is_some_and(|t| t <= Time::from_millis(8)) {
            l.take_opportunity();
        }
        // Opportunities at 1,1,2,3,4 | 5,5,6,7,8: one entry per timestamp.
        let at = |ms: u64| Time::from_millis(ms);
        let recent: Vec<(Time, u64)> = l.recent.iter().copied().collect();
        assert_eq!(recent[..2], [(at(1), 2 * 1504), (at(2), 1504)]);
        assert_eq!(recent.len(), 8);
        // (5, 8] holds 6, 7, 8; the two at exactly 5 ms are out (and pruned).
        assert_eq!(l.capacity_bytes(at(8), Dur::from_millis(3)), 3 * 1504);
        assert_eq!(l.recent.front(), Some(&(at(6), 1504)));
        assert_eq!(l.capacity_bytes(at(8), Dur::from_millis(2)), 2 * 1504);
        assert_eq!(l.capacity_bytes(at(8), Dur::from_millis(1)), 1504);
        assert_eq!(l.capacity_bytes(at(9), Dur::from_millis(3)), 2 * 1504);
        assert_eq!(l.capacity_bytes(at(9), Dur::from_millis(1)), 0);
        // A link nobody asks about records nothing.
        let mut quiet = TraceLink::new(Arc::new(Trace::parse("x", "1\n").unwrap()), false);
        quiet.take_opportunity();
        assert!(quiet.recent.is_empty());
    }

    #[test]
    fn serve_timed_reports_the_opportunity_that_finished_each_packet() {
        let tr = Arc::new(Trace::parse("x", "1\n1\n3\n").unwrap());
        let mut l = TraceLink::new(tr, false);
        let mut q: std::collections::VecDeque<Packet> = [sized(0, 1500), sized(1, 1000), sized(2, 1000)].into();
        let mut tx = None;
        let mut out = Vec::new();
        l.serve_timed(
            Time::from_millis(3),
            &mut tx,
            |_| q.pop_front(),
            |t, p| out.push((t.0 / NS_PER_MS, p.seq)),
        );
        // 1504 fills the first opportunity at 1 ms; 1004 + 500 of the next 1004 fill the second;
        // the rest (504) goes at 3 ms.
        assert_eq!(out, vec![(1, 0), (1, 1), (3, 2)]);
        assert!(tx.is_none());
        assert_eq!(l.next_opportunity(), Some(Time::from_millis(4)));
    }

    fn step(ms: u64, mbps: f64) -> Step {
        Step {
            at: Time::from_millis(ms),
            rate: Rate::from_mbps(mbps),
        }
    }

    #[test]
    fn constant_rate_link_times_every_size_exactly() {
        use crate::packet::{ACK_BYTES, MTU};
        // 12 Mbit/s: 1500 B in 1 ms, 52 B in 34 666.7 ns (rounded up), 1000 B in 666 666.7 ns.
        let l = RateLink::constant(Rate::from_mbps(12.0)).unwrap();
        let t0 = Time::from_millis(5);
        assert_eq!(l.finish_time(t0, MTU), Time::from_millis(6));
        assert_eq!(l.finish_time(t0, ACK_BYTES), Time::from_nanos(5_034_667));
        assert_eq!(l.finish_time(t0, 1000), Time::from_nanos(5_666_667));
        assert_eq!(l.rate_at(Time::from_secs(100)), Rate::from_mbps(12.0));
        // A one-step schedule that repeats takes the general path, with the same results.
        let p = RateLink::schedule(vec![step(0, 12.0)], Some(Dur::from_millis(7))).unwrap();
        for b in [MTU, ACK_BYTES, 1000] {
            assert_eq!(p.finish_time(t0, b), l.finish_time(t0, b), "{b} B");
        }
    }

    #[test]
    fn repeating_schedule_worked_by_hand() {
        // 12 Mbit/s in [0, 1) ms and 24 Mbit/s in [1, 2) ms, every 2 ms.
        let l = RateLink::schedule(vec![step(0, 12.0), step(1, 24.0)], Some(Dur::from_millis(2))).unwrap();
        let ms = |x: f64| Time::from_nanos((x * 1e6).round() as u64);
        // 1500 B = 12 000 bit: 0.5 ms at 24 Mbit/s.
        assert_eq!(l.finish_time(ms(1.0), 1500), ms(1.5));
        assert_eq!(l.finish_time(ms(3.5), 1500), ms(4.0));
        // From 3.75 ms: 6000 bit at 24 Mbit/s until 4 ms, then 6000 bit at 12 Mbit/s: 4.5 ms.
        let f = l.finish_time(ms(3.75), 1500);
        assert!(f.0.abs_diff(ms(4.5).0) <= 1, "{f:?}");
        for (t, want) in [
            (0.0, 12.0),
            (0.999, 12.0),
            (1.0, 24.0),
            (4.0, 12.0),
            (4.9, 12.0),
            (5.2, 24.0),
        ] {
            assert_eq!(l.rate_at(ms(t)), Rate::from_mbps(want), "at {t} ms");
        }
        // [0.5, 4.5) ms: 0.5·12 + 24 + 12 + 24 + 0.5·12 = 72 kbit = 9000 B.
        assert!((l.capacity_bytes_between(ms(0.5), ms(4.5)) - 9000.0).abs() < 1e-6);
        assert_eq!(l.capacity_bytes_between(ms(3.0), ms(3.0)), 0.0);
    }

    #[test]
    fn a_schedule_ending_at_rate_zero_never_finishes_what_it_cannot_send() {
        let l = RateLink::schedule(vec![step(0, 12.0), step(1, 0.0)], None).unwrap();
        assert_eq!(l.finish_time(Time::ZERO, 1500), Time::from_millis(1));
        assert_eq!(l.finish_time(Time::ZERO, 3000), Time::MAX);
        assert_eq!(l.finish_time(Time::from_millis(2), 1), Time::MAX);
        // Full segments and ACKs take the general path too (only a constant link has a shortcut):
        // from 0.5 ms, half a segment fits before the rate drops to zero.
        assert_eq!(l.finish_time(Time::from_nanos(500_000), crate::packet::MTU), Time::MAX);
        assert_eq!(
            l.finish_time(Time::from_nanos(990_000), crate::packet::ACK_BYTES),
            Time::MAX
        );
        assert_eq!(
            l.finish_time(Time::from_nanos(900_000), crate::packet::ACK_BYTES),
            Time::from_nanos(934_667)
        );
    }

    #[test]
    fn rate_schedule_validation_names_each_problem() {
        let msg = |steps: Vec<Step>, period: Option<Dur>| match RateLink::schedule(steps, period) {
            Err(Error::Param { key, msg }) => {
                assert_eq!(key, "link.steps");
                msg
            }
            other => panic!("accepted: {other:?}"),
        };
        assert!(msg(vec![], None).contains("at least one step"));
        assert!(msg(vec![step(1, 12.0)], None).contains("start at time 0"));
        assert!(msg(vec![step(0, 12.0), step(0, 24.0)], None).contains("strictly increasing"));
        assert!(msg(vec![step(0, 12.0), step(2, 24.0), step(1, 6.0)], None).contains("strictly increasing"));
        for bad in [-1.0, f64::INFINITY, f64::NAN] {
            let steps = vec![
                step(0, 12.0),
                Step {
                    at: Time::from_millis(1),
                    rate: Rate(bad),
                },
            ];
            assert!(msg(steps, None).contains("finite non-negative"), "{bad}");
        }
        assert!(msg(vec![step(0, 0.0), step(1, 0.0)], None).contains("positive rate"));
        let p = Some(Dur::from_millis(1));
        assert!(msg(vec![step(0, 12.0), step(1, 24.0)], p).contains("repeat period"));
        assert!(RateLink::schedule(vec![step(0, 0.0), step(1, 24.0)], Some(Dur::from_nanos(1_000_001))).is_ok());
    }

    #[test]
    fn link_capacity_overhead_and_mean_rate_per_kind() {
        use crate::queue::LinkSchedule;
        let trace = || TraceLink::new(Arc::new(Trace::parse("x", "1\n").unwrap()), false);
        let mut tl = Link::Trace(trace());
        // 24 Mbit/s from 10 ms on, 12 before.
        let mut rl = Link::Rate(RateLink::schedule(vec![step(0, 12.0), step(10, 24.0)], None).unwrap());
        assert_eq!((tl.wire_bytes(1500), rl.wire_bytes(1500)), (1504, 1500));
        assert_eq!((LinkSchedule::overhead(&tl), LinkSchedule::overhead(&rl)), (4, 0));
        assert_eq!(LinkSchedule::overhead(&trace()), 4);
        assert_eq!((tl.held(), rl.held()), (0, 0));
        let (a, b) = (Time::from_millis(1), Time::from_millis(5));
        // Trace: opportunities at 1, 2, 3, 4 ms in [1, 5).
        assert_eq!(tl.capacity_between(a, b), 4.0 * 1504.0);
        assert_eq!(LinkSchedule::capacity_between(&tl, a, b), 4.0 * 1504.0);
        assert_eq!(LinkSchedule::capacity_between(&trace(), a, b), 4.0 * 1504.0);
        // Rate: 4 ms at 12 Mbit/s.
        assert!((rl.capacity_between(a, b) - 6000.0).abs() < 1e-9);
        assert!((LinkSchedule::capacity_between(&rl, a, b) - 6000.0).abs() < 1e-9);
        // μ over the last 2 ms: 12 Mbit/s = 1.5 MB/s before the step, 3 MB/s after it.
        assert!((rl.capacity_rate(Time::from_millis(10), Dur::from_millis(2)) - 1.5e6).abs() < 1e-3);
        assert!((rl.capacity_rate(Time::from_millis(12), Dur::from_millis(2)) - 3e6).abs() < 1e-3);
        assert!((rl.capacity_rate(Time::from_millis(11), Dur::from_millis(2)) - 2.25e6).abs() < 1e-3);
        // A zero window is one nanosecond.
        assert!((rl.capacity_rate(Time::from_millis(5), Dur::ZERO) - 1.5e6).abs() < 1e-3);
        // Trace: 2 opportunities in (2, 4] ms.
        if let Link::Trace(l) = &mut tl {
            l.keep_window(Dur::from_millis(2));
            while l.next_opportunity().is_some_and(|t| t <= Time::from_millis(4)) {
                l.take_opportunity();
            }
        }
        assert!((tl.capacity_rate(Time::from_millis(4), Dur::from_millis(2)) - 1_504_000.0).abs() < 1e-6);
        // Mean rate of the schedule over [0, 20 ms): (10·12 + 10·24) kbit / 8 / 20 ms.
        assert!((rl.mean_rate(Time::from_millis(20)) - 2.25e6).abs() < 1e-3);
        assert!(
            (rl.mean_rate(Time::ZERO) - 1.5e6).abs() < 1e-3,
            "over the first nanosecond"
        );
    }

    #[test]
    fn tun_overhead_is_charged_per_packet() {
        // Two 750-byte packets are 2 · 754 = 1508 bytes with Mahimahi's 4-byte TUN header: more
        // than one 1504-byte opportunity, so the second finishes in the next one (at 2 ms).
        let tr = Arc::new(Trace::parse("x", "1\n2\n").unwrap());
        let mut l = TraceLink::new(tr, false);
        let mut q: std::collections::VecDeque<Packet> = [sized(0, 750), sized(1, 750)].into();
        let mut tx = None;
        let mut out = Vec::new();
        l.serve_timed(
            Time::from_millis(2),
            &mut tx,
            |_| q.pop_front(),
            |t, p| out.push((t.0 / NS_PER_MS, p.seq)),
        );
        assert_eq!(out, vec![(1, 0), (2, 1)]);
    }

    #[test]
    fn trace_load_refuses_a_file_over_1_gib_from_its_size() {
        // A sparse file: nothing is written or read.
        let path = std::env::temp_dir().join(format!("accelbrake-link-big-{}.up", std::process::id()));
        let f = std::fs::File::create(&path).unwrap();
        f.set_len(MAX_TRACE_BYTES + 1).unwrap();
        drop(f);
        let e = Trace::load(path.to_str().unwrap()).unwrap_err().to_string();
        std::fs::remove_file(&path).unwrap();
        assert!(
            e.contains("1073741825 bytes; a trace file may have at most 1073741824 bytes"),
            "{e}"
        );
    }
}
