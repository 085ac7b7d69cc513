"""PropRate contention (PropRate paper Fig. 10, §5.4): a second flow of the same scheme joins after 30 s.

The paper's setup: "we first started one TCP flow and then a second flow after 30 s. Both flows
continue for another 60 s, and we compute the average throughput for each flow during the latter
60 s". Prints the second flow's mean throughput over the first's from 30 s to 90 s, for PR(M),
PR(H) (default, with the Monitor rebase of RD_min, and with ``monitor_rebase=0``), BBR and Cubic on
two LTE traces and a constant 12 Mbit/s link (20 ms RTT, 1000-packet drop-tail buffer, ACKs over
100 Mbit/s): mean over seeds 1-5 (each seed draws the trace start offset), with the range.
``--timeline`` also prints both flows' throughput, smoothed RTT
and pacing rate every 5 s for PR(M) on the constant link, with and without the rebase.

Not part of the tests. Run from the repository root: ``python3 scripts/proprate_contention.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import accelbrake

TRACES = Path(__file__).resolve().parent.parent / "traces"
COLUMNS = (
    ("PR(M)", "proprate-m", {}),
    ("PR(H)", "proprate-h", {}),
    ("PR(M) rb=0", "proprate-m", {"monitor_rebase": 0}),
    ("PR(H) rb=0", "proprate-h", {"monitor_rebase": 0}),
    ("BBR", "bbr", {}),
    ("Cubic", "cubic", {}),
)
LINKS = {
    "Verizon-LTE-short.up": {"type": "trace", "path": str(TRACES / "Verizon-LTE-short.up")},
    "TMobile-LTE-short.up": {"type": "trace", "path": str(TRACES / "TMobile-LTE-short.up")},
    "constant 12 Mbit/s": {"type": "constant", "mbps": 12.0},
}


SEEDS = (1, 2, 3, 4, 5)


def simulate(scheme: str, link: dict, params: dict, seed: int = 1):
    flow = {"scheme": scheme, "fwd": [0], "rev": [1], "params": params}
    sc = {
        "duration_ms": 90000,
        "seed": seed,
        "record_packets": False,
        "sample_ms": 1000,
        "hops": [
            {"link": link, "queue": {"type": "droptail", "packets": 1000}, "delay_ms": 10},
            {"link": {"type": "constant", "mbps": 100}, "queue": {"type": "infinite"}, "delay_ms": 10},
        ],
        "flows": [flow, {**flow, "start_ms": 30000}],
    }
    return accelbrake.simulate(sc)


def share(scheme: str, link: dict, params: dict) -> str:
    ratios = []
    for seed in SEEDS:
        ts = simulate(scheme, link, params, seed).flows_ts
        m = ts[(ts.t_s >= 30) & (ts.t_s < 90)].groupby("flow").throughput_mbps.mean()
        ratios.append(float(m[1] / m[0]))
    return f"{sum(ratios) / len(ratios):.2f} [{min(ratios):.2f}-{max(ratios):.2f}]"


def _cell(row, column: str) -> str:
    vals = (row[(column, f)] for f in (0, 1))
    return " / ".join("  -  " if v != v else f"{v:5.1f}" for v in vals)


def timeline() -> None:
    for label, params in (("with the rebase (default)", {}), ("monitor_rebase=0", {"monitor_rebase": 0})):
        ts = simulate("proprate-m", LINKS["constant 12 Mbit/s"], params).flows_ts
        ts = ts.assign(bin=(ts.t_s // 5 * 5).astype(int))
        g = ts.groupby(["bin", "flow"])[["throughput_mbps", "srtt_ms", "pacing_mbps"]].mean().unstack("flow")
        print(f"\nPR(M), constant 12 Mbit/s, {label}: per 5 s, flow 0 / flow 1 (joins at 30 s)")
        print(f"{'t (s)':>6} {'Mbit/s':>14} {'srtt ms':>14} {'pacing Mbit/s':>16}")
        for b, row in g.iterrows():
            cells = [_cell(row, c) for c in ("throughput_mbps", "srtt_ms", "pacing_mbps")]
            print(f"{b:>6} {cells[0]:>14} {cells[1]:>14} {cells[2]:>16}")


def main() -> None:
    print("second / first flow throughput, 30-90 s (paper Fig. 10 window), mean [min-max], seeds 1-5")
    print("| link | " + " | ".join(c[0] for c in COLUMNS) + " |")
    print("|---" * (len(COLUMNS) + 1) + "|")
    for name, link in LINKS.items():
        print(f"| {name} | " + " | ".join(share(s, link, p) for _, s, p in COLUMNS) + " |")
    if "--timeline" in sys.argv[1:]:
        timeline()


if __name__ == "__main__":
    main()
