"""Issue 17: exact seeds (item 3) — each test failed on the code before the fix."""

from __future__ import annotations

import json

import accelbrake
import pytest
from accelbrake import cli
from accelbrake.experiments.spec import ExperimentError, parse_experiment
from accelbrake.scenarios import ScenarioError, build_scenario
from accelbrake.units import parse_int
from conftest import TRACE_UP

BIG = 2**53 + 1  # 9007199254740993: the first whole number a float cannot hold
U64_MAX = 2**64 - 1


def run_main(capsys, *args):
    code = cli.main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


# --- (3) seeds are exact u64 end to end ------------------------------------------------------


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
