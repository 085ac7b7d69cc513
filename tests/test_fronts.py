"""`compare` and the ABE sweep as front ends on the experiment runner: resumable into an output
folder, the same results from every executor, and nothing written without a folder."""

from __future__ import annotations

import json
import re
from pathlib import Path

import accelbrake
import pandas as pd
import pytest
from accelbrake import cli
from accelbrake.experiments.executors import LocalExecutor
from accelbrake.experiments.runner import Task, run_id, run_scenarios
from accelbrake.papers.abe import sweep as abe
from conftest import TRACE_UP

PACKAGE = Path(accelbrake.__file__).resolve().parent

COMPARE = ("compare", "--schemes", "abc,cubic", "--traces", str(TRACE_UP), "const:12", "--duration", "3")


def run_main(capsys, *args):
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def _mtimes(folder: Path) -> dict[str, int]:
    return {p.name: p.stat().st_mtime_ns for p in sorted((folder / "runs").glob("*.json"))}


def test_compare_into_out_twice_skips_the_finished_runs(capsys, tmp_path):
    out = tmp_path / "cmp"
    code, first, err = run_main(capsys, *COMPARE, "--jobs", "2", "--no-progress", "--out", str(out))
    assert code == 0, err
    assert re.search(r"compare: 4 runs \(0 already done in .*\), running 4 on local process pool", err), err
    runs = _mtimes(out)
    assert len(runs) == 4
    csv = (out / "compare.csv").read_bytes()
    mean = (out / "compare_mean.csv").read_bytes()
    doc = json.loads((out / "compare.json").read_text())

    code, second, err = run_main(capsys, *COMPARE, "--jobs", "2", "--no-progress", "--out", str(out))
    assert code == 0, err
    assert re.search(r"compare: 4 runs \(4 already done in .*\), running 0 on", err), err
    assert _mtimes(out) == runs  # read back, not run again
    assert second == first
    assert (out / "compare.csv").read_bytes() == csv
    assert (out / "compare_mean.csv").read_bytes() == mean
    again = json.loads((out / "compare.json").read_text())
    assert again["rows"] == doc["rows"] and again["mean_over_traces"] == doc["mean_over_traces"]
    assert again["metadata"]["scenarios"] == doc["metadata"]["scenarios"]

    # A changed scenario is a new run; the others are still reused.
    code, _, err = run_main(
        capsys, *COMPARE, "--jobs", "1", "--no-progress", "--out", str(out), "--set", "abc.delta=100ms"
    )
    assert code == 0, err
    assert "4 runs (2 already done" in err and "running 2 on" in err
    assert len(_mtimes(out)) == 6


def test_compare_without_out_writes_nothing_and_matches_out(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, plain, err = run_main(capsys, *COMPARE, "--jobs", "2", "--no-progress", "--json")
    assert code == 0, err
    assert list(tmp_path.iterdir()) == []
    assert "already done" not in err
    code, with_out, err = run_main(
        capsys, *COMPARE, "--jobs", "2", "--no-progress", "--json", "--out", str(tmp_path / "o")
    )
    assert code == 0, err
    assert with_out == plain
    # Read back from the run files: still the same output.
    code, resumed, err = run_main(
        capsys, *COMPARE, "--jobs", "1", "--no-progress", "--json", "--out", str(tmp_path / "o")
    )
    assert code == 0, err
    assert "running 0 on" in err and resumed == plain


def test_compare_on_ray_gives_the_local_table(capsys, tmp_path):
    ray = pytest.importorskip("ray")
    code, local, err = run_main(capsys, *COMPARE, "--jobs", "2", "--no-progress", "--json")
    assert code == 0, err
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    try:
        code, on_ray, err = run_main(
            capsys, *COMPARE, "--executor", "ray", "--no-progress", "--json", "--out", str(tmp_path / "r")
        )
        assert code == 0, err
        assert "on Ray (local Ray instance)" in err
        code, table, err = run_main(capsys, *COMPARE, "--executor", "ray", "--no-progress")
        assert code == 0, err
    finally:
        ray.shutdown()
    assert on_ray == local
    code, local_table, err = run_main(capsys, *COMPARE, "--jobs", "1", "--no-progress")
    assert code == 0, err
    assert table == local_table
    docs = [json.loads(p.read_text()) for p in (tmp_path / "r" / "runs").glob("*.json")]
    assert len(docs) == 4 and {d["metadata"]["executor"] for d in docs} == {"ray"}


def test_compare_address_needs_ray_executor(capsys):
    code, _, err = run_main(capsys, *COMPARE, "--address", "auto", "--no-progress")
    assert code != 0
    assert "--address is for --executor ray" in err


def _small_abe(**kw):
    return abe.run_sweep(
        duration_s=4, betas=(0.5, 0.8), rtts_ms=(100,), aqms=("codel",), progress=False, **kw
    )


def test_abe_sweep_resumes_in_its_folder_with_identical_table(tmp_path):
    plain, scenarios = _small_abe(jobs=2)
    assert len(plain) == 4 and not list(tmp_path.iterdir())
    first, sc1 = _small_abe(jobs=2, out_dir=tmp_path)
    runs = _mtimes(tmp_path)
    assert len(runs) == 4
    second, sc2 = _small_abe(executor=LocalExecutor(1), out_dir=tmp_path)
    assert _mtimes(tmp_path) == runs
    pd.testing.assert_frame_equal(first, plain, check_exact=True)
    pd.testing.assert_frame_equal(second, plain, check_exact=True)
    assert sc1 == sc2 == scenarios
    doc = json.loads(next((tmp_path / "runs").glob("*.json")).read_text())
    assert doc["kind"] == "hop_quantiles"
    assert set(doc["labels"]) == {"scheme", "aqm", "rtt_ms", "beta_ecn"}
    assert set(doc["result"]) == {"summary", "hop_delay_ms"}


def test_run_scenarios_counts_dedups_and_keeps_kinds_apart(tmp_path):
    sc = accelbrake.build_scenario("cubic", trace=12.0, duration_s=2)
    tasks = [Task("a", sc, "a"), Task("b", sc, "b")]  # the same scenario twice: one run
    first = run_scenarios(tasks, tmp_path, executor=LocalExecutor(1), progress=False)
    assert (first.total, first.skipped, first.ran) == (1, 0, 1)
    assert first.results["a"] == first.results["b"] == accelbrake.simulate(sc).summary
    again = run_scenarios(tasks, tmp_path, executor=LocalExecutor(1), progress=False)
    assert (again.total, again.skipped, again.ran) == (1, 1, 0)
    assert again.results == first.results
    # Another kind of result over the same scenario is another run (another file).
    sc_p = accelbrake.build_scenario("cubic", trace=12.0, duration_s=2, record_packets=True)
    other = run_scenarios([Task("a", sc_p, "a")], tmp_path, kind="hop_quantiles", progress=False)
    assert (other.skipped, other.ran) == (0, 1)
    assert run_id(sc_p, "hop_quantiles") != run_id(sc_p, "summary") != run_id(sc_p)
    with pytest.raises(ValueError, match="kind"):
        run_scenarios(tasks, kind="point")


def test_only_the_executors_drive_the_pool():
    """``_pool.run_tasks`` is called by the runner's executors for simulations, and by
    ``reproduce all`` for its driver processes (two reproductions at a time, each running its sweep
    on an executor), and nothing else."""
    callers = sorted(
        str(p.relative_to(PACKAGE))
        for p in PACKAGE.rglob("*.py")
        if p.name != "_pool.py" and "run_tasks(" in p.read_text(encoding="utf-8")
    )
    assert callers == ["experiments/executors.py", "papers/index.py"]


def test_abe_sweep_cli_rerun_skips_every_run(capsys, tmp_path):
    args = ("abe-sweep", "--duration", "2", "--betas", "0.8", "--jobs", "2", "--no-progress")
    code, first, err = run_main(capsys, *args, "--out", str(tmp_path))
    assert code == 0, err
    assert "abe-sweep: 12 runs (0 already done" in err
    runs = _mtimes(tmp_path)
    csv = (tmp_path / "abe.csv").read_bytes()
    code, second, err = run_main(capsys, *args, "--out", str(tmp_path))
    assert code == 0, err
    assert "abe-sweep: 12 runs (12 already done" in err and "running 0 on" in err
    assert _mtimes(tmp_path) == runs and (tmp_path / "abe.csv").read_bytes() == csv
    strip = re.compile(r"\([0-9.]+ s wall\)")
    assert strip.sub("", second) == strip.sub("", first)
