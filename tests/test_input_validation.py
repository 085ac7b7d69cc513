"""Input validation: seeds stay exact unsigned 64-bit integers end to end, nonsense is refused with
an error naming the file, key or flag, and runs keep no per-packet records unless asked."""

from __future__ import annotations

import json
import os

import accelbrake
import pytest
from accelbrake import cli
from accelbrake.experiments.spec import ExperimentError, parse_experiment
from accelbrake.scenarios import ScenarioError, build_scenario, link_spec
from accelbrake.units import parse_int
from conftest import TRACE_DOWN, TRACE_UP

BIG = 2**53 + 1  # 9007199254740993: the first whole number a float cannot hold
U64_MAX = 2**64 - 1


def run_main(capsys, *args):
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


# --- seeds are exact u64 end to end ---------------------------------------------------------


def test_parse_int_is_exact_above_2_to_the_53():
    assert parse_int(BIG) == BIG
    assert parse_int(str(BIG)) == BIG
    assert parse_int(str(U64_MAX)) == U64_MAX
    assert parse_int("1e3") == 1000 and parse_int("3.0") == 3 and parse_int(3.0) == 3
    for bad in ("1.5", "abc", "nan", "inf", True, 2.5):
        with pytest.raises(ValueError):
            parse_int(bad)


def test_build_scenario_keeps_big_seeds_exact_and_the_core_runs_them():
    for seed in (BIG, U64_MAX):
        sc = build_scenario("cubic", trace="const:12", duration_s=0.2, seed=seed, record_packets=False)
        assert sc["seed"] == seed
        r = accelbrake.simulate(sc)
        assert r.summary["seed"] == seed
    with pytest.raises(ScenarioError, match="2\\^64"):
        build_scenario("cubic", trace="const:12", seed=U64_MAX + 1)


def test_big_seeds_give_different_runs():
    # BIG and BIG - 1 were one run before (both rounded to 2^53).
    a = build_scenario("cubic", trace=str(TRACE_UP), duration_s=1, seed=BIG, record_packets=False)
    b = build_scenario("cubic", trace=str(TRACE_UP), duration_s=1, seed=BIG - 1, record_packets=False)
    assert a["seed"] != b["seed"]
    assert json.dumps(a) != json.dumps(b)


def test_cli_seed_is_exact(capsys, tmp_path):
    out = tmp_path / "r"
    for seed in (BIG, U64_MAX):
        args = ["run", "--trace", "const:12", "--duration", "0.2", "--no-packets", "--json"]
        code, _, err = run_main(capsys, *args, "--seed", str(seed), "--out", str(out))
        assert code == 0, err
        assert json.loads((out / "scenario.json").read_text())["seed"] == seed
        assert json.loads((out / "summary.json").read_text())["seed"] == seed


def _exp(**matrix: object) -> dict:
    return {
        "name": "exact",
        "matrix": {"schemes": ["cubic"], "traces": ["const:12"], **matrix},
        "run": {"duration_s": 1},
    }


def test_experiment_big_seeds_stay_two_runs():
    exp = parse_experiment(_exp(seeds=[BIG - 1, BIG]), source="x.toml")
    assert [exp.scenario(p)["seed"] for p in exp.points()] == [BIG - 1, BIG]
    exp = parse_experiment(_exp(seeds=[U64_MAX]), source="x.toml")
    assert [exp.scenario(p)["seed"] for p in exp.points()] == [U64_MAX]
    # A float that large was rounded by TOML already: refused rather than silently changed.
    with pytest.raises(ExperimentError, match="matrix.seeds\\[0\\]"):
        parse_experiment(_exp(seeds=[float(BIG)]), source="x.toml")


# --- nonsense refused ------------------------------------------------------------------------


def _core_scenario(**flow: object) -> dict:
    sc = build_scenario("cubic", trace="const:24", duration_s=1, record_packets=False)
    sc["flows"][0].update(flow)
    return sc


def test_empty_forward_path_is_refused():
    with pytest.raises(accelbrake.SimulationError, match=r"flows\[0\]\.fwd.*empty data path"):
        accelbrake.simulate(_core_scenario(fwd=[]))


@pytest.mark.parametrize("start_ms", [1000, 5000])
def test_flow_starting_after_the_end_is_warned_about(start_ms):
    # A warning, not an error: `reproduce abc-fig3 --set run.duration_s=6` is legitimate.
    r = accelbrake.simulate(_core_scenario(start_ms=start_ms))
    ws = [w for w in r.warnings if w["code"] == "flow-starts-after-end"]
    assert len(ws) == 1 and ws[0]["parameter"] == "flows[0].start_ms"
    assert "duration_ms = 1000 ms" in ws[0]["message"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_special_trace_paths_are_named_not_read(tmp_path):
    fifo = tmp_path / "t.fifo"
    os.mkfifo(fifo)
    for path, kind in ((fifo, "FIFO"), (tmp_path, "directory"), ("/dev/zero", "character device")):
        # Python: says what the path is, not "not found".
        with pytest.raises(ScenarioError, match=kind) as e:
            link_spec(str(path))
        assert "not found" not in str(e.value)
        # The core: refuses before reading (no hang on the FIFO, no endless /dev/zero).
        sc = _core_scenario()
        sc["hops"][0]["link"] = {"type": "trace", "path": str(path)}
        with pytest.raises(accelbrake.SimulationError, match=kind):
            accelbrake.simulate(sc)


# --- smaller checks ---------------------------------------------------------------------------


@pytest.mark.parametrize("value", ["no", "yes", 0, 1, None])
def test_record_packets_must_be_a_bool(value):
    with pytest.raises(ScenarioError, match="record_packets"):
        build_scenario("cubic", trace="const:12", record_packets=value)


def test_seeds_count_as_a_whole_float_means_that_many_runs():
    exp = parse_experiment(_exp(seeds=3.0), source="x.toml")
    assert exp.seeds == (0, 1, 2)
    with pytest.raises(ExperimentError, match="matrix.seeds"):
        parse_experiment(_exp(seeds=2.5), source="x.toml")


def test_ack_mbps_beside_ack_trace_is_refused(capsys):
    with pytest.raises(ScenarioError, match="ack_mbps"):
        build_scenario("cubic", trace="const:12", ack_trace=str(TRACE_DOWN), ack_mbps=50)
    code, _, err = run_main(capsys, "run", "--ack-trace", str(TRACE_DOWN), "--ack-mbps", "50")
    assert code == 2 and "--ack-mbps" in err and "--ack-trace" in err
    doc = _exp()
    doc["run"].update(ack_trace=str(TRACE_DOWN), ack_mbps=50)
    with pytest.raises(ExperimentError, match="run.ack_mbps"):
        parse_experiment(doc, source="x.toml")
    # Either one alone is fine, and an ack_trace alone still builds.
    doc["run"].pop("ack_mbps")
    exp = parse_experiment(doc, source="x.toml")
    assert exp.scenario(next(exp.points()))["hops"][1]["link"]["type"] == "trace"


@pytest.mark.parametrize("name", ["../escape", "a/b", "/tmp/x", "..", ".", "a\\b", "x\ny"])
def test_experiment_names_stay_under_results(name):
    doc = _exp()
    doc["name"] = name
    with pytest.raises(ExperimentError, match="name"):
        parse_experiment(doc, source="x.toml")


@pytest.mark.parametrize("bad", ["cubic", 5, None, [("seed", 1)]])
def test_simulate_names_what_it_expected(bad):
    with pytest.raises(ScenarioError, match="expected a dict"):
        accelbrake.simulate(bad)


# --- budgets and switches ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "suffix", "key"),
    [
        ('{"duration_ms": NaN, "hops": [], "flows": []}', ".json", "duration_ms"),
        ('{"duration_ms": 1000, "hops": [{"delay_ms": Infinity}], "flows": []}', ".json", "hops[0].delay_ms"),
        ("duration_ms = 1000\n[[hops]]\ndelay_ms = -inf\n", ".toml", "hops[0].delay_ms"),
    ],
)
def test_nan_in_a_scenario_file_names_the_file_and_key(capsys, tmp_path, text, suffix, key):
    f = tmp_path / f"s{suffix}"
    f.write_text(text)
    code, _, err = run_main(capsys, "run", "--scenario", str(f))
    assert code == 2
    assert str(f) in err and f"{key}: got" in err and "finite number" in err, err


def test_values_above_a_range_say_the_upper_bound(capsys):
    code, _, err = run_main(capsys, "run", "--delay", "1e9", "--duration", "1")
    assert code == 2 and "at most" in err and "≥ 0 ms" in err, err


def test_check_reads_the_traces(capsys, tmp_path):
    """Issue: ``sweep --check`` said OK for a trace file with a bad line."""
    (tmp_path / "bad.up").write_text("0\n5\nxx\n")
    exp = tmp_path / "e.toml"
    exp.write_text(f'[matrix]\nschemes = ["cubic"]\ntraces = ["bad.up", "{TRACE_UP}"]\n')
    code, out, err = run_main(capsys, "sweep", str(exp), "--check")
    assert code == 2 and "bad.up, line 3" in err and "OK" not in out, (out, err)
    exp.write_text(f'[matrix]\nschemes = ["cubic"]\ntraces = ["{TRACE_UP}"]\n')
    code, out, _ = run_main(capsys, "sweep", str(exp), "--check")
    assert code == 0 and "delivery opportunities" in out and "Mbit/s" in out


def test_a_huge_matrix_is_refused_before_planning():
    """Issue: a 10^6-run experiment passed --check after 2 min and 2.9 GB of planning."""
    doc = {"matrix": {"schemes": ["cubic"], "traces": ["const:12"], "seeds": 10**6}}
    with pytest.raises(ExperimentError, match="run.max_runs"):
        parse_experiment(doc)
    doc = {"matrix": {"schemes": ["cubic", "abc"], "traces": ["const:12"], "seeds": list(range(60_000))}}
    with pytest.raises(ExperimentError, match=r"120,000 runs"):
        parse_experiment(doc)
    doc["run"] = {"max_runs": 5}
    doc["matrix"]["seeds"] = [0, 1, 2]
    with pytest.raises(ExperimentError, match="6 runs"):
        parse_experiment(doc)
    doc["run"]["max_runs"] = 6
    assert len(list(parse_experiment(doc).points())) == 6


def test_run_keeps_no_per_packet_records_unless_asked(capsys, tmp_path):
    """Issue: records were on by default in ``run`` (memory growing with simulated time)."""
    a = tmp_path / "a"
    code, _, _ = run_main(capsys, "run", "--trace", "const:12", "--duration", "2", "--out", str(a))
    assert code == 0
    assert not (a / "packets.parquet").exists() or _rows(a / "packets.parquet") == 0
    code, _, _ = run_main(
        capsys, "run", "--trace", "const:12", "--duration", "2", "--packets", "--out", str(tmp_path / "b")
    )
    assert code == 0 and _rows(tmp_path / "b" / "packets.parquet") > 0


def _rows(path) -> int:
    import pandas as pd

    return len(pd.read_parquet(path))


def test_run_over_the_memory_budget_is_refused_naming_the_flags(capsys):
    code, _, err = run_main(capsys, "run", "--trace", "const:1000", "--duration", "600", "--packets")
    assert code == 2 and "memory_budget_mb" in err and "--packets" in err and "--memory-budget-mb" in err, err
    code, _, err = run_main(
        capsys, "run", "--trace", "const:1000", "--duration", "600", "--packets", "--memory-budget-mb", "0.5"
    )
    assert code == 2 and "memory_budget_mb" in err, err


def test_experiment_record_packets_switch_reaches_the_scenarios():
    base = {"matrix": {"schemes": ["cubic"], "traces": ["const:12"]}}
    exp = parse_experiment(base)
    assert exp.scenario(next(exp.points()))["record_packets"] is False
    exp = parse_experiment({**base, "run": {"record_packets": True, "memory_budget_mb": 512}})
    sc = exp.scenario(next(exp.points()))
    assert sc["record_packets"] is True and sc["memory_budget_mb"] == 512
    with pytest.raises(ExperimentError, match="run.record_packets"):
        parse_experiment({**base, "run": {"record_packets": "yes"}})
