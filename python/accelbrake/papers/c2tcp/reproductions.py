"""The C2TCP paper's reproductions (``accelbrake reproduce c2tcp-...``): experiment documents and
the comparisons that turn their runs into rows beside the published values of
:mod:`accelbrake.papers.c2tcp.published`.

* ``c2tcp-table1``: Table I on the paper's traces (NYC and Boston Mahimahi traces, bundled);
* ``c2tcp-friendliness``: Figs. 16 and 17, a second flow joining a long-running one after 30 s;
* ``c2tcp-target``: Fig. 18 (Target 25-100 ms) and Eq. 9;
* ``c2tcp-buffer``: Fig. 19 (buffer 75 KB-1.5 MB).
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from accelbrake.experiments import figures as F
from accelbrake.experiments import rows as R
from accelbrake.experiments.reproduce import Reproduction, file_document, set_traces, sweep_document
from accelbrake.experiments.tracesets import C2TCP_PAPER
from accelbrake.papers.c2tcp.published import C2TCP_TARGETS, CITATION, PUBLISHED, TITLES

_R = partial(Reproduction, paper=CITATION, reference="c2tcp")

_C2TCP_SETUP = (
    "C2TCP paper setup (§VII): trace drives the data link, 10 ms one-way delay each way (min RTT "
    "20 ms), 150 KB drop-tail buffer (in bytes; the buffer_packets column shows its 100 full-size "
    "packets), ACKs over an uncongested 100 Mbit/s link, Target 50 ms, one backlogged flow. Delay = "
    "queueing delay, the paper's Table I metric (§VII-B: \"average and 95th percentile queuing "
    "delay\"): each packet's time in the bottleneck queue including the wait for a delivery "
    "opportunity (Mahimahi's per-packet queueing delay); Avg. Delay = mean over all delivered packets, "
    "95th%tile = 95th percentile over them, as the authors' mm-throughput-graph-modified computes "
    "both. The other reading, RTT + queueing delay (per-packet delay), is in the note and the CSV "
    "column ours_rtt_plus_queueing. Per-trace seed means normalised to C2TCP, then averaged over "
    "traces (the paper's Table I method). " + C2TCP_PAPER.describe()
)


def _doc_c2tcp_table(quick: bool, traces: list[str] | None) -> dict[str, Any]:
    chosen, which = set_traces(quick, traces, C2TCP_PAPER)
    return {
        "name": "c2tcp-table1" + ("-quick" if quick else ""),
        "description": f"C2TCP Table I on {which}",
        "matrix": {
            "schemes": ["c2tcp", "bbr", "cubic", "westwood", "verus", "sprout", "pcc-vivace"],
            "traces": chosen,
            "delay_ms": [10.0],
            "buffer_packets": [100],
            "seeds": 2 if quick else 3,
        },
        "run": {"duration_s": 60.0 if quick else 140.0, "ack_mbps": 100.0, "set": ["queue.bytes=150000"]},
    }


#: C2TCP Table I metric → (queueing-delay column, RTT + queueing column) of :func:`F.run_level`
#: (one flow per run, so its flow-0 row is the run's).
_C2TCP_COLUMNS = {
    "norm. throughput": ("link_throughput_mbps", None),
    "norm. average queueing delay": ("queueing_delay_mean_ms", "run_per_packet_delay_mean_ms"),
    "norm. p95 queueing delay": ("queueing_delay_p95_ms", "run_per_packet_delay_p95_ms"),
}


def _c2tcp_norm(results: pd.DataFrame) -> Any:
    """Per trace normalised to C2TCP, then the mean over traces (Table I): ``norm(scheme, column)``."""
    runs = F.run_level(results)
    cols = sorted({c for pair in _C2TCP_COLUMNS.values() for c in pair if c})
    m = runs.groupby(["scheme", "trace"], sort=False)[cols].mean()
    ref = m.xs("c2tcp", level="scheme")

    def norm(scheme: str, col: str) -> float:
        return float((m.xs(scheme, level="scheme")[col] / ref[col]).mean())

    norm.schemes = set(m.index.get_level_values("scheme"))  # type: ignore[attr-defined]
    return norm


def _cmp_c2tcp_table(results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
    norm = _c2tcp_norm(results)
    per_seed = R.by_seed(results, _c2tcp_norm)
    rows = []
    for pub in PUBLISHED["c2tcp-table1"]:
        if pub.ours is None or pub.ours not in norm.schemes:
            rows.append(R.row(pub, None))
            continue
        col, alt = _C2TCP_COLUMNS[pub.metric]
        seeds = [n(pub.ours, col) for n in per_seed]
        if alt is None:
            rows.append(R.row(pub, norm(pub.ours, col), seeds=seeds))
            continue
        other = norm(pub.ours, alt)
        row = R.row(pub, norm(pub.ours, col), note=f"RTT + queueing delay: {other:.2f}", seeds=seeds)
        row["ours_rtt_plus_queueing"] = other
        rows.append(row)
    return rows


_C2TCP_TRACE = "traces/Verizon-LTE-short.up"


_C2TCP_SET = ["queue.bytes=150000"]


def doc_c2tcp_target(quick: bool, traces: list[str] | None) -> dict[str, Any]:
    variants = {
        f"c2tcp-target-{t:g}": {
            "scheme": "c2tcp",
            "label": f"C2TCP Target {t:g} ms",
            "set": [f"c2tcp.target={t:g}"],
        }
        for t in C2TCP_TARGETS
    }
    return sweep_document(
        "c2tcp-target",
        "C2TCP Fig. 18: Target 25-100 ms on the C2TCP setup",
        list(variants),
        traces or [_C2TCP_TRACE],
        quick=quick,
        delay_ms=10.0,
        buffers=[100],
        variants=variants,
        run={"set": _C2TCP_SET},
    )


#: The experiment files of reproductions that are data, not code.
FILES = Path(__file__).resolve().parent / "files"


DOCS = {
    "c2tcp-target": doc_c2tcp_target,
    "c2tcp-buffer": file_document(FILES / "c2tcp-buffer.toml"),
}


_SWEEP_SETUP = (
    "C2TCP paper setup (§VII): Verizon-LTE-short.up drives the data link, 10 ms one-way delay each way "
    "(min RTT 20 ms), drop-tail buffer, ACKs over 100 Mbit/s; the Rust test's scenario, seed means "
    "(offset drawn from the seed). Delay = per-packet delay (RTT + queueing), as the Rust test and "
    "Fig. 18's 'average e2e delay'."
)


SETUPS = {
    "c2tcp-target": _SWEEP_SETUP + " 150 KB buffer, Target 25/50/75/100 ms.",
    "c2tcp-buffer": _SWEEP_SETUP + " Buffers 50-1000 full-size packets (75 KB-1.5 MB; quick: the two ends).",
}


def _cmp_c2tcp_target(results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
    m = (
        F.run_level(results)
        .groupby("scheme", sort=False)[["run_per_packet_delay_mean_ms", "link_throughput_mbps"]]
        .mean()
    )
    ts = sorted((float(s.rsplit("-", 1)[1]), s) for s in m.index)
    d = [float(m.loc[s, "run_per_packet_delay_mean_ms"]) for _, s in ts]
    pubs = PUBLISHED["c2tcp-target"]
    rows = [
        R.row(
            pubs[0],
            bool(np.all(np.diff(d) > 0)),
            note=", ".join(f"{t:g} ms → {x:.1f} ms" for (t, _), x in zip(ts, d, strict=True)),
        )
    ]
    by_t = dict(ts)
    for pub in pubs[1:]:
        t = float(pub.metric.split("Target ")[1].split()[0])
        s = by_t.get(t)
        if s is None:
            rows.append(R.row(pub, None, note="not in this run"))
            continue
        x = float(m.loc[s, "run_per_packet_delay_mean_ms"])
        thr = float(m.loc[s, "link_throughput_mbps"])
        rows.append(R.row(pub, x / t, note=f"mean per-packet delay {x:.1f} ms, {thr:.2f} Mbit/s"))
    return rows


def _cmp_c2tcp_buffer(results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
    m = F.run_level(results).groupby(["scheme", "buffer_packets"])["run_per_packet_delay_mean_ms"].mean()
    rows = []
    for s in ("c2tcp", "cubic"):
        for b, v in m[s].items():
            rows.append(
                R.info(
                    F.display_name(s), f"mean per-packet delay ms, buffer {int(b) * 1.5:g} KB", float(v), 1
                )
            )
    c, k = m["c2tcp"], m["cubic"]
    lo, hi = min(c.index), max(c.index)
    a, b = PUBLISHED["c2tcp-buffer"]
    rows.append(R.row(a, float(c[hi] / c[lo]), note=f"{c[lo]:.1f} → {c[hi]:.1f} ms"))
    rows.append(R.row(b, bool(k[hi] >= 3 * k[lo]), note=f"{k[lo]:.1f} → {k[hi]:.1f} ms"))
    return rows


COMPARE = {
    "c2tcp-target": _cmp_c2tcp_target,
    "c2tcp-buffer": _cmp_c2tcp_buffer,
}


SETUP_FRIENDLINESS = (
    "C2TCP paper Figs. 16-17: 24 Mbit/s constant link, 10 ms one-way delay (RTT 20 ms), 40-packet "
    "drop-tail buffer (one BDP), ACKs over 100 Mbit/s; Fig. 16: a Cubic flow from 0 s and a second "
    "flow (C2TCP, Cubic, Westwood, BBR, Verus, PCC-Vivace) from 30 s; Fig. 17: a NewReno flow from 0 s "
    "and a C2TCP flow from 30 s, and two C2TCP flows with Target 80 ms (the paper's). The second "
    "flow's throughput over the first's in 60-120 s (the core's integration test "
    "c2tcp_shares_fairly_with_cubic_and_bbr_does_not checks Fig. 16's C2TCP and BBR). Full: 3 seeds; "
    "quick: 1 seed of 60 s with the second flow from 3 s (shares over 30-60 s)."
)


def cmp_friendliness(results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
    ratios: dict[str, list[float]] = {}
    for r, _summary, scenario in R.run_documents(results, out):
        # The second half of the run (60-120 s in full), from the second flow's start at the earliest.
        end = float(scenario["duration_ms"]) / 1000.0
        t0 = max(end / 2.0, float(scenario["flows"][1].get("start_ms", 0.0)) / 1000.0)
        ts = pd.read_parquet(out / "runs" / f"{r['run_id']}.flows.parquet")
        w = ts[(ts["t_s"] >= t0 - 1e-9) & (ts["t_s"] < end - 1e-9)]
        m = w.groupby("flow")["throughput_mbps"].mean()
        if 0 in m.index and 1 in m.index and m[0] > 0:
            ratios.setdefault(str(r["scheme"]).removeprefix("cubic-"), []).append(float(m[1] / m[0]))
    rows = []
    for pub in PUBLISHED["c2tcp-friendliness"]:
        xs = ratios.get(str(pub.ours), [])
        rows.append(
            R.row(pub, float(np.mean(xs)) if xs else None, note=f"mean over {len(xs)} runs", seeds=xs)
        )
    return rows


#: Where in the paper the numbers of the sweeps above are.
_CITES = {"c2tcp-target": "Fig. 18, §VIII; Eq. 9, §V", "c2tcp-buffer": "Fig. 19, §VIII"}

_ALL: list[Reproduction] = [
    _R(
        "c2tcp-table1",
        TITLES["c2tcp-table1"],
        _C2TCP_SETUP,
        _doc_c2tcp_table,
        _cmp_c2tcp_table,
        ("jitter (Table I's third column) is not compared",),
        cite="Table I, §VII-D (metrics: §VII-B)",
    ),
    _R(
        "c2tcp-friendliness",
        TITLES["c2tcp-friendliness"],
        SETUP_FRIENDLINESS,
        file_document(FILES / "c2tcp-friendliness.toml"),
        cmp_friendliness,
        cite="Figs. 16 and 17, §VII",
    ),
    *(_R(rid, TITLES[rid], SETUPS[rid], DOCS[rid], COMPARE[rid], cite=cite) for rid, cite in _CITES.items()),
]

#: Every C2TCP reproduction by id, in the order of :data:`accelbrake.papers.c2tcp.published.TITLES`.
REPRODUCTIONS: dict[str, Reproduction] = {
    r.id: r for r in sorted(_ALL, key=lambda r: list(TITLES).index(r.id))
}
