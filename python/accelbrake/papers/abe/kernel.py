"""The ABE paper's Figs. 4-7 three ways: the paper | Linux TCP through our emulated link | our simulator.

The ABE paper (Khademi et al., "Alternative Backoff: Achieving Low Latency and High Throughput with
ECN and AQM", IFIP Networking 2017; RFC 8511) measured a physical testbed: Linux 3.17.4 CoDel and PIE
at their defaults, a 1000-packet limit, 10 Mbit/s, RTT 100/200/400 ms, one long flow; Cubic on
patched Linux hosts, NewReno on patched FreeBSD 10.1 hosts (§IV-A). Here every point runs

* on **kernel TCP** (``accelbrake emulate``): this machine's Linux Cubic or Reno with ABE's β_ecn as a
  BPF struct_ops congestion control (``cubic-abe``, ``newreno-abe``), classic ECN, through our
  emulated link and our CoDel/PIE (the simulator's queue code), in real time;
* on **our simulator** (``accelbrake run``) over the same link: the same Mahimahi trace of
  10 Mbit/s both ways (``link-10mbps.mahi`` in the output folder, 2500 opportunities of 1500 bytes
  every 3 s), the same queue, delay and duration; once with the sender's defaults ("after") and
  once with ECN answered by dropping the window at once (``ecn_cwr=false``, "before" the simulator
  followed Linux's CWR + PRR response).

The paper's numbers are those :mod:`accelbrake.papers.abe.published` holds for ``abe-figures``
(Fig. 4/6 throughput gains at 400 ms, Fig. 5/7 queueing-delay changes at 100 ms), with the same
verdict rules (:func:`accelbrake.experiments.verdicts.judge`). Each is judged three ways: kernel vs
paper, simulator vs paper, simulator vs kernel (a gain agrees within 10 percentage points, a delay
change within 1 ms, a claim when both give the same answer). Where the kernel also differs from the
paper and the simulator agrees with the kernel, the row is labelled **setup-side**: the difference
lies between the paper's testbed and a Linux sender on this link, not in the simulator.

Interface (small on purpose; the experiment document and ``scripts/abe_kernel.py`` use it):

* :func:`points` — the (scheme, aqm, rtt_ms, beta_ecn) points, all or ``quick`` (the 400 ms ones);
* :func:`run` — runs what is missing into an output folder (resumable: one JSON per kernel run
  in ``kernel/``, the simulator's runs in ``sim/``), at most ``jobs`` emulators at once, each point
  ``repeats`` times on the kernel (the mean is the point's number: at 400 ms a 60-s run holds less
  than one NewReno sawtooth, so one run depends on where slow start ended), and returns the
  per-point table and the verdict table;
* :func:`write` — ``points.csv``, ``verdicts.csv`` and ``abe-kernel.md`` (both tables) in a folder.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

__all__ = [
    "DURATION_S",
    "LINK_MBPS",
    "Point",
    "points",
    "run",
    "write",
    "write_trace",
]

#: Bottleneck (and ACK link) rate, Mbit/s (ABE paper §IV-A).
LINK_MBPS = 10.0
#: Length of every run, s (kernel and simulator alike).
DURATION_S = 60.0
#: AQMs as ``--queue`` specs: the paper's parameters (§IV-A), ECN marking, 1000 packets; PIE marks
#: at any probability (``ecn_prob_max=1``: the paper disabled Linux's drop-instead-of-mark above
#: 10 %, §IV-A).
QUEUES: dict[str, str] = {
    "codel": "codel target_ms=5,interval_ms=100,packets=1000,ecn=1",
    "pie": "pie qdelay_ref_ms=20,t_update_ms=30,alpha=0.125,beta=1.25,max_burst_ms=100,packets=1000,ecn=1,"
    "ecn_prob_max=1",
}
#: What the paper fixes besides β_ecn: fast convergence off for Cubic (footnote 11, §IV-B).
FIXED_SETS: dict[str, tuple[str, ...]] = {
    "newreno-abe": (),
    "cubic-abe": ("cubic-abe.fast_convergence=false",),
}
#: The simulator's sender before it answered ECN as Linux does ("before" columns).
BEFORE_SETS: dict[str, str] = {
    "newreno-abe": "newreno-abe.ecn_cwr=false",
    "cubic-abe": "cubic-abe.ecn_cwr=false",
}
#: Points whose 60-s run holds less than one sawtooth, run longer on both sides and with several
#: simulator seeds: NewReno at 400 ms grows one packet per RTT (2.5 packets/s), so after a β_ecn 0.5
#: reduction from the ~340-packet window it takes ~70 s to return; a 60-s run is then decided by
#: where slow start ended (kernel runs of one point spread 0.38–0.53). 300 s hold about four
#: sawtooths at β_ecn 0.5 and ten at 0.8.
LONG_DURATION_S = 300.0
#: Simulator seeds (the sender's host-jitter stream, the PIE's random draws) averaged at those
#: points, as the kernel's repetitions are.
LONG_SIM_SEEDS = 5


def is_long(p: Point) -> bool:
    """NewReno at 400 ms: the points :data:`LONG_DURATION_S` is for."""
    return p[0] == "newreno-abe" and p[2] >= 400


def duration_for(p: Point, duration_s: float) -> float:
    """The run length of point ``p`` when the others run ``duration_s``."""
    return max(duration_s, LONG_DURATION_S) if is_long(p) else duration_s


def sim_seeds_for(p: Point) -> int:
    """How many simulator seeds point ``p`` averages."""
    return LONG_SIM_SEEDS if is_long(p) else 1


#: Kernel vs simulator: per-point utilisation agrees within this ratio (the acceptance band).
POINT_TOLERANCE = 0.10
#: Kernel vs simulator: a gain agrees within this many percentage points, a delay change within
#: this many ms (the paper's resolution).
GAIN_BAND_PCT = 10.0
DELAY_BAND_MS = 1.0

Point = tuple[str, str, int, float]
"""(scheme, aqm, rtt_ms, beta_ecn)."""


def _published() -> list[tuple[Any, tuple[str, str, int, float, float, str]]]:
    from accelbrake.papers.abe.published import ABE_FIGURES

    return list(ABE_FIGURES)


def points(quick: bool = False) -> list[Point]:
    """The points the paper's numbers need (Figs. 4/6 at 400 ms; Figs. 5/7 at 100 ms), and in the
    full set also 200 ms for the β_ecn of the gains. ``quick``: the 400 ms points only."""
    need: set[Point] = set()
    for _, (scheme, aqm, rtt, beta, base, _col) in _published():
        for b in (beta, base):
            need.add((scheme, aqm, int(rtt), float(b)))
    if not quick:
        need |= {(s, a, 200, b) for (s, a, r, b) in list(need) if r == 400}
    else:
        need = {p for p in need if p[2] == 400}
    return sorted(need)


def write_trace(path: Path) -> Path:
    """A 10 Mbit/s Mahimahi trace: 2500 opportunities of 1500 bytes in every 3 s, whole ms."""
    path.write_text("".join(f"{i * 3000 // 2500}\n" for i in range(1, 2501)))
    return path


def point_id(p: Point) -> str:
    scheme, aqm, rtt, beta = p
    return f"{scheme}-{aqm}-rtt{rtt}-b{beta:g}"


def _sets(p: Point) -> list[str]:
    scheme, _, _, beta = p
    return [f"{scheme}.beta_ecn={beta!r}", *FIXED_SETS[scheme]]


def _pct(sorted_vals: Sequence[float], q: float) -> float:
    """Mahimahi's percentile (the sorted value at index floor(q·N)), as the simulator's."""
    if not sorted_vals:
        return math.nan
    return float(sorted_vals[min(len(sorted_vals) - 1, int(q * len(sorted_vals)))])


def _loadavg() -> float:
    try:
        return float(Path("/proc/loadavg").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return math.nan


def kernel_file(out: Path, p: Point, rep: int, duration_s: float = DURATION_S) -> Path:
    """Where repetition ``rep`` (0, 1, ...) of point ``p`` run for ``duration_s`` is kept (runs of
    another length than :data:`DURATION_S` carry it in the name, so they never mix)."""
    stem = point_id(p) + ("" if duration_s == DURATION_S else f"-{duration_s:g}s")
    return out / "kernel" / (f"{stem}.json" if rep == 0 else f"{stem}.r{rep}.json")


def kernel_point(p: Point, trace: Path, out: Path, duration_s: float, rep: int = 0) -> dict[str, Any]:
    """Run repetition ``rep`` of point ``p`` on kernel TCP (``accelbrake emulate --rt``) unless its
    file exists; return that record. Queueing delay is per data packet at the bottleneck (arrival
    to its delivery opportunity), from the emulator's per-packet table."""
    dest = kernel_file(out, p, rep, duration_s)
    if dest.exists():
        return json.loads(dest.read_text())
    dest.parent.mkdir(parents=True, exist_ok=True)
    scheme, aqm, rtt, beta = p
    tmp = dest.with_suffix(".packets.csv")
    argv = [sys.executable, "-m", "accelbrake", "emulate", "--scheme", scheme, "--transport", "kernel"]
    argv += ["--trace", str(trace), "--ack-trace", str(trace), "--delay", repr(rtt / 2.0)]
    argv += ["--queue", QUEUES[aqm], "--ecn", "--rt", "--duration", repr(duration_s), "--json"]
    argv += ["--packets", str(tmp)]
    for s in _sets(p):
        argv += ["--set", s]
    load0, t0 = _loadavg(), time.time()
    r = subprocess.run(argv, capture_output=True, text=True)
    if r.returncode != 0:
        tmp.unlink(missing_ok=True)
        raise RuntimeError(f"{point_id(p)}: emulate failed ({r.returncode}): {r.stderr.strip()[-500:]}")
    s = json.loads(r.stdout)
    qd = _queueing_from_packets(tmp)
    tmp.unlink(missing_ok=True)
    rec = {
        "point": point_id(p),
        "duration_s": duration_s,
        "utilization": s["utilization"],
        "queueing_delay_p50_ms": _pct(qd, 0.5),
        "queueing_delay_p90_ms": _pct(qd, 0.9),
        "marks": s.get("marks"),
        "drops": s.get("drops"),
        "timing_error_p99_us": (s.get("timing_error_us") or {}).get("p99"),
        "load_start": load0,
        "load_end": _loadavg(),
        "wall_s": time.time() - t0,
        "cc_registered": s.get("cc_registered"),
    }
    tmp_json = dest.with_suffix(".json.part")
    tmp_json.write_text(json.dumps(rec, indent=1))
    os.replace(tmp_json, dest)
    return rec


def _queueing_from_packets(path: Path) -> list[float]:
    import pandas as pd

    t = pd.read_csv(path, usecols=["dir", "size", "arrived_ns", "opportunity_ns"])
    up = t[(t["dir"] == "up") & (t["size"] > 100)]
    q = (up["opportunity_ns"] - up[["arrived_ns", "opportunity_ns"]].min(axis=1)) / 1e6
    return sorted(q.tolist())


def sim_points(
    pts: Sequence[Point], trace: Path, out: Path, duration_s: float, before: bool
) -> dict[Point, dict]:
    """The simulator's records of ``pts`` on the same link (resumable in ``out/sim``), each point
    run for :func:`duration_for` and averaged over :func:`sim_seeds_for` seeds (0, 1, ...)."""
    from accelbrake.experiments.runner import Task, run_scenarios
    from accelbrake.scenarios import build_scenario

    tasks = []
    for p in pts:
        scheme, aqm, rtt, _ = p
        sets = _sets(p) + ([BEFORE_SETS[scheme]] if before else [])
        dur = duration_for(p, duration_s)
        for seed in range(sim_seeds_for(p)):
            sc = build_scenario(
                scheme,
                trace=str(trace),
                ack_trace=str(trace),
                delay_ms=rtt / 2.0,
                duration_s=dur,
                seed=seed,
                sets=sets,
                record_packets=True,
                queue=QUEUES[aqm],
                ecn=True,
            )
            for hop in sc["hops"]:
                hop["link"]["offset_ms"] = 0  # the emulator's link starts at the trace's first line
            name = (
                f"{point_id(p)}{'' if dur == DURATION_S else f' {dur:g}s'}{f' seed {seed}' if seed else ''}"
            )
            tasks.append(Task((p, seed), sc, f"{name}{' before' if before else ''}", {"point": point_id(p)}))
    outcome = run_scenarios(tasks, out / "sim", kind="hop_quantiles", progress=False)
    recs = {}
    for p in pts:
        per = []
        for seed in range(sim_seeds_for(p)):
            res = outcome.results[(p, seed)]
            s = res["summary"]
            hop = s["hops"][0]
            per.append(
                {
                    "utilization": s["utilization"],
                    "queueing_delay_p50_ms": (hop.get("queueing_delay_ms") or {}).get("p50"),
                    "queueing_delay_p90_ms": res["hop_delay_ms"].get("p90"),
                    "marks": hop.get("marks"),
                }
            )
        rec: dict[str, Any] = {}
        for k in per[0]:
            vals = [float(r[k]) for r in per if r[k] is not None]
            rec[k] = sum(vals) / len(vals) if vals else None
        rec["utilization_runs"] = " ".join(f"{r['utilization']:.3f}" for r in per)
        rec["seeds"] = len(per)
        rec["duration_s"] = duration_for(p, duration_s)
        recs[p] = rec
    return recs


#: A kernel run that started at a load average above this (the machine's 2 cores busy with other
#: work) is set aside when the point has a calmer run: the link keeps its timing under load
#: (``--rt``), but the kernel's TCP endpoints do not, and such runs came out up to 17 % lower.
LOAD_LIMIT = 2.0


def _reps(out: Path, p: Point, repeats: int, duration_s: float = DURATION_S) -> list[int]:
    """The repetitions of ``p`` to use: the first ``repeats``, and any further ones already kept."""
    n = max(1, repeats)
    while kernel_file(out, p, n, duration_s).exists():
        n += 1
    return list(range(n))


def _mean_record(all_recs: list[dict[str, Any]]) -> dict[str, Any]:
    """Repetitions of one point: the mean of each number over the runs started below
    :data:`LOAD_LIMIT` (all runs if none was), the largest load among them, how many."""
    calm = [r for r in all_recs if float(r["load_start"]) <= LOAD_LIMIT]
    recs = calm or all_recs
    out: dict[str, Any] = {"runs": len(recs)}
    for k in (
        "utilization",
        "queueing_delay_p50_ms",
        "queueing_delay_p90_ms",
        "marks",
        "drops",
        "timing_error_p99_us",
    ):
        vals = [float(r[k]) for r in recs if r.get(k) is not None]
        out[k] = sum(vals) / len(vals) if vals else math.nan
    out["load_start"] = max(float(r["load_start"]) for r in recs)
    out["load_end"] = max(float(r["load_end"]) for r in recs)
    out["utilization_runs"] = " ".join(
        f"{float(r['utilization']):.3f}" + ("" if r in recs else "*") for r in all_recs
    )
    return out


def run(
    out: str | os.PathLike[str],
    *,
    quick: bool = False,
    jobs: int = 2,
    duration_s: float = DURATION_S,
    repeats: int = 1,
    only: Sequence[str] = (),
    log: Callable[[str], Any] = print,
) -> tuple[Any, Any]:
    """Run every point not yet in ``out`` ``repeats`` times (kernel: at most ``jobs`` emulators at
    once; the kernel's number of a point is the mean of its repetitions), then return
    ``(points_table, verdicts_table)`` as DataFrames. NewReno at 400 ms runs for
    :data:`LONG_DURATION_S` at least, on the simulator over :data:`LONG_SIM_SEEDS` seeds.
    ``only``: run (and tabulate) just the points whose id contains one of these strings."""
    import pandas as pd

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    trace = write_trace(out / "link-10mbps.mahi")
    pts = points(quick)
    if only:
        pts = [p for p in pts if any(o in point_id(p) for o in only)]
        if not pts:
            raise ValueError(
                f"--only {' '.join(only)}: no point's id contains that (ids: {point_id(points()[0])}, ...)"
            )
    dur = {p: duration_for(p, duration_s) for p in pts}
    t0 = time.time()
    runs = [(p, r) for r in range(max(1, repeats)) for p in pts]
    todo = [(p, r) for p, r in runs if not kernel_file(out, p, r, dur[p]).exists()]
    log(
        f"abe-kernel: {len(runs)} kernel runs ({len(pts)} points × {repeats}), "
        f"{len(runs) - len(todo)} done, {jobs} at once"
    )

    def one(pr: tuple[Point, int]) -> None:
        k = kernel_point(pr[0], trace, out, dur[pr[0]], pr[1])
        log(f"  {point_id(pr[0])} #{pr[1]}: utilisation {k['utilization']:.3f} (load {k['load_start']:.2f})")

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as ex:
        list(ex.map(one, todo))
    kern = {
        p: _mean_record([kernel_point(p, trace, out, dur[p], r) for r in _reps(out, p, repeats, dur[p])])
        for p in pts
    }
    after = sim_points(pts, trace, out, duration_s, before=False)
    before = sim_points(pts, trace, out, duration_s, before=True)
    rows = []
    for p in pts:
        k, a, b = kern[p], after[p], before[p]
        rows.append(
            {
                "scheme": p[0],
                "aqm": p[1],
                "rtt_ms": p[2],
                "beta_ecn": p[3],
                "duration_s": dur[p],
                "sim_seeds": a["seeds"],
                "kernel_util": k["utilization"],
                "sim_util": a["utilization"],
                "sim_before_util": b["utilization"],
                "ratio": a["utilization"] / k["utilization"],
                "ratio_before": b["utilization"] / k["utilization"],
                "kernel_q50_ms": k["queueing_delay_p50_ms"],
                "sim_q50_ms": a["queueing_delay_p50_ms"],
                "sim_before_q50_ms": b["queueing_delay_p50_ms"],
                "kernel_q90_ms": k["queueing_delay_p90_ms"],
                "sim_q90_ms": a["queueing_delay_p90_ms"],
                "sim_before_q90_ms": b["queueing_delay_p90_ms"],
                "kernel_marks": k["marks"],
                "sim_marks": a["marks"],
                "kernel_drops": k["drops"],
                "kernel_runs": k["runs"],
                "kernel_util_runs": k["utilization_runs"],
                "sim_util_runs": a["utilization_runs"],
                "load_start": k["load_start"],
                "load_end": k["load_end"],
                "timing_error_p99_us": k["timing_error_p99_us"],
                "agrees": abs(a["utilization"] / k["utilization"] - 1.0) <= POINT_TOLERANCE,
            }
        )
    table = pd.DataFrame(rows)
    verdicts = pd.DataFrame(_verdicts(table))
    log(f"abe-kernel: done in {time.time() - t0:.0f} s wall time")
    return table, verdicts


def _value(table: Any, col: str, key: tuple[str, str, int, float]) -> float | None:
    scheme, aqm, rtt, beta = key
    sel = table[
        (table["scheme"] == scheme)
        & (table["aqm"] == aqm)
        & (table["rtt_ms"] == rtt)
        & ((table["beta_ecn"] - beta).abs() < 1e-9)
    ]
    return None if sel.empty else float(sel[col].iloc[0])


def _verdicts(table: Any) -> list[dict[str, Any]]:
    from accelbrake.experiments.verdicts import judge

    out = []
    for pub, (scheme, aqm, rtt, beta, base, col) in _published():
        if _value(table, "kernel_util", (scheme, aqm, rtt, beta)) is None:
            continue  # not in this (quick) set
        row: dict[str, Any] = {"figure": pub.metric.split(":")[0], "what": pub.metric, "paper": pub.text}
        got = {}
        for who, util, q in (
            ("kernel", "kernel_util", "kernel"),
            ("sim", "sim_util", "sim"),
            ("sim_before", "sim_before_util", "sim_before"),
        ):
            c = util if col == "throughput_mbps" else f"{q}_{'q50' if col.endswith('p50_ms') else 'q90'}_ms"
            hi = _value(table, c, (scheme, aqm, rtt, beta))
            lo = _value(table, c, (scheme, aqm, rtt, base))
            if hi is None or lo is None:
                got[who] = None
            elif col == "throughput_mbps":
                got[who] = 100.0 * (hi / lo - 1.0)
            else:
                got[who] = hi - lo
            if pub.claim is not None and got[who] is not None:
                bound = float(pub.text.split("<")[1].split()[0])
                v = judge(got[who] < bound, claim=pub.claim)
            else:
                v = judge(got[who], value=pub.value, low=pub.low, high=pub.high)
            row[who] = got[who]
            row[f"{who}_vs_paper"] = v.verdict
        band = GAIN_BAND_PCT if col == "throughput_mbps" else DELAY_BAND_MS
        k, s = got["kernel"], got["sim"]
        row["sim_vs_kernel"] = (
            "no data" if k is None or s is None else ("agrees" if abs(s - k) <= band else "differs")
        )
        good = ("reproduced", "direction holds")
        k_ok, s_ok = row["kernel_vs_paper"] in good, row["sim_vs_paper"] in good
        if row["sim_vs_kernel"] != "agrees":
            label = "simulator differs from the kernel"
        elif k_ok and s_ok:
            label = "reproduced"
        elif k_ok or s_ok:
            label = "reproduced by the " + ("kernel" if k_ok else "simulator") + ", the other within the band"
        else:
            label = "setup-side"
        row["label"] = label
        out.append(row)
    return out


def _fmt(x: Any, d: int = 3) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "-"
    return f"{x:.{d}f}" if isinstance(x, float) else str(x)


def markdown(table: Any, verdicts: Any) -> str:
    """Both tables as Markdown."""
    lines = [
        "| scheme | AQM | RTT ms | β_ecn | run s | kernel util (runs) | sim util (ratio) | "
        "sim before (ratio) | p50 queue ms kernel / sim / before | "
        "p90 queue ms kernel / sim / before | load |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in table.itertuples():
        seeds = "" if r.sim_seeds == 1 else f"; seeds {r.sim_util_runs}"
        lines.append(
            f"| {r.scheme} | {r.aqm} | {r.rtt_ms} | {r.beta_ecn:g} | {r.duration_s:g} | "
            f"{r.kernel_util:.3f} ({r.kernel_util_runs}) | "
            f"{r.sim_util:.3f} ({r.ratio:.2f}{seeds}) | {r.sim_before_util:.3f} ({r.ratio_before:.2f}) | "
            f"{_fmt(r.kernel_q50_ms, 1)} / {_fmt(r.sim_q50_ms, 1)} / {_fmt(r.sim_before_q50_ms, 1)} | "
            f"{_fmt(r.kernel_q90_ms, 1)} / {_fmt(r.sim_q90_ms, 1)} / {_fmt(r.sim_before_q90_ms, 1)} | "
            f"{r.load_start:.2f} |"
        )
    lines += [
        "",
        "Kernel runs marked * started at a load average above "
        f'{LOAD_LIMIT:g} and are left out of the mean when the point has a calmer run; "load" is the '
        'largest load average at the start of the runs used. "run s": each run\'s length; NewReno at '
        f"400 ms runs {LONG_DURATION_S:g} s (a 60-s run there holds less than one sawtooth) and its "
        f"simulator column is the mean of {LONG_SIM_SEEDS} seeds (listed).",
        "",
        "| paper's number | paper | kernel (verdict) | simulator (verdict) | simulator before (verdict) | "
        "sim vs kernel | label |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in verdicts.to_dict("records"):
        lines.append(
            f"| {r['what']} | {r['paper']} | {_fmt(r['kernel'], 1)} ({r['kernel_vs_paper']}) | "
            f"{_fmt(r['sim'], 1)} ({r['sim_vs_paper']}) | "
            f"{_fmt(r['sim_before'], 1)} ({r['sim_before_vs_paper']}) | "
            f"{r['sim_vs_kernel']} | {r['label']} |"
        )
    return "\n".join(lines) + "\n"


def write(table: Any, verdicts: Any, folder: str | os.PathLike[str]) -> None:
    """``points.csv``, ``verdicts.csv`` and ``abe-kernel.md`` in ``folder``."""
    f = Path(folder)
    f.mkdir(parents=True, exist_ok=True)
    table.to_csv(f / "points.csv", index=False, float_format="%.4f")
    verdicts.to_csv(f / "verdicts.csv", index=False, float_format="%.2f")
    (f / "abe-kernel.md").write_text(markdown(table, verdicts))
