"""The ABE paper's reproductions (``accelbrake reproduce abe-...``): the comparisons that turn runs
into rows beside the published values of :mod:`accelbrake.papers.abe.published`.

* ``abe-buffer``: Eq. 1, NewReno's utilisation with buffers around BDP·(1 − β)/β (a sweep);
* ``abe-figures``: Figs. 4-7, the single-flow β_ecn sweep of ``accelbrake abe-sweep``
  (:mod:`accelbrake.papers.abe.sweep`);
* ``abe-fig8`` and ``abe-convergence``: Fig. 8 and Figs. 9-10 (:mod:`accelbrake.papers.abe.figures`);
* ``abe-fairness``: Figs. 11-12, 10 ECN Cubic-ABE flows against 10 non-ECN NewReno flows.
"""

from __future__ import annotations

import math
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from accelbrake.experiments import figures as F
from accelbrake.experiments import rows as R
from accelbrake.experiments.reproduce import Reproduction, no_compare, no_document, sweep_document
from accelbrake.papers.abe import figures as FIG
from accelbrake.papers.abe.published import (
    ABE_BUFFER_BETAS,
    ABE_BUFFER_FRACTIONS,
    ABE_FAIRNESS_BETAS,
    ABE_FAIRNESS_RTTS,
    ABE_FIGURES,
    CITATION,
    PUBLISHED,
    TITLES,
    _abe_buffers,
    _abe_rule,
)

_R = partial(Reproduction, paper=CITATION, reference="newreno-abe")

DOCS: dict[str, Any] = {}
SETUPS: dict[str, str] = {}
COMPARE: dict[str, Any] = {}


def run_abe_figures(
    out: Path, quick: bool, secs: float | None, *, executor: Any = None
) -> tuple[list[dict[str, Any]], int]:
    """Run the ABE grid into ``out`` (resumable: ``out/runs``) and judge Figs. 4-7's numbers. Full: the
    paper's grid (β_ecn 0.5-0.95, RTT 100/200/400 ms, 600 s); quick: the β_ecn values and RTTs the
    numbers need, 120 s."""
    from accelbrake.papers.abe import sweep as abe

    dur = secs or (abe.QUICK_DURATION_S if quick else abe.DURATION_S)
    counts: dict[str, int] = {}
    table, scenarios = abe.run_sweep(
        duration_s=dur,
        betas=abe.QUICK_BETAS if quick else abe.BETAS,
        rtts_ms=(100, 400) if quick else abe.RTTS_MS,
        out_dir=out,
        progress=False,
        counts=counts,
        executor=executor,
    )
    abe.write_outputs(
        table,
        abe.paper_comparison(table),
        out,
        settings={"duration_s": dur, "quick": quick},
        scenarios=scenarios,
    )
    rows = []
    for pub, (scheme, aqm, rtt, beta, base, col) in ABE_FIGURES:
        hi = abe._lookup(table, scheme, aqm, rtt, beta, col)
        lo = abe._lookup(table, scheme, aqm, rtt, base, col)
        if hi is None or lo is None:
            rows.append(R.row(pub, None, note="not in this grid", runs=1))
            continue
        if col == "throughput_mbps":
            rows.append(
                R.row(pub, 100.0 * (hi / lo - 1.0), note=f"{lo:.2f} → {hi:.2f} Mbit/s", digits=1, runs=1)
            )
        elif pub.claim is not None:
            bound = float(pub.text.split("<")[1].split()[0])
            rows.append(R.row(pub, hi - lo < bound, note=f"{lo:.1f} → {hi:.1f} ms", runs=1))
        else:
            rows.append(R.row(pub, hi - lo, note=f"{lo:.1f} → {hi:.1f} ms", digits=1, runs=1))
    return rows, len(table), counts.get("reused", 0)


def abe_fairness_scenario(aqm: str, rtt_ms: int, beta: float, duration_s: float, seed: int) -> dict[str, Any]:
    """Figs. 11/12: the ABE sweep's bottleneck (10 Mbit/s, CoDel or PIE with ECN marking, 1000 packets)
    with 10 Cubic-ABE flows (ECN, β_ecn ``beta``) and 10 NewReno flows without ECN, all from t = 0."""
    from accelbrake.papers.abe import sweep as abe

    sc = abe.abe_scenario("cubic-abe", aqm, rtt_ms, beta, duration_s, seed=seed, record_packets=False)
    sc["flows"] = [
        {
            "scheme": "cubic-abe",
            "params": {"beta_ecn": beta},
            "fwd": [0],
            "rev": [1],
            "ecn": True,
            "count": 10,
        },
        {"scheme": "newreno", "fwd": [0], "rev": [1], "ecn": False, "count": 10},
    ]
    return sc


def run_abe_fairness(
    out: Path, quick: bool, secs: float | None, *, executor: Any = None
) -> tuple[list[dict[str, Any]], int]:
    """Run Figs. 11/12 into ``out`` (resumable) and judge them. Full: RTT 20/80/160/320 ms, 330 s (the
    paper's ~5 minutes after slow start plus 30 s), seeds 0-2; quick: 120 s, seed 0."""
    from accelbrake.experiments.executors import LocalExecutor
    from accelbrake.experiments.runner import Task, run_scenarios

    dur = secs or (120.0 if quick else 330.0)
    seeds = (0,) if quick else (0, 1, 2)
    tasks = []
    for aqm in ("codel", "pie"):
        for rtt in ABE_FAIRNESS_RTTS:
            for b in ABE_FAIRNESS_BETAS:
                for seed in seeds:
                    key = (aqm, rtt, b, seed)
                    labels = {"aqm": aqm, "rtt_ms": rtt, "beta_ecn": b, "seed": seed}
                    sc = abe_fairness_scenario(aqm, rtt, b, dur, seed)
                    tasks.append(
                        Task(key, sc, f"abe-fairness {aqm} RTT {rtt} ms β_ecn {b:g} seed {seed}", labels)
                    )
    outcome = run_scenarios(tasks, out, kind="summary", executor=executor or LocalExecutor(), progress=False)
    table = []
    for t in tasks:
        aqm, rtt, b, seed = t.key  # type: ignore[misc]
        fl = outcome.results[t.key]["flows"]
        ecn = sum(float(f["throughput_mbps"] or 0.0) for f in fl[:10])
        non = sum(float(f["throughput_mbps"] or 0.0) for f in fl[10:])
        table.append(
            {
                "aqm": aqm,
                "rtt_ms": rtt,
                "beta_ecn": b,
                "seed": seed,
                "ratio": ecn / non if non > 0 else math.nan,
            }
        )
    d = pd.DataFrame(table)
    d.to_csv(out / "abe-fairness.csv", index=False)
    per = d.groupby(["aqm", "beta_ecn", "rtt_ms"])["ratio"].mean()
    rows = []
    for aqm in ("codel", "pie"):
        for b in ABE_FAIRNESS_BETAS:
            vals = per[aqm][b]
            r = R.info(
                "Cubic-ABE vs NewReno",
                f"{'CoDel' if aqm == 'codel' else 'PIE'}, β_ecn {b:g}: ratio at RTT "
                + "/".join(str(x) for x in vals.index)
                + " ms",
                float(vals.mean()),
                2,
                "in the figure",
            )
            r["ours_text"] = " / ".join(f"{x:.2f}" for x in vals)
            rows.append(r)
    means = d.groupby(["aqm", "beta_ecn"])["ratio"].mean()
    # The same mean over RTTs seed by seed, for the spread.
    seed_means = d.groupby(["aqm", "beta_ecn", "seed"])["ratio"].mean()
    for pub in PUBLISHED["abe-fairness"]:
        aqm = "codel" if "CoDel" in pub.metric else "pie"
        m = means[aqm]
        if pub.claim is not None:
            ok = bool(
                m[max(ABE_FAIRNESS_BETAS)] > m[min(ABE_FAIRNESS_BETAS)]
                and np.all(np.diff(m.to_numpy()) > -0.05)
            )
            rows.append(R.row(pub, ok, note=" → ".join(f"{x:.2f}" for x in m), runs=len(seeds)))
        else:
            b = float(pub.metric.rsplit("β_ecn ", 1)[1])
            rows.append(R.row(pub, float(m[b]), seeds=[float(x) for x in seed_means[aqm][b]]))
    return rows, outcome.total, outcome.skipped


def doc_abe_buffer(quick: bool, traces: list[str] | None) -> dict[str, Any]:
    variants = {
        f"newreno-beta-{b:g}": {
            "scheme": "newreno",
            "label": f"NewReno β={b:g}",
            "set": [f"newreno.beta={b:g}"],
        }
        for b in ABE_BUFFER_BETAS
    }
    buffers = sorted({n for b in ABE_BUFFER_BETAS for n in _abe_buffers(b).values()})
    return sweep_document(
        "abe-buffer",
        "ABE Eq. 1: one NewReno flow, β 0.5/0.7/0.9, drop-tail buffers at 0.25-2 × BDP·(1 − β)/β",
        list(variants),
        traces or ["const:10"],
        quick=quick,
        delay_ms=50.0,
        buffers=buffers,
        variants=variants,
        full_s=120.0,
        quick_s=60.0,
        seeds=(1, 1),
    )


DOCS["abe-buffer"] = doc_abe_buffer


SETUPS["abe-buffer"] = (
    "ABE paper §III (Eq. 1; its Fig. 1's path): one NewReno flow over a constant 10 Mbit/s link with a "
    "drop-tail buffer, RTT 100 ms (50 ms each way; BDP 83.3 packets), ACKs over 100 Mbit/s, β "
    "(newreno.beta) 0.5, 0.7, 0.9, "
    "buffers 0.25, 0.5, 1 and 2 × BDP·(1 − β)/β; 120 s (quick 60 s) from slow start; utilisation of the "
    "link over the whole run."
)


def _cmp_abe_buffer(results: pd.DataFrame, out: Path) -> list[dict[str, Any]]:
    m = F.run_level(results).groupby(["scheme", "buffer_packets"])["link_utilization"].mean()
    rows = []
    u: dict[float, dict[float, float]] = {}
    for b in ABE_BUFFER_BETAS:
        s = f"newreno-beta-{b:g}"
        u[b] = {f: float(m.get((s, n), math.nan)) for f, n in _abe_buffers(b).items()}
        r = R.info(
            f"NewReno β={b:g}",
            "utilisation at "
            + ", ".join(f"{f:g}×" for f in ABE_BUFFER_FRACTIONS)
            + f" the rule ({_abe_rule(b):.1f} packets)",
            u[b][1.0],
            3,
            "Fig. 1 (model and simulation)",
        )
        r["ours_text"] = " / ".join(f"{u[b][f]:.3f}" for f in ABE_BUFFER_FRACTIONS)
        rows.append(r)
    pubs = PUBLISHED["abe-buffer"]
    n_seeds = int(results["seed"].nunique()) if "seed" in results.columns else None
    for pub, b in zip(pubs[:3], ABE_BUFFER_BETAS, strict=True):
        ok = u[b][1.0] >= 0.98 and u[b][2.0] >= 0.98
        rows.append(R.row(pub, bool(ok), note=f"{u[b][1.0]:.3f} and {u[b][2.0]:.3f}", runs=n_seeds))
    for pub, b in zip(pubs[3:], ABE_BUFFER_BETAS, strict=True):
        rows.append(
            R.row(pub, bool(u[b][0.5] < u[b][1.0]), note=f"{u[b][0.5]:.3f} vs {u[b][1.0]:.3f}", runs=n_seeds)
        )
    return rows


COMPARE["abe-buffer"] = _cmp_abe_buffer


_ALL: list[Reproduction] = [
    _R(
        "abe-buffer",
        TITLES["abe-buffer"],
        SETUPS["abe-buffer"],
        DOCS["abe-buffer"],
        COMPARE["abe-buffer"],
        reference="newreno",
        cite="Eq. 1 and Fig. 1, §III",
    ),
    _R(
        "abe-figures",
        TITLES["abe-figures"],
        "ABE paper setup (§IV-B), as `accelbrake abe-sweep`: one long-lived flow, 10 Mbit/s bottleneck and "
        "ACK link, RTT 100/200/400 ms (half each way), CoDel (target 5 ms, interval 100 ms) or PIE "
        "(qdelay_ref "
        "20 ms, t_update 30 ms, α 0.125, β 1.25, max_burst 100 ms), 1000-packet limit, ECN marking; "
        "NewReno-ABE "
        "and Cubic-ABE, β_ecn 0.5-0.95 (quick: 0.5, 0.7, 0.8, 0.85, 0.95 at RTT 100 and 400 ms), 600 s "
        "per run "
        "(quick: 120 s). Queueing delay = time in the bottleneck queue and on its link, data packets.",
        no_document,
        no_compare,
        reference="newreno-abe",
        cite="Figs. 4-7, §IV-B",
        direct=lambda out, quick, secs, ex: run_abe_figures(out, quick, secs, executor=ex),
    ),
    _R(
        "abe-fairness",
        TITLES["abe-fairness"],
        "ABE paper §IV-D: the abe-sweep bottleneck (10 Mbit/s, CoDel or PIE with ECN marking, 1000 packets) "
        "shared by 10 Cubic-ABE flows with ECN (β_ecn 0.7-0.9) and 10 NewReno flows without ECN, all from "
        "t = 0; RTT 20/80/160/320 ms; 330 s, seeds 0-2 (quick: 120 s, seed 0). Ratio = the ECN group's "
        "throughput over the non-ECN group's, over the whole run (the paper: after slow start).",
        no_document,
        no_compare,
        reference="cubic-abe",
        cite="Figs. 11 and 12, §IV-D",
        direct=lambda out, quick, secs, ex: run_abe_fairness(out, quick, secs, executor=ex),
    ),
    _R(
        "abe-fig8",
        TITLES["abe-fig8"],
        "ABE paper §IV-B, Fig. 8: one NewReno-ABE flow, 20 Mbit/s bottleneck and ACK link, CoDel (target "
        "5 ms, "
        "interval 100 ms, ECN marking, 1000 packets), RTT 100/200/400 ms (the figure's RTTs are not in our "
        "text of the paper: §IV-B's set), β_ecn 0.5-0.95, 300 s per run (quick: β_ecn 0.5/0.8/0.95, RTT "
        "100/400 ms, 20 s). Median RTT = RTT_path + the bottleneck's median queueing delay (the paper's "
        "footnote 10).",
        no_document,
        no_compare,
        reference="newreno-abe",
        cite="Fig. 8, §IV-B",
        direct=lambda out, quick, secs, ex: FIG.run_fig8(out, quick, secs, executor=ex),
    ),
    _R(
        "abe-convergence",
        TITLES["abe-convergence"],
        "ABE paper §IV-C: two flows of one scheme (Cubic-ABE without fast convergence, NewReno-ABE) through "
        "the ABE bottleneck (CoDel or PIE with ECN marking, 1000 packets), the second started 30 s after the "
        "first; T = time from that start until Jain's index of the bytes received since then reaches 0.95; "
        "ρ = T(β_ecn)/T(β), β 0.7 (Cubic) / 0.5 (NewReno), β_ecn as plotted (Cubic 0.75-0.9, NewReno "
        "0.6-0.9). Reduced grid: 1 and 10 Mbit/s × all 8 RTTs 10-320 ms (16 of the paper's 48 combinations; "
        "the paper's grid: scripts/abe_convergence.py --grid paper), 60 s after the second start, a run "
        "still below 0.95 then counted as not converged (quick: 10 Mbit/s × 20 ms, one β_ecn per scheme, "
        "20 s).",
        no_document,
        no_compare,
        reference="newreno-abe",
        cite="Figs. 9 and 10, §IV-C",
        direct=lambda out, quick, secs, ex: FIG.run_convergence(out, quick, secs, executor=ex),
    ),
]

#: Every ABE reproduction by id, in the order of :data:`accelbrake.papers.abe.published.TITLES`.
REPRODUCTIONS: dict[str, Reproduction] = {
    r.id: r for r in sorted(_ALL, key=lambda r: list(TITLES).index(r.id))
}
