#!/usr/bin/env python3
"""Three-way tables (published | the authors' code through our emulated link | our simulator) for
the ABC paper's headline table and the C2TCP paper's Table I.

    python scripts/upstream_table.py [--quick] [--table abc-table|c2tcp-table1|all] [--out DIR]
                                     [--windows N] [--duration S]

Needs root, the emulator (`make emu`) and the authors' programs (`make upstream`). Real-time runs go
one at a time (a 2-core machine has no room for two). Resumable: finished points are kept in
DIR/points and not run again. --quick: one 30 s window of one trace per table (for the ABC table,
Verizon-LTE-short.up); otherwise two 60 s windows of each of the paper's bundled traces. Writes
DIR/<table>.csv and DIR/<table>.md; the committed results are in docs/data/upstream/.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from accelbrake.upstream_table import SETUPS, available, run_table


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="one 30 s window of one trace per table")
    ap.add_argument("--table", default="all", choices=[*SETUPS, "all"])
    ap.add_argument("--out", default="results/upstream", help="results folder (default results/upstream)")
    ap.add_argument("--windows", type=int, help="trace windows per trace (default 1 with --quick, else 2)")
    ap.add_argument("--duration", type=float, help="seconds per run (default 30 with --quick, else 60)")
    ap.add_argument(
        "--no-rt",
        action="store_true",
        help="emulated runs without --rt (by default the link loop runs under "
        "SCHED_FIFO and the authors' programs at nice -20, against other load on the machine)",
    )
    a = ap.parse_args()
    why = available()
    if why:
        print(f"accelbrake: error: the authors' programs cannot run here: {why}", file=sys.stderr)
        return 3
    out = Path(a.out) / ("quick" if a.quick else "full")
    for t in SETUPS if a.table == "all" else [a.table]:
        t0 = time.monotonic()
        run_table(t, out, a.quick, a.windows, a.duration, rt=not a.no_rt)
        print(f"{t}: {out / (t + '.md')} ({time.monotonic() - t0:.0f} s)")
        print((out / f"{t}.md").read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
