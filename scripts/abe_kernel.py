"""The ABE paper's Figs. 4-7 three ways: paper | Linux TCP through our emulated link | our simulator.

Runs every point the paper's Fig. 4-7 numbers need on kernel TCP (``accelbrake emulate``: Linux
Cubic/Reno with ABE's β_ecn as BPF struct_ops, classic ECN, our CoDel/PIE, 60 s in real time) and on
the simulator over the same link, then judges each of the paper's numbers three ways (see
:mod:`accelbrake.papers.abe.kernel`). ``--quick``: the 400 ms points (the throughput gains of
Figs. 4 and 6). Resumable: a rerun with the same ``--out`` reuses finished points. ``--jobs``: how
many emulators run at once (2 on a 2-core machine; more makes the real-time link miss its times);
``--repeats N``: kernel runs per point, averaged; ``--only ID...``: the points whose id contains one
of these. NewReno at 400 ms runs 300 s (at least ``--duration``) and averages 5 simulator seeds.

Needs root, the emulator (``make emu``) and clang/libbpf (``make emu-deps``). Not part of the tests.
Run from the repository root, e.g.
``sudo .venv/bin/python scripts/abe_kernel.py --out results/abe-kernel [--quick] [--jobs 2]``;
the tables go to ``--out`` (``points.csv``, ``verdicts.csv``, ``abe-kernel.md``) and, with
``--data DIR``, there too.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from accelbrake.papers.abe import kernel as abe_kernel


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("results/abe-kernel"), help="working folder (resumable)")
    ap.add_argument("--quick", action="store_true", help="the 400 ms points only")
    ap.add_argument("--jobs", type=int, default=2, help="emulators at once (default 2)")
    ap.add_argument(
        "--duration", type=float, default=abe_kernel.DURATION_S, help="seconds per run (default 60)"
    )
    ap.add_argument("--repeats", type=int, default=1, help="kernel runs per point, averaged (default 1)")
    ap.add_argument("--data", type=Path, help="also write the tables to this folder")
    ap.add_argument(
        "--only",
        nargs="+",
        default=(),
        metavar="ID",
        help="only the points whose id contains one of these, e.g. newreno-abe-codel-rtt400",
    )
    a = ap.parse_args()
    if a.repeats < 1:
        print("abe_kernel: error: --repeats: expected 1 or more", file=sys.stderr)
        return 2
    if a.jobs < 1:
        print("abe_kernel: error: --jobs: expected 1 or more", file=sys.stderr)
        return 2
    if not a.duration > 0:
        print("abe_kernel: error: --duration: expected seconds > 0", file=sys.stderr)
        return 2
    t0 = time.time()
    try:
        table, verdicts = abe_kernel.run(
            a.out, quick=a.quick, jobs=a.jobs, duration_s=a.duration, repeats=a.repeats, only=a.only
        )
    except (RuntimeError, ValueError) as e:
        print(f"abe_kernel: error: {e}", file=sys.stderr)
        return 1
    for folder in [a.out] + ([a.data] if a.data else []):
        abe_kernel.write(table, verdicts, folder)
    print(abe_kernel.markdown(table, verdicts))
    print(f"wall time {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
