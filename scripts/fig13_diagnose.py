#!/usr/bin/env python3
"""Take Fig. 13's ABC / Cubic long-flow gap apart (docs/coexistence.md, "Why Cubic's long
flows got 6 % more").

For each queue spec (default: the coexistence router as configured), runs Fig. 13's setup at 10 %
short-flow load (``accelbrake.papers.abc.mixed.fig13_scenario``) for ``--seeds`` seeds and prints:

* the ABC / Cubic ratio of the mean long-flow throughputs over the whole run and from ``--from``
  seconds on (after the start-up transient), and the ABC flows' relative standard deviation
  (population std / mean of the three flows' throughputs, mean over seeds: ``cmp_fig13``'s metric);
* with ``--series``, per-second means over the seeds of the ABC and Cubic long flows' throughput
  (per flow), the short flows' total and the ABC queue's weight (the router's gauge);
* with ``--alone MBPS``, the same relative standard deviation for the three ABC flows alone on a
  plain ABC queue of MBPS (their intra-scheme unfairness without the router).

Deterministic from the seeds. ``.venv/bin/python scripts/fig13_diagnose.py --seeds 10 --jobs 2
--series "abc-coexist" "abc-coexist eta=1.0"``
"""

from __future__ import annotations

import argparse
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import numpy as np


def _kinds(sc: dict[str, Any]) -> np.ndarray:
    flows = [f for f in sc["flows"] for _ in range(int(f.get("count", 1)))]
    return np.array(["short" if "app" in f else str(f["scheme"]) for f in flows])


def one(args: tuple[int, float, str, float, float | None, bool]) -> dict[str, Any]:
    from accelbrake.papers.abc import mixed as M
    from accelbrake.results import simulate

    seed, duration, queue, t0, alone, heavy = args
    sc = M.fig13_scenario(seed, duration, queue, heavy=heavy)
    if alone is not None:  # the three ABC long flows alone on a plain queue of `alone` Mbit/s
        sc["flows"] = [sc["flows"][0]]
        sc["hops"][0]["link"]["mbps"] = alone
        sc["hops"][0]["queue"] = {**sc["hops"][0]["queue"], "type": queue}
    r = simulate(sc)
    kinds = _kinds(sc)
    ts = r.flows_ts
    ts = ts.assign(kind=kinds[ts["flow"].to_numpy()])
    hop = r.hops_ts[r.hops_ts["hop"] == r.bottleneck_hop].set_index("t_s")
    bin_s = float(sc["sample_ms"]) / 1000.0
    out: dict[str, Any] = {"queue": queue, "seed": seed}
    for name, w in (("all", ts), ("late", ts[ts["t_s"] >= t0 - 1e-9])):
        span = duration - (0.0 if name == "all" else t0)
        per = w[w["kind"] != "short"].groupby("flow")["throughput_mbps"].sum() * bin_s / span
        for kind in ("abc", "cubic"):
            xs = per[kinds[per.index.to_numpy()] == kind].to_numpy()
            out[f"{name}_{kind}"] = float(xs.mean()) if len(xs) else float("nan")
            if kind == "abc" and len(xs):
                out[f"{name}_abc_relstd"] = float(xs.std() / xs.mean())
    g = ts.groupby(["t_s", "kind"])["throughput_mbps"].sum().unstack(fill_value=0.0)
    for kind in ("abc", "cubic"):
        if kind in g:
            g[kind] /= int((kinds == kind).sum())
    if "abc_f" in hop and hop["abc_f"].notna().any():
        g["w_abc"] = hop["abc_f"]
    out["series"] = g
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("queues", nargs="*", default=["abc-coexist"], help="queue specs (Mahimahi style)")
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--duration", type=float, default=40.0)
    ap.add_argument("--from", dest="t0", type=float, default=10.0, help="start of the late window, s")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--load30", action="store_true", help="the 30 % short-flow load (default 10 %)")
    ap.add_argument("--series", action="store_true", help="print the per-second series too")
    ap.add_argument("--alone", type=float, metavar="MBPS", help="ABC flows alone on a plain queue of MBPS")
    a = ap.parse_args()
    tasks = [(s, a.duration, q, a.t0, a.alone, a.load30) for q in a.queues for s in range(a.seeds)]
    with ProcessPoolExecutor(a.jobs) as ex:
        res = list(ex.map(one, tasks))
    for q in a.queues:
        rs = [r for r in res if r["queue"] == q]
        what = f"3 ABC flows alone on {a.alone:g} Mbit/s, {q}" if a.alone else q
        load = "30 %" if a.load30 else "10 %"
        print(f"== {what} ({len(rs)} seeds × {a.duration:g} s, {load} short-flow load)")
        for name, label in (("all", "whole run"), ("late", f"from {a.t0:g} s")):
            abc = float(np.mean([r[f"{name}_abc"] for r in rs]))
            sd = float(np.mean([r[f"{name}_abc_relstd"] for r in rs]))
            if a.alone:
                print(f"  {label:>10}: ABC {abc:.2f} Mbit/s, rel. std of the ABC flows {sd:.3f}")
                continue
            cub = float(np.mean([r[f"{name}_cubic"] for r in rs]))
            print(
                f"  {label:>10}: ABC {abc:.2f}, Cubic {cub:.2f} Mbit/s per long flow, ABC / Cubic "
                f"{abc / cub:.3f}, rel. std of the ABC flows {sd:.3f}"
            )
        if a.series:
            m = sum(r["series"] for r in rs) / len(rs)
            print(m.round(3).to_string())


if __name__ == "__main__":
    main()
