"""Experiment files, sweeps (process pool and Ray), resuming, the HTML report and `reproduce`."""

from __future__ import annotations

import dataclasses
import html.parser
import io
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from accelbrake import papers as P
from accelbrake.experiments import reproduce as R
from accelbrake.experiments.executors import LocalExecutor
from accelbrake.experiments.report import build_report
from accelbrake.experiments.runner import run_sweep
from accelbrake.experiments.spec import ExperimentError, load_experiment, parse_experiment
from conftest import PACKAGE_PARENT, TRACE_DOWN, TRACE_UP


def small_doc(**run: object) -> dict:
    """2 schemes × 2 traces × 2 seeds, 5 s runs."""
    return {
        "name": "small",
        "matrix": {
            "schemes": ["abc", "cubic"],
            "traces": [str(TRACE_UP), str(TRACE_DOWN)],
            "seeds": [0, 1],
        },
        "run": {"duration_s": 5, **run},
    }


def write_toml(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def _finished(out: Path) -> list[Path]:
    """Finished runs' JSON files (temporary files of runs in flight start with a dot)."""
    return [p for p in (out / "runs").glob("*.json") if not p.name.startswith(".")]


def _frames(out: Path) -> tuple[pd.DataFrame, pd.DataFrame]:
    return pd.read_parquet(out / "results.parquet"), pd.read_parquet(out / "timeseries.parquet")


# --- experiment files -------------------------------------------------------------------------


def test_matrix_expands_every_combination_with_variants(tmp_path):
    f = write_toml(
        tmp_path / "e.toml",
        f"""
name = "x"
[matrix]
schemes = ["abc", "abc-eta90", "Cubic"]
traces = ["{TRACE_UP}", "const:24"]
delay_ms = [10, 50]
buffer_packets = [100, 250]
seeds = 2
[run]
duration_s = 5
[schemes.abc-eta90]
scheme = "abc"
set = ["abc.eta=0.9"]
""",
    )
    exp = load_experiment(f)
    points = list(exp.points())
    assert len(points) == 3 * 2 * 2 * 2 * 2
    assert exp.scheme_names == ["abc", "abc-eta90", "cubic"]
    p = next(p for p in points if p.scheme == "abc-eta90")
    sc = exp.scenario(p)
    assert sc["hops"][0]["queue"]["eta"] == 0.9
    assert sc["flows"][0]["scheme"] == "abc"
    q = exp.scenario(next(p for p in points if p.scheme == "cubic" and p.buffer_packets == 100))
    assert q["hops"][0]["queue"] == {"type": "droptail", "packets": 100}


def test_flow_schedules_and_rtts_reach_the_scenario():
    doc = small_doc(flow_starts_s=[0, 2], flow_stops_s=[5, 4])
    doc["matrix"]["schemes"] = ["abc"]
    sc = parse_experiment(doc).scenario(next(parse_experiment(doc).points()))
    assert [(f["start_ms"], f["stop_ms"]) for f in sc["flows"]] == [(0.0, 5000.0), (2000.0, 4000.0)]
    doc = small_doc()
    doc["matrix"] |= {"delay_ms": [10], "flow_rtts_ms": [[60, 20]]}
    exp = parse_experiment(doc)
    sc = exp.scenario(next(exp.points()))
    assert [f["extra_delay_ms"] for f in sc["flows"]] == [40.0, 0.0]


def test_overrides_replace_file_keys_and_add_scenario_sets(tmp_path):
    f = write_toml(tmp_path / "e.toml", f'[matrix]\nschemes = ["abc"]\ntraces = ["{TRACE_UP}"]\n')
    exp = load_experiment(
        f, ["matrix.schemes=abc,cubic", "run.duration_s=7", "matrix.seeds=[3, 4]", "abc.eta=0.9"]
    )
    assert exp.scheme_names == ["abc", "cubic"]
    assert exp.duration_s == 7.0 and exp.seeds == (3, 4)
    assert ("abc.eta", "0.9") in exp.sets
    abc = exp.scenario(next(p for p in exp.points() if p.scheme == "abc"))
    assert abc["hops"][0]["queue"]["eta"] == 0.9


@pytest.mark.parametrize(
    ("text", "key", "words"),
    [
        ('schemes = ["abc", "cubci"]\ntraces = ["const:24"]', "matrix.schemes[1]", ["did you mean 'cubic'"]),
        ('schemes = []\ntraces = ["const:24"]', "matrix.schemes", ["empty"]),
        ('schemes = ["abc"]\ntraces = []', "matrix.traces", ["empty"]),
        ('schemes = ["abc"]\ntraces = ["const:24"]\ndelay_ms = ["fast"]', "matrix.delay_ms[0]", ["expected"]),
        ('schemes = ["abc"]\ntraces = ["const:24"]\nseeds = [-1]', "matrix.seeds[0]", ["≥ 0"]),
        ('schemes = ["abc"]\ntraces = ["const:24"]\nbuffer_packets = [2.5]', "matrix.buffer_packets[0]", []),
        (
            'schemes = ["abc"]\ntraces = ["const:24"]\ndelays_ms = [5]',
            "matrix.delays_ms",
            ["did you mean 'delay_ms'"],
        ),
        ('schemes = "abc"\ntraces = ["no-such-trace.up"]', "matrix.traces[0]", ["not found"]),
        ('schemes = {abc = 1}\ntraces = ["const:24"]', "matrix.schemes", ["got a table"]),
        ('schemes = [1]\ntraces = ["const:24"]', "matrix.schemes[0]", ["string"]),
    ],
)
def test_malformed_matrix_names_the_key(tmp_path, text, key, words):
    f = write_toml(tmp_path / "bad.toml", f"[matrix]\n{text}\n[run]\nduration_s = 5\n")
    with pytest.raises(ExperimentError) as e:
        load_experiment(f)
    msg = str(e.value)
    assert msg.startswith(f"{f}: {key}:"), msg
    assert e.value.key == key
    for w in words:
        assert w in msg, msg


@pytest.mark.parametrize(
    ("extra", "key", "words"),
    [
        ("[run]\nduration_s = [5]", "run.duration_s", ["number"]),
        ('[run]\nduration_s = "soon"', "run.duration_s", ["expected"]),
        ("[run]\nqueue = 5", "run.queue", ["string"]),
        ('[run]\nqueue = "codle"', "run.queue", ["did you mean 'codel'"]),
        ('[run]\nset = ["abc.detla=100ms"]', "run", ["abc.detla", "did you mean 'abc.delta'"]),
        ('[run]\nset = ["codel.target=5ms"]', "run.set", ["does not apply"]),
        ("[run]\ndurration_s = 5", "run.durration_s", ["did you mean 'duration_s'"]),
        ('[schemes.fast]\nscheme = "abcc"', "schemes.fast.scheme", ["did you mean 'abc'"]),
        ('[schemes.cubic]\nset = ["abc.eta=0.9"]', "schemes.cubic", ["abc.eta"]),
        ('[schemes.abc]\nset = "x"', "schemes.abc.set[0]", ["key=value"]),
        ("[run]\nflow_stops_s = [1]", "run.flow_stops_s", ["flow_starts_s"]),
    ],
)
def test_malformed_run_and_schemes_name_the_key(tmp_path, extra, key, words):
    f = write_toml(
        tmp_path / "bad.toml", f'[matrix]\nschemes = ["abc", "cubic"]\ntraces = ["const:24"]\n{extra}\n'
    )
    with pytest.raises(ExperimentError) as e:
        load_experiment(f)
    msg = str(e.value)
    assert msg.startswith(f"{f}: {key}"), msg
    for w in words:
        assert w in msg, msg


def test_bad_file_fails_before_any_run(run_cli, tmp_path):
    f = write_toml(tmp_path / "bad.toml", '[matrix]\nschemes = ["abc", "cubci"]\ntraces = ["const:24"]\n')
    out = tmp_path / "out"
    r = run_cli("sweep", str(f), "--out", str(out))
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("accelbrake: error: "), r.stderr
    assert "matrix.schemes[1]" in lines[0] and "did you mean 'cubic'" in lines[0]
    assert not out.exists()
    r = run_cli("sweep", str(tmp_path / "missing.toml"))
    assert r.returncode == 2 and "missing.toml" in r.stderr


def test_example_experiment_file_checks(run_cli, repo):
    r = run_cli("sweep", str(repo / "experiments" / "abc-vs-cubic.toml"), "--check")
    assert r.returncode == 0, r.stderr
    assert "16 runs" in r.stdout


# --- sweeps -----------------------------------------------------------------------------------


def test_process_pool_and_ray_give_identical_tables(tmp_path):
    ray = pytest.importorskip("ray")
    from accelbrake.experiments.executors import RayExecutor

    exp = parse_experiment(small_doc())
    local = run_sweep(exp, tmp_path / "local", executor=LocalExecutor(2), progress=False, csv=True)
    assert local.complete and local.ran == 8
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    try:
        on_ray = run_sweep(exp, tmp_path / "ray", executor=RayExecutor(), progress=False, csv=True)
        # Traces shipped through the object store, as for a cluster without shared files.
        shipped = run_sweep(
            exp, tmp_path / "shipped", executor=RayExecutor(ship_traces=True), progress=False, csv=True
        )
    finally:
        ray.shutdown()
    assert on_ray.ran == 8 and shipped.ran == 8
    a_res, a_ts = _frames(tmp_path / "local")
    for other in ("ray", "shipped"):
        b_res, b_ts = _frames(tmp_path / other)
        pd.testing.assert_frame_equal(a_res, b_res, check_exact=True)
        pd.testing.assert_frame_equal(a_ts, b_ts, check_exact=True)
        assert (tmp_path / "local" / "results.csv").read_bytes() == (
            tmp_path / other / "results.csv"
        ).read_bytes()
    assert len(a_res) == 8 and set(a_res["scheme"]) == {"abc", "cubic"} and set(a_res["seed"]) == {0, 1}
    meta = json.loads((tmp_path / "ray" / "metadata.json").read_text())
    assert meta["executor"].startswith("Ray")


def test_tables_have_one_row_per_run_and_flow_and_metadata(tmp_path):
    doc = small_doc()
    doc["matrix"] |= {"schemes": ["abc"], "flows": [1, 3], "traces": ["const:24"]}
    out = tmp_path / "o"
    outcome = run_sweep(parse_experiment(doc), out, progress=False, csv=True)
    res = pd.read_csv(out / "results.csv")
    assert len(res) == (1 + 3) * 2
    assert list(res.columns[:13]) == [
        "run_id",
        "scheme",
        "label",
        "cc",
        "queue",
        "trace",
        "delay_ms",
        "buffer_packets",
        "flows",
        "start_interval_s",
        "flow_rtts_ms",
        "seed",
        "duration_s",
    ]
    for col in ("flow", "throughput_mbps", "per_packet_delay_p95_ms", "link_utilization", "jain_index"):
        assert col in res.columns
    assert res.groupby("run_id").size().sort_values().tolist() == [1, 1, 3, 3]
    meta = json.loads((out / "metadata.json").read_text())
    for k in ("accelbrake_version", "git_commit", "machine", "executor", "runs"):
        assert k in meta
    assert meta["machine"]["cpus"] == os.cpu_count()
    run = json.loads((out / "runs" / f"{res['run_id'][0]}.json").read_text())
    assert run["seed"] == run["scenario"]["seed"] == res["seed"][0]
    assert len(run["delay_quantiles_ms"]) == 1001
    ts = pd.read_parquet(out / "runs" / f"{res['run_id'][0]}.flows.parquet")
    assert {"delay_mean_ms", "delay_p95_ms", "cwnd", "throughput_mbps"} <= set(ts.columns)
    assert outcome.results is not None and len(outcome.results) == len(res)


def test_tables_built_in_memory_equal_tables_read_back_from_the_run_files(tmp_path):
    """The sweep builds its tables from the runs it holds in memory instead of reading back
    the files it just wrote; both must give the same tables, byte for byte."""
    import shutil

    from accelbrake.experiments import runner

    doc = small_doc()
    doc["matrix"] |= {"schemes": ["abc", "cubic"], "flows": [1, 2], "traces": [str(TRACE_UP), "const:24"]}
    exp = parse_experiment(doc)
    out = tmp_path / "mem"
    seen = []
    real = runner.write_tables

    def spy(*a, **k):
        seen.append(len(k.get("loaded") or {}))  # (write_tables consumes it)
        return real(*a, **k)

    runner.write_tables = spy
    try:
        outcome = run_sweep(exp, out, executor=LocalExecutor(2), progress=False, csv=True)
    finally:
        runner.write_tables = real
    assert outcome.ran == 16 and seen == [16], "every run's tables came from memory"
    files = tmp_path / "files"
    shutil.copytree(out, files)
    order = [(runner.run_id(exp.scenario(p)), p) for p in exp.points()]
    from_files = runner.write_tables(
        exp, files, order, executor=LocalExecutor(2), commit=None, wall_s=0.0, stats={}, csv=True
    )
    pd.testing.assert_frame_equal(outcome.results, from_files, check_exact=True)
    for name in ("results.parquet", "results.csv", "timeseries.parquet"):
        assert (out / name).read_bytes() == (files / name).read_bytes(), name


def test_timeseries_built_at_once_equals_one_frame_per_run(tmp_path, monkeypatch):
    """The time series table built in one Arrow concatenation with repeated label columns
    is the table of one pandas frame per run (its labels inserted) concatenated, which is still how
    it is built when a run's series comes from its file: same values, dtypes and Parquet bytes;
    labels whose Python types differ between runs (an int and a float delay) take that slow way."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq
    from accelbrake.experiments import runner

    runs = tmp_path / "runs"
    runs.mkdir()
    series = []
    for i, (scheme, delay, n) in enumerate([("abc", 50, 3), ("cubic", 25, 1), ("abc", 50, 4)]):
        t = pa.table(
            {
                "t_s": np.arange(n) * 0.1,
                "flow": np.zeros(n, dtype=np.int64),
                "cwnd": np.where(np.arange(n) % 2 == 0, np.nan, 1.0 + i),
                "in_flight": np.arange(n, dtype=np.int64) + i,
            }
        )
        rid = f"run{i}"
        pq.write_table(t, runs / f"{rid}.flows.parquet")
        labels = {"scheme": scheme, "trace": "const:24", "delay_ms": delay, "buffer_packets": 250, "flows": 1}
        series.append((t, {"run_id": rid, **labels, "seed": i}))
    concatenations = []
    real = pa.concat_tables
    monkeypatch.setattr(pa, "concat_tables", lambda ts: concatenations.append(len(ts)) or real(ts))
    # each case: the fast way (tables in memory) against the per-run way (read back)
    # the first run's delay an int, the others' floats
    mixed = [
        (t, {**lab, "delay_ms": lab["delay_ms"] * (1.0 if i else 1)}) for i, (t, lab) in enumerate(series)
    ]
    cases = [series, mixed]
    for case in cases:
        fast = runner._timeseries_frame(tmp_path, case)
        slow = runner._timeseries_frame(tmp_path, [(None, lab) for _t, lab in case])
        pd.testing.assert_frame_equal(fast, slow, check_exact=True)
        assert list(fast.columns[:7]) == ["run_id", *runner.TS_LABELS]
        assert fast["in_flight"].tolist() == [0, 1, 2, 1, 2, 3, 4, 5]
        a, b = tmp_path / "a.parquet", tmp_path / "b.parquet"
        fast.to_parquet(a, index=False)
        slow.to_parquet(b, index=False)
        assert a.read_bytes() == b.read_bytes()
    assert concatenations == [3], "the first case at once, the second (int and float delays) run by run"
    assert str(runner._timeseries_frame(tmp_path, cases[1])["delay_ms"].dtype) == "float64"
    assert str(runner._timeseries_frame(tmp_path, cases[0])["delay_ms"].dtype) == "int64"


def test_csv_only_on_request_and_never_stale(tmp_path):
    """Parquet by default, CSV on request: a sweep writes results.csv only with
    csv=True, a later sweep without it removes the old one (it would no longer match), and the
    unchanged-tables shortcut does not skip a sweep whose CSV presence must change."""
    doc = small_doc()
    doc["matrix"] |= {"schemes": ["abc"], "traces": ["const:12"], "seeds": [0]}
    exp = parse_experiment(doc)
    out = tmp_path / "o"
    run_sweep(exp, out, progress=False)
    assert (out / "results.parquet").is_file() and not (out / "results.csv").exists()
    again = run_sweep(exp, out, progress=False, csv=True)
    assert again.ran == 0, "the runs are reused; only the tables are written again"
    csv = pd.read_csv(out / "results.csv")
    pd.testing.assert_frame_equal(
        csv, pd.read_csv(io.StringIO(pd.read_parquet(out / "results.parquet").to_csv(index=False)))
    )
    run_sweep(exp, out, progress=False)
    assert not (out / "results.csv").exists()


def test_schemes_with_identical_scenarios_share_a_run_but_keep_their_rows(tmp_path):
    from accelbrake.experiments.figures import aggregate, run_level

    doc = small_doc()
    doc["matrix"] |= {"schemes": ["abc", "abc2"], "traces": ["const:12"], "seeds": [0]}
    doc["schemes"] = {"abc2": {"scheme": "abc", "label": "ABC again"}}
    out = tmp_path / "o"
    outcome = run_sweep(parse_experiment(doc), out, progress=False)
    res = outcome.results
    assert res is not None and res["run_id"].nunique() == 1 and sorted(res["scheme"]) == ["abc", "abc2"]
    runs = run_level(res)
    assert list(runs["scheme"]) == ["abc", "abc2"]
    agg = aggregate(res)
    assert sorted(set(agg["scheme"])) == ["abc", "abc2"]


def test_stopped_sweep_runs_only_the_missing_runs(tmp_path):
    exp = parse_experiment(small_doc())
    out = tmp_path / "o"
    first = run_sweep(exp, out, executor=LocalExecutor(2), progress=False, limit=3)
    assert (first.ran, first.skipped, first.complete) == (3, 0, False)
    assert not (out / "results.parquet").exists()
    done = {p.name: p.stat().st_mtime_ns for p in (out / "runs").glob("*.json")}
    assert len(done) == 3
    second = run_sweep(exp, out, executor=LocalExecutor(2), progress=False)
    assert (second.ran, second.skipped, second.complete) == (5, 3, True)
    assert not set(second.executed) & set(first.executed)
    assert {p.name: p.stat().st_mtime_ns for p in (out / "runs").glob("*.json") if p.name in done} == done
    # The resumed tables equal those of an uninterrupted sweep.
    whole = run_sweep(exp, tmp_path / "whole", progress=False)
    assert whole.ran == 8
    pd.testing.assert_frame_equal(
        *(pd.read_parquet(d / "results.parquet") for d in (out, tmp_path / "whole"))
    )
    third = run_sweep(exp, out, progress=False)
    assert (third.ran, third.skipped) == (0, 8)


def test_damaged_run_file_is_run_again_and_leftovers_are_removed(tmp_path):
    from accelbrake._io import TEMP_PREFIX

    doc = small_doc()
    doc["matrix"] |= {"schemes": ["abc"], "traces": ["const:12"], "seeds": [0, 1]}
    exp = parse_experiment(doc)
    out = tmp_path / "o"
    first = run_sweep(exp, out, progress=False)
    assert first.ran == 2
    # A finished-run marker emptied by a crash of the machine, and a killed sweep's temp file.
    damaged = out / "runs" / f"{first.executed[0]}.json"
    damaged.write_text("", encoding="utf-8")
    leftover = out / "runs" / f"{TEMP_PREFIX}x.json"
    leftover.write_text("{", encoding="utf-8")
    second = run_sweep(exp, out, progress=False)
    assert (second.ran, second.skipped) == (1, 1) and second.executed == [first.executed[0]]
    assert json.loads(damaged.read_text(encoding="utf-8"))["run_id"] == first.executed[0]
    assert not leftover.exists()


@pytest.mark.parametrize(
    "damage",
    ["flows parquet missing", "hops parquet cut short", "empty document", "another run's document"],
)
def test_resume_verifies_each_stored_run_and_redoes_a_damaged_one(tmp_path, damage):
    """Issue: a run whose JSON exists but whose Parquet is missing failed with a bare path and was
    never redone; a ``{}`` run file gave a KeyError traceback."""
    doc = small_doc()
    doc["matrix"] |= {"schemes": ["cubic"], "traces": ["const:12"], "seeds": [0, 1]}
    exp = parse_experiment(doc)
    out = tmp_path / "o"
    first = run_sweep(exp, out, progress=False)
    rid, other = first.executed
    runs = out / "runs"
    if damage == "flows parquet missing":
        (runs / f"{rid}.flows.parquet").unlink()
    elif damage == "hops parquet cut short":
        p = runs / f"{rid}.hops.parquet"
        p.write_bytes(p.read_bytes()[:-20])
    elif damage == "empty document":
        (runs / f"{rid}.json").write_text("{}", encoding="utf-8")
    else:
        (runs / f"{rid}.json").write_text((runs / f"{other}.json").read_text())
    second = run_sweep(exp, out, progress=False)
    assert (second.ran, second.skipped, second.executed) == (1, 1, [rid])
    assert second.complete
    pd.testing.assert_frame_equal(pd.read_parquet(out / "results.parquet"), first.results)


def test_table_writes_are_all_or_nothing(tmp_path, monkeypatch):
    """Issue: a sweep that failed while writing tables left tables from two different states."""
    from accelbrake.experiments import runner

    doc = small_doc()
    doc["matrix"] |= {"schemes": ["cubic"], "traces": ["const:12"], "seeds": [0]}
    out = tmp_path / "o"
    run_sweep(parse_experiment(doc), out, progress=False)
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    # A second matrix into the same folder whose table writing fails half-way (a full disk).
    doc["matrix"]["seeds"] = [0, 1]
    real = pd.DataFrame.to_parquet
    calls = []

    def failing(self, path, *a, **k):
        calls.append(path)
        if len(calls) == 2:  # results.parquet written, timeseries.parquet fails
            raise OSError(28, "No space left on device")
        return real(self, path, *a, **k)

    monkeypatch.setattr(pd.DataFrame, "to_parquet", failing)
    monkeypatch.setattr(runner, "_write_run", _no_parquet_write_run(runner._write_run, real))
    with pytest.raises(OSError, match="No space left"):
        run_sweep(parse_experiment(doc), out, progress=False)
    after = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    assert after == before, "every table is the previous sweep's, byte for byte"
    assert not [p for p in out.iterdir() if p.name.startswith(".accelbrake-tmp")]


def _no_parquet_write_run(write_run, real_to_parquet):
    """``_write_run`` with the real ``to_parquet`` (the failure is for the tables only)."""

    def wrapped(*a, **k):
        saved = pd.DataFrame.to_parquet
        pd.DataFrame.to_parquet = real_to_parquet
        try:
            return write_run(*a, **k)
        finally:
            pd.DataFrame.to_parquet = saved

    return wrapped


def test_a_second_sweep_on_a_locked_folder_fails_clearly(tmp_path):
    fcntl = pytest.importorskip("fcntl")
    from accelbrake.experiments.runner import LOCK_NAME

    exp = parse_experiment(small_doc())
    out = tmp_path / "o"
    out.mkdir()
    with open(out / LOCK_NAME, "w") as held:  # another sweep holding the lock
        fcntl.flock(held, fcntl.LOCK_EX)
        with pytest.raises(ExperimentError, match="another sweep is writing to this folder"):
            run_sweep(exp, out, progress=False)
    assert not (out / "runs").exists(), "nothing ran, nothing was written"
    assert run_sweep(exp, out, progress=False, limit=1).ran == 1  # lock released: runs


def test_killed_sweep_resumes(tmp_path):
    f = write_toml(
        tmp_path / "e.toml",
        '[matrix]\nschemes = ["cubic", "abc"]\ntraces = ["const:48", "const:24", "const:12"]\nseeds = 2\n'
        "[run]\nduration_s = 40\n",
    )
    out = tmp_path / "out"
    env = os.environ.copy()
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(PACKAGE_PARENT), env.get("PYTHONPATH", "")) if p)
    cmd = [
        sys.executable,
        "-m",
        "accelbrake.cli",
        "sweep",
        str(f),
        "--out",
        str(out),
        "--jobs",
        "1",
        "--no-report",
        "--no-progress",
    ]
    proc = subprocess.Popen(
        cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    try:
        deadline = time.monotonic() + 120
        while len(_finished(out)) < 2 and time.monotonic() < deadline:
            if proc.poll() is not None:
                break
            time.sleep(0.02)
        os.killpg(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    finished = len(_finished(out))
    assert 2 <= finished < 12, f"the sweep ended before it could be killed ({finished} runs)"
    assert not (out / "results.parquet").exists()
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert r.returncode == 0, r.stderr
    m = re.search(r"(\d+) runs now, (\d+) already done, 0 missing", r.stderr)
    assert m, r.stderr
    assert (int(m.group(1)), int(m.group(2))) == (12 - finished, finished)
    assert len(pd.read_parquet(out / "results.parquet")) == 12
    assert not list((out / "runs").glob(".accelbrake-tmp-*"))


def test_failed_run_reports_the_point_and_keeps_finished_runs(tmp_path):
    exp = parse_experiment(small_doc())
    exp2 = parse_experiment(small_doc())
    out = tmp_path / "o"
    run_sweep(exp, out, progress=False, limit=2)
    # Same matrix: nothing left to fail, the finished runs stay.
    assert run_sweep(exp2, out, progress=False).skipped == 2


# --- report -----------------------------------------------------------------------------------


class _Strict(html.parser.HTMLParser):
    """Checks that every non-void element is closed in order, and collects ids and images."""

    VOID = {"meta", "img", "br", "hr", "link", "input", "source", "wbr"}

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[str] = []
        self.errors: list[str] = []
        self.images: list[str] = []
        self.tables = 0
        self.ids: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a:
            self.ids.append(a["id"])
        if tag == "img":
            self.images.append(a.get("src", ""))
        if tag == "table":
            self.tables += 1
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        if not self.stack or self.stack[-1] != tag:
            self.errors.append(f"</{tag}> closes {self.stack[-1:]}")
        else:
            self.stack.pop()


@pytest.fixture(scope="module")
def report_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    doc = small_doc()
    doc["matrix"]["flows"] = [1, 2]
    run_sweep(parse_experiment(doc), out, progress=False)
    build_report(out, max_timeseries=4)
    return out


def test_run_plots_drawn_during_the_sweep_equal_those_the_report_draws_after(tmp_path):
    """The report's run plots are drawn while the sweep runs (EarlyPlots); the plots and
    the plot cache must be those the report draws on its own afterwards, byte for byte."""
    import shutil

    from accelbrake.experiments.report import EarlyPlots

    doc = small_doc()
    doc["matrix"]["flows"] = [1, 2]
    exp = parse_experiment(doc)
    early_dir, plain_dir = tmp_path / "early", tmp_path / "plain"
    early = EarlyPlots.for_sweep(exp, early_dir, jobs=2, svg=False, max_timeseries=4)
    seen = []

    def on_run(rid, run_doc):
        seen.append(rid)
        early.on_run(rid, run_doc)

    finishing = []
    real_finish = early.finish

    def finish(todo, keep):
        finishing.append([a[0] for _fn, a in todo])
        return real_finish(todo, keep)

    early.finish = finish
    try:
        run_sweep(
            exp,
            early_dir,
            executor=LocalExecutor(2),
            progress=False,
            on_run=on_run,
            on_results=lambda results: early.on_results(results, None),
        )
        started = {k for k, v in early.started.items() if v[1] is not None}
        assert len(seen) == 16 and len([k for k in started if k.startswith("run-")]) == 4
        # the summary plots too, started from the results table before the tables were written
        assert started - {k for k in started if k.startswith("run-")} == {
            "tradeoff",
            "per-trace",
            "delay-cdf",
            "fairness",
        }
        build_report(early_dir, max_timeseries=4, early=early)
        assert finishing == [[]], "the report drew nothing again: the early plots' keys were its own"
    finally:
        early.close()
    shutil.copytree(early_dir, plain_dir)
    shutil.rmtree(plain_dir / "plots")
    build_report(plain_dir, max_timeseries=4)
    names = sorted(p.name for p in (early_dir / "plots").iterdir())
    assert names == sorted(p.name for p in (plain_dir / "plots").iterdir())
    assert len([n for n in names if n.startswith("run-")]) == 4
    for n in names:
        assert (early_dir / "plots" / n).read_bytes() == (plain_dir / "plots" / n).read_bytes(), n


def test_report_is_valid_html_with_every_plot_and_table(report_dir):
    import html5lib

    text = (report_dir / "report.html").read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>")
    html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(text)  # raises on a parse error
    p = _Strict()
    p.feed(text)
    p.close()
    assert not p.errors and p.stack == [], (p.errors, p.stack)
    pngs = sorted((report_dir / "plots").glob("*.png"))
    assert not list((report_dir / "plots").glob("*.svg")), "SVGs only with svg=True (--svg)"
    stems = {x.stem for x in pngs}
    assert {"tradeoff", "per-trace", "delay-cdf", "fairness"} <= stems
    assert len([s for s in stems if s.startswith("run-")]) == 4
    # Per-run plots are named by scheme, trace and seed (and the run id's start).
    assert "run-abc-verizon-lte-short-up-seed0-" in " ".join(sorted(stems))
    assert len(p.images) == len(pngs)
    import base64

    embedded = {
        base64.b64decode(src.split(",", 1)[1]) for src in p.images if src.startswith("data:image/png;base64,")
    }
    assert embedded == {x.read_bytes() for x in pngs}
    assert {"per-scheme", "per-point"} <= set(p.ids)
    assert p.tables >= 2
    assert "±" in text and "http" not in text.replace("http-equiv", "")  # self-contained


def test_report_again_redraws_nothing_and_svg_adds_svgs(tmp_path):
    out = tmp_path / "o"
    run_sweep(parse_experiment(small_doc()), out, progress=False)
    build_report(out, max_timeseries=2)
    plots = out / "plots"
    first = {p.name: p.stat().st_mtime_ns for p in plots.glob("*.png")}
    assert len(first) >= 5
    tables = {
        n: (out / n).stat().st_mtime_ns for n in ("results.parquet", "timeseries.parquet", "metadata.json")
    }
    # A resumed sweep (nothing to run) keeps its tables, and the report keeps its plots.
    assert run_sweep(parse_experiment(small_doc()), out, progress=False).ran == 0
    assert {n: (out / n).stat().st_mtime_ns for n in tables} == tables
    build_report(out, max_timeseries=2)
    assert {p.name: p.stat().st_mtime_ns for p in plots.glob("*.png")} == first
    build_report(out, max_timeseries=2, svg=True)
    assert sorted(p.stem for p in plots.glob("*.svg")) == sorted(p.removesuffix(".png") for p in first)
    assert "SVG: plots/tradeoff.svg" in (out / "report.html").read_text(encoding="utf-8")
    # A changed matrix writes the tables again.
    doc = small_doc()
    doc["matrix"]["seeds"] = [0]
    run_sweep(parse_experiment(doc), out, progress=False)
    assert (out / "results.parquet").stat().st_mtime_ns != tables["results.parquet"]


def test_report_command(run_cli, report_dir, tmp_path):
    dest = tmp_path / "r.html"
    r = run_cli("report", str(report_dir), "--out", str(dest), "--max-timeseries", "1")
    assert r.returncode == 0, r.stderr
    assert dest.read_text(encoding="utf-8").count("<img ") == 4 + 1
    r = run_cli("report", str(tmp_path))
    assert r.returncode == 2 and "not a finished sweep" in r.stderr


# --- reproduce --------------------------------------------------------------------------------


def test_reproduce_quick_smoke_prints_value_published_ratio(run_cli, tmp_path):
    r = run_cli(
        "reproduce",
        "abc-table",
        "--quick",
        "--out",
        str(tmp_path),
        "--set",
        "run.duration_s=5",
        "--set",
        "matrix.seeds=1",
        "--no-progress",
        timeout=300,
    )
    assert r.returncode == 0, r.stderr
    out = tmp_path / "abc-table-quick"
    for word in ("ours", "published", "ratio", "XCP", "Sprout", "Cubic+CoDel", "norm. utilisation"):
        assert word in r.stdout, word
    comp = pd.read_csv(out / "comparison.csv")
    assert {"scheme", "metric", "ours", "published", "ratio", "verdict", "tolerance"} <= set(comp.columns)
    assert "ok" not in set(comp["verdict"])
    assert r.stdout.rstrip().splitlines()[-1].startswith("abc-table: ")
    assert " reproduced" in r.stdout.rstrip().splitlines()[-1]
    abc = comp[(comp["scheme"] == "ABC") & (comp["metric"] == "utilisation")].iloc[0]
    assert abc["published"] == 0.78 and abc["ratio"] == pytest.approx(abc["ours"] / 0.78)
    # Every scheme of the paper's table runs here: each row has our number and a verdict.
    for scheme in ("XCP", "PCC-Vivace", "Sprout", "Verus"):
        assert comp.loc[comp["scheme"] == scheme, "ours"].notna().all(), scheme
    assert "not implemented" not in set(comp["verdict"])
    text = (out / "report.html").read_text(encoding="utf-8")
    assert 'id="comparison-abc-table"' in text
    assert "reproduced" in text and "verdict" in text and "shared/" not in text


def test_reproduce_unavailable_and_unknown_ids(run_cli):
    r = run_cli("reproduce", "abc-wifi")
    assert r.returncode == 2 and "not available yet" in r.stderr and "Wi-Fi" in r.stderr
    r = run_cli("reproduce", "abc-tabel")
    assert r.returncode == 2 and "did you mean 'abc-table'" in r.stderr
    r = run_cli("reproduce", "--list")
    assert r.returncode == 0 and all(k in r.stdout for k in P.reproductions())


@pytest.mark.parametrize("rid", sorted(P.reproductions()))
def test_every_reproduction_runs_and_compares(rid, tmp_path):
    rep = P.reproductions()[rid]
    traces = [str(TRACE_UP), str(TRACE_DOWN)] if rid in ("abc-table", "abc-fig8") else None
    comp, report, outcome = R.run_reproduction(
        rep,
        tmp_path,
        quick=True,
        traces=traces,
        overrides=["run.duration_s=6", "matrix.seeds=1"],
        progress=False,
        report=False,
        echo=lambda _m: None,
    )
    assert report is None and outcome.complete
    assert comp["rows"], rid
    verdicts = ("reproduced", "differs", "direction holds", "direction fails", "not implemented")
    for row in comp["rows"]:
        assert row["verdict"] in (*verdicts, "not compared", "no data"), row
        assert row["verdict"] != "ok" and "status" not in row
        if row["verdict"] == "not implemented":
            assert row["ours"] is None and row["our_scheme"] is None
        if row["published"] not in (None, 0) and isinstance(row["ours"], float):
            assert row["ratio"] == pytest.approx(row["ours"] / row["published"])
        if row["kind"] == "number" and row["verdict"] in ("reproduced", "differs"):
            assert row["tolerance_text"], row
    assert not [r for r in comp["rows"] if r["verdict"] == "no data"], comp["rows"]
    assert comp["summary"] == R.summarise(comp["rows"]) and " of " in comp["summary"]
    assert json.loads((tmp_path / "comparison.json").read_text())["reproductions"][0]["id"] == rid


def test_jain_over_time_numbers_counted_flows_like_the_core():
    from accelbrake.experiments.figures import jain_over_time

    # Entry 0: one flow from 0 s; entry 1: two flows (ids 1 and 2) from 10 s to 20 s.
    scenario = {
        "duration_ms": 30000,
        "flows": [{"start_ms": 0}, {"count": 2, "start_ms": 10000, "stop_ms": 20000}],
    }
    rows = []
    for t in (5.0, 15.0, 25.0):
        for flow, rate in ((0, 6.0), (1, 3.0 if t == 15.0 else 0.0), (2, 3.0 if t == 15.0 else 0.0)):
            rows.append({"t_s": t, "flow": flow, "throughput_mbps": rate})
    t, jain = jain_over_time(pd.DataFrame(rows), scenario)
    assert list(t) == [5.0, 15.0, 25.0]
    # Only flow 0 at 5 s and 25 s (NaN); all three at 15 s: (12²) / (3 · 54) = 0.889.
    assert pd.isna(jain[0]) and pd.isna(jain[2])
    assert abs(jain[1] - 144 / 162) < 1e-12


def test_report_draws_time_series_of_every_scheme_at_whole_points():
    """The report's time series show every scheme on the same traces (the first seed of each), as
    many whole points as the plot limit allows, instead of the first N runs in matrix order (which
    showed three traces for some schemes and two for others)."""
    import pandas as pd
    from accelbrake.experiments.report import timeseries_runs

    schemes = [f"s{i}" for i in range(9)]
    traces = [f"t{j}" for j in range(5)]
    rows = [
        {
            "scheme": s,
            "trace": t,
            "delay_ms": 50,
            "buffer_packets": 250,
            "flows": 1,
            "start_interval_s": 0,
            "flow_rtts_ms": "",
            "seed": seed,
            "run_id": f"{s}-{t}-{seed}",
        }
        for s in schemes
        for t in traces
        for seed in (3, 1, 2)
    ]
    runs = pd.DataFrame(rows)
    chosen = timeseries_runs(runs, 24)
    assert len(chosen) == 18
    assert set(chosen["trace"]) == {"t0", "t1"}
    for t in ("t0", "t1"):
        assert sorted(chosen.loc[chosen["trace"] == t, "scheme"]) == schemes
    assert set(chosen["seed"]) == {1}  # the first seed, not the first row
    # Fewer plots than schemes: the first point's first schemes; none when the limit is 0.
    assert list(timeseries_runs(runs, 4)["scheme"]) == schemes[:4]
    assert timeseries_runs(runs, 0).empty


def test_report_cli_default_matches_the_report_module():
    import argparse

    from accelbrake.cli import report as cli_report
    from accelbrake.experiments.report import MAX_TIMESERIES

    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers()
    cli_report.register(sub, argparse.HelpFormatter)
    defaults = [a.default for p in sub.choices.values() for a in p._actions if a.dest == "max_timeseries"]
    assert defaults == [MAX_TIMESERIES]


def test_run_time_series_draw_at_most_max_flow_lines_the_largest_flows(tmp_path, monkeypatch):
    """A run of thousands of short flows (Fig. 13) draws the flows that sent most, not one line per
    flow (which took minutes and could not be read)."""
    import numpy as np
    import pandas as pd
    from accelbrake.experiments import figures as F

    n, bins = F.MAX_FLOW_LINES + 16, 10
    t = np.arange(bins) * 0.1
    flows = pd.DataFrame(
        {
            "flow": np.repeat(np.arange(n), bins),
            "t_s": np.tile(t, n),
            "egress_mbps": np.repeat(np.arange(n, dtype=float), bins),  # flow i sends i Mbit/s
            "delay_mean_ms": 100.0,
            "delay_p95_ms": 120.0,
            "cwnd": 10.0,
        }
    )
    hops = pd.DataFrame({"hop": 0, "t_s": t, "capacity_mbps": 96.0, "queue_packets": 5.0})
    drawn = {}

    def fake_save(fig, stem, dpi=110):
        drawn["fig"] = fig
        return []

    monkeypatch.setattr(F, "save", fake_save)
    F.plot_timeseries(
        flows, hops, {"duration_ms": 1000.0, "flows": [{"count": n}]}, tmp_path / "x", title="t", colour="C0"
    )
    ax_t = drawn["fig"].axes[0]
    widths = sorted({float(line.get_ydata()[0]) for line in ax_t.get_lines()})
    assert widths == [float(i) for i in range(n - F.MAX_FLOW_LINES, n)]
    assert any(f"the {F.MAX_FLOW_LINES} flows that sent most, of {n}" in tx.get_text() for tx in ax_t.texts)


def test_direct_reproductions_say_honestly_what_they_reused(run_cli, tmp_path):
    """Direct reproductions always printed "N now, 0 reused", even those that keep no run
    files (Figs. 5, 6, 10) and those that read their finished runs back (abe-fairness)."""
    args = ["--quick", "--set", "run.duration_s=3", "--out", str(tmp_path), "--no-progress"]
    r = run_cli("reproduce", "abc-fig5", "abe-fairness", *args)
    assert r.returncode == 0, r.stderr
    assert "abc-fig5: 8 runs (all run now: this reproduction keeps no run files to reuse)" in r.stdout
    assert "abe-fairness: 40 runs (40 now, 0 reused)" in r.stdout
    again = run_cli("reproduce", "abe-fairness", *args)
    assert again.returncode == 0, again.stderr
    assert "abe-fairness: 40 runs (0 now, 40 reused)" in again.stdout


def test_run_documents_of_large_summaries_are_written_on_one_line(tmp_path, monkeypatch):
    """A summary of thousands of flows (abc-fig13: 3-11 MB) is written with the C encoder, on one line;
    the tables are the same either way."""
    from accelbrake.experiments import runner

    doc = small_doc()
    doc["matrix"] |= {"schemes": ["cubic"], "traces": ["const:12"], "seeds": [0]}
    exp = parse_experiment(doc)
    indented = run_sweep(exp, tmp_path / "a", progress=False)
    monkeypatch.setattr(runner, "COMPACT_SUMMARY_CHARS", 10)
    compact = run_sweep(exp, tmp_path / "b", progress=False)
    (a,) = _finished(tmp_path / "a")
    (b,) = _finished(tmp_path / "b")
    assert a.read_text().count("\n") > 100 and b.read_text().count("\n") == 1
    strip = ("metadata",)
    ja, jb = json.loads(a.read_text()), json.loads(b.read_text())
    assert {k: v for k, v in ja.items() if k not in strip} == {k: v for k, v in jb.items() if k not in strip}
    pd.testing.assert_frame_equal(indented.results, compact.results, check_exact=True)
    again = run_sweep(exp, tmp_path / "b", progress=False)
    assert again.skipped == 1 and again.ran == 0, "a one-line run file is a finished run"


def test_finished_run_index_stands_for_parsing_and_is_checked(tmp_path, monkeypatch):
    """Each finished run has a small index (runs/<id>.done: the document's size and
    SHA-256, its warnings and delay quantiles), so resuming neither parses every run document nor
    trusts an index whose document changed (then the document is parsed and checked as before)."""
    from accelbrake.experiments import runner

    doc = small_doc()
    doc["matrix"] |= {"schemes": ["cubic"], "traces": ["const:12"], "seeds": [0, 1]}
    exp = parse_experiment(doc)
    out = tmp_path / "o"
    first = run_sweep(exp, out, progress=False)
    rid, other = first.executed
    runs = out / "runs"
    index = json.loads((runs / f"{rid}{runner.FACTS_SUFFIX}").read_text(encoding="utf-8"))
    stored = json.loads((runs / f"{rid}.json").read_text(encoding="utf-8"))
    assert index["run_id"] == rid and index["json_bytes"] == (runs / f"{rid}.json").stat().st_size
    assert index["delay_quantiles_ms"] == stored["delay_quantiles_ms"]
    assert index["warnings"] == (stored["summary"].get("warnings") or [])
    runner.RUN_FACTS.clear()
    for key in ("warnings", "delay_quantiles_ms"):  # from the index, as from the document
        assert runner.run_fact(out, rid, key) == (index[key])
    # Resuming parses no run document while every index matches.
    real = runner.loads
    parsed = []
    monkeypatch.setattr(
        runner, "loads", lambda b: parsed.append(b if isinstance(b, bytes) else b.encode()) or real(b)
    )
    again = run_sweep(exp, out, progress=False)
    assert (again.ran, again.skipped) == (0, 2)
    assert len(parsed) == 2 and not [b for b in parsed if b'"summary"' in b], "only the indexes were parsed"
    # A document replaced by another run's (same size or not): the index no longer matches, the
    # document is parsed, found wrong, and the run is redone.
    (runs / f"{rid}.json").write_bytes((runs / f"{other}.json").read_bytes())
    assert runner._read_facts(out, rid, verify=True) is None
    third = run_sweep(exp, out, progress=False)
    assert (third.ran, third.executed) == (1, [rid])
    # A folder from before the index: the documents are parsed, the runs are kept.
    for p in runs.glob(f"*{runner.FACTS_SUFFIX}"):
        p.unlink()
    fourth = run_sweep(exp, out, progress=False)
    assert (fourth.ran, fourth.skipped) == (0, 2)


def test_each_scenario_and_run_id_is_built_once(monkeypatch):
    """The check, the sweep's plan and the early plots share each run's scenario and run id
    (abc-fig13's have ~4 750 flows: building and hashing one cost as much as simulating it)."""
    from accelbrake.experiments import runner
    from accelbrake.experiments.spec import Experiment

    exp = parse_experiment(small_doc())
    built, hashed = [], []
    real_sc, real_id = Experiment.scenario, runner.run_id
    monkeypatch.setattr(Experiment, "scenario", lambda self, p: built.append(p) or real_sc(self, p))
    monkeypatch.setattr(runner, "run_id", lambda sc, kind="point": hashed.append(1) or real_id(sc, kind))
    points = list(exp.points())
    first = [runner.planned(exp, p) for p in points]
    second = [runner.planned(exp, p) for p in points]
    assert not built, "built once, by the check"
    assert len(hashed) == len(points)
    assert [r for _s, r in first] == [r for _s, r in second] == [real_id(real_sc(exp, p)) for p in points]
    copy = dataclasses.replace(exp, name="other")  # a changed experiment starts afresh
    runner.planned(copy, points[0])
    assert len(built) == 1


@pytest.mark.parametrize("rid", ["abe-figures", "abe-fairness", "abe-fig8", "abe-convergence"])
def test_direct_reproductions_run_on_the_given_executor(rid, tmp_path, monkeypatch):
    """`reproduce ID --jobs N` (and `reproduce all`'s per-driver pool) reaches the reproductions
    that run their scenarios themselves: they used to build a default pool of every CPU."""
    from accelbrake.experiments import runner

    class Stop(Exception):
        pass

    seen = []

    def spy(tasks, out, *, executor=None, **kw):
        seen.append(executor)
        raise Stop

    monkeypatch.setattr(runner, "run_scenarios", spy)
    mine = LocalExecutor(1)
    with pytest.raises(Stop):
        R.run_reproduction(P.reproductions()[rid], tmp_path, quick=True, executor=mine, progress=False)
    assert seen == [mine]
