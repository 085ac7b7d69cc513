#!/usr/bin/env python3
"""Sweep the coexistence router's K (top_k) and update period (update_ms) on Fig. 13's setup.

The ABC paper (§4.3) gives neither; this prints, for each (K, period), the ABC / Cubic long-flow
throughput ratio (mean over seeds), the Cubic long flows' mean and the short flows' p95 FCT, so the
defaults in the parameter table (top_k = 10, update_ms = 500) can be judged. Also runs X (headroom)
at 0.1 and 0.3 for the default K and period. Deterministic from the seeds.

    .venv/bin/python scripts/coexist_sweep.py [--seeds 2] [--duration 20] [--jobs 2]
"""

from __future__ import annotations

import argparse
import itertools
import json
from concurrent.futures import ProcessPoolExecutor

from accelbrake.papers.abc import mixed as M

KS = (1, 3, 10, 30)
PERIODS_MS = (20.0, 100.0, 500.0)


def one(args: tuple[int, float, float, int, float]) -> tuple[int, float, float, int, float, float, float]:
    from accelbrake.results import simulate

    k, period, x, seed, duration = args
    sc = M.fig13_scenario(seed, duration, f"abc-coexist top_k={k},update_ms={period:g},headroom={x:g}")
    m = M.fig13_measure(simulate(sc).summary, sc)
    return k, period, x, seed, m["abc_mbps"], m["cubic_mbps"], m["short_fct_p95_ms"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=2)
    ap.add_argument("--duration", type=float, default=20.0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--json", metavar="FILE", help="also write the rows as JSON")
    a = ap.parse_args()
    grid = [(k, p, 0.1) for k, p in itertools.product(KS, PERIODS_MS)] + [(10, 100.0, 0.3)]
    tasks = [(k, p, x, s, a.duration) for (k, p, x) in grid for s in range(a.seeds)]
    with ProcessPoolExecutor(a.jobs) as ex:
        res = list(ex.map(one, tasks))
    rows = []
    print(
        f"{'K':>4} {'update ms':>9} {'X':>4}  {'ABC/Cubic':>9} {'ABC Mbit/s':>10} "
        f"{'Cubic Mbit/s':>12} {'short p95 FCT ms':>16}"
    )
    for k, p, x in grid:
        sel = [r for r in res if r[:3] == (k, p, x)]
        abc = sum(r[4] for r in sel) / len(sel)
        cub = sum(r[5] for r in sel) / len(sel)
        fct = sum(r[6] for r in sel) / len(sel)
        rows.append(
            {
                "top_k": k,
                "update_ms": p,
                "headroom": x,
                "abc_mbps": abc,
                "cubic_mbps": cub,
                "ratio": abc / cub,
                "short_p95_fct_ms": fct,
                "seeds": len(sel),
            }
        )
        print(f"{k:>4} {p:>9g} {x:>4g}  {abc / cub:>9.2f} {abc:>10.2f} {cub:>12.2f} {fct:>16.1f}")
    if a.json:
        with open(a.json, "w", encoding="utf-8") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
