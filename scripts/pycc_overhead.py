"""Cost of a Python controller per ACK: the built-in ``newreno`` against the Python port
``accelbrake.examples.newreno:PyNewReno`` (bit-for-bit the same run), on one link.

    .venv/bin/python scripts/pycc_overhead.py [--mbps 48] [--seconds 30] [--repeat 3]

Prints the wall time of each (best of ``--repeat``), the ACKs processed (one per data packet:
no delayed ACKs), and the extra time per ACK. Not a test (no timing in the test suite).
"""

from __future__ import annotations

import argparse
import json
import time

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


if __name__ == "__main__":
    main()
