"""Peak memory (RSS) of whole `accelbrake run` processes, side by side.

    python scripts/memory.py                      # the default table (records off: 60 s vs 3600 s)
    python scripts/memory.py -- --trace const:96 --duration 60 --packets

Each row runs one `accelbrake run ...` in a fresh process and reads its peak resident set size
from the kernel (getrusage of the child), so the figure covers the core, Python and every copy of
the tables. Used to check that memory stays flat with simulated time when per-packet records are
off, and to calibrate the core's memory estimate (`estimate_recorded_bytes`).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time

DEFAULT_ROWS = [
    ["--scheme", "cubic", "--trace", "const:96", "--duration", "60"],
    ["--scheme", "cubic", "--trace", "const:96", "--duration", "3600"],
    ["--scheme", "cubic", "--trace", "const:96", "--duration", "30", "--packets"],
    ["--scheme", "cubic", "--trace", "const:96", "--duration", "60", "--packets"],
]


def peak_rss_mb(argv: list[str]) -> tuple[float, float, int]:
    """Run ``accelbrake run ARGV`` in a fresh process: (peak RSS in MB, wall s, exit code)."""
    exe = shutil.which("accelbrake") or sys.executable
    cmd = [exe, "run", *argv] if exe != sys.executable else [exe, "-m", "accelbrake", "run", *argv]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_maxrss / 1024.0, wall, proc.returncode


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("args", nargs="*", help="arguments of one `accelbrake run` (after --)")
    ns = ap.parse_args()
    rows = [ns.args] if ns.args else DEFAULT_ROWS
    print("| accelbrake run … | peak RSS (MB) | wall (s) | exit |")
    print("|---|---:|---:|---:|")
    for argv in rows:
        rss, wall, rc = peak_rss_mb(argv)
        print(f"| `{' '.join(argv)}` | {rss:.0f} | {wall:.1f} | {rc} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
