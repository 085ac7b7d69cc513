//! Streaming distributions of nanosecond values and their summary statistics: the exact
//! [`Stats::of_ns`] (Mahimahi `mm-delay-graph` percentiles: the sorted value at index
//! `floor(q·N)`) and the bounded-memory log-bucket [`Sketch`] (HDR-histogram layout, relative
//! error ≤ 2^-9), behind [`Dist`].

use serde::Serialize;

/// Sub-buckets per power of two in a [`Sketch`] (2^8): bucket width ≤ value / 256.
const SKETCH_SUB_BITS: u32 = 8;
const SKETCH_SUB: usize = 1 << SKETCH_SUB_BITS;
/// Groups: values below 256 (width 1), then one group per power of two up to 2^64.
const SKETCH_GROUPS: usize = 64 - SKETCH_SUB_BITS as usize + 1;

/// Bound on the relative error of a [`Sketch`] percentile: |reported − exact| ≤ exact · 2^-9.
pub const SKETCH_REL_ERROR: f64 = 1.0 / (2 * SKETCH_SUB) as f64;

/// A streaming distribution of non-negative integers (nanoseconds) in bounded memory: an
/// HDR-histogram-style log-bucket layout. Values below 256 get a bucket each; a value in
/// `[2^e, 2^(e+1))`, e ≥ 8, falls in one of 256 equal buckets of width `2^(e-8)` over that octave,
/// so a bucket is never wider than 1/256 of any value in it. A percentile reports the midpoint of
/// the bucket holding the exact order statistic (clamped to the exact min and max), hence is within
/// half a bucket, i.e. a relative error of at most 2^-9 ≈ 0.195 % ([`SKETCH_REL_ERROR`]).
/// Count, sum (hence mean), min and max are exact. Memory: 57 group slots plus 2 KiB per octave
/// actually used (nanosecond delays between 1 µs and 100 s touch at most 28), whatever the count.
#[derive(Clone, Debug)]
pub struct Sketch {
    count: u64,
    sum: u128,
    min: u64,
    max: u64,
    groups: Vec<Option<Box<[u64; SKETCH_SUB]>>>,
}

impl Default for Sketch {
    fn default() -> Self {
        Sketch {
            count: 0,
            sum: 0,
            min: u64::MAX,
            max: 0,
            groups: Vec::new(),
        }
    }
}

impl Sketch {
    /// (group, sub-bucket) of a value.
    #[inline]
    fn bucket(v: u64) -> (usize, usize) {
        if v < SKETCH_SUB as u64 {
            return (0, v as usize);
        }
        let e = 63 - v.leading_zeros(); // ≥ 8
        let shift = e - SKETCH_SUB_BITS;
        debug_assert!((shift as usize) < SKETCH_GROUPS);
        ((shift + 1) as usize, ((v >> shift) as usize) - SKETCH_SUB)
    }

    /// Lowest value and width of a bucket.
    fn bounds(g: usize, sub: usize) -> (u64, u64) {
        if g == 0 {
            (sub as u64, 1)
        } else {
            (((SKETCH_SUB + sub) as u64) << (g - 1), 1u64 << (g - 1))
        }
    }

    /// Add one value.
    #[inline]
    pub fn push(&mut self, v: u64) {
        self.count += 1;
        self.sum += v as u128;
        self.min = self.min.min(v);
        self.max = self.max.max(v);
        let (g, sub) = Sketch::bucket(v);
        match self.groups.get_mut(g) {
            Some(Some(grp)) => grp[sub] += 1,
            _ => self.push_new_group(g, sub),
        }
    }

    /// [`Sketch::push`] into an octave not touched before (at most once per octave).
    #[cold]
    #[inline(never)]
    fn push_new_group(&mut self, g: usize, sub: usize) {
        if self.groups.len() <= g {
            self.groups.resize_with(g + 1, || None);
        }
        self.groups[g].get_or_insert_with(|| Box::new([0; SKETCH_SUB]))[sub] += 1;
    }

    /// Number of values.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Heap bytes held (for the bounded-memory tests).
    pub fn heap_bytes(&self) -> usize {
        self.groups.capacity() * std::mem::size_of::<Option<Box<[u64; SKETCH_SUB]>>>()
            + self.groups.iter().flatten().count() * SKETCH_SUB * 8
    }

    /// The values at ranks `ranks` (ascending, each < count), each approximated by its bucket's
    /// midpoint clamped to [min, max].
    fn at_ranks<const N: usize>(&self, ranks: [u64; N]) -> [u64; N] {
        let mut out = [0; N];
        let mut k = 0;
        let mut seen = 0u64;
        'walk: for (g, grp) in self.groups.iter().enumerate() {
            let Some(grp) = grp else { continue };
            for (sub, &c) in grp.iter().enumerate() {
                if c == 0 {
                    continue;
                }
                seen += c;
                while ranks[k] < seen {
                    let (lo, w) = Sketch::bounds(g, sub);
                    out[k] = (lo + w / 2).clamp(self.min, self.max);
                    k += 1;
                    if k == N {
                        break 'walk;
                    }
                }
            }
        }
        out
    }

    /// The values at ranks `ranks` (ascending, each < count), as [`Sketch::at_ranks`].
    fn at_rank_list(&self, ranks: &[u64]) -> Vec<u64> {
        let mut out = Vec::with_capacity(ranks.len());
        let mut seen = 0u64;
        'walk: for (g, grp) in self.groups.iter().enumerate() {
            let Some(grp) = grp else { continue };
            for (sub, &c) in grp.iter().enumerate() {
                if c == 0 {
                    continue;
                }
                seen += c;
                while out.len() < ranks.len() && ranks[out.len()] < seen {
                    let (lo, w) = Sketch::bounds(g, sub);
                    out.push((lo + w / 2).clamp(self.min, self.max));
                }
                if out.len() == ranks.len() {
                    break 'walk;
                }
            }
        }
        out
    }

    /// Summary statistics in ms, each value shifted by `offset_ns` (as [`Stats::of_ns`]).
    pub fn stats(&self, offset_ns: u64) -> Stats {
        let n = self.count;
        if n == 0 {
            return Stats::of_ns(&[], 0);
        }
        let rank = |q: f64| ((q * n as f64) as u64).min(n - 1);
        let [p50, p95, p99] = self.at_ranks([rank(0.5), rank(0.95), rank(0.99)]);
        let ms = |v: u64| ((v + offset_ns) as f64) / 1e6;
        Stats {
            count: n,
            mean: (self.sum as f64 / n as f64 + offset_ns as f64) / 1e6,
            p50: ms(p50),
            p95: ms(p95),
            p99: ms(p99),
            max: ms(self.max),
        }
    }
}

/// A set of nanosecond values: every value (exact percentiles; used when per-packet records are
/// on) or a [`Sketch`] (bounded memory; records off).
#[derive(Clone, Debug)]
pub enum Dist {
    /// All values.
    Exact(Vec<u64>),
    /// A log-bucket histogram.
    Sketch(Sketch),
}

impl Default for Dist {
    fn default() -> Self {
        Dist::Sketch(Sketch::default())
    }
}

impl Dist {
    /// Exact if `exact`, else a sketch.
    pub fn new(exact: bool) -> Dist {
        if exact {
            Dist::Exact(Vec::new())
        } else {
            Dist::default()
        }
    }

    /// Add a value.
    #[inline]
    pub fn push(&mut self, v: u64) {
        match self {
            Dist::Exact(x) => x.push(v),
            Dist::Sketch(s) => s.push(v),
        }
    }

    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        match self {
            Dist::Exact(x) => x.capacity() * 8,
            Dist::Sketch(s) => s.heap_bytes(),
        }
    }

    /// Number of values.
    pub fn count(&self) -> u64 {
        match self {
            Dist::Exact(x) => x.len() as u64,
            Dist::Sketch(s) => s.count(),
        }
    }

    /// The values at quantile levels `levels` (ascending, in [0, 1]) in ms, each the value at
    /// sorted index floor(q·N) (Mahimahi's rule, as [`Stats`]); empty without values.
    pub fn quantiles_ms(&self, levels: &[f64]) -> Vec<f64> {
        let n = self.count();
        if n == 0 {
            return Vec::new();
        }
        let ranks: Vec<u64> = levels.iter().map(|&q| ((q * n as f64) as u64).min(n - 1)).collect();
        let values = match self {
            Dist::Exact(x) => {
                let mut v = x.clone();
                v.sort_unstable();
                ranks.iter().map(|&r| v[r as usize]).collect()
            }
            Dist::Sketch(s) => s.at_rank_list(&ranks),
        };
        values.into_iter().map(|v| v as f64 / 1e6).collect()
    }

    /// Summary statistics in ms, each value shifted by `offset_ns`.
    pub fn stats(&self, offset_ns: u64) -> Stats {
        match self {
            Dist::Exact(x) => Stats::of_ns(x, offset_ns),
            Dist::Sketch(s) => s.stats(offset_ns),
        }
    }
}

/// Mean, median and tail of a set of values (ms).
#[derive(Clone, Copy, Debug, Default, Serialize, PartialEq)]
pub struct Stats {
    /// Number of samples.
    pub count: u64,
    /// Mean.
    pub mean: f64,
    /// Median (index floor(0.5·N) of the sorted values).
    pub p50: f64,
    /// 95th percentile (Mahimahi: index floor(0.95·N)).
    pub p95: f64,
    /// 99th percentile.
    pub p99: f64,
    /// Maximum.
    pub max: f64,
}

impl Stats {
    /// Statistics of nanosecond values, reported in ms, each shifted by `offset_ns`.
    pub fn of_ns(values: &[u64], offset_ns: u64) -> Stats {
        if values.is_empty() {
            return Stats {
                count: 0,
                mean: f64::NAN,
                p50: f64::NAN,
                p95: f64::NAN,
                p99: f64::NAN,
                max: f64::NAN,
            };
        }
        let mut v = values.to_vec();
        v.sort_unstable();
        let n = v.len();
        let at = |q: f64| ((v[((q * n as f64) as usize).min(n - 1)] + offset_ns) as f64) / 1e6;
        let sum: u128 = v.iter().map(|&x| x as u128).sum();
        Stats {
            count: n as u64,
            mean: (sum as f64 / n as f64 + offset_ns as f64) / 1e6,
            p50: at(0.5),
            p95: at(0.95),
            p99: at(0.99),
            max: ((v[n - 1] + offset_ns) as f64) / 1e6,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

    #[test]
    fn quantiles_follow_the_index_rule_exactly_and_within_the_bound_from_a_sketch() {
        let mut rng = Rng::stream(3, 0);
        let values: Vec<u64> = (0..5000).map(|_| 1_000 + rng.below(200_000_000)).collect();
        let (mut exact, mut sketch) = (Dist::new(true), Dist::new(false));
        for &v in &values {
            exact.push(v);
            sketch.push(v);
        }
        let levels = [0.0, 0.001, 0.5, 0.95, 0.999, 1.0];
        let mut sorted = values.clone();
        sorted.sort_unstable();
        let e = exact.quantiles_ms(&levels);
        let s = sketch.quantiles_ms(&levels);
        for (i, &q) in levels.iter().enumerate() {
            let idx = ((q * 5000.0) as usize).min(4999);
            assert_eq!(e[i], sorted[idx] as f64 / 1e6, "q={q}");
            assert!(
                (s[i] - e[i]).abs() <= e[i] * SKETCH_REL_ERROR + 1e-9,
                "q={q}: {} vs {}",
                s[i],
                e[i]
            );
        }
        assert_eq!(e[0], *sorted.first().unwrap() as f64 / 1e6);
        assert_eq!(s[5], *sorted.last().unwrap() as f64 / 1e6, "clamped to the exact max");
        assert!(Dist::new(false).quantiles_ms(&levels).is_empty());
    }

    /// Sketch percentiles against exact ones (Mahimahi index) on several distributions.
    #[test]
    fn sketch_percentiles_are_within_the_documented_bound() {
        let mut rng = Rng::stream(7, 0);
        let shapes: [&dyn Fn(&mut Rng) -> u64; 5] = [
            &|r| r.below(300),                                              // exact region and the first octave
            &|r| 1_000 + r.below(200_000_000),                              // uniform µs .. 200 ms
            &|r| (-(1.0 - r.next_f64()).ln() * 3e7) as u64,                 // exponential, mean 30 ms
            &|r| (1e3 * (r.next_f64() * 25.0).exp()) as u64,                // log-uniform 1 µs .. 72 s
            &|r| if r.below(10) == 0 { 5_000_000_000 } else { 40_000_000 }, // two spikes
        ];
        for (i, shape) in shapes.iter().enumerate() {
            for n in [1usize, 2, 3, 10, 99, 1000, 54_321] {
                let v: Vec<u64> = (0..n).map(|_| shape(&mut rng)).collect();
                let mut sk = Sketch::default();
                v.iter().for_each(|&x| sk.push(x));
                for offset in [0, 100_000_000] {
                    let (e, a) = (Stats::of_ns(&v, offset), sk.stats(offset));
                    assert_eq!((e.count, e.max), (a.count, a.max), "shape {i} n {n}");
                    assert!(
                        (e.mean - a.mean).abs() <= 1e-9 * e.mean.abs().max(1.0),
                        "shape {i} n {n}"
                    );
                    for (x, y) in [(e.p50, a.p50), (e.p95, a.p95), (e.p99, a.p99)] {
                        let exact_ns = x * 1e6 - offset as f64;
                        // Reported values are whole ns, so allow half a ns of rounding as well.
                        assert!(
                            (x - y).abs() * 1e6 <= exact_ns * SKETCH_REL_ERROR + 0.5 + 1e-6,
                            "shape {i} n {n}: exact {x} ms, sketch {y} ms"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn sketch_memory_does_not_grow_with_the_count() {
        let mut sk = Sketch::default();
        let mut rng = Rng::stream(1, 1);
        for _ in 0..100_000 {
            sk.push(1_000 + rng.below(1_000_000_000));
        }
        // 1 µs .. 1 s spans 21 octaves (2^9 .. 2^30 ns): at most 21 groups of 2 KiB, however many
        // values.
        let bound = 21 * 2048 + 64 * 16;
        assert!(sk.heap_bytes() <= bound, "{} bytes", sk.heap_bytes());
        for _ in 0..2_000_000 {
            sk.push(1_000 + rng.below(1_000_000_000));
        }
        assert!(sk.heap_bytes() <= bound, "{} bytes", sk.heap_bytes());
        // Extremes land in valid buckets.
        sk.push(0);
        sk.push(u64::MAX / 2);
        assert_eq!(sk.stats(0).max, (u64::MAX / 2) as f64 / 1e6);
    }

    #[test]
    fn empty_distributions_report_nan() {
        let s = Dist::new(false).stats(0);
        assert_eq!(s.count, 0);
        assert!(s.p50.is_nan() && s.mean.is_nan());
    }

    #[test]
    fn buckets_and_their_bounds_worked_by_hand() {
        // Below 256 a bucket per value; in [2^e, 2^(e+1)) 256 buckets of width 2^(e-8).
        for (v, bucket, lo, w) in [
            (0, (0, 0), 0, 1),
            (255, (0, 255), 255, 1),
            (256, (1, 0), 256, 1),
            (511, (1, 255), 511, 1),
            (512, (2, 0), 512, 2),
            (1000, (2, 244), 1000, 2),
            (1001, (2, 244), 1000, 2),
            (3000, (4, 119), 3000, 8),
            (70_000, (9, 17), 69_888, 256),
            (u64::MAX, (56, 255), u64::MAX - (1 << 55) + 1, 1 << 55),
        ] {
            assert_eq!(Sketch::bucket(v), bucket, "{v}");
            assert_eq!(Sketch::bounds(bucket.0, bucket.1), (lo, w), "{v}");
        }
    }

    /// Five values, hand-worked: each percentile is its bucket's midpoint, clamped to the exact
    /// minimum and maximum; count, mean and max are exact; the offset shifts every value.
    #[test]
    fn sketch_percentiles_worked_by_hand() {
        let values = [3001, 1000, 70_000, 3000, 1001];
        let (mut sketch, mut exact) = (Dist::new(false), Dist::new(true));
        for v in values {
            sketch.push(v);
            exact.push(v);
        }
        assert_eq!((sketch.count(), exact.count()), (5, 5));
        // Ranks floor(q·5): 0, 1, 2, 4 (q = 1 is the last).
        let levels = [0.0, 0.2, 0.5, 1.0];
        // 1000 and 1001 share the bucket [1000, 1002) (midpoint 1001); 3000 is in [3000, 3008)
        // (3004); 70 000 in [69 888, 70 144), whose midpoint 70 016 is clamped to the max.
        assert_eq!(sketch.quantiles_ms(&levels), [1001e-6, 1001e-6, 3004e-6, 70_000e-6]);
        assert_eq!(exact.quantiles_ms(&levels), [1000e-6, 1001e-6, 3000e-6, 70_000e-6]);
        let s = sketch.stats(100);
        let e = exact.stats(100);
        assert_eq!(
            (s.count, s.p50, s.p95, s.p99, s.max),
            (5, 3104e-6, 70_100e-6, 70_100e-6, 70_100e-6)
        );
        assert_eq!(
            (e.count, e.p50, e.p95, e.p99, e.max),
            (5, 3100e-6, 70_100e-6, 70_100e-6, 70_100e-6)
        );
        // Mean (78 002 / 5 + 100) ns.
        assert!((s.mean - 15_700.4e-6).abs() < 1e-15 && (e.mean - 15_700.4e-6).abs() < 1e-15);
        // The minimum clamps a midpoint from below: 1000 alone reports 1000, not 1001.
        let mut one = Sketch::default();
        one.push(1000);
        assert_eq!(one.stats(0).p50, 1000e-6);
    }

    /// Memory, exactly: 8 bytes per group slot of the vector (a `None` or a box pointer: the
    /// niche makes `Option<Box<_>>` one pointer) plus 256 counters of 8 bytes per octave touched.
    #[test]
    fn heap_bytes_are_the_slots_plus_2_kib_per_octave_used() {
        assert_eq!(std::mem::size_of::<Option<Box<[u64; SKETCH_SUB]>>>(), 8);
        let mut sk = Sketch::default();
        assert_eq!(sk.heap_bytes(), 0);
        sk.push(0); // group 0
        sk.push(70_000); // group 9 (2^16 ≤ 70 000 < 2^17)
        sk.push(70_001); // same bucket: no new octave
        assert_eq!(sk.groups.len(), 10);
        let slots = sk.groups.capacity();
        assert!(slots >= 10);
        assert_eq!(sk.heap_bytes(), slots * 8 + 2 * 2048);
        // The same through `Dist`; an exact `Dist` holds 8 bytes per value slot.
        let mut d = Dist::new(false);
        for v in [0, 70_000, 70_001] {
            d.push(v);
        }
        let Dist::Sketch(inner) = &d else { unreachable!() };
        assert_eq!(d.heap_bytes(), inner.groups.capacity() * 8 + 2 * 2048);
        let mut e = Dist::new(true);
        assert_eq!(e.heap_bytes(), 0);
        for v in [5, 6, 7] {
            e.push(v);
        }
        let Dist::Exact(x) = &e else { unreachable!() };
        assert!(x.capacity() >= 3);
        assert_eq!(e.heap_bytes(), x.capacity() * 8);
        assert_eq!((d.count(), e.count()), (3, 3));
    }

    /// The documented bound is 2^-9 and it is reached: 512 and 513 share the bucket [512, 514)
    /// (width 2), whose midpoint 513 is reported for the rank of 512, an error of 1/512.
    #[test]
    fn the_error_bound_is_two_to_the_minus_nine_and_is_reached() {
        assert_eq!(SKETCH_REL_ERROR, 2f64.powi(-9));
        let mut d = Dist::new(false);
        for v in [512, 513, 513] {
            d.push(v);
        }
        let q = d.quantiles_ms(&[0.0]);
        assert_eq!(q, [513e-6]);
        assert_eq!(((q[0] * 1e6).round() - 512.0) / 512.0, SKETCH_REL_ERROR);
    }
}
