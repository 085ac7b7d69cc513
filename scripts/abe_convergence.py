"""The ABE paper's Figs. 9-10 (convergence time ratio ρ) on the paper's full grid, or the default subset.

``accelbrake reproduce abe-convergence`` runs the reduced grid (6 of the 48 capacity × RTT
combinations, 120 s cap; see :mod:`accelbrake.papers.abe.figures`). This script runs the same
reproduction with ``--grid paper``: C ∈ {1, 5, 10, 20, 40, 100} Mbit/s × RTT ∈ {10, ..., 320} ms,
CoDel and PIE, Cubic (β 0.7 and 4 β_ecn) and NewReno (β 0.5 and 6 β_ecn): 1152 runs, many of them
long (hours of CPU). ``--cap`` sets the simulated time after the second start (s), ``--jobs`` the
worker processes. Results are kept in ``--out`` (resumable: a rerun skips finished runs); the
verdict table is printed at the end.

Not part of the tests. Run from the repository root:
``python3 scripts/abe_convergence.py --grid paper --cap 600 --jobs 2 --out results/abe-convergence-paper``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from accelbrake.experiments import reproduce as R
from accelbrake.experiments.executors import LocalExecutor
from accelbrake.papers import reproduction
from accelbrake.papers.abe import figures as abe_repro


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--grid", choices=("subset", "paper"), default="paper")
    ap.add_argument("--cap", type=float, default=None, help="simulated s after the second start")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--out", type=Path, default=Path("results/abe-convergence-paper"))
    a = ap.parse_args()
    if a.cap is not None and a.cap <= 0:
        ap.error(f"--cap {a.cap:g}: expected a positive number of seconds")
    if a.jobs < 1:
        ap.error(f"--jobs {a.jobs}: expected at least 1")
    a.out.mkdir(parents=True, exist_ok=True)
    rows, runs = abe_repro.run_convergence(a.out, False, a.cap, grid=a.grid, executor=LocalExecutor(a.jobs))
    rep = reproduction("abe-convergence")
    comp = {
        "id": rep.id,
        "title": rep.title,
        "source": rep.paper,
        "setup": f"grid {a.grid}, {runs} runs",
        "rows": rows,
        "unavailable": [],
        "summary": R.summarise(rows),
    }
    print(R.format_comparison(comp))


if __name__ == "__main__":
    main()
