//! An 802.11n-style A-MPDU aggregation link (downlink from the access point to one or more users)
//! and ABC's Wi-Fi link-rate estimator (ABC paper, NSDI 2020, §5.1, Eqs. 5–8).
//!
//! **The link.** When the air is free and frames are waiting, the access point sends one A-MPDU to
//! one user: `b = min(frames queued for that user, M)` frames (and at most 65,535 bytes). The batch
//! occupies the air for the contention and overhead time `h` (AIFS, a random backoff, the HT
//! preamble, SIFS, the block ACK, optional extra jitter) plus the PHY time of its `b` subframes at
//! the rate `R` of the user's MCS; all its frames are delivered at the block ACK. Users are picked
//! round-robin among those with frames. Two queueing disciplines:
//!
//! * `shared` (the paper's experiments): the hop's one queue (e.g. the ABC router) is a FIFO for
//!   every user. When the air becomes free the MAC pulls frames from it into per-user aggregation
//!   buffers of at most `M` frames each (what the driver does below the qdisc); the first frame
//!   that does not fit its user's buffer waits at the MAC for the next batch.
//! * `per-user`: one queue per user (each a copy of the hop's queue type, e.g. one ABC router per
//!   user), served round-robin one batch at a time.
//!
//! **The estimator** ([`Estimator`]), at each block ACK of a batch of `b` frames of `S` bits:
//! `cr = b·S/T_IA(b)` (Eq. 5), `T̂_IA(M) = T_IA(b) + (M − b)·S/R` (Eq. 8) and
//! `μ̂ = M·S/T̂_IA(M)` (Eq. 6); the per-batch values are averaged over a sliding window of
//! `T = 40 ms` (weighted by `T̂_IA(M)`, so the average is `Σ M·S / Σ T̂_IA(M)`) and capped at twice
//! the current rate (bytes handed to the MAC over the same window). Shared FIFO: one aggregate
//! estimate, `T_IA` is the gap between any two block ACKs; per-user queues: one estimate per user,
//! `T_IA` is the gap between that user's block ACKs (other users' airtime counts as overhead).
//! Time with nothing to send is not service time: `T_IA` is measured from the later of the
//! previous block ACK and the arrival at the hop of the batch's oldest frame (see `docs/wifi.md`:
//! the paper does not say how it treats idle gaps; counting them would make μ̂ follow the sending
//! rate, which contradicts its Fig. 6).
//!
//! **Ground truth** ([`WifiLink::truth_rate`]): what backlogged users would get,
//! `Σ_u M_u·S / Σ_u (h̄_u + airtime(M_u·S, R_u))` for the aggregate (round-robin over all users,
//! each sending full batches), `M_x·S / Σ_u (…)` for user `x`; one user: `M·S/(h̄ + M·S/R)`.
//!
//! Everything takes `now` and returns decisions; randomness (backoff, jitter, the Brownian MCS
//! walk) comes from seeded [`Rng`] streams.
//!
//! ## 802.11n constants and their sources
//! | constant | value | source |
//! |---|---|---|
//! | aSlotTime | 9 µs | IEEE 802.11-2016 Table 19-25 (HT PHY, 5 GHz / short slot); ns-3 `OFDM_SLOT_TIME_20MHZ` |
//! | aSIFSTime | 16 µs | IEEE 802.11-2016 Table 19-25; ns-3 `OFDM_SIFS_TIME_20MHZ` (Table 17-21 of 802.11-2020) |
//! | AIFSN (AC_BE) | 3 → AIFS = SIFS + 3·slot = 43 µs | IEEE 802.11-2016 Table 9-137 (default EDCA set); ns-3 `ConfigureDcf` `AC_BE: SetAifsn(3)` |
//! | CWmin (AC_BE) | 15 (backoff uniform in 0..=15 slots) | aCWmin of the OFDM PHY, IEEE 802.11-2016 Table 17-21; AC_BE uses aCWmin |
//! | HT-mixed preamble | 36 µs (L-STF+L-LTF 16, L-SIG 4, HT-SIG 8, HT-STF 4, one HT-LTF 4) | ns-3 `HtPhy::GetDuration`, `GetTrainingDuration`, `GetHtSigDuration`; IEEE 802.11-2016 §19.3.2 |
//! | OFDM symbol | 3.2 µs + GI (0.8 µs, or 0.4 µs short GI) | ns-3 `HtPhy::GetSymbolDuration` |
//! | SERVICE + tail bits | 16 + 6 | ns-3 `HtPhy::GetPayloadDuration` (IEEE 802.11-2016 Eq. 19-32) |
//! | data subcarriers | 52 (20 MHz), 108 (40 MHz) | ns-3 `HtPhy::GetUsableSubcarriers` |
//! | MCS 0–7 (1 stream) | BPSK ½, QPSK ½, QPSK ¾, 16-QAM ½, 16-QAM ¾, 64-QAM ⅔, 64-QAM ¾, 64-QAM ⅚ | IEEE 802.11-2016 Tables 19-27 (20 MHz) and 19-31 (40 MHz): 6.5 … 65 Mbit/s at 20 MHz, long GI |
//! | block ACK | compressed, 32 bytes, non-HT OFDM at the highest basic rate (6/12/24 Mbit/s) ≤ the MCS's non-HT reference rate: 68/44/32 µs | ns-3 `GetBlockAckSize(COMPRESSED)`; ns-3 `HtPhy::GetNonHtReferenceRate`; TXTIME = 20 µs + 4 µs·⌈(16 + 8·32 + 6)/N_DBPS⌉ (IEEE 802.11-2016 §17.4.3) |
//! | MPDU overhead | 4 (delimiter) + 26 (QoS header) + 8 (LLC/SNAP) + 4 (FCS), padded to 4 bytes: 1544 bytes for a 1500-byte packet | IEEE 802.11-2016 §9.7.1 (A-MPDU subframe), §9.3.2.1; ns-3 `MpduAggregator::GetSizeIfAggregated` |
//! | max A-MPDU | 65,535 bytes | IEEE 802.11-2016 §9.4.2.56.3 (Maximum A-MPDU Length Exponent 3) |
//! | M default | 32 frames | ath9k's default aggregation limit (`ATH_AMPDU_SUBFRAME_DEFAULT`), the paper's router is an ath9k NETGEAR WNDR3800 (§7.1) |

use crate::error::{Error, Result};
use crate::packet::Packet;
use crate::queue::{LinkInfo, Queue, QueueStats};
use crate::rng::Rng;
use crate::time::{Dur, Time, NS_PER_MS};
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// aSlotTime, 9 µs (IEEE 802.11-2016 Table 19-25; ns-3 `OFDM_SLOT_TIME_20MHZ`).
pub const SLOT: Dur = Dur::from_micros(9);
/// aSIFSTime, 16 µs (IEEE 802.11-2016 Table 19-25; ns-3 `OFDM_SIFS_TIME_20MHZ`).
pub const SIFS: Dur = Dur::from_micros(16);
/// AIFSN of AC_BE, 3 (IEEE 802.11-2016 Table 9-137; ns-3 `ConfigureDcf`).
pub const AIFSN_BE: u64 = 3;
/// CWmin of AC_BE, 15 slots (aCWmin of the OFDM PHY, IEEE 802.11-2016 Table 17-21).
pub const CW_MIN_BE: u64 = 15;
/// HT-mixed-format preamble for one spatial stream, 36 µs (ns-3 `HtPhy::GetDuration`).
pub const HT_PREAMBLE: Dur = Dur::from_micros(36);
/// SERVICE field bits (16) plus BCC tail bits (6) of a PPDU (ns-3 `HtPhy::GetPayloadDuration`).
pub const SERVICE_TAIL_BITS: u64 = 22;
/// Compressed block ACK frame, 32 bytes (ns-3 `GetBlockAckSize(COMPRESSED_BLOCK_ACK)`).
pub const BLOCK_ACK_BYTES: u64 = 32;
/// Per-MPDU bytes besides the IP packet: A-MPDU delimiter 4, QoS data header 26, LLC/SNAP 8,
/// FCS 4 (IEEE 802.11-2016 §9.7.1, §9.3.2.1); the subframe is then padded to 4 bytes.
pub const MPDU_OVERHEAD: u32 = 42;
/// Largest A-MPDU, bytes (IEEE 802.11-2016 §9.4.2.56.3, exponent 3).
pub const MAX_AMPDU_BYTES: u64 = 65_535;
/// Default frames per batch M (ath9k `ATH_AMPDU_SUBFRAME_DEFAULT`).
pub const DEFAULT_M: u32 = 32;
/// Default estimator window T (ABC paper §5.1: "we use T = 40 ms").
pub const DEFAULT_WINDOW_MS: f64 = 40.0;
/// Most per-batch rows a link keeps for the `wifi_batches` table (bounded memory; later batches
/// are counted but not logged).
pub const MAX_BATCH_ROWS: usize = 1_000_000;

/// Data bits per OFDM symbol (N_DBPS) of HT MCS 0–7, one spatial stream, 20 MHz (52 data
/// subcarriers × bits per subcarrier × code rate; IEEE 802.11-2016 Table 19-27).
const NDBPS_20: [u64; 8] = [26, 52, 78, 104, 156, 208, 234, 260];
/// The same at 40 MHz (108 data subcarriers; IEEE 802.11-2016 Table 19-31).
const NDBPS_40: [u64; 8] = [54, 108, 162, 216, 324, 432, 486, 540];
/// Non-HT reference rate of HT MCS 0–7, Mbit/s (ns-3 `HtPhy::GetNonHtReferenceRate`).
const NON_HT_REF_MBPS: [u64; 8] = [6, 12, 18, 24, 36, 48, 54, 54];

/// Size on air of one A-MPDU subframe carrying an IP packet of `ip_bytes`.
pub fn subframe_bytes(ip_bytes: u32) -> u32 {
    (ip_bytes + MPDU_OVERHEAD).div_ceil(4) * 4
}

/// Block ACK duration for a batch sent at HT `mcs` (see the module's table).
pub fn block_ack_time(mcs: u8) -> Dur {
    let reference = NON_HT_REF_MBPS[mcs as usize];
    // Basic rates 6, 12, 24 Mbit/s: N_DBPS 24, 48, 96 (IEEE 802.11-2016 Table 17-4).
    let ndbps = if reference >= 24 {
        96
    } else if reference >= 12 {
        48
    } else {
        24
    };
    let symbols = (16 + 8 * BLOCK_ACK_BYTES + 6).div_ceil(ndbps);
    Dur::from_micros(20 + 4 * symbols)
}

/// PHY parameters shared by a link's users.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Phy {
    /// Channel width, 20 or 40 MHz.
    pub width_mhz: u32,
    /// Short (400 ns) guard interval.
    pub short_gi: bool,
}

impl Phy {
    fn ndbps(&self, mcs: u8) -> u64 {
        if self.width_mhz == 40 {
            NDBPS_40[mcs as usize]
        } else {
            NDBPS_20[mcs as usize]
        }
    }
    fn symbol(&self) -> Dur {
        Dur(if self.short_gi { 3600 } else { 4000 })
    }
    /// PHY rate R of `mcs`, bit/s.
    pub fn rate_bps(&self, mcs: u8) -> f64 {
        self.ndbps(mcs) as f64 * 1e9 / self.symbol().0 as f64
    }
    /// Time on air of the data field of an A-MPDU of `bytes` (whole OFDM symbols).
    pub fn data_time(&self, mcs: u8, bytes: u64) -> Dur {
        let symbols = (SERVICE_TAIL_BITS + 8 * bytes).div_ceil(self.ndbps(mcs));
        Dur(symbols * self.symbol().0)
    }
    /// Fixed part of the overhead: AIFS, preamble, SIFS and block ACK (no backoff, no jitter).
    pub fn fixed_overhead(&self, mcs: u8) -> Dur {
        SIFS + SLOT.saturating_mul(AIFSN_BE) + HT_PREAMBLE + SIFS + block_ack_time(mcs)
    }
}

/// An MCS schedule as a scenario gives it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "lowercase", deny_unknown_fields)]
pub enum McsSpec {
    /// One MCS throughout.
    Fixed {
        /// HT MCS index 0–7.
        mcs: u8,
    },
    /// Cycle through `values`, each held for `period_ms` (the paper's Fig. 9: 1 and 7 every 2 s).
    Alternate {
        /// MCS indices 0–7, in order.
        values: Vec<u8>,
        /// How long each holds, ms.
        period_ms: f64,
    },
    /// A bounded random walk: every `period_ms` the MCS moves one step up or down with equal
    /// probability, reflected at `min` and `max` (the paper's Fig. 16: [3, 7] every 2 s).
    Brownian {
        /// Lowest MCS.
        min: u8,
        /// Highest MCS.
        max: u8,
        /// MCS at time 0 (default: the middle of [min, max], rounded down).
        #[serde(default)]
        start: Option<u8>,
        /// Time between steps, ms (at least 100).
        period_ms: f64,
    },
    /// A file of `time_ms mcs` lines (first at 0, times increasing); the last value holds.
    File {
        /// File path.
        path: String,
    },
}

/// One user (receiver) of a Wi-Fi link.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WifiUserSpec {
    /// The user's MCS over time.
    pub mcs: McsSpec,
    /// Most frames per A-MPDU (M) negotiated with this user (default 32, ath9k).
    #[serde(default = "default_m")]
    pub max_batch: u32,
}

fn default_m() -> u32 {
    DEFAULT_M
}

fn err(key: &str, msg: String) -> Error {
    Error::Param { key: key.into(), msg }
}

fn check_mcs(key: &str, m: u8) -> Result<()> {
    if m > 7 {
        return Err(err(
            key,
            format!("got {m}; expected an HT MCS index 0–7 (one spatial stream)"),
        ));
    }
    Ok(())
}

/// A user's MCS schedule, ready to answer "which MCS at t".
#[derive(Clone, Debug)]
enum Schedule {
    /// Steps (start time, MCS), first at 0.
    Steps(Vec<(Time, u8)>),
    /// `values[(t / period) mod len]`.
    Cycle(Vec<u8>, Dur),
    /// One MCS per period.
    Walk(Vec<u8>, Dur),
}

impl Schedule {
    fn build(spec: &McsSpec, key: &str, end: Time, rng: &mut Rng) -> Result<Schedule> {
        Ok(match spec {
            McsSpec::Fixed { mcs } => {
                check_mcs(&format!("{key}.mcs"), *mcs)?;
                Schedule::Steps(vec![(Time::ZERO, *mcs)])
            }
            McsSpec::Alternate { values, period_ms } => {
                if values.is_empty() {
                    return Err(err(&format!("{key}.values"), "at least one MCS index".into()));
                }
                for (i, v) in values.iter().enumerate() {
                    check_mcs(&format!("{key}.values[{i}]"), *v)?;
                }
                crate::error::check_range(&format!("{key}.period_ms"), *period_ms, 1.0, 1e9, "a period ≥ 1 ms")?;
                Schedule::Cycle(values.clone(), Dur::from_millis_f64(*period_ms))
            }
            McsSpec::Brownian {
                min,
                max,
                start,
                period_ms,
            } => {
                check_mcs(&format!("{key}.min"), *min)?;
                check_mcs(&format!("{key}.max"), *max)?;
                if min > max {
                    return Err(err(&format!("{key}.max"), format!("got {max}; expected ≥ min ({min})")));
                }
                crate::error::check_range(&format!("{key}.period_ms"), *period_ms, 100.0, 1e9, "a period ≥ 100 ms")?;
                let s = start.unwrap_or((min + max) / 2);
                if s < *min || s > *max {
                    return Err(err(
                        &format!("{key}.start"),
                        format!("got {s}; expected within [{min}, {max}]"),
                    ));
                }
                let period = Dur::from_millis_f64(*period_ms);
                let n = (end.0 / period.0 + 1) as usize;
                let mut walk = Vec::with_capacity(n);
                let mut m = s;
                for _ in 0..n {
                    walk.push(m);
                    if min == max {
                        continue;
                    }
                    let up = rng.below(2) == 1;
                    m = match (up, m) {
                        (true, x) if x == *max => x - 1,
                        (true, x) => x + 1,
                        (false, x) if x == *min => x + 1,
                        (false, x) => x - 1,
                    };
                }
                Schedule::Walk(walk, period)
            }
            McsSpec::File { path } => {
                let text = std::fs::read_to_string(path)
                    .map_err(|e| err(&format!("{key}.path"), format!("cannot read '{path}': {e}")))?;
                let mut steps = Vec::new();
                for (i, line) in text.lines().enumerate() {
                    let line = line.trim();
                    if line.is_empty() || line.starts_with('#') {
                        continue;
                    }
                    let bad = || {
                        err(
                            &format!("{key}.path"),
                            format!("{path}:{}: expected 'time_ms mcs', found '{line}'", i + 1),
                        )
                    };
                    let mut it = line.split_whitespace();
                    let t: f64 = it.next().and_then(|x| x.parse().ok()).ok_or_else(bad)?;
                    let m: u8 = it.next().and_then(|x| x.parse().ok()).ok_or_else(bad)?;
                    if it.next().is_some() || !(t.is_finite() && t >= 0.0) {
                        return Err(bad());
                    }
                    check_mcs(&format!("{key}.path ({path}:{})", i + 1), m)?;
                    let at = Time(Dur::from_millis_f64(t).0);
                    if steps.last().is_some_and(|&(p, _)| at <= p) {
                        return Err(err(
                            &format!("{key}.path"),
                            format!("{path}:{}: times must increase", i + 1),
                        ));
                    }
                    if steps.is_empty() && at != Time::ZERO {
                        return Err(err(
                            &format!("{key}.path"),
                            format!("{path}: the first line must be at 0 ms"),
                        ));
                    }
                    steps.push((at, m));
                }
                if steps.is_empty() {
                    return Err(err(&format!("{key}.path"), format!("{path}: no 'time_ms mcs' lines")));
                }
                Schedule::Steps(steps)
            }
        })
    }

    /// The MCS at `t` and when it next changes (`Time::MAX` if never).
    fn at(&self, t: Time) -> (u8, Time) {
        match self {
            Schedule::Steps(s) => {
                let i = s.partition_point(|&(a, _)| a <= t) - 1;
                (s[i].1, s.get(i + 1).map_or(Time::MAX, |&(a, _)| a))
            }
            Schedule::Cycle(v, p) => {
                let k = t.0 / p.0;
                (v[(k % v.len() as u64) as usize], Time((k + 1) * p.0))
            }
            Schedule::Walk(v, p) => {
                let k = (t.0 / p.0) as usize;
                (v[k.min(v.len() - 1)], Time((k as u64 + 1) * p.0))
            }
        }
    }
}

/// ABC's Wi-Fi link-rate estimator (§5.1): per-batch samples averaged over a sliding window,
/// capped at twice the current rate.
#[derive(Clone, Debug)]
pub struct Estimator {
    window: Dur,
    /// (block-ACK time, M·S bits, T̂_IA(M) ns) of the batches in the window.
    samples: VecDeque<(Time, f64, f64)>,
    sum_bits: f64,
    sum_t: f64,
    /// Bytes handed to the MAC (time, bytes), for the current rate of the cap.
    sent: VecDeque<(Time, u64)>,
    sent_bytes: u64,
    /// Last uncapped estimate, bytes/s (held when the window is empty).
    held: f64,
}

impl Estimator {
    /// An estimator with window `window`, starting from `initial` bytes/s (before any batch).
    pub fn new(window: Dur, initial: f64) -> Estimator {
        Estimator {
            window,
            samples: VecDeque::new(),
            sum_bits: 0.0,
            sum_t: 0.0,
            sent: VecDeque::new(),
            sent_bytes: 0,
            held: initial,
        }
    }

    /// One block ACK: a batch of `b` frames of `batch_bytes` in total, `t_ia` after the previous
    /// block ACK (or after the batch was formed, if the air was idle), with room for `m` frames
    /// at PHY rate `rate_bps`. Returns the per-batch (cr, μ̂) in bytes/s (Eqs. 5, 6, 8).
    pub fn on_block_ack(
        &mut self,
        now: Time,
        b: u32,
        batch_bytes: u64,
        t_ia: Dur,
        m: u32,
        rate_bps: f64,
    ) -> (f64, f64) {
        let s_bits = 8.0 * batch_bytes as f64 / b as f64;
        let t_ia_ns = t_ia.0.max(1) as f64;
        let cr = 8.0 * batch_bytes as f64 / t_ia_ns * 1e9 / 8.0;
        // Eq. 8: T̂_IA(M) = T_IA(b) + (M − b)·S/R (b never exceeds M).
        let t_hat = t_ia_ns + (m.saturating_sub(b)) as f64 * s_bits / rate_bps * 1e9;
        let ms_bits = m as f64 * s_bits;
        let mu = ms_bits / t_hat * 1e9 / 8.0; // Eq. 6
        self.samples.push_back((now, ms_bits, t_hat));
        self.sum_bits += ms_bits;
        self.sum_t += t_hat;
        self.expire(now);
        (cr, mu)
    }

    /// Bytes handed to the MAC at `now` (they count in the current rate of the cap).
    pub fn on_sent(&mut self, now: Time, bytes: u64) {
        self.sent.push_back((now, bytes));
        self.sent_bytes += bytes;
    }

    fn expire(&mut self, now: Time) {
        // Within the first window nothing expires (a sample at time 0 is in (now − T, now]).
        let Some(horizon) = now.0.checked_sub(self.window.0) else {
            if self.sum_t > 0.0 {
                self.held = self.sum_bits / self.sum_t * 1e9 / 8.0;
            }
            return;
        };
        while let Some(&(t, bits, th)) = self.samples.front() {
            if t.0 > horizon || self.samples.len() == 1 {
                break;
            }
            self.samples.pop_front();
            self.sum_bits -= bits;
            self.sum_t -= th;
        }
        if self.sum_t > 0.0 && !self.samples.is_empty() {
            self.held = self.sum_bits / self.sum_t * 1e9 / 8.0;
        }
        while let Some(&(t, b)) = self.sent.front() {
            if t.0 > horizon {
                break;
            }
            self.sent.pop_front();
            self.sent_bytes -= b;
        }
    }

    /// The uncapped average μ̂ (bytes/s) at `now`: the window's `Σ M·S / Σ T̂_IA(M)`, or the last
    /// one if no block ACK came in the window.
    pub fn uncapped(&mut self, now: Time) -> f64 {
        self.expire(now);
        self.held
    }

    /// The current rate of the cap: bytes handed to the MAC over the window, bytes/s.
    pub fn current_rate(&mut self, now: Time) -> f64 {
        self.expire(now);
        self.sent_bytes as f64 / self.window.secs_f64()
    }

    /// The estimate the router uses: `min(μ̂, 2·current rate)`, bytes/s.
    pub fn estimate(&mut self, now: Time) -> f64 {
        let mu = self.uncapped(now);
        mu.min(2.0 * self.current_rate(now))
    }
}

/// Queueing discipline of a Wi-Fi link.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Discipline {
    /// One FIFO (the hop's queue) for every user.
    Shared,
    /// One queue per user, batches round-robin.
    PerUser,
}

/// One row of the per-batch log.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BatchRow {
    /// Block-ACK time.
    pub at: Time,
    /// User.
    pub user: u32,
    /// MCS used.
    pub mcs: u8,
    /// Frames in the batch (b).
    pub b: u32,
    /// Bytes on air (subframes).
    pub bytes: u64,
    /// Batch airtime (overhead + data).
    pub airtime: Dur,
    /// T_IA(b) for the shared estimator (gap since the previous block ACK of any user, idle excluded).
    pub t_ia: Dur,
    /// T_IA(b) of this user (gap since this user's previous block ACK, idle excluded).
    pub t_ia_user: Dur,
    /// Per-batch cr and μ̂ of the shared estimator, bytes/s.
    pub cr: f64,
    /// Per-batch μ̂ (shared), bytes/s.
    pub mu_batch: f64,
    /// Smoothed, capped shared estimate after this batch, bytes/s.
    pub mu_hat: f64,
    /// Smoothed, capped estimate of this user, bytes/s.
    pub mu_hat_user: f64,
    /// Ground truth (aggregate), bytes/s.
    pub truth: f64,
    /// Ground truth of this user, bytes/s.
    pub truth_user: f64,
}

#[derive(Clone, Debug)]
struct User {
    schedule: Schedule,
    m: u32,
    /// Frames waiting at the MAC for this user (shared discipline) and their bytes on air.
    staged: VecDeque<Packet>,
    staged_bytes: u64,
    /// A frame pulled from this user's queue that did not fit its batch (per-user discipline).
    carry: Option<Packet>,
    last_ack: Option<Time>,
    est: Estimator,
}

/// A batch on the air.
#[derive(Clone, Debug)]
struct Batch {
    user: usize,
    mcs: u8,
    frames: Vec<Packet>,
    bytes: u64,
    formed: Time,
    /// When the batch's oldest frame reached the hop.
    oldest: Time,
    end: Time,
}

/// The 802.11n aggregation link.
#[derive(Clone, Debug)]
pub struct WifiLink {
    phy: Phy,
    discipline: Discipline,
    users: Vec<User>,
    user_of_flow: Option<Vec<u32>>,
    jitter: Dur,
    rng: Rng,
    /// The frame that did not fit its user's aggregation buffer (shared discipline).
    carry: Option<Packet>,
    batch: Option<Batch>,
    next_user: usize,
    last_ack: Option<Time>,
    shared: Estimator,
    held_packets: usize,
    /// Per-batch log (at most [`MAX_BATCH_ROWS`]).
    pub log: Vec<BatchRow>,
    /// Batches sent.
    pub batches: u64,
}

/// Everything a scenario says about a Wi-Fi link, checked.
#[derive(Clone, Debug)]
pub struct WifiConfig {
    /// PHY.
    pub phy: Phy,
    /// Discipline.
    pub discipline: Discipline,
    /// Users.
    pub users: Vec<WifiUserSpec>,
    /// Flow → user (by flow id); default flow id mod users.
    pub user_of_flow: Option<Vec<u32>>,
    /// Extra overhead jitter bound (uniform in [0, jitter]).
    pub jitter: Dur,
    /// Estimator window T.
    pub window: Dur,
}

impl WifiLink {
    /// A link from a checked config; `key` names it in errors, `end` is the end of the run (the
    /// Brownian walks are drawn up to it), `rng` its random stream.
    pub fn new(cfg: &WifiConfig, key: &str, end: Time, mut rng: Rng) -> Result<WifiLink> {
        if cfg.users.is_empty() {
            return Err(err(&format!("{key}.users"), "at least one user".into()));
        }
        let mut users = Vec::new();
        for (i, u) in cfg.users.iter().enumerate() {
            let k = format!("{key}.users[{i}]");
            if !(1..=64).contains(&u.max_batch) {
                return Err(err(
                    &format!("{k}.max_batch"),
                    format!(
                        "got {}; expected a whole number of frames in [1, 64] (802.11n block-ACK window)",
                        u.max_batch
                    ),
                ));
            }
            let schedule = Schedule::build(&u.mcs, &format!("{k}.mcs"), end, &mut rng)?;
            users.push(User {
                schedule,
                m: u.max_batch,
                staged: VecDeque::new(),
                staged_bytes: 0,
                carry: None,
                last_ack: None,
                est: Estimator::new(cfg.window, 0.0),
            });
        }
        if let Some(map) = &cfg.user_of_flow {
            for (i, &u) in map.iter().enumerate() {
                if u as usize >= users.len() {
                    return Err(err(
                        &format!("{key}.user_of_flow[{i}]"),
                        format!("got {u}; expected a user index below {}", users.len()),
                    ));
                }
            }
        }
        let mut link = WifiLink {
            phy: cfg.phy,
            discipline: cfg.discipline,
            users,
            user_of_flow: cfg.user_of_flow.clone(),
            jitter: cfg.jitter,
            rng,
            carry: None,
            batch: None,
            next_user: 0,
            last_ack: None,
            shared: Estimator::new(cfg.window, 0.0),
            held_packets: 0,
            log: Vec::new(),
            batches: 0,
        };
        // Before the first block ACK the estimators start from the ground truth at time 0 (the
        // router knows the MCS it has chosen; the paper does not say how it starts).
        link.shared.held = link.truth_rate(Time::ZERO, None);
        for u in 0..link.users.len() {
            let t = link.truth_rate(Time::ZERO, Some(u));
            link.users[u].est.held = t;
        }
        Ok(link)
    }

    /// Number of users.
    pub fn users(&self) -> usize {
        self.users.len()
    }

    /// The discipline.
    pub fn discipline(&self) -> Discipline {
        self.discipline
    }

    /// The user a flow's packets go to.
    pub fn user_of(&self, flow: u32) -> usize {
        match &self.user_of_flow {
            Some(m) => m
                .get(flow as usize)
                .map_or(flow as usize % self.users.len(), |&u| u as usize),
            None => flow as usize % self.users.len(),
        }
    }

    /// Whether a batch is on the air.
    pub fn busy(&self) -> bool {
        self.batch.is_some()
    }

    /// Packets the link holds (on the air, staged at the MAC or carried over).
    pub fn held(&self) -> usize {
        self.held_packets
    }

    /// When the batch on the air ends (its block ACK).
    pub fn batch_end(&self) -> Option<Time> {
        self.batch.as_ref().map(|b| b.end)
    }

    /// The MCS of `user` at `t`.
    pub fn mcs_at(&self, user: usize, t: Time) -> u8 {
        self.users[user].schedule.at(t).0
    }

    /// Mean overhead h̄ of a batch at `mcs`: fixed part + mean backoff (CWmin/2 slots) + mean jitter.
    pub fn mean_overhead(&self, mcs: u8) -> f64 {
        self.phy.fixed_overhead(mcs).0 as f64 + CW_MIN_BE as f64 / 2.0 * SLOT.0 as f64 + self.jitter.0 as f64 / 2.0
    }

    /// PHY.
    pub fn phy(&self) -> Phy {
        self.phy
    }

    /// Ground truth at `t`, bytes/s: aggregate (`None`) or of one user, as the module describes.
    pub fn truth_rate(&self, t: Time, user: Option<usize>) -> f64 {
        let s = subframe_bytes(crate::packet::MTU) as u64;
        let mut cycle = 0.0;
        let mut bytes = 0.0;
        for u in &self.users {
            let mcs = u.schedule.at(t).0;
            let m = effective_m(u.m, s);
            cycle += self.mean_overhead(mcs) + self.phy.data_time(mcs, m as u64 * s).0 as f64;
            bytes += (m as u64 * s) as f64;
        }
        let num = match user {
            None => bytes,
            Some(x) => (effective_m(self.users[x].m, s) as u64 * s) as f64,
        };
        num / cycle * 1e9
    }

    /// When any user's MCS next changes after `t`.
    fn next_change(&self, t: Time) -> Time {
        self.users.iter().map(|u| u.schedule.at(t).1).min().unwrap_or(Time::MAX)
    }

    /// Ground-truth bytes over `[from, to)` (the integral of [`WifiLink::truth_rate`]).
    pub fn truth_between(&self, from: Time, to: Time) -> f64 {
        let mut total = 0.0;
        let mut t = from;
        while t < to {
            let stop = self.next_change(t).min(to);
            total += self.truth_rate(t, None) * (stop - t).secs_f64();
            t = stop;
        }
        total
    }

    /// The estimate the router of `user`'s queue uses (shared discipline: the aggregate one).
    pub fn estimate(&mut self, now: Time, user: Option<usize>) -> f64 {
        match (self.discipline, user) {
            (Discipline::PerUser, Some(u)) => self.users[u].est.estimate(now),
            _ => self.shared.estimate(now),
        }
    }

    fn fits(&self, u: usize, n: usize, bytes: u64, p: &Packet) -> bool {
        let m = self.users[u].m as usize;
        n < m && bytes + subframe_bytes(p.size) as u64 <= MAX_AMPDU_BYTES
    }

    /// The air is free at `now`: form the next batch. `pull(user, capacity)` takes the next packet
    /// from the shared queue (`None`) or from `user`'s queue, giving the queue the link's current
    /// estimate (bytes/s). Returns the block-ACK time of the batch, or `None` if nothing waits.
    pub fn start_batch(
        &mut self,
        now: Time,
        mut pull: impl FnMut(Option<usize>, f64) -> Option<Packet>,
    ) -> Option<Time> {
        debug_assert!(self.batch.is_none());
        let n = self.users.len();
        let (user, frames) = match self.discipline {
            Discipline::Shared => {
                // Fill the per-user aggregation buffers from the FIFO until a frame does not fit.
                loop {
                    let p = match self.carry.take() {
                        Some(p) => p,
                        None => {
                            let cap = self.shared.estimate(now);
                            match pull(None, cap) {
                                Some(p) => {
                                    self.held_packets += 1;
                                    let sb = subframe_bytes(p.size) as u64;
                                    self.shared.on_sent(now, sb);
                                    let u = self.user_of(p.flow);
                                    self.users[u].est.on_sent(now, sb);
                                    p
                                }
                                None => break,
                            }
                        }
                    };
                    let u = self.user_of(p.flow);
                    let (len, bytes) = (self.users[u].staged.len(), self.users[u].staged_bytes);
                    if self.fits(u, len, bytes, &p) {
                        self.users[u].staged_bytes += subframe_bytes(p.size) as u64;
                        self.users[u].staged.push_back(p);
                    } else {
                        self.carry = Some(p);
                        break;
                    }
                }
                let u = (0..n)
                    .map(|k| (self.next_user + k) % n)
                    .find(|&u| !self.users[u].staged.is_empty())?;
                let frames: Vec<Packet> = self.users[u].staged.drain(..).collect();
                self.users[u].staged_bytes = 0;
                (u, frames)
            }
            Discipline::PerUser => {
                let mut found = None;
                for k in 0..n {
                    let u = (self.next_user + k) % n;
                    let mut frames: Vec<Packet> = Vec::new();
                    let mut bytes = 0u64;
                    loop {
                        let p = match self.users[u].carry.take() {
                            Some(p) => p,
                            None => {
                                let cap = self.users[u].est.estimate(now);
                                match pull(Some(u), cap) {
                                    Some(p) => {
                                        self.held_packets += 1;
                                        let sb = subframe_bytes(p.size) as u64;
                                        self.users[u].est.on_sent(now, sb);
                                        self.shared.on_sent(now, sb);
                                        p
                                    }
                                    None => break,
                                }
                            }
                        };
                        if self.fits(u, frames.len(), bytes, &p) {
                            bytes += subframe_bytes(p.size) as u64;
                            frames.push(p);
                        } else {
                            self.users[u].carry = Some(p);
                            break;
                        }
                    }
                    if !frames.is_empty() {
                        found = Some((u, frames));
                        break;
                    }
                }
                found?
            }
        };
        self.next_user = (user + 1) % n;
        let bytes: u64 = frames.iter().map(|p| subframe_bytes(p.size) as u64).sum();
        let mcs = self.mcs_at(user, now);
        let backoff = SLOT.saturating_mul(self.rng.below(CW_MIN_BE + 1));
        let jitter = if self.jitter.0 > 0 {
            Dur(self.rng.below(self.jitter.0 + 1))
        } else {
            Dur::ZERO
        };
        let airtime = self.phy.fixed_overhead(mcs) + backoff + jitter + self.phy.data_time(mcs, bytes);
        let end = now + airtime;
        let oldest = frames.iter().map(|p| p.enqueued_at).min().unwrap_or(now).min(now);
        self.batch = Some(Batch {
            user,
            mcs,
            frames,
            bytes,
            oldest,
            formed: now,
            end,
        });
        Some(end)
    }

    /// The block ACK of the batch on the air arrives at `now`: hand its frames to `deliver` (in
    /// order) and update the estimators.
    pub fn finish_batch(&mut self, now: Time, mut deliver: impl FnMut(Packet)) {
        let Some(batch) = self.batch.take() else { return };
        let b = batch.frames.len() as u32;
        self.held_packets -= batch.frames.len();
        let u = batch.user;
        let rate = self.phy.rate_bps(batch.mcs);
        let m = self.users[u].m;
        // T_IA(b) counts from the previous block ACK (of any user for the shared estimate, of this
        // user for the user's), or from when the batch's oldest frame reached the hop if that is
        // later: time in which there was nothing to send is not service time. Time a user waits
        // for other users' batches counts (their airtime is the user's overhead, §5.1).
        let t_ia = now - self.last_ack.map_or(batch.oldest, |l| l.max(batch.oldest));
        let t_ia_user = now - self.users[u].last_ack.map_or(batch.oldest, |l| l.max(batch.oldest));
        self.last_ack = Some(now);
        self.users[u].last_ack = Some(now);
        let (cr, mu_batch) = self.shared.on_block_ack(now, b, batch.bytes, t_ia, m, rate);
        self.users[u].est.on_block_ack(now, b, batch.bytes, t_ia_user, m, rate);
        self.batches += 1;
        if self.log.len() < MAX_BATCH_ROWS {
            let row = BatchRow {
                at: now,
                user: u as u32,
                mcs: batch.mcs,
                b,
                bytes: batch.bytes,
                airtime: batch.end - batch.formed,
                t_ia,
                t_ia_user,
                cr,
                mu_batch,
                mu_hat: self.shared.estimate(now),
                mu_hat_user: self.users[u].est.estimate(now),
                truth: self.truth_rate(now, None),
                truth_user: self.truth_rate(now, Some(u)),
            };
            self.log.push(row);
        }
        for p in batch.frames {
            deliver(p);
        }
    }
}

/// M limited by the 65,535-byte A-MPDU for subframes of `s` bytes.
pub fn effective_m(m: u32, s: u64) -> u32 {
    m.min((MAX_AMPDU_BYTES / s) as u32)
}

/// Per-user queues behind a Wi-Fi link: one queue (of the hop's type) per user; packets go to
/// their flow's user's queue; [`Queue::dequeue_user`] serves one user, plain `dequeue` the first
/// non-empty queue round-robin.
pub struct PerUserQueue {
    inner: Vec<Box<dyn Queue>>,
    user_of_flow: Option<Vec<u32>>,
    next: usize,
}

impl PerUserQueue {
    /// Queues `inner` (one per user), flows mapped as the link maps them.
    pub fn new(inner: Vec<Box<dyn Queue>>, user_of_flow: Option<Vec<u32>>) -> PerUserQueue {
        PerUserQueue {
            inner,
            user_of_flow,
            next: 0,
        }
    }
    fn user_of(&self, flow: u32) -> usize {
        let n = self.inner.len();
        match &self.user_of_flow {
            Some(m) => m.get(flow as usize).map_or(flow as usize % n, |&u| u as usize),
            None => flow as usize % n,
        }
    }
}

impl Queue for PerUserQueue {
    fn name(&self) -> &'static str {
        self.inner[0].name()
    }
    fn enqueue(&mut self, now: Time, pkt: Packet) -> std::result::Result<(), Packet> {
        let u = self.user_of(pkt.flow);
        self.inner[u].enqueue(now, pkt)
    }
    fn dequeue(&mut self, now: Time, link: LinkInfo, drops: &mut Vec<Packet>) -> Option<Packet> {
        let n = self.inner.len();
        for k in 0..n {
            let u = (self.next + k) % n;
            if let Some(p) = self.inner[u].dequeue(now, link, drops) {
                self.next = (u + 1) % n;
                return Some(p);
            }
        }
        None
    }
    fn dequeue_user(&mut self, now: Time, user: usize, link: LinkInfo, drops: &mut Vec<Packet>) -> Option<Packet> {
        self.inner[user].dequeue(now, link, drops)
    }
    fn len_packets(&self) -> usize {
        self.inner.iter().map(|q| q.len_packets()).sum()
    }
    fn len_bytes(&self) -> u64 {
        self.inner.iter().map(|q| q.len_bytes()).sum()
    }
    fn stats(&self) -> QueueStats {
        let mut s = QueueStats::default();
        for q in &self.inner {
            let x = q.stats();
            s.enqueued += x.enqueued;
            s.dequeued += x.dequeued;
            s.dropped += x.dropped;
            s.marked += x.marked;
            s.max_packets = s.max_packets.max(x.max_packets);
        }
        s
    }
    fn capacity_window(&self) -> Option<Dur> {
        self.inner[0].capacity_window()
    }
    fn gauge(&self) -> Option<f64> {
        self.inner[0].gauge()
    }
    fn next_timer(&self) -> Option<Time> {
        self.inner.iter().filter_map(|q| q.next_timer()).min()
    }
    fn on_timer(&mut self, now: Time, link: &dyn crate::queue::LinkSchedule) {
        for q in &mut self.inner {
            if q.next_timer().is_some_and(|t| t <= now) {
                q.on_timer(now, link);
            }
        }
    }
}

/// Milliseconds as a [`Time`] (for tests and tables).
pub fn ms(t: u64) -> Time {
    Time(t * NS_PER_MS)
}

/// Bytes per second to Mbit/s.
pub fn mbps(bytes_per_sec: f64) -> f64 {
    bytes_per_sec * 8.0 / 1e6
}

/// The `wifi_batches` table: one row per A-MPDU of every Wi-Fi hop (at most
/// [`crate::wifi::MAX_BATCH_ROWS`] per hop): when its block ACK came, to which user, at which
/// MCS, its size, its inter-ACK times, ABC's estimates (per batch and smoothed, shared and of the
/// user) and the ground truth beside them, rates in Mbit/s. `None` without Wi-Fi hops.
pub(crate) fn batches_table<'a>(
    links: impl Iterator<Item = (usize, &'a WifiLink)>,
) -> Option<crate::measure::table::Table> {
    use crate::measure::table::Table;
    let mut rows = Vec::new();
    for (h, l) in links {
        rows.extend(l.log.iter().map(|r| (h, *r)));
    }
    if rows.is_empty() {
        return None;
    }
    let mut t = Table::default();
    t.f64("t_ms", rows.iter().map(|(_, r)| r.at.millis_f64()).collect());
    t.i64("hop", rows.iter().map(|(h, _)| *h as i64).collect());
    t.i64("user", rows.iter().map(|(_, r)| i64::from(r.user)).collect());
    t.i64("mcs", rows.iter().map(|(_, r)| i64::from(r.mcs)).collect());
    t.i64("b", rows.iter().map(|(_, r)| i64::from(r.b)).collect());
    t.i64("bytes", rows.iter().map(|(_, r)| r.bytes as i64).collect());
    t.f64(
        "airtime_us",
        rows.iter().map(|(_, r)| r.airtime.0 as f64 / 1e3).collect(),
    );
    t.f64("t_ia_us", rows.iter().map(|(_, r)| r.t_ia.0 as f64 / 1e3).collect());
    t.f64(
        "t_ia_user_us",
        rows.iter().map(|(_, r)| r.t_ia_user.0 as f64 / 1e3).collect(),
    );
    t.f64("cr_mbps", rows.iter().map(|(_, r)| mbps(r.cr)).collect());
    t.f64("mu_batch_mbps", rows.iter().map(|(_, r)| mbps(r.mu_batch)).collect());
    t.f64("mu_hat_mbps", rows.iter().map(|(_, r)| mbps(r.mu_hat)).collect());
    t.f64(
        "mu_hat_user_mbps",
        rows.iter().map(|(_, r)| mbps(r.mu_hat_user)).collect(),
    );
    t.f64("truth_mbps", rows.iter().map(|(_, r)| mbps(r.truth)).collect());
    t.f64(
        "truth_user_mbps",
        rows.iter().map(|(_, r)| mbps(r.truth_user)).collect(),
    );
    Some(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Ecn, MTU};

    fn cfg(users: Vec<WifiUserSpec>, discipline: Discipline) -> WifiConfig {
        WifiConfig {
            phy: Phy {
                width_mhz: 20,
                short_gi: false,
            },
            discipline,
            users,
            user_of_flow: None,
            jitter: Dur::ZERO,
            window: Dur::from_millis(40),
        }
    }

    fn fixed(mcs: u8, m: u32) -> WifiUserSpec {
        WifiUserSpec {
            mcs: McsSpec::Fixed { mcs },
            max_batch: m,
        }
    }

    fn pkt(flow: u32, seq: u32) -> Packet {
        Packet::data(flow, seq, MTU, Ecn::NotEct, Time::ZERO)
    }

    #[test]
    fn constants_match_the_standard_tables() {
        let phy = Phy {
            width_mhz: 20,
            short_gi: false,
        };
        let mbps: Vec<f64> = (0..8).map(|m| phy.rate_bps(m) / 1e6).collect();
        assert_eq!(mbps, vec![6.5, 13.0, 19.5, 26.0, 39.0, 52.0, 58.5, 65.0]);
        let ht40 = Phy {
            width_mhz: 40,
            short_gi: true,
        };
        assert!((ht40.rate_bps(7) / 1e6 - 150.0).abs() < 1e-9);
        assert_eq!(subframe_bytes(1500), 1544);
        assert_eq!(block_ack_time(7), Dur::from_micros(32));
        assert_eq!(block_ack_time(1), Dur::from_micros(44));
        assert_eq!(block_ack_time(0), Dur::from_micros(68));
        // AIFS 43 + preamble 36 + SIFS 16 + BA 32.
        assert_eq!(phy.fixed_overhead(7), Dur::from_micros(127));
        assert_eq!(effective_m(64, 1544), 42);
    }

    /// Serve a backlogged single user for `batches` block ACKs; (delivered bytes on air, time).
    fn backlogged(mcs: u8, m: u32, batches: u32) -> (u64, Time, WifiLink) {
        let mut l = WifiLink::new(
            &cfg(vec![fixed(mcs, m)], Discipline::Shared),
            "l",
            ms(1000),
            Rng::stream(1, 2),
        )
        .unwrap();
        let mut now = Time::ZERO;
        let mut seq = 0;
        let mut delivered = 0u64;
        for _ in 0..batches {
            let end = l
                .start_batch(now, |_, _| {
                    seq += 1;
                    Some(pkt(0, seq))
                })
                .unwrap();
            now = end;
            l.finish_batch(now, |p| delivered += subframe_bytes(p.size) as u64);
        }
        (delivered, now, l)
    }

    #[test]
    fn backlogged_throughput_is_m_s_over_h_plus_m_s_over_r() {
        for (mcs, m) in [(7, 32), (1, 32), (3, 16), (0, 8)] {
            let (bytes, t, l) = backlogged(mcs, m, 4000);
            let got = bytes as f64 / t.secs_f64();
            let s = 8.0 * 1544.0;
            let h = l.mean_overhead(mcs) / 1e9;
            let want = m as f64 * s / (h + m as f64 * s / l.phy.rate_bps(mcs)) / 8.0;
            let err = (got / want - 1.0).abs();
            assert!(err < 0.01, "MCS {mcs} M {m}: {got} vs {want} ({err})");
            // The recorded ground truth is the same number.
            assert!((l.truth_rate(Time::ZERO, None) / want - 1.0).abs() < 0.01);
        }
    }

    #[test]
    fn inter_ack_time_is_linear_in_batch_size_with_slope_s_over_r() {
        // Batches of b = 1..=32 frames back to back at MCS 3: least-squares fit of T_IA on b.
        let mut l = WifiLink::new(
            &cfg(vec![fixed(3, 32)], Discipline::Shared),
            "l",
            ms(1000),
            Rng::stream(3, 4),
        )
        .unwrap();
        let mut now = Time::ZERO;
        let mut xs = Vec::new();
        let mut ys = Vec::new();
        for rep in 0..200 {
            for b in 1..=32u32 {
                let mut k = 0;
                let end = l
                    .start_batch(now, |_, _| {
                        k += 1;
                        (k <= b).then(|| pkt(0, rep * 100 + k))
                    })
                    .unwrap();
                now = end;
                l.finish_batch(now, |_| {});
                let row = l.log.last().unwrap();
                assert_eq!(row.b, b);
                xs.push(b as f64);
                ys.push(row.t_ia.0 as f64 / 1e9);
            }
        }
        let n = xs.len() as f64;
        let (mx, my) = (xs.iter().sum::<f64>() / n, ys.iter().sum::<f64>() / n);
        let sxy: f64 = xs.iter().zip(&ys).map(|(x, y)| (x - mx) * (y - my)).sum();
        let sxx: f64 = xs.iter().map(|x| (x - mx) * (x - mx)).sum();
        let slope = sxy / sxx;
        let want = 8.0 * 1544.0 / l.phy.rate_bps(3);
        assert!((slope / want - 1.0).abs() < 0.01, "slope {slope} vs S/R {want}");
        // The intercept is the mean overhead h̄ (within a symbol).
        let intercept = my - slope * mx;
        assert!((intercept * 1e9 - l.mean_overhead(3)).abs() < 5_000.0, "{intercept}");
    }

    /// A sender at `rate_mbps` (IP bytes, one 1500-byte packet at a time, evenly spaced) through
    /// a single-user link at `mcs`; the mean shared estimate and the truth over the last 80 % of
    /// `secs`, in Mbit/s.
    fn paced(mcs: u8, rate_mbps: f64, secs: u64) -> (f64, f64) {
        let mut l = WifiLink::new(
            &cfg(vec![fixed(mcs, 32)], Discipline::Shared),
            "l",
            ms(secs * 1000),
            Rng::stream(5, 6),
        )
        .unwrap();
        let gap = Dur((1500.0 * 8.0 / (rate_mbps * 1e6) * 1e9) as u64);
        let mut queue: VecDeque<Packet> = VecDeque::new();
        let mut next_arrival = Time::ZERO;
        let mut seq = 0;
        let end = ms(secs * 1000);
        let (mut sum, mut n) = (0.0, 0u64);
        let mut ack = None;
        let mut sample = ms(secs * 200);
        loop {
            let t_ack = ack.unwrap_or(Time::MAX);
            let now = next_arrival.min(t_ack).min(sample);
            if now >= end {
                break;
            }
            if now == sample {
                sum += mbps(l.estimate(now, None));
                n += 1;
                sample += Dur::from_millis(5);
                continue;
            }
            if now == t_ack {
                l.finish_batch(now, |_| {});
                ack = None;
            } else {
                seq += 1;
                let mut p = pkt(0, seq);
                p.enqueued_at = now;
                queue.push_back(p);
                next_arrival += gap;
            }
            if ack.is_none() {
                ack = l.start_batch(now, |_, _| queue.pop_front());
            }
        }
        (sum / n as f64, mbps(l.truth_rate(Time::ZERO, None)))
    }

    #[test]
    fn estimate_is_within_5_percent_of_the_truth_below_the_cap() {
        for mcs in [1u8, 4, 7] {
            let (_, truth) = paced(mcs, 1.0, 1);
            for frac in [0.55, 0.7, 0.85] {
                let (est, truth) = paced(mcs, truth * frac * 1500.0 / 1544.0, 10);
                assert!(
                    (est / truth - 1.0).abs() < 0.05,
                    "MCS {mcs} at {frac} of {truth}: {est}"
                );
            }
        }
    }

    #[test]
    fn the_cap_binds_at_twice_the_current_rate() {
        // MCS 7 (truth ~ 58 Mbit/s): at 10 and 20 Mbit/s the estimate is 2 × the rate on air.
        for rate in [10.0, 20.0] {
            let (est, truth) = paced(7, rate, 10);
            let on_air = 2.0 * rate * 1544.0 / 1500.0;
            assert!(on_air < truth);
            assert!((est / on_air - 1.0).abs() < 0.03, "{rate}: {est} vs {on_air}");
        }
    }

    #[test]
    fn schedules_alternate_walk_within_bounds_and_read_files() {
        let mut rng = Rng::stream(7, 7);
        let alt = Schedule::build(
            &McsSpec::Alternate {
                values: vec![1, 7],
                period_ms: 2000.0,
            },
            "k",
            ms(10_000),
            &mut rng,
        )
        .unwrap();
        assert_eq!(alt.at(ms(1999)), (1, ms(2000)));
        assert_eq!(alt.at(ms(2000)).0, 7);
        assert_eq!(alt.at(ms(4000)).0, 1);
        let walk = Schedule::build(
            &McsSpec::Brownian {
                min: 3,
                max: 7,
                start: None,
                period_ms: 2000.0,
            },
            "k",
            ms(1_000_000),
            &mut rng,
        )
        .unwrap();
        let mut prev = walk.at(Time::ZERO).0;
        assert_eq!(prev, 5);
        let mut seen = [false; 8];
        for k in 1..500 {
            let m = walk.at(ms(2000 * k)).0;
            assert!(
                (3..=7).contains(&m) && (m as i32 - prev as i32).abs() == 1,
                "{prev} → {m}"
            );
            seen[m as usize] = true;
            prev = m;
        }
        assert!(seen[3] && seen[7]);
        let path = std::env::temp_dir().join(format!("accelbrake-mcs-{}.txt", std::process::id()));
        std::fs::write(&path, "0 7\n1500 2\n# comment\n3000 5\n").unwrap();
        let f = Schedule::build(
            &McsSpec::File {
                path: path.to_str().unwrap().into(),
            },
            "k",
            ms(1),
            &mut rng,
        )
        .unwrap();
        assert_eq!((f.at(ms(1499)).0, f.at(ms(1500)).0, f.at(ms(9999)).0), (7, 2, 5));
        std::fs::write(&path, "5 7\n").unwrap();
        let e = Schedule::build(
            &McsSpec::File {
                path: path.to_str().unwrap().into(),
            },
            "hops[0].link.users[0].mcs",
            ms(1),
            &mut rng,
        )
        .unwrap_err();
        std::fs::remove_file(&path).ok();
        assert!(e.to_string().contains("hops[0].link.users[0].mcs.path"), "{e}");
    }

    #[test]
    fn bad_input_names_the_parameter() {
        let mut rng = Rng::stream(0, 0);
        let e = Schedule::build(&McsSpec::Fixed { mcs: 9 }, "u.mcs", ms(1), &mut rng).unwrap_err();
        assert!(e.to_string().contains("u.mcs.mcs"), "{e}");
        let e = Schedule::build(
            &McsSpec::Brownian {
                min: 5,
                max: 3,
                start: None,
                period_ms: 2000.0,
            },
            "u.mcs",
            ms(1),
            &mut rng,
        )
        .unwrap_err();
        assert!(e.to_string().contains("u.mcs.max"), "{e}");
        let e = WifiLink::new(
            &cfg(vec![fixed(3, 65)], Discipline::Shared),
            "hops[0].link",
            ms(1),
            Rng::stream(0, 0),
        )
        .unwrap_err();
        assert!(e.to_string().contains("hops[0].link.users[0].max_batch"), "{e}");
    }

    /// Two backlogged users, MCS 7 and MCS 3: each estimator against its own capacity definition.
    fn two_users(discipline: Discipline) -> WifiLink {
        let mut l = WifiLink::new(
            &cfg(vec![fixed(7, 32), fixed(3, 32)], discipline),
            "l",
            ms(10_000),
            Rng::stream(9, 9),
        )
        .unwrap();
        let mut now = Time::ZERO;
        let mut seq = 0;
        for _ in 0..4000 {
            let end = l
                .start_batch(now, |user, _| {
                    seq += 1;
                    // Shared FIFO: flows alternate (flow id mod 2 = user); per-user: the asked user.
                    Some(pkt(user.map_or(seq % 2, |u| u as u32), seq))
                })
                .unwrap();
            now = end;
            l.finish_batch(now, |_| {});
        }
        l
    }

    /// Time average of an estimate held from one block ACK to the next (rows of `user`, or all).
    fn time_average(l: &WifiLink, user: Option<u32>, pick: impl Fn(&BatchRow) -> f64) -> f64 {
        let rows: Vec<&BatchRow> = l
            .log
            .iter()
            .filter(|r| user.is_none_or(|u| r.user == u))
            .skip(20)
            .collect();
        let (mut sum, mut t) = (0.0, 0.0);
        for w in rows.windows(2) {
            let dt = (w[1].at - w[0].at).secs_f64();
            sum += pick(w[0]) * dt;
            t += dt;
        }
        sum / t
    }

    #[test]
    fn multi_user_estimators_track_their_capacity_definitions() {
        let shared = two_users(Discipline::Shared);
        let truth = shared.truth_rate(Time::ZERO, None);
        let est = time_average(&shared, None, |r| r.mu_hat);
        assert!((est / truth - 1.0).abs() < 0.05, "shared: {est} vs {truth}");
        // Batches alternate users; each user's own estimate (logged, not used by a shared router)
        // tracks its share.
        assert!(shared.log.windows(2).all(|w| w[0].user != w[1].user));
        for u in 0..2 {
            let truth = shared.truth_rate(Time::ZERO, Some(u));
            let est = time_average(&shared, Some(u as u32), |r| r.mu_hat_user);
            assert!((est / truth - 1.0).abs() < 0.05, "shared, user {u}: {est} vs {truth}");
        }
        let per = two_users(Discipline::PerUser);
        for u in 0..2 {
            let truth = per.truth_rate(Time::ZERO, Some(u));
            let est = time_average(&per, Some(u as u32), |r| r.mu_hat_user);
            assert!((est / truth - 1.0).abs() < 0.05, "user {u}: {est} vs {truth}");
        }
        // Round-robin airtime: each user gets half the batches.
        let u0 = per.log.iter().filter(|r| r.user == 0).count();
        assert_eq!(u0, per.log.len() / 2);
    }

    // ---- Hand-worked unit tests (mutation testing). ----

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-12 * b.abs().max(1.0)
    }

    const HT20: Phy = Phy {
        width_mhz: 20,
        short_gi: false,
    };

    #[test]
    fn phy_timings_worked_by_hand() {
        // Block ACK at the highest basic rate ≤ the non-HT reference rate (6, 12, 18, 24, 36, 48,
        // 54, 54 Mbit/s → 6, 12, 12, 24, 24, …): ⌈278 / N_DBPS⌉ symbols of 4 µs after 20 µs.
        let ba: Vec<u64> = (0..8).map(|m| block_ack_time(m).0 / 1000).collect();
        assert_eq!(ba, [68, 44, 44, 32, 32, 32, 32, 32]);
        // Data field: ⌈(22 + 8·bytes) / N_DBPS⌉ symbols. 32 subframes at MCS 7: 395 286 / 260.
        assert_eq!(HT20.data_time(7, 32 * 1544), Dur(1521 * 4000));
        assert_eq!(
            HT20.data_time(0, 0),
            Dur(4000),
            "SERVICE and tail bits alone: one symbol"
        );
        let ht40_sgi = Phy {
            width_mhz: 40,
            short_gi: true,
        };
        // One subframe at MCS 0, 40 MHz: 12 374 bits / 54 → 230 symbols of 3.6 µs.
        assert_eq!(ht40_sgi.data_time(0, 1544), Dur(230 * 3600));
        assert_eq!(ht40_sgi.rate_bps(0), 15e6);
        let ht40 = Phy {
            width_mhz: 40,
            short_gi: false,
        };
        assert_eq!(ht40.rate_bps(7), 135e6);
        let ht20_sgi = Phy {
            width_mhz: 20,
            short_gi: true,
        };
        assert!(close(ht20_sgi.rate_bps(7), 260.0 / 3.6e-6));
        // AIFS 43 + preamble 36 + SIFS 16 + block ACK 68 µs.
        assert_eq!(HT20.fixed_overhead(0), Dur::from_micros(163));
        assert_eq!(subframe_bytes(40), 84, "40 + 42 = 82, padded to 4");
        assert_eq!((effective_m(32, 1544), effective_m(64, 1000)), (32, 64));
        assert_eq!(default_m(), 32);
        // Mean overhead: fixed part + 7.5 slots of backoff + half the jitter bound.
        let mut c = cfg(vec![fixed(7, 32)], Discipline::Shared);
        c.jitter = Dur::from_micros(10);
        let l = WifiLink::new(&c, "l", ms(1), Rng::stream(0, 0)).unwrap();
        assert_eq!(l.mean_overhead(7), 127_000.0 + 67_500.0 + 5_000.0);
        assert_eq!((ms(2), mbps(1e6)), (Time(2_000_000), 8.0));
    }

    #[test]
    fn mcs_schedules_worked_by_hand() {
        let mut rng = Rng::stream(1, 1);
        let mut build = |spec: McsSpec, end: Time| Schedule::build(&spec, "k", end, &mut rng);
        let key = |r: Result<Schedule>| match r {
            Err(Error::Param { key, .. }) => key,
            other => panic!("{other:?}"),
        };
        // Fixed: MCS 0–7.
        let f = build(McsSpec::Fixed { mcs: 7 }, ms(1)).unwrap();
        assert_eq!(f.at(ms(5)), (7, Time::MAX));
        assert_eq!(key(build(McsSpec::Fixed { mcs: 8 }, ms(1))), "k.mcs");
        // Alternate: values[(t / period) mod len], the next change at the next period.
        let alt = |values: Vec<u8>, period_ms| McsSpec::Alternate { values, period_ms };
        let a = build(alt(vec![1, 7, 3], 2000.0), ms(1)).unwrap();
        assert_eq!(a.at(Time::ZERO), (1, ms(2000)));
        assert_eq!(a.at(ms(3999)), (7, ms(4000)));
        assert_eq!(a.at(ms(4000)), (3, ms(6000)));
        assert_eq!(a.at(ms(6000)), (1, ms(8000)));
        assert_eq!(key(build(alt(vec![], 2000.0), ms(1))), "k.values");
        assert_eq!(key(build(alt(vec![1, 8], 2000.0), ms(1))), "k.values[1]");
        assert_eq!(key(build(alt(vec![1], 0.5), ms(1))), "k.period_ms");
        assert!(build(alt(vec![1], 1.0), ms(1)).is_ok());
        // Brownian over [3, 4]: the reflection makes the walk alternate whatever the draws; one
        // value per period up to the end (10 s: 6 values), the last one held after it.
        let walk = |min, max, start, period_ms| McsSpec::Brownian {
            min,
            max,
            start,
            period_ms,
        };
        for (start, first) in [(None, 3), (Some(3), 3), (Some(4), 4)] {
            let w = build(walk(3, 4, start, 2000.0), ms(10_000)).unwrap();
            let got: Vec<(u8, Time)> = (0..6).map(|k| w.at(ms(2000 * k + 1999))).collect();
            let want: Vec<(u8, Time)> = (0..6)
                .map(|k| (if k % 2 == 0 { first } else { 7 - first }, ms(2000 * k + 2000)))
                .collect();
            assert_eq!(got, want, "start {start:?}");
            assert_eq!(w.at(ms(100_000)), (7 - first, ms(102_000)), "held after the end");
        }
        let w = build(walk(5, 5, None, 100.0), ms(1000)).unwrap();
        assert!((0..20).all(|k| w.at(ms(100 * k)).0 == 5), "min = max: constant");
        assert_eq!(key(build(walk(3, 4, Some(2), 2000.0), ms(1))), "k.start");
        assert_eq!(key(build(walk(3, 4, Some(5), 2000.0), ms(1))), "k.start");
        assert_eq!(key(build(walk(8, 8, None, 2000.0), ms(1))), "k.min");
        assert_eq!(key(build(walk(3, 8, None, 2000.0), ms(1))), "k.max");
        assert_eq!(key(build(walk(3, 4, None, 99.0), ms(1))), "k.period_ms");
        // Each step is one draw of the schedule's stream, in order: up on 1, down on 0,
        // reflected at the bounds.
        let w = Schedule::build(&walk(0, 7, Some(3), 100.0), "k", ms(5000), &mut Rng::stream(2, 3)).unwrap();
        let mut draws = Rng::stream(2, 3);
        let mut m = 3u8;
        for k in 0..=50u64 {
            assert_eq!(w.at(ms(100 * k)).0, m, "step {k}");
            m = match (draws.below(2) == 1, m) {
                (true, 7) => 6,
                (true, x) => x + 1,
                (false, 0) => 1,
                (false, x) => x - 1,
            };
        }
    }

    #[test]
    fn mcs_files_are_read_line_by_line_and_bad_lines_named() {
        let path = std::env::temp_dir().join(format!("accelbrake-mcs-unit-{}.txt", std::process::id()));
        let p = path.to_str().unwrap().to_string();
        let mut rng = Rng::stream(0, 0);
        let mut read = |text: &str| {
            std::fs::write(&path, text).unwrap();
            Schedule::build(&McsSpec::File { path: p.clone() }, "k", ms(1), &mut rng)
        };
        let s = read("0 7\n\n# comment\n  1500   2  \n3000 5\n").unwrap();
        assert_eq!(s.at(ms(1499)), (7, ms(1500)));
        assert_eq!(s.at(ms(1500)), (2, ms(3000)));
        assert_eq!(s.at(ms(9999)), (5, Time::MAX));
        for (text, msg) in [
            ("0 7\n1500 2\n1500 3\n", ":3: times must increase"),
            ("0 7\n10 3 4\n", ":2: expected 'time_ms mcs', found '10 3 4'"),
            ("-5 7\n", ":1: expected 'time_ms mcs'"),
            ("0 7\ninf 3\n", ":2: expected 'time_ms mcs'"),
            ("0 7\nnan 3\n", ":2: expected 'time_ms mcs'"),
            ("0 x\n", ":1: expected 'time_ms mcs'"),
            ("5 7\n", ": the first line must be at 0 ms"),
            ("# nothing\n\n", ": no 'time_ms mcs' lines"),
        ] {
            let e = read(text).unwrap_err();
            assert!(
                matches!(&e, Error::Param { key, msg: m } if key == "k.path" && m.contains(msg)),
                "{text:?}: {e}"
            );
        }
        let e = read("0 7\n10 9\n").unwrap_err();
        assert!(e.to_string().contains(&format!("k.path ({p}:2)")), "{e}");
        std::fs::remove_file(&path).ok();
        let e = read_missing(&p);
        assert!(
            matches!(&e, Error::Param { key, msg } if key == "k.path" && msg.contains("cannot read")),
            "{e}"
        );
    }

    fn read_missing(p: &str) -> Error {
        let missing = McsSpec::File {
            path: format!("{p}.missing"),
        };
        Schedule::build(&missing, "k", ms(1), &mut Rng::stream(0, 0)).unwrap_err()
    }

    /// The estimator by hand, with R chosen so that S/R = 1 ms for 1544-byte subframes
    /// (S = 12 352 bits, R = 12.352 Mbit/s), T = 40 ms. Each batch: cr = bytes/T_IA (Eq. 5),
    /// T̂_IA(M) = T_IA + (M − b)·S/R (Eq. 8), μ̂ = M·S/T̂_IA(M) (Eq. 6); the window's average is
    /// Σ M·S / Σ T̂_IA(M) over the batches in (now − T, now], the last one always kept; the
    /// estimate is min(μ̂, 2 · bytes handed to the MAC in the window / T).
    #[test]
    fn estimator_worked_by_hand() {
        const R: f64 = 12_352_000.0;
        let ms_s = 32.0 * 1544.0; // M·S, bytes
        let mut e = Estimator::new(Dur::from_millis(40), 1e6);
        assert_eq!(e.uncapped(Time(1)), 1e6, "the initial value before any batch");
        assert_eq!((e.current_rate(Time(1)), e.estimate(Time(1))), (0.0, 0.0));
        e.on_sent(ms(5), 4000);
        assert!(close(e.current_rate(ms(5)), 100_000.0));
        // 10 frames, T_IA 2 ms, room for 32: T̂ = 2 + 22 = 24 ms.
        let (cr, mu) = e.on_block_ack(ms(10), 10, 15_440, Dur::from_millis(2), 32, R);
        assert!(close(cr, 15_440.0 / 0.002), "{cr}");
        assert!(close(mu, ms_s / 0.024), "{mu}");
        assert!(close(e.uncapped(ms(10)), ms_s / 0.024));
        assert!(close(e.estimate(ms(10)), 200_000.0), "capped at 2 · 4000 B / 40 ms");
        e.on_sent(ms(45), 10_000);
        // A full batch at 50 ms, T_IA 20 ms: T̂ = 20 ms. The first batch is exactly T old: gone.
        let (cr, mu) = e.on_block_ack(ms(50), 32, 49_408, Dur::from_millis(20), 32, R);
        assert!(close(cr, ms_s / 0.02) && close(mu, ms_s / 0.02), "{cr} {mu}");
        assert!(close(e.uncapped(ms(50)), ms_s / 0.02));
        e.on_sent(ms(60), 60_000);
        // 16 frames at 70 ms, T_IA 10 ms: T̂ = 10 + 16 = 26 ms; both batches in the window.
        let (_, mu) = e.on_block_ack(ms(70), 16, 24_704, Dur::from_millis(10), 32, R);
        assert!(close(mu, ms_s / 0.026), "{mu}");
        let both = 2.0 * ms_s / 0.046;
        assert!(close(e.uncapped(ms(70)), both));
        assert!(close(e.current_rate(ms(70)), 70_000.0 / 0.04), "sent at 45 and 60 ms");
        assert!(close(e.estimate(ms(70)), both), "below the cap of 3.5 MB/s");
        assert!(close(e.current_rate(ms(85) - Dur(1)), 70_000.0 / 0.04));
        assert!(
            close(e.current_rate(ms(85)), 60_000.0 / 0.04),
            "sent exactly T ago: out"
        );
        assert!(close(e.uncapped(ms(90) - Dur(1)), both));
        assert!(close(e.uncapped(ms(90)), ms_s / 0.026), "the 50 ms batch is out");
        assert!(close(e.uncapped(ms(1000)), ms_s / 0.026), "the last batch is kept");
        assert_eq!(e.estimate(ms(1000)), 0.0, "nothing sent in the window");
    }

    #[test]
    fn link_settings_are_checked_and_flows_mapped_to_users() {
        let key = |c: &WifiConfig| match WifiLink::new(c, "l", ms(1), Rng::stream(0, 0)) {
            Err(Error::Param { key, .. }) => key,
            Ok(_) => panic!("accepted"),
            Err(e) => panic!("{e}"),
        };
        assert_eq!(key(&cfg(vec![], Discipline::Shared)), "l.users");
        assert_eq!(key(&cfg(vec![fixed(7, 0)], Discipline::Shared)), "l.users[0].max_batch");
        assert_eq!(
            key(&cfg(vec![fixed(7, 8), fixed(9, 8)], Discipline::Shared)),
            "l.users[1].mcs.mcs"
        );
        let mut c = cfg(vec![fixed(7, 64), fixed(3, 1), fixed(0, 8)], Discipline::PerUser);
        c.user_of_flow = Some(vec![2, 3]);
        assert_eq!(key(&c), "l.user_of_flow[1]");
        c.user_of_flow = Some(vec![2]);
        let l = WifiLink::new(&c, "l", ms(1), Rng::stream(0, 0)).unwrap();
        assert_eq!((l.users(), l.discipline(), l.phy()), (3, Discipline::PerUser, HT20));
        // Flow 0 by the map, the others by flow id mod 3.
        let users: Vec<usize> = (0..6).map(|f| l.user_of(f)).collect();
        assert_eq!(users, [2, 1, 2, 0, 1, 2]);
        c.user_of_flow = None;
        let l = WifiLink::new(&c, "l", ms(1), Rng::stream(0, 0)).unwrap();
        assert_eq!((l.user_of(0), l.user_of(5)), (0, 2));
        assert_eq!((l.busy(), l.held(), l.batch_end()), (false, 0, None));
        assert_eq!((l.mcs_at(0, ms(1)), l.mcs_at(1, ms(1)), l.mcs_at(2, ms(1))), (7, 3, 0));
    }

    /// Ground truth by hand: MCS 7 with M = 32 (h̄ = 127 + 67.5 µs, 32 subframes in 1521
    /// symbols: a cycle of 6 278 500 ns) and MCS 0 with M = 64, limited to 42 subframes by the
    /// 65 535-byte A-MPDU (h̄ = 163 + 67.5 µs, 64 848 bytes in 19 955 symbols: 80 050 500 ns).
    #[test]
    fn ground_truth_worked_by_hand() {
        let one = WifiLink::new(
            &cfg(vec![fixed(7, 32)], Discipline::Shared),
            "l",
            ms(1),
            Rng::stream(0, 0),
        )
        .unwrap();
        assert_eq!(one.truth_rate(ms(5), None), 49_408.0 / 6_278_500.0 * 1e9);
        assert_eq!(one.truth_rate(ms(5), Some(0)), 49_408.0 / 6_278_500.0 * 1e9);
        let two = WifiLink::new(
            &cfg(vec![fixed(7, 32), fixed(0, 64)], Discipline::Shared),
            "l",
            ms(1),
            Rng::stream(0, 0),
        )
        .unwrap();
        let cycle = 6_278_500.0 + 80_050_500.0;
        assert_eq!(two.truth_rate(ms(5), None), (49_408.0 + 64_848.0) / cycle * 1e9);
        assert_eq!(two.truth_rate(ms(5), Some(1)), 64_848.0 / cycle * 1e9);
        // The estimators start from the truth.
        assert_eq!(two.shared.held, two.truth_rate(Time::ZERO, None));
        assert_eq!(two.users[1].est.held, two.truth_rate(Time::ZERO, Some(1)));
        // Over time: MCS 7 and 0 alternating every 2 s (MCS 0 with M = 32: 15 204 symbols, a
        // cycle of 61 046 500 ns), integrated piecewise.
        let alt = WifiUserSpec {
            mcs: McsSpec::Alternate {
                values: vec![7, 0],
                period_ms: 2000.0,
            },
            max_batch: 32,
        };
        let l = WifiLink::new(
            &cfg(vec![alt, fixed(3, 8)], Discipline::Shared),
            "l",
            ms(1),
            Rng::stream(0, 0),
        )
        .unwrap();
        assert_eq!((l.next_change(ms(1000)), l.next_change(ms(2000))), (ms(2000), ms(4000)));
        let (r7, r0) = (l.truth_rate(ms(0), None), l.truth_rate(ms(2000), None));
        assert!(r7 > r0 && r0 > 0.0);
        let got = l.truth_between(ms(1000), ms(5000));
        assert!(close(got, r7 * 1.0 + r0 * 2.0 + r7 * 1.0), "{got}");
        assert_eq!(l.truth_between(ms(3000), ms(3000)), 0.0);
        let single = WifiLink::new(
            &cfg(
                vec![WifiUserSpec {
                    mcs: McsSpec::Alternate {
                        values: vec![7, 0],
                        period_ms: 2000.0,
                    },
                    max_batch: 32,
                }],
                Discipline::Shared,
            ),
            "l",
            ms(1),
            Rng::stream(0, 0),
        )
        .unwrap();
        assert_eq!(single.truth_rate(ms(2500), None), 49_408.0 / 61_046_500.0 * 1e9);
    }

    fn pkt_at(flow: u32, seq: u32, at: Time) -> Packet {
        let mut p = pkt(flow, seq);
        p.enqueued_at = at;
        p
    }

    /// What a batch's airtime must be: the fixed overhead and the data time at its MCS plus a
    /// backoff of 0–15 whole slots (no jitter here).
    fn backoff_slots(l: &WifiLink, row: &BatchRow) -> u64 {
        let rest = row.airtime.0 - l.phy.fixed_overhead(row.mcs).0 - l.phy.data_time(row.mcs, row.bytes).0;
        assert_eq!(rest % SLOT.0, 0, "{row:?}");
        assert!(rest / SLOT.0 <= CW_MIN_BE, "{row:?}");
        rest / SLOT.0
    }

    /// The shared FIFO by hand: two users (M = 4 at MCS 7, M = 2 at MCS 0), flows mapped by id
    /// mod 2. Packets fill the users' aggregation buffers in FIFO order until one does not fit
    /// (it waits at the MAC); users take turns; T_IA counts from the previous block ACK (any
    /// user's for the shared estimate, the user's own for its estimate) or from the arrival of
    /// the batch's oldest frame if later.
    #[test]
    fn shared_fifo_batches_worked_by_hand() {
        let mut l = WifiLink::new(
            &cfg(vec![fixed(7, 4), fixed(0, 2)], Discipline::Shared),
            "l",
            ms(1000),
            Rng::stream(4, 4),
        )
        .unwrap();
        let mut fifo: VecDeque<Packet> = [0, 1, 0, 0, 0, 0, 1]
            .iter()
            .enumerate()
            .map(|(i, &f)| pkt_at(f, i as u32, ms(2 + i as u64)))
            .collect();
        let mut caps = Vec::new();
        let t0 = ms(10);
        let end1 = l
            .start_batch(t0, |u, cap| {
                assert_eq!(u, None);
                caps.push(cap);
                fifo.pop_front()
            })
            .unwrap();
        // Six pulled: 0→u0, 1→u1, 2, 3, 4→u0, 5 does not fit u0's 4 (waits); u0 goes first.
        assert_eq!(fifo.len(), 1);
        // The cap handed to the queue: 2 × the subframe bytes handed to the MAC so far / 40 ms.
        assert_eq!(caps.len(), 6);
        for (k, cap) in caps.iter().enumerate() {
            assert!(close(*cap, 2.0 * (k * 1544) as f64 / 0.04), "{caps:?}");
        }
        assert_eq!((l.busy(), l.held(), l.batch_end()), (true, 6, Some(end1)));
        let mut got = Vec::new();
        l.finish_batch(end1, |p| got.push(p.seq));
        assert_eq!(got, [0, 2, 3, 4]);
        assert_eq!((l.busy(), l.held(), l.batch_end(), l.batches), (false, 2, None, 1));
        let r = l.log[0];
        assert_eq!(
            (r.at, r.user, r.mcs, r.b, r.bytes, r.airtime),
            (end1, 0, 7, 4, 4 * 1544, end1 - t0)
        );
        backoff_slots(&l, &r);
        // First block ACK: T_IA from the oldest frame's arrival (2 ms), for both estimates.
        assert_eq!((r.t_ia, r.t_ia_user), (end1 - ms(2), end1 - ms(2)));
        let t = r.t_ia.secs_f64();
        assert!(
            close(r.cr, 6176.0 / t) && close(r.mu_batch, 6176.0 / t),
            "b = M: μ̂ = cr"
        );
        assert_eq!(r.mu_hat, l.estimate(end1, None));
        assert_eq!(r.mu_hat, l.estimate(end1, Some(1)), "shared: one estimate");
        assert_eq!(r.mu_hat_user, l.users[0].est.estimate(end1));
        assert_eq!(
            (r.truth, r.truth_user),
            (l.truth_rate(end1, None), l.truth_rate(end1, Some(0)))
        );
        // Second batch: the waiting frame 5 joins u0's buffer, 6 joins u1's (with 1); u1's turn.
        let end2 = l.start_batch(end1, |_, _| fifo.pop_front()).unwrap();
        assert_eq!(l.held(), 3);
        got.clear();
        l.finish_batch(end2, |p| got.push(p.seq));
        assert_eq!(got, [1, 6]);
        let r = l.log[1];
        assert_eq!((r.user, r.mcs, r.b, r.bytes), (1, 0, 2, 2 * 1544));
        backoff_slots(&l, &r);
        assert_eq!((r.t_ia, r.t_ia_user), (end2 - end1, end2 - ms(3)));
        assert!(close(r.mu_batch, 3088.0 / r.t_ia.secs_f64()), "{r:?}");
        // Third: u0's frame 5. Fourth: a frame of u1 after an idle gap: T_IA from its arrival.
        let end3 = l.start_batch(end2, |_, _| fifo.pop_front()).unwrap();
        l.finish_batch(end3, |_| {});
        assert_eq!((l.log[2].user, l.log[2].b, l.log[2].t_ia), (0, 1, end3 - end2));
        assert_eq!(l.log[2].t_ia_user, end3 - end1);
        // One frame with room for 4 at 65 Mbit/s: T̂ = T_IA + 3·S/R (Eq. 8).
        let t_hat = l.log[2].t_ia.secs_f64() + 3.0 * 8.0 * 1544.0 / 65e6;
        assert!(close(l.log[2].mu_batch, 4.0 * 1544.0 / t_hat), "{:?}", l.log[2]);
        assert!(close(l.log[2].cr, 1544.0 / l.log[2].t_ia.secs_f64()));
        assert_eq!(l.start_batch(end3, |_, _| None), None);
        let arrival = end3 + Dur::from_millis(100);
        let mut next = vec![pkt_at(1, 7, arrival)];
        let start = arrival + Dur::from_millis(1);
        let end4 = l.start_batch(start, |_, _| next.pop()).unwrap();
        l.finish_batch(end4, |_| {});
        assert_eq!(
            (l.log[3].user, l.log[3].t_ia, l.log[3].t_ia_user),
            (1, end4 - arrival, end4 - arrival)
        );
        // u0's turn, but only u1 has a frame: u1 again.
        let mut next = vec![pkt_at(1, 8, end4)];
        let end5 = l.start_batch(end4, |_, _| next.pop()).unwrap();
        l.finish_batch(end5, |_| {});
        assert_eq!((l.log[4].user, l.held(), l.batches), (1, 0, 5));
    }

    /// M = 64 at 1500-byte packets: the 65 535-byte A-MPDU limits a batch to 42 frames.
    #[test]
    fn a_batch_stops_at_m_frames_or_the_ampdu_size() {
        for (m, b, discipline) in [
            (64, 42, Discipline::PerUser),
            (42, 42, Discipline::PerUser),
            (41, 41, Discipline::PerUser),
            (1, 1, Discipline::PerUser),
            (64, 42, Discipline::Shared),
            (41, 41, Discipline::Shared),
        ] {
            let mut l = WifiLink::new(&cfg(vec![fixed(7, m)], discipline), "l", ms(1), Rng::stream(0, 0)).unwrap();
            let mut seq = 0;
            l.start_batch(Time::ZERO, |_, _| {
                seq += 1;
                Some(pkt(0, seq))
            })
            .unwrap();
            assert_eq!(l.held(), b as usize + 1, "M {m}: b + the frame that did not fit");
            let mut n = 0;
            l.finish_batch(ms(1), |_| n += 1);
            assert_eq!(n, b, "M {m}");
        }
    }

    /// Per-user queues by hand: each batch comes from one user's queue (round-robin, skipping
    /// users with nothing), a frame that does not fit waits for that user's next batch, and each
    /// queue is handed its own user's estimate.
    #[test]
    fn per_user_batches_worked_by_hand() {
        let mut l = WifiLink::new(
            &cfg(vec![fixed(7, 2), fixed(3, 2)], Discipline::PerUser),
            "l",
            ms(1000),
            Rng::stream(5, 5),
        )
        .unwrap();
        let mut queues: [VecDeque<Packet>; 2] = [
            (0..3).map(|s| pkt_at(0, s, ms(1))).collect(),
            [pkt_at(1, 10, ms(2))].into_iter().collect(),
        ];
        let mut calls = Vec::new();
        let run = |l: &mut WifiLink,
                   now: Time,
                   queues: &mut [VecDeque<Packet>; 2],
                   calls: &mut Vec<(usize, f64)>|
         -> Option<(Time, Vec<u32>)> {
            let end = l.start_batch(now, |u, cap| {
                let u = u.expect("per-user pulls name the user");
                calls.push((u, cap));
                queues[u].pop_front()
            })?;
            let mut seqs = Vec::new();
            l.finish_batch(end, |p| seqs.push(p.seq));
            Some((end, seqs))
        };
        let (end1, seqs) = run(&mut l, ms(10), &mut queues, &mut calls).unwrap();
        assert_eq!(seqs, [0, 1]);
        // Caps: 2 × (0, 1, 2 subframes) / 40 ms of user 0's own estimator.
        let users: Vec<usize> = calls.iter().map(|c| c.0).collect();
        assert_eq!(users, [0, 0, 0]);
        assert_eq!(calls[0].1, 0.0);
        assert!(close(calls[1].1, 77_200.0) && close(calls[2].1, 154_400.0), "{calls:?}");
        assert_eq!(l.held(), 1, "frame 2 waits for user 0's next batch");
        let r = l.log[0];
        assert_eq!(r.mu_hat_user, l.estimate(end1, Some(0)));
        assert_eq!(r.mu_hat, l.estimate(end1, None));
        assert_ne!(l.estimate(end1, Some(0)), l.estimate(end1, Some(1)));
        calls.clear();
        let (end2, seqs) = run(&mut l, end1, &mut queues, &mut calls).unwrap();
        assert_eq!(seqs, [10]);
        assert_eq!((calls.len(), calls[0], calls[1].0), (2, (1, 0.0), 1));
        assert!(close(calls[1].1, 77_200.0), "{calls:?}");
        // User 1's T_IA counts from its frame's arrival; the shared one from the last ACK.
        assert_eq!((l.log[1].t_ia, l.log[1].t_ia_user), (end2 - end1, end2 - ms(2)));
        calls.clear();
        let (end3, seqs) = run(&mut l, end2, &mut queues, &mut calls).unwrap();
        // User 0's estimator has seen 3 subframes handed over: a cap of 231 600 B/s.
        assert_eq!((seqs, calls.len(), calls[0].0), (vec![2], 1, 0));
        assert!(close(calls[0].1, 231_600.0), "{calls:?}");
        assert_eq!(l.log[2].t_ia_user, end3 - end1);
        calls.clear();
        assert!(run(&mut l, end3, &mut queues, &mut calls).is_none());
        assert_eq!(calls.iter().map(|c| c.0).collect::<Vec<_>>(), [1, 0]);
        queues[1].push_back(pkt_at(1, 11, end3));
        let (end5, seqs) = run(&mut l, end3, &mut queues, &mut calls).unwrap();
        assert_eq!(seqs, [11]);
        // User 0's turn with nothing queued: user 1 again.
        queues[1].push_back(pkt_at(1, 12, end5));
        calls.clear();
        let (_, seqs) = run(&mut l, end5, &mut queues, &mut calls).unwrap();
        assert_eq!(seqs, [12]);
        assert_eq!(calls.iter().map(|c| c.0).collect::<Vec<_>>(), [0, 1, 1]);
        assert_eq!(l.held(), 0);
    }

    /// A stand-in queue that logs its timer runs.
    struct Stub {
        q: VecDeque<Packet>,
        name: &'static str,
        window: Option<Dur>,
        gauge: Option<f64>,
        timer: Option<Time>,
        stats: QueueStats,
        fired: std::sync::Arc<std::sync::Mutex<Vec<(&'static str, Time)>>>,
    }

    impl Queue for Stub {
        fn name(&self) -> &'static str {
            self.name
        }
        fn enqueue(&mut self, _: Time, pkt: Packet) -> std::result::Result<(), Packet> {
            if self.q.len() == 3 {
                return Err(pkt);
            }
            self.stats.enqueued += 1;
            self.q.push_back(pkt);
            Ok(())
        }
        fn dequeue(&mut self, _: Time, _: LinkInfo, _: &mut Vec<Packet>) -> Option<Packet> {
            self.q.pop_front()
        }
        fn len_packets(&self) -> usize {
            self.q.len()
        }
        fn len_bytes(&self) -> u64 {
            self.q.iter().map(|p| u64::from(p.size)).sum()
        }
        fn stats(&self) -> QueueStats {
            self.stats
        }
        fn capacity_window(&self) -> Option<Dur> {
            self.window
        }
        fn gauge(&self) -> Option<f64> {
            self.gauge
        }
        fn next_timer(&self) -> Option<Time> {
            self.timer
        }
        fn on_timer(&mut self, now: Time, _: &dyn crate::queue::LinkSchedule) {
            self.fired.lock().unwrap().push((self.name, now));
            self.timer = None;
        }
    }

    #[test]
    fn per_user_queue_routes_by_user_serves_round_robin_and_adds_up() {
        let fired = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let stub = |name, window, gauge, timer, dropped, marked, max_packets| -> Box<dyn Queue> {
            Box::new(Stub {
                q: VecDeque::new(),
                name,
                window,
                gauge,
                timer,
                stats: QueueStats {
                    dropped,
                    marked,
                    max_packets,
                    dequeued: dropped,
                    ..QueueStats::default()
                },
                fired: fired.clone(),
            })
        };
        let mut q = PerUserQueue::new(
            vec![
                stub("a", Some(Dur::from_millis(40)), Some(0.25), None, 1, 2, 5),
                stub("b", None, None, Some(ms(5)), 10, 20, 3),
                stub("c", Some(Dur::from_millis(1)), Some(0.5), Some(ms(3)), 100, 200, 4),
            ],
            Some(vec![2]),
        );
        assert_eq!(
            (q.name(), q.capacity_window(), q.gauge()),
            ("a", Some(Dur::from_millis(40)), Some(0.25))
        );
        // Flow 0 → c (the map); the others by id mod 3: 3, 6 → a, 1 → b, 5 → c.
        for (flow, size) in [(0, 100), (1, 200), (3, 300), (5, 400), (6, 500)] {
            let mut p = pkt(flow, flow);
            p.size = size;
            assert!(q.enqueue(ms(1), p).is_ok());
        }
        assert_eq!((q.len_packets(), q.len_bytes()), (5, 1500));
        let s = q.stats();
        assert_eq!(
            (s.enqueued, s.dequeued, s.dropped, s.marked, s.max_packets),
            (5, 111, 111, 222, 5)
        );
        let link = LinkInfo {
            capacity: 0.0,
            overhead: 0,
        };
        let mut drops = Vec::new();
        assert_eq!(q.dequeue_user(ms(2), 2, link, &mut drops).map(|p| p.flow), Some(0));
        let order: Vec<u32> = std::iter::from_fn(|| q.dequeue(ms(2), link, &mut drops).map(|p| p.flow))
            .take(10)
            .collect();
        assert_eq!(order, [3, 1, 5, 6]);
        // A full inner queue gives the packet back.
        for f in [4, 7, 10] {
            assert!(q.enqueue(ms(3), pkt(f, f)).is_ok());
        }
        assert_eq!(q.enqueue(ms(3), pkt(13, 13)).map_err(|p| p.flow), Err(13));
        // Timers: the earliest of the queues'; only the due ones run.
        assert_eq!(q.next_timer(), Some(ms(3)));
        let sched = crate::queue::ConstantSchedule(1e6);
        q.on_timer(ms(4), &sched);
        assert_eq!(*fired.lock().unwrap(), [("c", ms(4))]);
        assert_eq!(q.next_timer(), Some(ms(5)));
        q.on_timer(ms(5), &sched);
        assert_eq!(*fired.lock().unwrap(), [("c", ms(4)), ("b", ms(5))]);
        assert_eq!(q.next_timer(), None);
        // Without a map: flow id mod the number of users.
        let mut q = PerUserQueue::new(
            vec![
                stub("a", None, None, None, 0, 0, 0),
                stub("b", None, None, None, 0, 0, 0),
            ],
            None,
        );
        for f in [3, 4, 5] {
            assert!(q.enqueue(ms(1), pkt(f, f)).is_ok());
        }
        let user = |q: &mut PerUserQueue, u| -> Vec<u32> {
            std::iter::from_fn(|| q.dequeue_user(ms(2), u, link, &mut Vec::new()).map(|p| p.flow))
                .take(5)
                .collect()
        };
        assert_eq!((user(&mut q, 0), user(&mut q, 1)), (vec![4], vec![3, 5]));
    }

    #[test]
    fn the_batches_table_has_a_row_per_batch_in_us_and_mbps() {
        let (_, _, l) = backlogged(7, 32, 3);
        assert!(batches_table(std::iter::empty()).is_none());
        let t = batches_table([(2usize, &l)].into_iter()).unwrap();
        let f = |name: &str| match t.get(name) {
            Some(crate::measure::table::Column::F64(v)) => v.clone(),
            other => panic!("{name}: {other:?}"),
        };
        let i = |name: &str| match t.get(name) {
            Some(crate::measure::table::Column::I64(v)) => v.clone(),
            other => panic!("{name}: {other:?}"),
        };
        assert_eq!(i("hop"), [2, 2, 2]);
        assert_eq!(i("b"), [32, 32, 32]);
        assert_eq!(i("bytes"), [49_408; 3]);
        let rows = &l.log;
        assert_eq!(f("t_ms"), rows.iter().map(|r| r.at.millis_f64()).collect::<Vec<_>>());
        assert_eq!(
            f("airtime_us"),
            rows.iter().map(|r| r.airtime.0 as f64 / 1e3).collect::<Vec<_>>()
        );
        assert_eq!(
            f("t_ia_us"),
            rows.iter().map(|r| r.t_ia.0 as f64 / 1e3).collect::<Vec<_>>()
        );
        assert_eq!(
            f("t_ia_user_us"),
            rows.iter().map(|r| r.t_ia_user.0 as f64 / 1e3).collect::<Vec<_>>()
        );
        assert_eq!(f("cr_mbps"), rows.iter().map(|r| r.cr * 8.0 / 1e6).collect::<Vec<_>>());
        assert!(
            f("airtime_us").iter().all(|&a| a > 6000.0 && a < 6400.0),
            "{:?}",
            f("airtime_us")
        );
    }

    /// A batch's randomness is the link's own stream, drawn in order: a backoff of
    /// `below(CWmin + 1)` slots, then, with a jitter bound, `below(jitter + 1)` ns.
    #[test]
    fn backoff_and_jitter_are_the_links_draws_in_order() {
        for jitter_ns in [0u64, 7_000] {
            let mut c = cfg(vec![fixed(7, 32)], Discipline::Shared);
            c.jitter = Dur(jitter_ns);
            let mut l = WifiLink::new(&c, "l", ms(1000), Rng::stream(8, 3)).unwrap();
            let mut draws = Rng::stream(8, 3);
            let mut now = Time::ZERO;
            for seq in 0..50 {
                let mut p = Some(pkt(0, seq));
                let end = l.start_batch(now, |_, _| p.take()).unwrap();
                l.finish_batch(end, |_| {});
                now = end;
                let r = *l.log.last().unwrap();
                let backoff = draws.below(CW_MIN_BE + 1) * SLOT.0;
                let jitter = if jitter_ns > 0 { draws.below(jitter_ns + 1) } else { 0 };
                let want = HT20.fixed_overhead(7).0 + backoff + jitter + HT20.data_time(7, 1544).0;
                assert_eq!(r.airtime.0, want, "jitter {jitter_ns}, batch {seq}");
            }
        }
    }
}
