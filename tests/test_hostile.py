"""Hostile and edge inputs: each gets a clear ``accelbrake: error:`` naming what is wrong (exit
status 2), never a traceback, a crash or a silently wrong result."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from accelbrake import load_scenario_file
from accelbrake.errors import ScenarioError

SCRIPT = Path(sys.executable).parent / "accelbrake"


def _one_error(r: subprocess.CompletedProcess[str], *words: str) -> str:
    assert r.returncode == 2, (r.returncode, r.stdout[-2000:], r.stderr[-2000:])
    assert "Traceback" not in r.stderr
    err = r.stderr.strip().splitlines()[-1]
    assert err.startswith("accelbrake: error: "), r.stderr
    for w in words:
        assert w in err, err
    return err


# --- documents ------------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".json", ".toml"])
def test_deeply_nested_scenario_is_refused_naming_the_file(tmp_path, suffix, run_cli):
    depth = 100_000
    if suffix == ".json":
        text = '{"a":' * depth + "1" + "}" * depth
    else:
        text = "a = " + "[" * depth + "]" * depth + "\n"
    path = tmp_path / f"deep{suffix}"
    path.write_text(text)
    with pytest.raises(ScenarioError, match="nested more than"):
        load_scenario_file(path)
    _one_error(run_cli("run", "--scenario", str(path)), str(path), "nested")


def test_deep_experiment_file_is_refused(tmp_path, run_cli):
    path = tmp_path / "deep.toml"
    path.write_text('name = "x"\n[matrix]\nseeds = ' + "[" * 50_000 + "]" * 50_000 + "\n")
    _one_error(run_cli("sweep", str(path), "--check"), str(path), "nested")


def test_json_duplicate_keys_are_refused(tmp_path, run_cli):
    path = tmp_path / "dup.json"
    path.write_text('{"seed": 1, "seed": 2}')
    with pytest.raises(ScenarioError, match="duplicate key 'seed'"):
        load_scenario_file(path)
    _one_error(run_cli("run", "--scenario", str(path)), str(path), "duplicate key")


def test_scenario_that_is_a_directory_says_so(tmp_path, run_cli):
    _one_error(run_cli("run", "--scenario", str(tmp_path)), "a directory")


# --- the process's surroundings ---------------------------------------------------------------


def test_closed_stdout_is_not_a_traceback(tmp_path):
    r = subprocess.run(
        ["sh", "-c", f'exec "{sys.executable}" -m accelbrake.cli run --duration 1 --out out >&-'],
        cwd=tmp_path,
        capture_output=False,
        stderr=subprocess.PIPE,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    # The results went to their files, not into a file that took the closed descriptor's number.
    assert json.loads((tmp_path / "out" / "summary.json").read_text())["duration_s"] == 1.0


def test_import_finds_a_module_in_the_current_directory(tmp_path):
    if not SCRIPT.exists():
        pytest.skip("the accelbrake console script is not installed beside this interpreter")
    (tmp_path / "mycc_here.py").write_text(
        "import accelbrake\n\n\nclass Fixed(accelbrake.Controller):\n    initial_window = 10.0\n\n\n"
        "accelbrake.register_controller('fixed-here', Fixed)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    r = subprocess.run(
        [str(SCRIPT), "--import", "mycc_here", "run", "--scheme", "fixed-here", "--duration", "1", "--json"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["flows"][0]["scheme"] == "fixed-here"


# --- results folders --------------------------------------------------------------------------


@pytest.mark.parametrize("meta", ["[]", '{"experiment": []}', "{", '"x"'])
def test_report_of_a_damaged_folder_names_the_file(tmp_path, run_cli, meta):
    (tmp_path / "metadata.json").write_text(meta)
    (tmp_path / "results.parquet").write_bytes(b"")
    _one_error(run_cli("report", str(tmp_path)), "metadata.json", "damaged")


def test_atomic_write_failure_names_the_file(tmp_path):
    from accelbrake._io import atomic_path

    dest = tmp_path / "table.parquet"
    with pytest.raises(OSError) as e, atomic_path(dest):
        raise OSError(28, "No space left on device")
    assert e.value.filename == str(dest)
    assert not list(tmp_path.iterdir())


# --- silent acceptance ------------------------------------------------------------------------


def test_compare_with_empty_schemes_is_refused(run_cli):
    _one_error(run_cli("compare", "--schemes", "", "--duration", "1"), "--schemes")
    _one_error(run_cli("compare", "--traces", "", "--duration", "1"), "--traces")


def test_traces_on_an_invalid_named_file_exits_2(tmp_path, run_cli):
    bad = tmp_path / "bad.up"
    bad.write_text("garbage\n")
    _one_error(run_cli("traces", str(bad)), "bad.up", "line 1")
    # In a folder's listing it is a note, not an error.
    assert run_cli("traces", str(tmp_path)).returncode == 0


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_traces_on_special_files_says_what_they_are(tmp_path, run_cli):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    _one_error(run_cli("traces", str(fifo)), "FIFO")
    if Path("/dev/zero").exists():
        _one_error(run_cli("traces", "/dev/zero"), "character device")


# --- globs ------------------------------------------------------------------------------------


def test_glob_trace_names_expand_over_the_bundled_traces(tmp_path):
    from accelbrake.scenarios import bundled_trace, bundled_traces_dir, expand_trace_patterns

    ups = sorted(str(f) for f in bundled_traces_dir().glob("*.up"))
    assert len(ups) > 1
    old = os.getcwd()
    os.chdir(tmp_path)
    try:
        assert bundled_trace("*.up") is None  # never one silent pick
        got = expand_trace_patterns(["traces/*.up"])
        assert len(got) == len(ups)
        assert sorted(Path(g).name for g in got) == sorted(Path(u).name for u in ups)
        with pytest.raises(ScenarioError, match="matches no trace"):
            expand_trace_patterns(["traces/*.nothing"])
    finally:
        os.chdir(old)


def test_compare_glob_outside_the_repository_runs_every_match(tmp_path, run_cli):
    r = run_cli(
        "compare", "--schemes", "cubic", "--traces", "traces/Verizon-LTE-*.up", "--duration", "1", "--json",
        cwd=tmp_path,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    traces = {row["trace"] for row in json.loads(r.stdout)["rows"]}
    assert traces and all("*" not in t for t in traces)
    assert any(t.endswith("Verizon-LTE-short.up") for t in traces)


# --- output text ------------------------------------------------------------------------------


def test_compare_heading_prints_whole_buffer_and_seed(run_cli):
    r = run_cli("compare", "--schemes", "cubic", "--traces", "const:12", "--duration", "1")
    assert r.returncode == 0, r.stderr
    assert "buffer 250 packets, seed 0" in r.stdout


# --- seeds ------------------------------------------------------------------------------------


def test_sweep_seeds_are_exact_unsigned_64_bit_integers(tmp_path, run_cli):
    import pandas as pd

    seeds = [2**53, 2**53 + 1, 2**63, 2**64 - 1, 1]
    exp = tmp_path / "seeds.toml"
    exp.write_text(
        f'name = "seeds"\n[matrix]\nschemes = ["cubic"]\ntraces = ["const:12"]\nseeds = {seeds}\n'
        "[run]\nduration_s = 1\n"
    )
    out = tmp_path / "res"
    for attempt in ("first", "rerun"):  # the rerun reads every run back from its files
        r = run_cli("sweep", str(exp), "--out", str(out), "--no-progress", "-j", "1")
        assert r.returncode == 0, (attempt, r.stderr[-3000:])
        assert "Traceback" not in r.stderr
        assert (out / "report.html").is_file()
        for name in ("results", "timeseries"):
            col = pd.read_parquet(out / f"{name}.parquet")["seed"]
            assert str(col.dtype) == "uint64", (attempt, name)
            assert sorted(set(col.tolist())) == sorted(seeds), (attempt, name)


def test_a_quick_reproduction_title_says_how_many_traces_it_ran():
    from accelbrake.experiments.reproduce import quick_title
    from accelbrake.papers import TITLES

    title = TITLES["abc-table"]
    assert "(5 of 8)" in title
    assert quick_title(title, True, 2).endswith("; --quick: 2 of them")
    assert quick_title(title, False, 5) == title
    assert quick_title(TITLES["abc-fig15"], True, 1) == TITLES["abc-fig15"]


def test_a_worker_memory_limit_too_low_to_start_says_so(tmp_path, run_cli):
    exp = tmp_path / "e.toml"
    exp.write_text(
        'name = "e"\n[matrix]\nschemes = ["cubic"]\ntraces = ["const:12"]\n[run]\nduration_s = 1\n'
    )
    r = run_cli("sweep", str(exp), "--out", str(tmp_path / "o"), "--worker-memory-mb", "64", "--no-progress")
    assert r.returncode != 0
    assert "Traceback" not in r.stderr and "IMPORTANT" not in r.stderr and "os error" not in r.stderr
    assert "--worker-memory-mb 64 is too low for a worker" in r.stderr
    assert "give at least" in r.stderr


# --- Gym --------------------------------------------------------------------------------------


def test_gym_refuses_bad_actions_early_results_and_non_finite_rewards():
    pytest.importorskip("gymnasium")
    import gymnasium
    import numpy as np
    from accelbrake import gym as abgym

    env = abgym.CongestionEnv("aurora", trace="const:12", delay_ms=50, episode_s=2.0)
    with pytest.raises(gymnasium.error.ResetNeeded, match="reset"):
        env.result()
    env.reset(seed=1)
    for bad, what in (([], "shape"), (np.zeros(3), r"shape \(3,\)"), (np.zeros((1, 1)), "shape"),
                      (float("nan"), "finite"), ("x", "one number")):  # fmt: skip
        with pytest.raises(ValueError, match=what):
            env.step(bad)
    _, reward, *_ = env.step(np.array([0.5]))
    assert np.isfinite(reward)
    nan_env = abgym.CongestionEnv(
        "aurora", trace="const:12", delay_ms=50, episode_s=2.0, reward=lambda mi, env: float("nan")
    )
    nan_env.reset(seed=1)
    with pytest.raises(ValueError, match="reward: .* returned nan"):
        nan_env.step(0.0)


def test_a_run_that_cannot_fit_under_the_process_memory_limit_is_refused_up_front(tmp_path):
    resource = pytest.importorskip("resource")
    if not Path("/proc/self/limits").exists():
        pytest.skip("reads the limits from /proc (Linux)")

    def limit() -> None:  # `ulimit -v 1500000`
        resource.setrlimit(resource.RLIMIT_AS, (1_500_000 * 1024, 1_500_000 * 1024))

    argv = [sys.executable, "-m", "accelbrake.cli", "run", "--duration", "600", "--trace", "const:100",
            "--scheme", "cubic", "--packets"]  # fmt: skip
    r = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, preexec_fn=limit, timeout=300)
    _one_error(r, "memory_budget_mb", "RLIMIT_AS", "ulimit -v")
    assert r.returncode == 2 and "memory allocation" not in r.stderr


def test_make_test_closes_with_what_ran_and_how_many_passed(tmp_path):
    script = Path(__file__).resolve().parent.parent / "scripts" / "test_summary.py"
    (tmp_path / "rs.log").write_text(
        "test result: ok. 10 passed; 0 failed; 2 ignored; 0 measured\n"
        "test result: ok. 5 passed; 0 failed; 0 ignored; 0 measured\n"
    )
    (tmp_path / "py.log").write_text("....s\n12 passed, 3 skipped in 4.01s\n")
    r = subprocess.run([sys.executable, str(script), str(tmp_path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[-1] == "make test: 27 passed, 0 failed, 5 skipped"
    (tmp_path / "py.log").write_text("F.\n1 failed, 1 passed in 1.0s\n")
    r = subprocess.run([sys.executable, str(script), str(tmp_path)], capture_output=True, text=True)
    assert r.returncode == 1 and r.stdout.splitlines()[-1] == "make test: 16 passed, 1 failed, 2 skipped"
    make = (script.parent.parent / "Makefile").read_text()
    assert "scripts/test_summary.py" in make
