"""Cost of a Python controller per ACK: the built-in ``newreno`` against the Python port
``accelbrake.examples.newreno:PyNewReno`` (bit-for-bit the same run), on one link.

    .venv/bin/python scripts/pycc_overhead.py [--mbps 48] [--seconds 30] [--repeat 3] [--out docs/bench]

Prints the wall time of each (best of ``--repeat``), the ACKs processed (one per data packet:
no delayed ACKs), and the extra time per ACK; with ``--out`` also writes ``pycc.json`` and
``pycc.md`` there (the performance page includes the table). Not a test (no timing in the test
suite; tests/test_docs_bench.py re-runs the scenario to check the recorded ACK count).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path

import accelbrake
from accelbrake import _core, controllers
from accelbrake.examples.newreno import PyNewReno


def best_of(scheme: str, sc: dict, repeat: int) -> tuple[float, dict]:
    js, specs = controllers.prepare(json.dumps(sc))
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = _core.simulate(js, specs)
        best = min(best, time.perf_counter() - t0)
    return best, json.loads(out["summary"])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mbps", type=float, default=48.0)
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--delay-ms", type=float, default=25.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--out", type=Path, help="write pycc.json and pycc.md to this folder (docs/bench)")
    a = ap.parse_args()
    accelbrake.register_controller("py-newreno", PyNewReno)
    kw = dict(trace=f"const:{a.mbps:g}", delay_ms=a.delay_ms, duration_s=a.seconds, buffer_packets=200)
    t_rs, s_rs = best_of("newreno", accelbrake.build_scenario("newreno", **kw), a.repeat)
    t_py, s_py = best_of("py-newreno", accelbrake.build_scenario("py-newreno", **kw), a.repeat)
    acks = s_rs["flows"][0]["packets_sent"]
    same = s_rs["flows"][0]["throughput_mbps"] == s_py["flows"][0]["throughput_mbps"]
    print(f"link {a.mbps:g} Mbit/s, RTT {2 * a.delay_ms:g} ms, {a.seconds:g} s simulated; ACKs ≈ {acks}")
    print(f"newreno (Rust)        {t_rs * 1e3:9.1f} ms   {t_rs / acks * 1e9:8.0f} ns/ACK (whole run)")
    print(f"py-newreno (Python)   {t_py * 1e3:9.1f} ms   {t_py / acks * 1e9:8.0f} ns/ACK (whole run)")
    print(
        f"slowdown ×{t_py / t_rs:.1f}; Python costs {(t_py - t_rs) / acks * 1e6:.2f} µs per ACK; "
        f"identical results: {same}"
    )
    if a.out:
        meta = {"machine": platform.platform(), "cpus": os.cpu_count(), "python": platform.python_version()}
        setup = {k: v for k, v in kw.items()}
        data = {
            "meta": meta,
            "setup": setup,
            "repeat": a.repeat,
            "acks": acks,
            "identical": same,
            "rust_wall_s": t_rs,
            "python_wall_s": t_py,
        }
        a.out.mkdir(parents=True, exist_ok=True)
        (a.out / "pycc.json").write_text(json.dumps(data, indent=1) + "\n")
        md = (
            f"`newreno` against its Python port `py-newreno` "
            f"({'the same run bit for bit' if same else 'the two runs DIFFER'}), "
            f"{a.mbps:g} Mbit/s, {2 * a.delay_ms:g} ms RTT, {a.seconds:g} s simulated, {acks:,} ACKs; "
            f"best of {a.repeat}:\n\n"
            "| controller | wall time | per ACK (whole run) |\n| --- | --- | --- |\n"
            f"| `newreno` (Rust) | {t_rs * 1e3:.0f} ms | {t_rs / acks * 1e6:.2f} µs |\n"
            f"| `py-newreno` (Python) | {t_py * 1e3:.0f} ms | {t_py / acks * 1e6:.2f} µs |\n\n"
            f"The Python controller costs **{(t_py - t_rs) / acks * 1e6:.1f} µs extra per ACK**, "
            f"×{t_py / t_rs:.1f} for the whole run.\n"
        )
        (a.out / "pycc.md").write_text(md)
        print(f"wrote {a.out / 'pycc.json'} and {a.out / 'pycc.md'}")


if __name__ == "__main__":
    main()
