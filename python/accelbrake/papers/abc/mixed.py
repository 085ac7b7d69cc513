"""ABC beside other traffic: the reproductions of the ABC paper that mix schemes, flow sizes and
applications in one run.

* ``abc-fig13``: 3 ABC + 3 Cubic long flows and Poisson 10 KB Cubic short flows on 96 Mbit/s,
  over the coexistence router (paper and artifact variants) and over one shared ABC queue;
* ``abc-fig11``: 1-16 ABC flows on the Verizon uplink trace, with the default window floor and
  with Linux's floor of 2 segments (the cause of the delay growth, docs/coexistence.md);
* ``abc-fig20``: a backlogged ABC flow alone and beside 200 application-limited ABC flows;
* ``abc-fig10``: an ABC wireless hop in series with a wired hop and on-off Cubic cross traffic.

The experiment documents use the ``mix``/``arrivals``/``apps`` keys of a scheme table
(:mod:`accelbrake.experiments.spec`); the comparisons read each run's summary and scenario from
``runs/<run_id>.json`` (per-flow schemes, completion times).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from accelbrake.experiments import rows as R
from accelbrake.mix import fct_stats, scheme_aggregates
from accelbrake.papers.abc.published import PUBLISHED

#: Fig. 13's link and short-flow load. The paper varies the short flows' offered load and gives
#: neither the RTT nor the buffer: ours are the cellular setup's 100 ms RTT, a buffer of one BDP
#: (800 packets at 96 Mbit/s, above ABC's d_t·μ = 400) and one load, 10 % of the link.
FIG13_MBPS = 96.0


FIG13_BUFFER = 800


FIG13_SHORT_LOAD_MBPS = 9.6


#: A second, heavier short-flow load (30 %; ours: the paper's loads are on Fig. 13's axis only).
FIG13_HEAVY_LOAD_MBPS = 28.8


FIG13_SHORT_BYTES = 10_000


SETUP_FIG13 = (
    f"{FIG13_MBPS:g} Mbit/s constant link, 50 ms one-way delay (min RTT 100 ms), {FIG13_BUFFER}-packet "
    "buffer (one BDP; the paper gives neither), ACKs over 100 Mbit/s. 3 ABC + 3 Cubic backlogged flows "
    f"from 0 s, plus Cubic flows of {FIG13_SHORT_BYTES // 1000} KB arriving as a Poisson process with "
    f"{FIG13_SHORT_LOAD_MBPS:g} Mbit/s offered load (10 %; also {FIG13_HEAVY_LOAD_MBPS:g} Mbit/s, 30 %, for "
    "the coexistence router and the shared queue: the -load30 entries; the paper varies the load). "
    "Routers: abc-coexist "
    "(ABC paper §4.3: separate queues, max-min weights, K = 10, 500 ms updates), its artifact variant, "
    "RCP's zombie-list weights (Fig. 13b: each queue's weight ∝ its flow count from a SRED zombie list, "
    "M = 1000, p = 0.25; at 10 % and 30 %), "
    "and one shared ABC queue without weights. Long-flow throughput over the whole run; full: 10 seeds "
    "of 40 s (the paper's 10 runs), quick: 2 seeds of 20 s."
)


SETUP_FIG11 = (
    "ABC paper cellular setup on Verizon-LTE-short.up (5.96 Mbit/s mean), 50 ms one-way delay, "
    "250-packet buffer, ACKs over 12 Mbit/s; 1, 2, 4, 8, 16 backlogged ABC flows from 0 s. "
    "abc: the default sender (window floor 6 segments, the artifact's tcp_abc.c); abc-floor2: the "
    "floor at 2 segments (Linux's minimum cwnd). Full: 3 seeds of 140 s; quick: 1 seed of 60 s."
)


SETUP_FIG20 = (
    "ABC paper cellular setup on Verizon-LTE-short.up, 50 ms one-way delay, 250-packet buffer: one "
    "backlogged ABC flow alone (abc), and beside 200 application-limited ABC flows sending 5 kbit/s "
    "each, 1 Mbit/s in all (abc-apps). Run-wide utilisation and p95 per-packet delay. Full: 3 seeds "
    "of 140 s; quick: 1 seed of 60 s."
)


def _mix_entry(
    queue: str | None, mix: str, *, arrivals: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    e: dict[str, Any] = {"scheme": mix.split(":")[0], "mix": mix}
    if queue is not None:
        e["queue"] = queue
    if arrivals:
        e["arrivals"] = arrivals
    return e


def doc_fig13(quick: bool, traces: list[str] | None) -> dict[str, Any]:
    def arrivals(load: float) -> list[dict[str, Any]]:
        return [{"scheme": "cubic", "load_mbps": load, "size": {"dist": "fixed", "bytes": FIG13_SHORT_BYTES}}]

    short = arrivals(FIG13_SHORT_LOAD_MBPS)
    heavy = arrivals(FIG13_HEAVY_LOAD_MBPS)
    return {
        "name": "abc-fig13" + ("-quick" if quick else ""),
        "description": "ABC Fig. 13: ABC and Cubic long flows with Cubic short flows on one bottleneck",
        "matrix": {
            "schemes": [
                "coexist",
                "coexist-artifact",
                "shared",
                "coexist-load30",
                "shared-load30",
                "zombie",
                "zombie-load30",
            ],
            "traces": traces or [f"const:{FIG13_MBPS:g}"],
            "delay_ms": [50.0],
            "buffer_packets": [FIG13_BUFFER],
            "seeds": 2 if quick else 10,
        },
        "run": {"duration_s": 20.0 if quick else 40.0, "ack_mbps": 100.0, "sample_ms": 1000.0},
        "schemes": {
            "coexist": {
                **_mix_entry("abc-coexist", "abc:3,cubic:3", arrivals=short),
                "label": "ABC coexistence",
            },
            "coexist-artifact": {
                **_mix_entry("abc-coexist variant=artifact", "abc:3,cubic:3", arrivals=short),
                "label": "ABC coexistence (artifact)",
            },
            "shared": {**_mix_entry(None, "abc:3,cubic:3", arrivals=short), "label": "one shared ABC queue"},
            "coexist-load30": {
                **_mix_entry("abc-coexist", "abc:3,cubic:3", arrivals=heavy),
                "label": "ABC coexistence, 30 % short-flow load",
            },
            "shared-load30": {
                **_mix_entry(None, "abc:3,cubic:3", arrivals=heavy),
                "label": "one shared ABC queue, 30 % short-flow load",
            },
            "zombie": {
                **_mix_entry("abc-coexist variant=rcp-zombie", "abc:3,cubic:3", arrivals=short),
                "label": "RCP zombie-list weights",
            },
            "zombie-load30": {
                **_mix_entry("abc-coexist variant=rcp-zombie", "abc:3,cubic:3", arrivals=heavy),
                "label": "RCP zombie-list weights, 30 % short-flow load",
            },
        },
    }


def digest_fig13(doc: dict[str, Any]) -> dict[str, Any]:
    """What :func:`cmp_fig13` needs of one run's document: its per-scheme long-flow aggregates and
    its short flows' completion times. Taken by the sweep from each run's document as it is written
    (``run_sweep(digest=...)``, with the flows' figures by column, see ``runner._write_run``) and
    stored in its index (``runs/<id>.done``), so that the comparison does not parse the 50 run
    documents of 3-11 MB again (most of its time, and of a rerun's); computed from the file for
    runs whose index lacks it (an older folder, other Python code)."""
    from accelbrake.mix import _flow_sizes

    summary, scenario = doc["summary"], doc["scenario"]
    cap = float(summary["hops"][int(summary["bottleneck_hop"])]["capacity_mbps"])
    flows = _flows_of(doc)
    sizes = _flow_sizes(scenario)
    long: dict[str, list[int]] = {}
    for f in flows:
        i = int(f["id"])
        if i >= len(sizes) or sizes[i] is None:
            long.setdefault(str(f.get("scheme")), []).append(i)
    return {
        "agg": {a["scheme"]: a for a in scheme_aggregates({"flows": flows}, scenario)},
        "fcts": fct_stats({"flows": flows}, scenario, cap),
        "long": long,
    }


def _flows_of(doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The summary's per-flow entries as far as :func:`digest_fig13` reads them (id, scheme,
    throughput, completion time, propagation RTT; ``None`` where the core wrote null): from the
    document's ``flow_columns`` (NaN there is null) or else its summary's ``flows``."""
    cols = doc.get("flow_columns")
    if cols is None:
        return doc["summary"].get("flows") or []

    def values(name: str) -> list[Any]:
        x = cols[name]
        return [None if v != v else v for v in (x.tolist() if hasattr(x, "tolist") else list(x))]

    keys = ("id", "scheme", "throughput_mbps", "completion_s", "prop_rtt_ms")
    names = ("flow", "scheme", "throughput_mbps", "completion_s", "prop_rtt_ms")
    return [dict(zip(keys, vals, strict=True)) for vals in zip(*(values(n) for n in names), strict=True)]


#: Start of the window of Fig. 13's "after the start-up" rows, s: the ABC queue's weight falls at
#: the first update (the link is not full yet) and takes ~7 s to recover (docs/coexistence.md).
FIG13_LATE_S = 10.0


def _late_long_flows(out: Path, run_id: str, long: dict[str, list[int]]) -> dict[str, list[float]]:
    """Each long flow's mean throughput from FIG13_LATE_S to the end of the run, by scheme (from the
    run's per-flow time series)."""
    ts = pd.read_parquet(out / "runs" / f"{run_id}.flows.parquet", columns=["t_s", "flow", "throughput_mbps"])
    w = ts[ts["t_s"] >= FIG13_LATE_S - 1e-9]
    if w.empty:  # a run no longer than FIG13_LATE_S (quick overrides)
        return {}
    m = w.groupby("flow")["throughput_mbps"].mean()
    return {k: [float(m.get(i, 0.0)) for i in ids] for k, ids in long.items()}


def _digests(results: pd.DataFrame, out: Path) -> dict[str, list[dict[str, Any]]]:
    """:func:`digest_fig13` of every run by scheme (in the results' order): from the sweep's memory
    or the run's index (:func:`~accelbrake.experiments.runner.stored_digest`), else from its file
    (one document parsed at a time)."""
    from accelbrake._io import loads
    from accelbrake.experiments.runner import stored_digest

    by: dict[str, list[dict[str, Any]]] = {}
    for _, r in results.drop_duplicates("run_id").iterrows():
        rid = str(r["run_id"])
        d = stored_digest(out, rid)
        if d is None:
            d = digest_fig13(loads((out / "runs" / f"{rid}.json").read_bytes()))
        by.setdefault(str(r["scheme"]), []).append({**d, "run_id": rid})
    return by


def cmp_fig13(results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
    by = _digests(results, out)
    pubs = PUBLISHED["abc-fig13"]
    rows: list[dict[str, Any]] = []
    for scheme, runs in by.items():
        abc, cubic, std, fcts = [], [], [], []
        for d in runs:
            agg = d["agg"]
            abc.append(agg.get("abc", {}).get("mean_mbps", math.nan))
            cubic.append(agg.get("cubic", {}).get("mean_mbps", math.nan))
            std.append(agg.get("abc", {}).get("rel_std", math.nan))
            fcts.append(d["fcts"])
        a, c = float(np.nanmean(abc)), float(np.nanmean(cubic))
        ratio = a / c if c > 0 else math.nan
        note = f"ABC long flows {a:.2f} Mbit/s, Cubic long flows {c:.2f} Mbit/s (mean over {len(runs)} runs)"
        load = {"coexist": "10 %", "coexist-load30": "30 %"}.get(scheme)
        zload = {"zombie": "10 %", "zombie-load30": "30 %"}.get(scheme)
        if zload is not None:
            # Fig. 13b: the published range of Cubic's advantage (abc/published.py) as the
            # load grows; each load is judged against the whole published range.
            metric = f"{pubs[2].metric}, {zload} short-flow load"
            pub = dataclasses.replace(pubs[2], metric=metric, ours=scheme)
            per_run = [y / x if x > 0 else math.nan for x, y in zip(abc, cubic, strict=True)]
            rows.append(R.row(pub, c / a if a > 0 else math.nan, note=note, digits=2, seeds=per_run))
        elif load is not None:
            per_run = [x / y if y > 0 else math.nan for x, y in zip(abc, cubic, strict=True)]
            for pub, ours, n, digits, seeds in (
                (pubs[0], ratio, note, 2, per_run),
                (pubs[1], float(np.nanmean(std)), "mean over runs", 3, std),
            ):
                pub = dataclasses.replace(pub, metric=f"{pub.metric}, {load} short-flow load", ours=scheme)
                rows.append(R.row(pub, ours, note=n, digits=digits, seeds=seeds))
        else:
            rows.append(R.info(scheme, "ABC / Cubic mean long-flow throughput", ratio, 2, note))
        rows.append(R.info(scheme, "Cubic long flows, mean Mbit/s", c, 2))
        rows.append(R.info(scheme, "ABC long flows, mean Mbit/s", a, 2))
        # The same from FIG13_LATE_S on: the paper does not say whether it leaves out the start-up
        # (its 40 s runs' means); the verdicts above are on the whole run, these rows show the
        # start-up's part (docs/coexistence.md).
        late = [_late_long_flows(out, d["run_id"], d["long"]) for d in runs if d.get("long")]
        late = [x for x in late if x.get("abc") and x.get("cubic")]
        if late:
            la = float(np.mean([np.mean(x["abc"]) for x in late]))
            lc = float(np.mean([np.mean(x["cubic"]) for x in late]))
            lsd = float(
                np.mean(
                    [
                        np.std(x["abc"]) / np.mean(x["abc"]) if np.mean(x["abc"]) > 0 else math.nan
                        for x in late
                    ]
                )
            )
            when = f"from {FIG13_LATE_S:g} s"
            rows.append(
                R.info(
                    scheme,
                    f"ABC / Cubic mean long-flow throughput, {when}",
                    la / lc if lc > 0 else math.nan,
                    2,
                    f"ABC {la:.2f}, Cubic {lc:.2f} Mbit/s (after the start-up transient; not a verdict)",
                )
            )
            rows.append(R.info(scheme, f"relative std of the ABC long flows, {when}", lsd, 3))
        alls = [next((x for x in f if x["bucket"] == "all"), None) for f in fcts]
        alls = [x for x in alls if x is not None]
        if alls:
            for key, label in (
                ("fct_mean_ms", "mean"),
                ("fct_p50_ms", "p50"),
                ("fct_p95_ms", "p95"),
                ("fct_p99_ms", "p99"),
            ):
                v = float(np.nanmean([x[key] for x in alls]))
                rows.append(R.info(scheme, f"10 KB short flows: {label} FCT, ms", v, 1))
            done = sum(x["completed"] for x in alls) / max(1, sum(x["flows"] for x in alls))
            rows.append(R.info(scheme, "10 KB short flows completed by the end, fraction", done, 3))
    return rows


def cmp_fig11(results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
    runs = results.drop_duplicates("run_id")
    per = runs.groupby(["scheme", "flows"])[["run_per_packet_delay_p95_ms", "link_utilization"]].mean()
    rows: list[dict[str, Any]] = []
    d_pub, u_pub = PUBLISHED["abc-fig11"]
    per_seed = R.by_seed(results, _fig11_growth)
    for scheme in ("abc", "abc-floor2"):
        if scheme not in per.index.get_level_values(0):
            continue
        s = per.loc[scheme]
        for n, r in s.iterrows():
            rows.append(
                R.info(
                    scheme, f"{n} flows: p95 per-packet delay, ms", float(r["run_per_packet_delay_p95_ms"]), 0
                )
            )
            rows.append(R.info(scheme, f"{n} flows: utilisation", float(r["link_utilization"]), 3))
        lo, hi = int(s.index.min()), int(s.index.max())
        dr = float(s.loc[hi, "run_per_packet_delay_p95_ms"] / s.loc[lo, "run_per_packet_delay_p95_ms"])
        ur = float(s.loc[hi, "link_utilization"] / s.loc[lo, "link_utilization"])
        label = "ABC" if scheme == "abc" else "ABC, floor 2 (not the paper's)"
        pd_ = dataclasses.replace(d_pub, ours=scheme, scheme=label)
        pu_ = dataclasses.replace(u_pub, ours=scheme, scheme=label)
        cause = (
            f"{hi} flows × a floor of 6 segments keep ≥ {6 * hi} packets in flight, more than the trace's "
            "BDP (~50 packets at the 5.96 Mbit/s mean): docs/coexistence.md"
            if scheme == "abc"
            else "floor 2: the remaining growth is the aggregate additive increase (App. C: x* = A·δ + d_t)"
        )
        seeds = [x.get(scheme, (math.nan, math.nan)) for x in per_seed]
        rows.append(R.row(pd_, dr, note=f"{lo} → {hi} flows; {cause}", seeds=[d for d, _ in seeds]))
        rows.append(R.row(pu_, ur, note=f"{lo} → {hi} flows", seeds=[u for _, u in seeds]))
    return rows


def _fig11_growth(results: pd.DataFrame) -> dict[str, tuple[float, float]]:
    """Per scheme: the p95 delay and the utilisation at the most flows over those at the fewest."""
    runs = results.drop_duplicates("run_id")
    per = runs.groupby(["scheme", "flows"])[["run_per_packet_delay_p95_ms", "link_utilization"]].mean()
    out = {}
    for scheme in per.index.get_level_values(0).unique():
        s = per.loc[scheme]
        lo, hi = s.index.min(), s.index.max()
        out[str(scheme)] = (
            float(s.loc[hi, "run_per_packet_delay_p95_ms"] / s.loc[lo, "run_per_packet_delay_p95_ms"]),
            float(s.loc[hi, "link_utilization"] / s.loc[lo, "link_utilization"]),
        )
    return out


def cmp_fig20(results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
    runs = results.drop_duplicates("run_id")
    per = runs.groupby("scheme")[["run_per_packet_delay_p95_ms", "link_utilization"]].mean()
    rows: list[dict[str, Any]] = []
    for s, r in per.iterrows():
        rows.append(R.info(str(s), "p95 per-packet delay, ms", float(r["run_per_packet_delay_p95_ms"]), 0))
        rows.append(R.info(str(s), "utilisation", float(r["link_utilization"]), 3))
    bulk: dict[str, list[float]] = {}
    bulk_seed: dict[str, dict[int, float]] = {}
    for r, summary, _scenario in R.run_documents(results, out):
        p95 = float(summary["flows"][0]["per_packet_delay_ms"]["p95"])
        bulk.setdefault(str(r["scheme"]), []).append(p95)
        bulk_seed.setdefault(str(r["scheme"]), {})[int(r["seed"])] = p95
    for s, xs in bulk.items():
        rows.append(R.info(s, "backlogged flow: p95 per-packet delay, ms", float(np.mean(xs)), 0))
    u_pub, f_pub, d_pub = PUBLISHED["abc-fig20"]
    if {"abc", "abc-apps"} <= set(per.index):
        a, b = per.loc["abc"], per.loc["abc-apps"]
        by_seed = runs.groupby(["scheme", "seed"])[["run_per_packet_delay_p95_ms", "link_utilization"]].mean()
        seeds = sorted(set(bulk_seed["abc"]) & set(bulk_seed["abc-apps"]))

        def per_seed(col: str) -> list[float]:
            return [float(by_seed.loc[("abc-apps", k), col] / by_seed.loc[("abc", k), col]) for k in seeds]

        rows.append(
            R.row(
                u_pub,
                float(b["link_utilization"] / a["link_utilization"]),
                digits=3,
                seeds=per_seed("link_utilization"),
            )
        )
        rows.append(
            R.row(
                f_pub,
                float(np.mean(bulk["abc-apps"]) / np.mean(bulk["abc"])),
                seeds=[bulk_seed["abc-apps"][k] / bulk_seed["abc"][k] for k in seeds],
            )
        )
        rows.append(
            R.row(
                d_pub,
                float(b["run_per_packet_delay_p95_ms"] / a["run_per_packet_delay_p95_ms"]),
                seeds=per_seed("run_per_packet_delay_p95_ms"),
                note="our reading (not measured apart): the application-limited flows' packets sample time "
                "uniformly while the backlogged flow's crowd into the high-capacity stretches, so all "
                "packets together see more of the trace's slow stretches (docs/coexistence.md)",
            )
        )
    return rows


def fig13_scenario(seed: int, duration_s: float, queue: str, *, heavy: bool = False) -> dict[str, Any]:
    """One run of Fig. 13's setup over ``queue`` (a Mahimahi-style queue spec such as
    ``"abc-coexist top_k=10,update_ms=500"``) at the 10 % short-flow load (30 % with ``heavy``):
    the sweep over K and the period (``scripts/coexist_sweep.py``, docs/coexistence.md) runs these."""
    from accelbrake.experiments.spec import parse_experiment

    doc = doc_fig13(True, None)
    doc["matrix"]["schemes"] = ["coexist"]
    doc["matrix"]["seeds"] = [seed]
    doc["run"]["duration_s"] = duration_s
    entry = doc["schemes"]["coexist-load30" if heavy else "coexist"]
    doc["schemes"] = {"coexist": {**entry, "queue": queue}}
    exp = parse_experiment(doc, source="abc-fig13 setup")
    return exp.scenario(next(exp.points()))


def fig13_measure(summary: dict[str, Any], scenario: dict[str, Any]) -> dict[str, float]:
    """ABC and Cubic long flows' mean throughput and the short flows' p95 FCT of one run."""
    agg = {a["scheme"]: a for a in scheme_aggregates(summary, scenario)}
    fct = fct_stats(summary, scenario, FIG13_MBPS)
    return {
        "abc_mbps": float(agg["abc"]["mean_mbps"]),
        "cubic_mbps": float(agg["cubic"]["mean_mbps"]),
        "short_fct_p95_ms": float(next((f["fct_p95_ms"] for f in fct if f["bucket"] == "all"), math.nan)),
    }


#: Fig. 10's wired link and the on periods of the Cubic cross traffic (one backlogged Cubic flow
#: per period; the paper shows three shaded periods and gives no times: ours).
FIG10_WIRED_MBPS = 12.0


FIG10_ON_S = ((20.0, 40.0), (60.0, 80.0), (100.0, 120.0))


FIG10_TRACE = "traces/Verizon-LTE-short.up"


SETUP_FIG10 = (
    "ABC paper Fig. 10 (§7.4): one ABC flow (abc-cubic, §4.1: min(w_abc, w_cubic)) crosses an ABC "
    f"wireless hop (Verizon-LTE-short.up, 5.96 Mbit/s mean, ABC router, 250 packets) and then a "
    f"{FIG10_WIRED_MBPS:g} Mbit/s wired drop-tail hop (250 packets, 50 ms), ACKs over 100 Mbit/s (50 ms); "
    "a backlogged Cubic flow crosses the wired hop alone during "
    + ", ".join(f"{a:g}-{b:g} s" for a, b in FIG10_ON_S)
    + " (the paper's on-off cross traffic; times ours). Ideal rate per 100 ms bin: the wireless capacity, "
    "capped at half the wired link while Cubic is on (its max-min share). Full: 140 s, 3 seeds; quick: "
    "1 seed (the duration is the trace's, 140 s)."
)


def _fig10_scenario(seed: int, secs: float) -> dict[str, Any]:
    from accelbrake.scenarios import link_spec

    flows: list[dict[str, Any]] = [{"scheme": "abc-cubic", "fwd": [0, 1], "rev": [2]}]
    for a, b in FIG10_ON_S:
        if a < secs:
            flows.append(
                {
                    "scheme": "cubic",
                    "fwd": [1],
                    "rev": [2],
                    "start_ms": 1000.0 * a,
                    "stop_ms": 1000.0 * min(b, secs),
                }
            )
    return {
        "duration_ms": 1000.0 * secs,
        "seed": seed,
        "sample_ms": 100.0,
        "hops": [
            {"name": "wireless", "link": link_spec(FIG10_TRACE), "queue": {"type": "abc", "packets": 250}},
            {
                "name": "wired",
                "link": {"type": "constant", "mbps": FIG10_WIRED_MBPS},
                "queue": {"type": "droptail", "packets": 250},
                "delay_ms": 50.0,
            },
            {
                "name": "ack",
                "link": {"type": "constant", "mbps": 100.0},
                "queue": {"type": "infinite"},
                "delay_ms": 50.0,
            },
        ],
        "flows": flows,
    }


def run_fig10(out: Path, quick: bool, secs: float | None = None) -> tuple[list[dict[str, Any]], int]:
    """Runs Fig. 10's scenario per seed; the ABC flow's throughput against the ideal rate in each
    kind of period, and its queueing delay at the wireless hop with and without cross traffic."""
    from accelbrake.results import simulate

    secs = secs or 140.0
    seeds = (0,) if quick else (0, 1, 2)
    per: dict[str, list[tuple[float, float]]] = {"no cross traffic": [], "cross, wireless bottleneck": [],
                                                 "cross, wired bottleneck": []}  # fmt: skip
    qd: dict[str, list[float]] = {"off": [], "on": []}
    out.mkdir(parents=True, exist_ok=True)
    frames = []
    for seed in seeds:
        r = simulate(_fig10_scenario(seed, secs))
        f = r.flows_ts
        f = f[f["flow"] == 0].set_index("t_s")
        hts = r.hops_ts
        cap = hts[hts["hop"] == 0].set_index("t_s")["capacity_mbps"]
        d = pd.DataFrame({"tput": f["throughput_mbps"], "cap": cap}).dropna()
        d = d[(d.index >= 2.0) & (d.index < secs - 0.1)]
        on = np.zeros(len(d), dtype=bool)
        for a, b in FIG10_ON_S:
            # The first 5 s of each period are Cubic's slow start and the wired queue filling.
            on |= (d.index >= a + 5.0) & (d.index < b)
        off = np.ones(len(d), dtype=bool)
        for a, b in FIG10_ON_S:
            off &= ~((d.index >= a) & (d.index < b + 5.0))
        half = FIG10_WIRED_MBPS / 2.0
        d["ideal"] = np.where(on, np.minimum(d["cap"], half), np.minimum(d["cap"], FIG10_WIRED_MBPS))
        d["seed"] = seed
        frames.append(d.assign(on=on, off=off))
        for name, sel in (
            ("no cross traffic", off),
            ("cross, wireless bottleneck", on & (d["cap"].to_numpy() < half)),
            ("cross, wired bottleneck", on & (d["cap"].to_numpy() >= half)),
        ):
            x = d[sel]
            if len(x):
                per[name].append((float(x["tput"].mean()), float(x["ideal"].mean())))
        q = f["delay_p95_ms"] if "delay_p95_ms" in f.columns else None
        if q is not None and on.any() and off.any():
            qq = q.reindex(d.index)
            qd["off"].append(float(np.nanmean(qq[off])))
            qd["on"].append(float(np.nanmean(qq[on])))
    pd.concat(frames).to_csv(out / "fig10_timeseries.csv")
    rows = []
    pubs = {p.metric: p for p in PUBLISHED["abc-fig10"]}
    for name, xs in per.items():
        if not xs:
            continue
        t = float(np.mean([a for a, _ in xs]))
        i = float(np.mean([b for _, b in xs]))
        pub = pubs[f"ABC throughput / ideal rate, {name}"]
        rows.append(
            R.row(
                pub,
                t / i,
                note=f"ABC {t:.2f} Mbit/s, ideal {i:.2f} Mbit/s (mean over bins and seeds)",
                seeds=[a / b if b > 0 else math.nan for a, b in xs],
            )
        )
    if qd["off"] and qd["on"]:
        a, b = float(np.mean(qd["off"])), float(np.mean(qd["on"]))
        rows.append(R.info("ABC", "per-packet delay p95 per bin, mean, no cross traffic (ms)", a, 0))
        rows.append(R.info("ABC", "per-packet delay p95 per bin, mean, with cross traffic (ms)", b, 0))
        rows.append(
            R.row(
                pubs["lower delay without cross traffic"],
                a < b,
                note=f"{a:.0f} ms vs {b:.0f} ms",
                runs=len(qd["off"]),
            )
        )
    return rows, len(seeds)
