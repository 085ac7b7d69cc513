"""PropRate contention (PropRate paper Fig. 10): a second flow of the same scheme joins after 30 s.

Prints the second flow's mean throughput over the first's from 30 s to 140 s, for PR(M), PR(H),
BBR and Cubic on two LTE traces and a constant 12 Mbit/s link (20 ms RTT, 1000-packet drop-tail
buffer, ACKs over 100 Mbit/s). Not part of the tests: the PropRate figures do not match the paper
yet (docs/delay-schemes.md). Run from the repository root: ``python3 scripts/proprate_contention.py``.
"""

from __future__ import annotations

from pathlib import Path

import accelbrake

TRACES = Path(__file__).resolve().parent.parent / "traces"
SCHEMES = ("proprate-m", "proprate-h", "bbr", "cubic")


def share(scheme: str, link: dict) -> float:
    flow = {"scheme": scheme, "fwd": [0], "rev": [1]}
    sc = {
        "duration_ms": 140000,
        "seed": 1,
        "record_packets": False,
        "sample_ms": 1000,
        "hops": [
            {"link": link, "queue": {"type": "droptail", "packets": 1000}, "delay_ms": 10},
            {"link": {"type": "constant", "mbps": 100}, "queue": {"type": "infinite"}, "delay_ms": 10},
        ],
        "flows": [flow, {**flow, "start_ms": 30000}],
    }
    ts = accelbrake.simulate(sc).flows_ts
    m = ts[ts.t_s >= 30].groupby("flow").throughput_mbps.mean()
    return float(m[1] / m[0])


def main() -> None:
    links = {
        "Verizon-LTE-short.up": {"type": "trace", "path": str(TRACES / "Verizon-LTE-short.up")},
        "TMobile-LTE-short.up": {"type": "trace", "path": str(TRACES / "TMobile-LTE-short.up")},
        "constant 12 Mbit/s": {"type": "constant", "mbps": 12.0},
    }
    print("second / first flow throughput, 30-140 s")
    print(f"{'link':<22}" + "".join(f"{s:>12}" for s in SCHEMES))
    for name, link in links.items():
        print(f"{name:<22}" + "".join(f"{share(s, link):>12.2f}" for s in SCHEMES))


if __name__ == "__main__":
    main()
