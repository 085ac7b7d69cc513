"""How exactly the real-time emulated link (`accelbrake-emu`) follows its trace.

For each trace, a UDP blaster saturates the link with 1500-byte datagrams (one per 1504-byte
delivery opportunity) for a few seconds, and the emulator reports per 100 ms the opportunity bytes
and the bytes delivered — by the trace schedule (which opportunity carried each packet) and by when
each packet was actually written to the receiving TUN device — plus the per-packet timing error
(written − (opportunity + delay)). Then constant links of increasing rate find the highest rate it
keeps up with on one core (p99 timing error under 1 ms and ≥ 99 % of delivered packets received).

    sudo python3 scripts/emu_accuracy.py [--duration 3] [--rt] [--json out.json]

Needs root and the binary (`make emu`). Figures depend on the machine's load.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = ROOT / "target" / "release" / "accelbrake-emu"

# (trace, blaster rate Mbit/s): about 1.5× each trace's peak over 100 ms in the first seconds.
TRACES = [("bw12.mahi", 18), ("bw96.mahi", 140), ("Verizon-LTE-short.down", 60), ("TMobile-LTE-short.up", 60)]
# Constant-rate traces for the keep-up sweep: n lines of "1" = n × 12 Mbit/s (Mahimahi's rule).
SWEEP_LINES = [8, 16, 32, 64, 128]


def saturate(trace: str, rate: float, duration: float, rt: bool) -> dict:
    cmd = [str(BIN), "saturate", "--trace", trace, "--rate-mbps", str(rate), "--duration", str(duration)]
    cmd += ["--rt"] if rt else []
    cmd += ["--queue", "droptail packets=1000"]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: {r.stderr.strip()}")
    return json.loads(r.stdout)


def row(name: str, v: dict) -> str:
    t = v["timing_error_us"]
    return (
        f"| {name} | {len(v['bins_100ms'])} | {100 * v['worst_bin_error']:.2f} % | "
        f"{100 * v['worst_bin_error_by_write_time']:.2f} % | "
        f"{t['p50']:.0f} | {t['p99']:.0f} | {t['max']:.0f} | "
        f"{v['received_packets']}/{v['delivered_packets']} |"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--duration", type=float, default=3.0)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--rt", action="store_true", help="link loop under SCHED_FIFO (accelbrake-emu --rt)")
    a = ap.parse_args()
    if not BIN.exists():
        sys.exit(f"{BIN} missing: run `make emu`")
    out: dict = {"traces": {}, "sweep": {}}
    print("| trace | 100 ms bins | worst bin error (schedule) | worst bin error (write time) | "
          "timing error p50 µs | p99 µs | max µs | received/delivered |")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    for name, rate in TRACES:
        v = saturate(str(ROOT / "traces" / name), rate, a.duration, a.rt)
        out["traces"][name] = v
        print(row(name, v), flush=True)
    print("\nkeep-up sweep (constant links):\n")
    print(
        "| rate Mbit/s | worst bin error (schedule) | timing p50 µs | p99 µs | "
        "received/delivered | keeps up |"
    )
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for n in SWEEP_LINES:
            tr = Path(tmp) / f"c{n}.mahi"
            tr.write_text("1\n" * n)
            mbps = n * 12.032  # 1504 B per line per ms
            v = saturate(str(tr), mbps * 1.3, a.duration, a.rt)
            t = v["timing_error_us"]
            ok = t["p99"] < 1000 and v["received_packets"] >= 0.99 * v["delivered_packets"]
            ok = ok and v["worst_bin_error"] <= 0.01
            out["sweep"][f"{mbps:.0f}"] = v
            print(
                f"| {mbps:.0f} | {100 * v['worst_bin_error']:.2f} % | {t['p50']:.0f} | {t['p99']:.0f} | "
                f"{v['received_packets']}/{v['delivered_packets']} | {'yes' if ok else 'no'} |",
                flush=True,
            )
    if a.json:
        a.json.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
