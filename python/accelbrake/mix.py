"""Several schemes and traffic models in one run: flow groups, Poisson arrivals of
finite flows, and the per-scheme and flow-completion-time figures of a run.

* :func:`parse_flow_mix` reads ``--flows abc:3,cubic:3`` (or a plain count);
* :func:`mix_flow_groups` turns such a mix into the core's ``flows`` entries;
* :func:`poisson_flows` draws finite flows arriving as a Poisson process with a size distribution
  (fixed, exponential, Pareto, or an empirical CDF from a file), deterministic from a seed;
* :func:`scheme_aggregates` and :func:`fct_stats` summarise a run per scheme and per size bucket.

Every Poisson arrival becomes one flow of the core: the core keeps its sender until the run ends
(a few kB each) and one time-series row; :data:`MAX_ARRIVALS` bounds how many one group may make.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from accelbrake.errors import ScenarioError
from accelbrake.schemes import AQM_QUEUES, ECN_CONTROLLERS, scheme_preset

__all__ = [
    "MAX_ARRIVALS",
    "MSS_BYTES",
    "SIZE_BUCKETS",
    "fct_stats",
    "mix_flow_groups",
    "parse_flow_mix",
    "poisson_flows",
    "scheme_aggregates",
]

#: Payload bytes per segment: the core's MSS (crates/accelbrake-sim/src/packet.rs).
MSS_BYTES = 1448

#: Most flows one Poisson group may create (each is a flow of the core until the run ends).
MAX_ARRIVALS = 50_000

#: Size buckets of the FCT table, payload bytes: (lo, hi].
SIZE_BUCKETS: tuple[tuple[str, float, float], ...] = (
    ("<= 10 KB", 0, 10_000),
    ("10-100 KB", 10_000, 100_000),
    ("100 KB-1 MB", 100_000, 1_000_000),
    ("> 1 MB", 1_000_000, math.inf),
)


def parse_flow_mix(text: str | int, key: str = "flows") -> list[tuple[str, int]] | int:
    """``"3"`` → 3; ``"abc:3,cubic:3"`` → ``[("abc", 3), ("cubic", 3)]``. Errors name ``key``."""
    if isinstance(text, int) and not isinstance(text, bool):
        if text < 1:
            raise ScenarioError(f"{key}: got {text}; expected 1 or more flows", key=key)
        return text
    s = str(text).strip()
    if s.isdigit():
        n = int(s)
        if n < 1:
            raise ScenarioError(f"{key}: got {n}; expected 1 or more flows", key=key)
        return n
    groups: list[tuple[str, int]] = []
    for part in s.split(","):
        part = part.strip()
        if not part:
            continue
        name, colon, count = part.rpartition(":")
        if not colon:
            name, count = part, "1"
        if not name.strip() or not count.strip().isdigit() or int(count) < 1:
            raise ScenarioError(
                f"{key}: '{part}' is not SCHEME:COUNT; expected e.g. abc:3,cubic:3 "
                "(COUNT a whole number ≥ 1)",
                key=key,
            )
        try:
            scheme_preset(name.strip())
        except ScenarioError as e:
            raise ScenarioError(f"{key}: '{part}': {e}", key=key) from None
        groups.append((name.strip(), int(count)))
    if not groups:
        raise ScenarioError(
            f"{key}: empty; expected a count or SCHEME:COUNT,... (e.g. abc:3,cubic:3)", key=key
        )
    return groups


def mix_flow_groups(
    groups: Sequence[tuple[str, int]], queue_type: str, ecn: bool | None = None, key: str = "flows"
) -> list[dict[str, Any]]:
    """The core's ``flows`` for ``groups`` of ``(scheme, count)`` over data hop 0 and ACK hop 1.

    In a mix the bottleneck queue is the run's (``--scheme``'s preset or ``--queue``), so a group
    naming another AQM (``cubic+codel`` over an ABC router) is an error rather than ignored.
    """
    out: list[dict[str, Any]] = []
    for name, count in groups:
        preset = scheme_preset(name)
        if preset.queue != queue_type and preset.queue in AQM_QUEUES and "+" in name:
            raise ScenarioError(
                f"{key}: '{name}' names the {preset.queue} queue, but the flows of a mix share the run's "
                f"{queue_type} queue; give the controller alone ({preset.cc}) or pick the queue with --queue",
                key=key,
            )
        flow: dict[str, Any] = {"scheme": preset.cc, "params": {}, "fwd": [0], "rev": [1]}
        if count > 1:
            flow["count"] = count
        if preset.cc in ECN_CONTROLLERS or (preset.ecn if ecn is None else ecn):
            flow["ecn"] = True
        out.append(flow)
    return out


def _empirical_cdf(path: str | Path, key: str) -> list[tuple[float, float]]:
    """Rows ``size_bytes cumulative_probability`` (whitespace or comma separated, ``#`` comments),
    sizes and probabilities non-decreasing, the last probability 1."""
    p = Path(path)
    if not p.is_file():
        raise ScenarioError(f"{key}: CDF file {p} not found", key=key)
    rows: list[tuple[float, float]] = []
    for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
        line = line.split("#", 1)[0].replace(",", " ").strip()
        if not line:
            continue
        parts = line.split()
        try:
            size, prob = float(parts[0]), float(parts[1])
        except (IndexError, ValueError):
            raise ScenarioError(
                f"{key}: {p} line {i}: expected 'size_bytes cumulative_probability', got {line!r}", key=key
            ) from None
        if not (size > 0 and 0 <= prob <= 1 and math.isfinite(size)):
            raise ScenarioError(f"{key}: {p} line {i}: size must be > 0 and probability in [0, 1]", key=key)
        if rows and (size < rows[-1][0] or prob < rows[-1][1]):
            raise ScenarioError(f"{key}: {p} line {i}: sizes and probabilities must not decrease", key=key)
        rows.append((size, prob))
    if not rows or abs(rows[-1][1] - 1.0) > 1e-9:
        raise ScenarioError(f"{key}: {p}: the last cumulative probability must be 1", key=key)
    return rows


def _size_sampler(size: Mapping[str, Any], key: str) -> Any:
    """A function rng → bytes for a size distribution ``{"dist": ..., ...}``."""
    dist = size.get("dist", "fixed")

    def need(name: str, lo: float) -> float:
        v = size.get(name)
        if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v) or v <= lo:
            raise ScenarioError(f"{key}.{name}: got {v!r}; expected a number > {lo:g}", key=f"{key}.{name}")
        return float(v)

    if dist == "fixed":
        b = need("bytes", 0)
        return lambda rng: b
    if dist == "exponential":
        mean = need("mean_bytes", 0)
        return lambda rng: rng.expovariate(1.0 / mean)
    if dist == "pareto":
        shape = need("shape", 1.0)  # a finite mean needs shape > 1
        mean = need("mean_bytes", 0)
        xm = mean * (shape - 1) / shape
        return lambda rng: xm * rng.paretovariate(shape)
    if dist == "empirical":
        cdf = _empirical_cdf(str(size.get("cdf", "")), f"{key}.cdf")

        def draw(rng: random.Random) -> float:
            u = rng.random()
            prev_s, prev_p = 0.0, 0.0
            for s, pr in cdf:
                if u <= pr:
                    if pr <= prev_p:
                        return s
                    return prev_s + (s - prev_s) * (u - prev_p) / (pr - prev_p)
                prev_s, prev_p = s, pr
            return cdf[-1][0]

        return draw
    raise ScenarioError(
        f"{key}.dist: got {dist!r}; expected fixed (bytes), exponential (mean_bytes), pareto (shape > 1, "
        "mean_bytes) or empirical (cdf: a file of 'size_bytes cumulative_probability' rows)",
        key=f"{key}.dist",
    )


def poisson_flows(
    scheme: str,
    *,
    rate_per_s: float | None = None,
    load_mbps: float | None = None,
    size: Mapping[str, Any],
    start_ms: float,
    stop_ms: float,
    seed: int,
    key: str = "arrivals",
    fwd: Sequence[int] = (0,),
    rev: Sequence[int] = (1,),
) -> list[dict[str, Any]]:
    """Finite flows of ``scheme`` arriving as a Poisson process in ``[start_ms, stop_ms)``, each
    one flow of the core (``app: finite``), sizes drawn from ``size``. Give the arrival rate
    (``rate_per_s``) or the offered load (``load_mbps``, payload Mbit/s: rate = load / mean size,
    the mean estimated from 10⁴ draws of the seed's own stream for the empirical and Pareto cases).
    Same arguments and seed → the same flows."""
    sampler = _size_sampler(size, f"{key}.size")
    rng = random.Random(f"poisson/{seed}/{key}")
    if (rate_per_s is None) == (load_mbps is None):
        raise ScenarioError(f"{key}: give rate_per_s or load_mbps (one of them)", key=key)
    if load_mbps is not None:
        if not (isinstance(load_mbps, (int, float)) and math.isfinite(load_mbps) and load_mbps > 0):
            raise ScenarioError(f"{key}.load_mbps: got {load_mbps!r}; expected > 0", key=f"{key}.load_mbps")
        est = random.Random(f"poisson-mean/{seed}/{key}")
        mean = sum(sampler(est) for _ in range(10_000)) / 10_000
        rate = load_mbps * 1e6 / 8 / mean
    else:
        if not (isinstance(rate_per_s, (int, float)) and math.isfinite(rate_per_s) and rate_per_s > 0):
            raise ScenarioError(
                f"{key}.rate_per_s: got {rate_per_s!r}; expected > 0", key=f"{key}.rate_per_s"
            )
        rate = float(rate_per_s)
    if not stop_ms > start_ms:
        raise ScenarioError(f"{key}: stop ({stop_ms} ms) must be after start ({start_ms} ms)", key=key)
    expected = rate * (stop_ms - start_ms) / 1000.0
    if expected > MAX_ARRIVALS:
        raise ScenarioError(
            f"{key}: about {expected:.0f} arrivals; at most {MAX_ARRIVALS} (each is a flow of the core): "
            "lower the rate or shorten the interval",
            key=key,
        )
    preset = scheme_preset(scheme)
    flows: list[dict[str, Any]] = []
    t = start_ms
    while True:
        t += rng.expovariate(rate) * 1000.0
        if t >= stop_ms:
            break
        b = max(1, int(round(sampler(rng))))
        f: dict[str, Any] = {
            "scheme": preset.cc,
            "params": {},
            "fwd": list(fwd),
            "rev": list(rev),
            "start_ms": round(t, 6),
            "app": {"type": "finite", "bytes": b},
        }
        if preset.ecn:
            f["ecn"] = True
        flows.append(f)
    return flows


def _flow_sizes(scenario: Mapping[str, Any]) -> list[float | None]:
    """Payload bytes of each flow of the core (``count`` expanded), ``None`` when not finite."""
    out: list[float | None] = []
    for f in scenario.get("flows") or []:
        app = f.get("app") or {}
        b = float(app["bytes"]) if app.get("type") == "finite" else None
        out.extend([b] * int(f.get("count", 1)))
    return out


def _q(xs: list[float], q: float) -> float:
    if not xs:
        return float("nan")
    s = sorted(xs)
    i = q * (len(s) - 1)
    lo = int(math.floor(i))
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (i - lo)


def fct_stats(
    summary: Mapping[str, Any], scenario: Mapping[str, Any], capacity_mbps: float
) -> list[dict[str, Any]]:
    """Flow completion times of the finite flows, all and by size bucket: count, completed, mean,
    p50, p95, p99 FCT in ms, and the same of the slowdown FCT / (propagation RTT + size / capacity)
    (the FCT alone on an empty link, ignoring slow start and headers)."""
    sizes = _flow_sizes(scenario)
    recs: list[tuple[float, float | None, float | None]] = []
    for f in summary.get("flows") or []:
        i = int(f["id"])
        size = sizes[i] if i < len(sizes) else None
        if size is None:
            continue
        done = f.get("completion_s")
        if done is None:
            recs.append((size, None, None))
            continue
        fct = float(done) * 1000.0  # the core's completion_s counts from the flow's start
        ideal = float(f.get("prop_rtt_ms") or 0.0) + (
            size * 8 / (capacity_mbps * 1e3) if capacity_mbps > 0 else 0
        )
        recs.append((size, fct, fct / ideal if ideal > 0 else None))
    rows = []
    for label, lo, hi in (("all", 0.0, math.inf), *SIZE_BUCKETS):
        sel = [r for r in recs if lo < r[0] <= hi]
        if not sel and label != "all":
            continue
        fcts = [r[1] for r in sel if r[1] is not None]
        slows = [r[2] for r in sel if r[2] is not None]
        fct_mean = sum(fcts) / len(fcts) if fcts else float("nan")
        slowdown_mean = sum(slows) / len(slows) if slows else float("nan")
        # Sorted once (after the means, which keep their order of summation): each _q's sort of
        # a sorted list is then one linear pass, not n log n (thousands of flows per run).
        fcts.sort()
        slows.sort()
        rows.append(
            {
                "bucket": label,
                "flows": len(sel),
                "completed": len(fcts),
                "fct_mean_ms": fct_mean,
                "fct_p50_ms": _q(fcts, 0.5),
                "fct_p95_ms": _q(fcts, 0.95),
                "fct_p99_ms": _q(fcts, 0.99),
                "slowdown_mean": slowdown_mean,
                "slowdown_p50": _q(slows, 0.5),
                "slowdown_p95": _q(slows, 0.95),
                "slowdown_p99": _q(slows, 0.99),
            }
        )
    return rows if recs else []


def scheme_aggregates(summary: Mapping[str, Any], scenario: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Per scheme, over its long-lived flows (bulk or rate-limited; finite flows are in
    :func:`fct_stats`): flows, mean / min / max / sum of throughput (Mbit/s), and the relative
    standard deviation of the flows' throughputs."""
    sizes = _flow_sizes(scenario)
    by: dict[str, list[float]] = {}
    for f in summary.get("flows") or []:
        i = int(f["id"])
        if i < len(sizes) and sizes[i] is not None:
            continue
        by.setdefault(str(f.get("scheme")), []).append(float(f.get("throughput_mbps") or 0.0))
    out = []
    for scheme, xs in by.items():
        mean = sum(xs) / len(xs)
        sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / len(xs))
        out.append(
            {
                "scheme": scheme,
                "flows": len(xs),
                "mean_mbps": mean,
                "min_mbps": min(xs),
                "max_mbps": max(xs),
                "sum_mbps": sum(xs),
                "rel_std": sd / mean if mean > 0 else float("nan"),
            }
        )
    return out
