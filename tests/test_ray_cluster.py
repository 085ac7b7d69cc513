"""Sweeps on a multi-node Ray cluster (``ray.cluster_utils.Cluster``: a head without CPUs for tasks
and two worker nodes of one CPU each, all on this machine): the same tables as the process pool;
traces shipped to the workers when the driver's files are gone; a worker node killed mid-sweep (its
runs redone on the other node, the sweep completes); a sweep resumed after its driver was killed."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from accelbrake.experiments import executors
from accelbrake.experiments.executors import LocalExecutor, RayExecutor
from accelbrake.experiments.runner import run_sweep
from accelbrake.experiments.spec import parse_experiment
from conftest import PACKAGE_PARENT, TRACE_DOWN, TRACE_UP

ray = pytest.importorskip("ray")
cluster_utils = pytest.importorskip("ray.cluster_utils")


def _doc(traces, seeds=(0, 1, 2, 3)):
    """2 schemes × 2 traces × 4 seeds = 16 runs of 5 s."""
    return {
        "name": "cluster",
        "matrix": {"schemes": ["abc", "cubic"], "traces": [str(t) for t in traces], "seeds": list(seeds)},
        "run": {"duration_s": 5},
    }


def _frames(out: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    return pd.read_parquet(out / "results.parquet"), pd.read_parquet(out / "timeseries.parquet")


def _same_tables(a: Path, b: Path) -> None:
    a_res, a_ts = _frames(a)
    b_res, b_ts = _frames(b)
    pd.testing.assert_frame_equal(a_res, b_res, check_exact=True)
    pd.testing.assert_frame_equal(a_ts, b_ts, check_exact=True)


@pytest.fixture(scope="module")
def traces(tmp_path_factory):
    """Copies of the two traces in a folder the test may hide from the workers."""
    d = tmp_path_factory.mktemp("traces")
    return [Path(shutil.copy(t, d / t.name)) for t in (TRACE_UP, TRACE_DOWN)]


@pytest.fixture(scope="module")
def pool_out(tmp_path_factory, traces):
    out = tmp_path_factory.mktemp("pool") / "o"
    outcome = run_sweep(parse_experiment(_doc(traces)), out, executor=LocalExecutor(2), progress=False)
    assert outcome.complete and outcome.ran == 16
    return out


@pytest.fixture(scope="module")
def cluster():
    c = cluster_utils.Cluster(
        initialize_head=True,
        head_node_args={"num_cpus": 0, "include_dashboard": False},
    )
    nodes = [c.add_node(num_cpus=1) for _ in range(2)]
    c.wait_for_nodes()
    ray.init(address=c.address, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    try:
        yield c, nodes
    finally:
        ray.shutdown()
        c.shutdown()


def test_two_node_cluster_gives_the_pool_tables(cluster, pool_out, traces, tmp_path):
    c, _nodes = cluster
    assert len([n for n in ray.nodes() if n["Alive"]]) == 3
    out = tmp_path / "ray"
    outcome = run_sweep(
        parse_experiment(_doc(traces)), out, executor=RayExecutor(address=c.address), progress=False
    )
    assert outcome.complete and outcome.ran == 16
    _same_tables(pool_out, out)


def test_traces_reach_workers_without_the_drivers_files(cluster, pool_out, traces, tmp_path, monkeypatch):
    """Once the executor has read the traces to ship them, the files are moved away: the workers
    can only have run from the shipped copies."""
    c, _nodes = cluster
    hidden = tmp_path / "hidden"
    hidden.mkdir()
    real = executors._trace_blobs

    def read_then_hide(tasks):
        blobs = real(tasks)
        for t in traces:
            shutil.move(t, hidden / t.name)
        return blobs

    monkeypatch.setattr(executors, "_trace_blobs", read_then_hide)
    exp = parse_experiment(_doc(traces))
    try:
        out = tmp_path / "ray"
        outcome = run_sweep(exp, out, executor=RayExecutor(address=c.address), progress=False)
    finally:
        for t in traces:
            if not t.exists():
                shutil.move(hidden / t.name, t)
    assert outcome.complete and outcome.ran == 16, outcome.failures_text()
    _same_tables(pool_out, out)


DRIVER = """
import sys
sys.path.insert(0, {parent!r})
import ray
from accelbrake.experiments.executors import RayExecutor
from accelbrake.experiments.runner import run_sweep
from accelbrake.experiments.spec import parse_experiment
ray.init(address={address!r}, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
run_sweep(parse_experiment({doc!r}), {out!r}, executor=RayExecutor(address={address!r}), progress=False)
"""


def test_sweep_resumes_after_its_driver_is_killed(cluster, pool_out, traces, tmp_path):
    c, _nodes = cluster
    out = tmp_path / "ray"
    code = DRIVER.format(parent=str(PACKAGE_PARENT), address=c.address, doc=_doc(traces), out=str(out))
    err = tmp_path / "driver.err"
    with err.open("wb") as f:
        driver = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=f)
    runs = out / "runs"
    deadline = time.monotonic() + 300
    try:
        while time.monotonic() < deadline:
            done = [p for p in runs.glob("*.json") if not p.name.startswith(".")] if runs.is_dir() else []
            if len(done) >= 3 or driver.poll() is not None:
                break
            time.sleep(0.05)
    finally:
        os.kill(driver.pid, signal.SIGKILL)
        driver.wait()
    assert driver.returncode == -signal.SIGKILL, err.read_text()
    assert not (out / "results.parquet").exists()
    outcome = run_sweep(
        parse_experiment(_doc(traces)), out, executor=RayExecutor(address=c.address), progress=False
    )
    assert outcome.complete and outcome.skipped >= 3 and outcome.skipped + outcome.ran == 16
    _same_tables(pool_out, out)


def test_worker_node_killed_mid_sweep_its_runs_are_redone(cluster, pool_out, traces, tmp_path):
    """Runs last (it removes a node): after the first run arrives, one of the two worker nodes is
    killed; Ray retries the runs it held on the other node and the sweep completes with the same
    tables."""
    c, nodes = cluster
    victim = nodes[0]
    seen = []

    def on_run(rid, doc):
        seen.append(rid)
        if len(seen) == 1:
            c.remove_node(victim, allow_graceful=False)

    out = tmp_path / "ray"
    outcome = run_sweep(
        parse_experiment(_doc(traces)),
        out,
        executor=RayExecutor(address=c.address),
        progress=False,
        on_run=on_run,
    )
    # The cluster's control store marks the node dead a moment after its processes are gone.
    deadline = time.monotonic() + 60
    while len([n for n in ray.nodes() if n["Alive"]]) != 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert len([n for n in ray.nodes() if n["Alive"]]) == 2
    assert len(seen) == 16
    assert outcome.complete and outcome.ran == 16 and not outcome.failed, outcome.failures_text()
    _same_tables(pool_out, out)
