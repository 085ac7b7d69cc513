"""Why Cubic-ABE over CoDel at RTT 400 ms gets only ~44 % utilisation at beta_ecn 0.7.

Runs the ABE sweep's exact scenario (accelbrake.papers.abe.sweep.abe_scenario: 10 Mbit/s, RTT
400 ms, CoDel 5 ms / 100 ms, 1000 packets, ECN, 600 s) with and without the flow option
``ecn_prr`` (Linux CWR state with PRR, RFC 6937), prints utilisation, CE marks and the gains of
beta_ecn 0.85 / 0.95 over 0.7 for seeds 0-2, and for beta_ecn 0.7 the structure of the traffic:
bursts ("trains": departures from the bottleneck separated by > 20 ms idle), how many keep the
sojourn >= 5 ms for >= 100 ms (what makes CoDel mark), and the window at each reduction.

    .venv/bin/python scripts/abe_400ms_probe.py
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from accelbrake.papers.abe.sweep import abe_scenario
from accelbrake.results import simulate

BDP = 10e6 * 0.4 / 8 / 1500  # packets


def scenario(aqm: str, beta: float, prr: bool, seed: int, packets: bool = False) -> dict:
    sc = abe_scenario("cubic-abe", aqm, 400, beta, 600.0, seed=seed, record_packets=packets)
    sc["flows"][0]["ecn_prr"] = prr
    return sc


def trains(prr: bool) -> None:
    sc = scenario("codel", 0.7, prr, 0, packets=True)
    sc["sample_ms"] = 100.0
    r = simulate(sc)
    hp = r.hop_packets
    d = hp[(hp.hop == 0) & (hp.is_ack == 0)].sort_values("dequeue_s")
    d = d[d.dequeue_s > 60]
    t, q = d.dequeue_s.to_numpy(), d.queueing_delay_ms.to_numpy()
    train = np.cumsum(np.diff(t, prepend=t[0]) > 0.02)
    spans = []
    for _, g in pd.DataFrame({"t": t, "q": q, "k": train}).groupby("k"):
        best, start = 0.0, None
        for ti, qi in zip(g.t.to_numpy(), g.q.to_numpy(), strict=False):
            start = (start if start is not None else ti) if qi >= 5.0 else None
            if start is not None:
                best = max(best, ti - start)
        spans.append((len(g), best))
    n = np.array([s[0] for s in spans])
    big = n[n >= 50]
    f0 = r.flows_ts[(r.flows_ts.flow == 0) & (r.flows_ts.t_s > 60)]
    cw = f0.cwnd.to_numpy()
    red = np.where(np.diff(cw) < -0.05 * cw[:-1])[0]
    hop = r.summary["hops"][0]
    print(
        f"  ecn_prr={prr}: util {r.summary['utilization']:.3f}, marks {hop['marks']} "
        f"({hop['marks'] / 1500:.2f} per RTT), idle gaps > 20 ms after 60 s: {len(n) - 1}, "
        f"trains of >= 50 packets: {len(big)} (median {np.median(big) if len(big) else 0:.0f} packets), "
        f"trains with sojourn >= 5 ms for >= 100 ms: {sum(1 for s in spans if s[1] >= 0.1)}, "
        f"cwnd (5/50/95 %): {np.percentile(cw, [5, 50, 95]).round(0)}, "
        f"cwnd before a reduction (median): {np.median(cw[red]) if len(red) else float('nan'):.0f} "
        f"of a {BDP:.0f}-packet BDP"
    )


def main() -> None:
    for aqm in ("codel", "pie"):
        for prr in (False, True):
            for seed in (0, 1, 2):
                res = {}
                for b in (0.7, 0.85, 0.95):
                    s = simulate(scenario(aqm, b, prr, seed)).summary
                    res[b] = (s["utilization"], s["hops"][0]["marks"])
                g85 = 100 * (res[0.85][0] / res[0.7][0] - 1)
                g95 = 100 * (res[0.95][0] / res[0.7][0] - 1)
                cells = " ".join(f"{b}: {u:.3f} ({m} marks)" for b, (u, m) in res.items())
                print(f"{aqm} ecn_prr={prr} seed={seed}: {cells}; gain 0.85 {g85:+.1f} %, 0.95 {g95:+.1f} %")
    print("CoDel, beta_ecn 0.7, seed 0:")
    for prr in (False, True):
        trains(prr)


if __name__ == "__main__":
    main()
