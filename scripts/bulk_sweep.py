"""A sweep of many short runs with bounded driver memory (``accelbrake.bulk.run_bulk``): runs per
second, the driver's peak resident memory, and the results table written batch by batch.

    .venv/bin/python scripts/bulk_sweep.py --runs 100000 --out OUT [--duration-s 0.5] [--jobs 2]
        [--batch 2000]
    .venv/bin/python scripts/bulk_sweep.py --runs 10000 --out OUT --ray-nodes 2   # ray.cluster_utils

The matrix: 5 schemes (cubic, newreno, bbr, vegas, copa) × constant links of 6-48 Mbit/s ×
one-way delays of 10-80 ms × seeds, enough seeds to reach ``--runs``; each run lasts
``--duration-s`` simulated seconds. ``--ray-nodes k`` runs on a ``ray.cluster_utils.Cluster`` of a
head without CPUs for tasks and k worker nodes of one CPU each, all on this machine (so on a
2-core machine two nodes share its two cores with the driver). Prints one line of JSON: runs,
wall time, runs/s, rows, peak RSS of the driver (MB), and the load average at the end. Rerunning
with the same ``--out`` resumes (finished batches are skipped). Not a test.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import time

SCHEMES = ["cubic", "newreno", "bbr", "vegas", "copa"]
RATES = [6, 12, 24, 48]
DELAYS = [10, 20, 40, 80]


def experiment(runs: int, duration_s: float):
    from accelbrake.experiments.spec import parse_experiment

    per_seed = len(SCHEMES) * len(RATES) * len(DELAYS)
    seeds = math.ceil(runs / per_seed)
    doc = {
        "name": f"bulk-{runs}",
        "matrix": {
            "schemes": SCHEMES,
            "traces": [f"const:{r}" for r in RATES],
            "delay_ms": DELAYS,
            "seeds": list(range(seeds)),
        },
        "run": {"duration_s": duration_s},
    }
    return parse_experiment(doc, keep_scenarios=False)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=100_000)
    ap.add_argument("--out", required=True)
    ap.add_argument("--duration-s", type=float, default=0.5)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--batch", type=int, default=2000)
    ap.add_argument("--ray-nodes", type=int, default=0, help="run on a local multi-node Ray cluster")
    ap.add_argument("--progress", action="store_true")
    a = ap.parse_args()
    from accelbrake.bulk import run_bulk
    from accelbrake.experiments.executors import LocalExecutor, RayExecutor

    exp = experiment(a.runs, a.duration_s)
    cluster = None
    if a.ray_nodes:
        import ray
        from ray.cluster_utils import Cluster

        cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 0, "include_dashboard": False})
        for _ in range(a.ray_nodes):
            cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()
        ray.init(address=cluster.address, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
        executor = RayExecutor(address=cluster.address)
    else:
        executor = LocalExecutor(a.jobs)
    t0 = time.monotonic()
    try:
        o = run_bulk(exp, a.out, executor=executor, batch=a.batch, progress=a.progress)
    finally:
        if cluster is not None:
            import ray

            ray.shutdown()
            cluster.shutdown()
    print(
        json.dumps(
            {
                "matrix_runs": o.total,
                "ran": o.ran,
                "skipped": o.skipped,
                "duration_s": a.duration_s,
                "executor": executor.describe() + (f", {a.ray_nodes} nodes" if a.ray_nodes else ""),
                "wall_s": round(time.monotonic() - t0, 1),
                "runs_per_s": round(o.runs_per_s, 1),
                "rows": o.rows,
                "peak_rss_mb": round(o.peak_rss_mb, 1),
                "complete": o.complete,
                "failed": len(o.failed),
                "load_avg": os.getloadavg(),
            }
        )
    )


if __name__ == "__main__":
    main()
