"""How good must a forecast of μ be to close half of the ABC → PK-ABC gap?

PK-ABC's partial oracle (``pk-abc.knowledge = k``) uses ``μ_now + k·(μ_ahead − μ_now)``: k = 0 is
ABC's μ (the same run, bit for bit), k = 1 is PK-ABC (ABC paper §7.6). Its error against μ one RTT
ahead is (1 − k) times that of μ measured now, and always points the right way, so it is a
friendlier forecaster than a real one of the same RMS error. For each k the script runs the
paper's cellular setup with η on a grid, interpolates the p95 queueing delay at ABC's utilisation
(k = 0, η = 0.98), or at PK-ABC's where that is lower (it is on two traces), and prints the
fraction of the ABC → PK-ABC gap closed at that utilisation:

    closed(k) = (p95_0(u*) − p95_k(u*)) / (p95_0(u*) − p95_1(u*)),
    u* = min(util(ABC, η = 0.98), util(PK-ABC, η = 0.98))

Usage: ``.venv/bin/python scripts/pk_knowledge.py --traces-dir DIR [--seeds 0,1,2] [--jobs 2]``.
Deterministic (fixed seeds).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from predict_abc_heldout import PAPER, measure  # noqa: E402

KS = (0.0, 0.25, 0.5, 0.75, 1.0)
ETAS = (1.0, 0.98, 0.95, 0.92, 0.88, 0.84, 0.80, 0.75, 0.70)


def name(k: float, eta: float) -> str:
    return f"k={k:g} eta={eta:g}"


def at_util(m, trace: str, k: float, util: float) -> float | None:
    """p95 of the k-oracle at utilisation ``util``, linear between its η grid's runs."""
    pts = sorted((m[(trace, name(k, e))] for e in ETAS), key=lambda p: p[0])
    us = [p[0] for p in pts]
    if util < us[0] or util > us[-1]:
        return None
    return float(np.interp(util, us, [p[1] for p in pts]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--traces-dir",
        type=Path,
        required=True,
        help="folder holding the Mahimahi cellular traces named in PAPER and TUNE (the ABC paper's "
        "set and the robustness set: the traces/ folders of the Mahimahi and ABC artifact repositories)",
    )
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--secs", type=float, default=140.0)
    ap.add_argument("--traces", default=",".join(PAPER), help="comma-separated (default: the paper's five)")
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    seeds = tuple(int(s) for s in args.seeds.split(","))
    configs = [
        (name(k, e), "pk-abc", [f"pk-abc.knowledge={k:g}", f"pk-abc.eta={e:g}"]) for k in KS for e in ETAS
    ]
    traces = tuple(args.traces.split(","))
    m = measure(args.traces_dir, traces, configs, args.secs, seeds, args.jobs)
    print(f"p95 queueing delay (ms) at ABC's utilisation u*, {args.secs:g} s, seeds {args.seeds};")
    print("closed = fraction of the ABC -> PK-ABC gap (n/a: that k cannot reach u*);")
    print("in brackets each k's own point at eta = 0.98 (util / p95)")
    print(f"  {'trace':26s} {'u*':>6s} " + " ".join(f"{'k=' + format(k, 'g'):>22s}" for k in KS))
    closed_all: dict[float, list[float]] = {k: [] for k in KS}
    for t in traces:
        u0 = min(m[(t, name(0.0, 0.98))][0], m[(t, name(1.0, 0.98))][0])
        d = {k: at_util(m, t, k, u0) for k in KS}
        gap = None if d[0.0] is None or d[1.0] is None else d[0.0] - d[1.0]
        cells = []
        for k in KS:
            u, p = m[(t, name(k, 0.98))]
            if d[k] is None or not gap or gap <= 0:
                cells.append(f"{'n/a':>6s} ({u:.3f}/{p:4.0f})")
                continue
            c = (d[0.0] - d[k]) / gap
            closed_all[k].append(c)
            cells.append(f"{d[k]:4.0f} {c:+.2f} ({u:.3f}/{p:4.0f})")
        print(f"  {t:26s} {u0:6.3f} " + " ".join(f"{c:>22s}" for c in cells))
    means = ", ".join(f"k={k:g}: {np.mean(v):+.2f}" for k, v in closed_all.items() if v)
    print(f"mean fraction closed: {means}")


if __name__ == "__main__":
    main()
