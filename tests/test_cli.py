"""The command line, mostly through `python -m accelbrake.cli` in a subprocess."""

from __future__ import annotations

import json
from pathlib import Path

import accelbrake
import pandas as pd
import pytest
from accelbrake import cli

#: How a time value may be written, as the errors of time parameters say.
TIME_FORM = "(like 50 or 50ms (bare numbers are ms))"

# --- subprocess: the real thing ------------------------------------------------------------


def test_run_writes_outputs_and_prints_the_table(run_cli, tmp_path):
    out = tmp_path / "out"
    png = tmp_path / "x.png"
    r = run_cli(
        "run", "--scheme", "abc", "--duration", "10", "--out", str(out), "--plot", str(png), "--csv"
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    for name in ("summary.json", "metadata.json", "flows_ts.csv", "packets.parquet", "flows_ts.parquet"):
        assert (out / name).stat().st_size > 0, name
    assert png.read_bytes().startswith(b"\x89PNG")
    text = r.stdout
    for word in (
        "abc",
        "Verizon-LTE-short.up",
        "capacity",
        "throughput",
        "utilisation",
        "drops",
        "retransmits",
    ):
        assert word in text, word
    assert "queueing delay" in text and "per-packet delay" in text
    assert "per-packet delay = propagation RTT + queueing delay" in text
    assert "p95 ms" in text and "Mbit/s" in text
    summary = json.loads((out / "summary.json").read_text())
    assert summary["duration_s"] == pytest.approx(10.0)


def test_run_from_another_directory_finds_the_bundled_trace(run_cli, tmp_path):
    r = run_cli("run", "--duration", "5", "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    summary = json.loads(r.stdout)
    assert summary["flows"][0]["scheme"] == "abc"
    assert summary["duration_s"] == pytest.approx(5.0)


def test_bad_set_exits_2_with_one_line(run_cli):
    r = run_cli("run", "--duration", "5", "--set", "abc.detla=100ms")
    assert r.returncode == 2
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("accelbrake: error: ")
    assert "abc.detla" in lines[0] and "did you mean 'abc.delta'" in lines[0]
    assert "Traceback" not in r.stderr


def test_malformed_trace_exits_2_naming_the_line(run_cli, tmp_path):
    bad = tmp_path / "bad.up"
    bad.write_text("1\n2\nx\n")
    r = run_cli("run", "--duration", "5", "--trace", str(bad))
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1
    assert str(bad) in r.stderr and "line 3" in r.stderr
    assert "Traceback" not in r.stderr


def test_compare_two_schemes_one_trace(run_cli, tmp_path):
    out = tmp_path / "cmp"
    r = run_cli(
        "compare", "--schemes", "abc,cubic", "--traces", "traces/Verizon-LTE-short.up",
        "--duration", "10", "--jobs", "2", "--out", str(out), "--set", "abc.delta=100ms",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    lines = r.stdout.splitlines()
    assert any(line.startswith("Verizon-LTE-short.up") and " abc " in line for line in lines)
    assert any(line.startswith("Verizon-LTE-short.up") and " cubic " in line for line in lines)
    assert "mean over 1 trace" in r.stdout
    table = pd.read_csv(out / "compare.csv")
    assert list(table["scheme"]) == ["abc", "cubic"]
    for col in ("utilization_pct", "per_packet_delay_p95_ms", "per_packet_delay_mean_ms"):
        assert table[col].notna().all()
    doc = json.loads((out / "compare.json").read_text())
    assert {r["scheme"] for r in doc["mean_over_traces"]} == {"abc", "cubic"}
    # abc.delta went to the abc run only
    scenarios = doc["metadata"]["scenarios"]
    assert scenarios["abc on traces/Verizon-LTE-short.up"]["hops"][0]["queue"]["delta_ms"] == 100.0
    assert "delta_ms" not in scenarios["cubic on traces/Verizon-LTE-short.up"]["hops"][0]["queue"]


def test_module_entry_point(run_cli, tmp_path):
    r = run_cli("--version", module="accelbrake", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert accelbrake.__version__ in r.stdout
    r = run_cli(module="accelbrake", cwd=tmp_path)
    assert r.returncode == 2
    assert "run" in r.stderr and "compare" in r.stderr and "traces" in r.stderr


# --- in-process: fast checks of the same entry point -------------------------------------------


def run_main(capsys, *args):
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["run", "--scheme", "cubc"], "did you mean 'cubic'"),
        (["run", "--trace", "nope.up"], "nope.up"),
        (["run", "--delay", "-5"], "--delay"),
        (["run", "--set", "abc.delta=fast"], "abc.delta"),
        (["run", "--set", "cubic.beta=0.7"], "cubic.beta"),
        (["run", "--scheme", "cubic", "--set", "cubic.beta=2"], "cubic.beta"),
        (["run", "--plot", "x.gif", "--duration", "1"], ".gif"),
        (["run", "--scenario", "missing.json"], "missing.json"),
        (["run", "--scenario", "x.json", "--scheme", "abc"], "--scheme"),
        (["compare", "--schemes", "abc,cubc"], "did you mean 'cubic'"),
        (["compare", "--schemes", "cubic", "--set", "abc.eta=0.9"], "abc.eta"),
        (["traces", "no-such-dir"], "no-such-dir"),
    ],
)
def test_errors_exit_2(capsys, args, needle):
    code, out, err = run_main(capsys, *args)
    assert code == 2
    assert err.startswith("accelbrake: error: ")
    assert err.count("\n") == 1
    assert needle in err


def test_argparse_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["run", "--duration", "soon"])
    assert e.value.code == 2
    assert "--duration" in capsys.readouterr().err


def test_help_explains_units(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["run", "--help"])
    assert e.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    for needle in ("one-way propagation delay in ms", "Mbit/s", "simulated time in seconds", "packets",
                   "abc.delta", "cubic.beta", "queue.bytes"):  # fmt: skip
        assert needle in text, needle


def test_run_multiple_flows_table(capsys):
    code, out, _ = run_main(
        capsys, "run", "--scheme", "cubic", "--trace", "const:12", "--duration", "5", "--flows", "2"
    )
    assert code == 0
    assert "all flows" in out and "Jain's fairness index" in out
    assert "0 cubic" in out and "1 cubic" in out


def test_run_scenario_file(capsys, tmp_path):
    sc = accelbrake.build_scenario("newreno", trace="const:12", duration_s=30)
    f = tmp_path / "s.json"
    f.write_text(json.dumps(sc))
    code, out, err = run_main(capsys, "run", "--scenario", str(f), "--duration", "2", "--seed", "4", "--json")
    assert code == 0, err
    summary = json.loads(out)
    assert summary["duration_s"] == pytest.approx(2.0)
    assert summary["seed"] == 4
    assert summary["flows"][0]["scheme"] == "newreno"


def test_compare_in_process_json(capsys, tmp_path):
    code, out, err = run_main(
        capsys, "compare", "--schemes", "abc", "--schemes", "newreno", "--traces", "const:12",
        "--duration", "3", "--jobs", "1", "--json", "--no-progress", "--plot", str(tmp_path / "c.svg"),
    )  # fmt: skip
    assert code == 0, err
    doc = json.loads(out)
    assert [r["scheme"] for r in doc["rows"]] == ["abc", "newreno"]
    assert (tmp_path / "c.svg").stat().st_size > 0


def test_compare_traces_space_comma_and_repeated(capsys):
    # `--traces traces/*.up` reaches argparse as several words after one --traces.
    code, out, err = run_main(
        capsys, "compare", "--schemes", "abc", "--traces", "const:12", "const:6,const:3",
        "--traces", "const:24", "--duration", "2", "--jobs", "1", "--json", "--no-progress",
    )  # fmt: skip
    assert code == 0, err
    assert [r["trace"] for r in json.loads(out)["rows"]] == ["const:12", "const:6", "const:3", "const:24"]


def test_traces_lists_the_bundled_traces(capsys, repo):
    code, out, _ = run_main(capsys, "traces", str(repo / "traces"))
    assert code == 0
    line = next(x for x in out.splitlines() if "Verizon-LTE-short.up" in x)
    assert "69367" in line and "140.000" in line and "5.96" in line
    code, out, _ = run_main(capsys, "traces", "--json", str(repo / "traces" / "bw12.mahi"))
    assert json.loads(out)[0]["mean_mbps"] == pytest.approx(12.032)


def test_traces_without_paths_lists_the_packages_traces_by_name_from_any_directory(
    capsys, tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    code, out, _ = run_main(capsys, "traces", "--json")
    assert code == 0
    names = [e["path"] for e in json.loads(out)]
    assert "Verizon-LTE-short.up" in names and "downlink-4g-with-cross-times" in names
    assert not {"README.md", "SHA256SUMS"} & set(names)
    assert all("error" not in e for e in json.loads(out))


def test_a_bundled_trace_is_found_by_name_from_any_directory(tmp_path, monkeypatch):
    from accelbrake.scenarios import link_spec

    monkeypatch.chdir(tmp_path)
    for name, where in (
        ("Verizon-LTE-short.up", "Verizon-LTE-short.up"),
        ("traces/Verizon-LTE-short.up", "Verizon-LTE-short.up"),
        ("downlink-4g-with-cross-times", "c2tcp-nyc/downlink-4g-with-cross-times"),
    ):
        link = link_spec(name)
        assert link["type"] == "trace" and link["path"].endswith(where), name
        assert Path(link["path"]).is_file()
    with pytest.raises(accelbrake.ScenarioError, match="'no-such.up' not found.*accelbrake traces"):
        link_spec("no-such.up")


def test_traces_reports_bad_files(capsys, tmp_path):
    (tmp_path / "bad.up").write_text("1\nx\n")
    (tmp_path / "good.up").write_text("1\n2\n")
    code, out, _ = run_main(capsys, "traces", str(tmp_path))
    assert code == 0
    assert "not a trace: line 2" in out
    assert "good.up" in out


# --- AQM schemes, --queue and --ecn --------------------------------------------------------------


def test_run_cubic_codel_with_a_queue_spec(run_cli, tmp_path):
    out = tmp_path / "out"
    r = run_cli(
        "run", "--scheme", "cubic+codel", "--queue", "codel target=50,interval=100,packets=250",
        "--duration", "10", "--out", str(out),
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    assert "codel queue (target 50 ms, interval 100 ms, drops), 250 packets" in r.stdout
    scenario = json.loads((out / "scenario.json").read_text())
    assert scenario["hops"][0]["queue"] == {
        "type": "codel", "target_ms": 50.0, "interval_ms": 100.0, "packets": 250, "ecn": False,
    }  # fmt: skip
    assert scenario["flows"][0]["scheme"] == "cubic"
    summary = json.loads((out / "summary.json").read_text())
    assert summary["hops"][0]["queue"] == "codel"


def test_bad_queue_exits_2_with_one_line(run_cli):
    r = run_cli("run", "--scheme", "cubic+codel", "--queue", "codel targt=50", "--duration", "5")
    assert r.returncode == 2
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert lines[0] == (
        "accelbrake: error: --queue codel: key 'targt' unknown (did you mean 'target'?); "
        "codel keys: target, interval, mtu, ecn, packets, bytes"
    )


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (
            ["run", "--queue", "codel target=-5"],
            f"--queue codel: target=-5: expected a time in ms in [0.000001, 1e7] {TIME_FORM}, got '-5'",
        ),
        (["run", "--queue", "codel target="], "--queue codel: target=: missing value"),
        (
            ["run", "--queue", "codel target=fast"],
            f"--queue codel: target=fast: expected a time in ms in [0.000001, 1e7] {TIME_FORM}, got 'fast'",
        ),
        (["run", "--queue", "red"], "unknown queue type 'red'"),
        (
            ["run", "--queue", "pie alpha=-1"],
            "--queue pie: alpha=-1: expected a number of 1/s in [0, 1e6], got '-1'",
        ),
        (["run", "--scheme", "newreno-abe", "--no-ecn"], "--no-ecn: newreno-abe always uses ECN"),
        (["run", "--scheme", "cubic", "--set", "codel.target=5"], "no hop has a codel queue"),
        (
            ["run", "--scheme", "cubic+codel", "--set", "codel.target=-1"],
            f"--set codel.target=-1: expected a time in ms in [0.000001, 1e7] {TIME_FORM}",
        ),
        (["run", "--scheme", "cubc+codel"], "did you mean 'cubic+codel'"),
        (["run", "--scenario", "x.json", "--queue", "codel"], "--queue"),
        (["run", "--scenario", "x.json", "--ecn"], "--ecn/--no-ecn"),
        (["compare", "--schemes", "abc,cubic", "--set", "codel.target=50ms"], "codel.target does not apply"),
        (
            ["compare", "--schemes", "cubic+codel", "--queue", "pie", "--set", "codel.target=5"],
            "with --queue pie",
        ),
        (["compare", "--schemes", "cubic", "--queue", "codel targt=1"], "key 'targt' unknown"),
    ],
)
def test_aqm_errors_exit_2(capsys, args, needle):
    code, out, err = run_main(capsys, *args)
    assert code == 2
    assert err.startswith("accelbrake: error: ")
    assert err.count("\n") == 1
    assert needle in err


def test_run_with_ecn_marks(capsys):
    code, out, err = run_main(
        capsys, "run", "--scheme", "cubic+pie", "--ecn", "--trace", "const:10", "--duration", "10",
        "--set", "pie.qdelay_ref=20",
    )  # fmt: skip
    assert code == 0, err
    assert "pie queue (qdelay_ref 20 ms, t_update 15 ms, max_burst 150 ms, ECN marks), 250 packets" in out
    assert "CE marks" in out


def test_compare_aqm_schemes_with_per_scheme_sets(capsys, tmp_path):
    code, out, err = run_main(
        capsys, "compare", "--schemes", "abc,cubic,Cubic+CoDel,cubic+pie", "--traces", "const:12",
        "--set", "codel.target=50ms", "--set", "abc.delta=100ms", "--duration", "3", "--jobs", "1",
        "--no-progress", "--out", str(tmp_path),
    )  # fmt: skip
    assert code == 0, err
    lines = out.splitlines()
    for scheme in ("abc", "cubic", "cubic+codel", "cubic+pie"):
        assert any(f" {scheme} " in f"{line} " for line in lines), scheme
    doc = json.loads((tmp_path / "compare.json").read_text())
    queues = {k.split(" on ")[0]: v["hops"][0]["queue"] for k, v in doc["metadata"]["scenarios"].items()}
    assert queues["cubic+codel"] == {"type": "codel", "packets": 250, "target_ms": 50.0, "ecn": False}
    assert queues["cubic+pie"] == {"type": "pie", "packets": 250, "ecn": False}
    assert queues["cubic"] == {"type": "droptail", "packets": 250}
    assert queues["abc"]["delta_ms"] == 100.0


def test_compare_queue_applies_to_every_scheme(capsys):
    code, out, err = run_main(
        capsys, "compare", "--schemes", "cubic,newreno", "--traces", "const:12", "--queue", "codel target=20",
        "--set", "codel.interval=200", "--ecn", "--duration", "2", "--jobs", "1", "--no-progress", "--json",
    )  # fmt: skip
    assert code == 0, err
    assert [r["scheme"] for r in json.loads(out)["rows"]] == ["cubic", "newreno"]


def test_help_lists_aqm_schemes_and_queue_specs(capsys):
    for command in ("run", "compare"):
        with pytest.raises(SystemExit) as e:
            cli.main([command, "--help"])
        assert e.value.code == 0
        text = " ".join(capsys.readouterr().out.split())
        for needle in ("cubic+codel", "cubic+pie", "newreno+codel", "newreno+pie", "newreno-abe", "cubic-abe",
                       "--queue SPEC", "--ecn", "codel target=50,interval=100,packets=250", "codel.target",
                       "pie.qdelay_ref", "pie.dq_rate_estimator", "cubic.beta_ecn", "newreno.abe_slow_start",
                       "newreno-abe.*", "docs/aqm.md", "qdelay_ref, t_update, max_burst"):  # fmt: skip
            assert needle in text, (command, needle)
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    assert "abe-sweep" in capsys.readouterr().out


def test_ray_address_auto_without_a_cluster_is_explained(monkeypatch, tmp_path):
    ray = pytest.importorskip("ray")
    from accelbrake.experiments.executors import RayExecutor
    from accelbrake.experiments.runner import run_sweep
    from accelbrake.experiments.spec import parse_experiment

    def no_cluster(*a, **k):
        raise ConnectionError("Could not find any running Ray instance.")

    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", no_cluster)
    exp = parse_experiment(
        {"name": "x", "matrix": {"schemes": ["cubic"], "traces": ["const:12"]}, "run": {"duration_s": 1}}
    )
    with pytest.raises(accelbrake.SimulationError) as e:
        run_sweep(exp, tmp_path / "o", executor=RayExecutor("auto"), progress=False)
    msg = str(e.value)
    assert "--address auto: no Ray cluster is running on this machine" in msg
    assert "ray start --head" in msg and "drop --executor ray" in msg


def test_interrupted_sweep_hint_names_the_folder_and_command():
    args = cli.build_parser().parse_args(["sweep", "exp.toml", "--out", "res/x"])
    hint = cli.resume_hint(args, ["sweep", "exp.toml", "--out", "res/x"])
    assert "kept in res/x/" in hint and hint.endswith("accelbrake sweep exp.toml --out res/x")
    assert cli.resume_hint(cli.build_parser().parse_args(["traces"]), ["traces"]) == ""
