"""Several schemes and traffic models in one run: --flows mixes, Poisson arrivals, FCT and
per-scheme tables, experiment-file keys, and the coexistence router against one shared ABC queue."""

from __future__ import annotations

import json
import math
import statistics

import pytest
from accelbrake import build_scenario, cli
from accelbrake.errors import ScenarioError
from accelbrake.experiments.spec import ExperimentError, parse_experiment
from accelbrake.mix import MAX_ARRIVALS, fct_stats, parse_flow_mix, poisson_flows, scheme_aggregates
from accelbrake.papers import reproduction
from accelbrake.results import simulate

# --- --flows mixes ---------------------------------------------------------------------------


def test_parse_flow_mix_reads_counts_and_groups():
    assert parse_flow_mix("3") == 3
    assert parse_flow_mix(" abc:3, cubic:2 ") == [("abc", 3), ("cubic", 2)]
    assert parse_flow_mix("bbr") == [("bbr", 1)]


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("abc:0", "SCHEME:COUNT"),
        ("abc:x", "SCHEME:COUNT"),
        ("cubc:2", "did you mean 'cubic'"),
        (",", "empty"),
    ],
)
def test_parse_flow_mix_errors_name_the_key(text, needle):
    with pytest.raises(ScenarioError) as e:
        parse_flow_mix(text, key="flows")
    assert str(e.value).startswith("flows: ")
    assert needle in str(e.value)


def test_build_scenario_makes_one_flow_entry_per_group_over_the_schemes_queue():
    sc = build_scenario("abc", trace="const:24", duration_s=1, flows="abc:2,cubic:3", sets=["cubic.beta=0.6"])
    assert [(f["scheme"], f.get("count", 1)) for f in sc["flows"]] == [("abc", 2), ("cubic", 3)]
    assert sc["hops"][0]["queue"]["type"] == "abc"
    assert sc["flows"][1]["params"] == {"beta": 0.6}  # a scheme's key reaches only its flows
    assert sc["flows"][0]["params"] == {}
    sc = build_scenario(
        "abc", trace="const:24", duration_s=1, flows=[("abc", 1), ("cubic", 1)], queue="abc-coexist"
    )
    assert sc["hops"][0]["queue"]["type"] == "abc-coexist"


def test_a_group_naming_another_aqm_is_an_error_not_ignored():
    with pytest.raises(ScenarioError, match="cubic\\+codel.*names the codel queue"):
        build_scenario("abc", trace="const:24", duration_s=1, flows="abc:1,cubic+codel:1")


def test_cli_run_prints_per_scheme_aggregates(capsys):
    code = cli.main(["run", "--flows", "abc:2,cubic:2", "--trace", "const:24", "--duration", "5",
                     "--queue", "abc-coexist"])  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    assert "Per scheme (long-lived flows):" in out
    lines = [ln.split() for ln in out.splitlines()]
    assert any(ln[:2] == ["abc", "2"] for ln in lines)
    assert any(ln[:2] == ["cubic", "2"] for ln in lines)


def test_cli_flows_mix_error_exits_2(capsys):
    with pytest.raises(SystemExit) as e:
        cli.main(["run", "--flows", "abc:3,cubc:3"])
    assert e.value.code == 2
    assert "did you mean 'cubic'" in capsys.readouterr().err


# --- Poisson arrivals ------------------------------------------------------------------------


def test_poisson_arrivals_are_deterministic_and_have_the_rate():
    kw = dict(rate_per_s=200.0, size={"dist": "fixed", "bytes": 10_000}, start_ms=1000.0, stop_ms=21_000.0)
    a = poisson_flows("cubic", seed=1, **kw)
    assert a == poisson_flows("cubic", seed=1, **kw)
    assert a != poisson_flows("cubic", seed=2, **kw)
    n = len(a)
    assert abs(n - 4000) < 5 * math.sqrt(4000), n  # Poisson: mean 4000, sd 63
    starts = [f["start_ms"] for f in a]
    assert starts == sorted(starts) and 1000.0 < starts[0] and starts[-1] < 21_000.0
    gaps = [b - x for x, b in zip(starts, starts[1:], strict=False)]
    assert abs(statistics.mean(gaps) - 5.0) < 0.3  # exponential gaps, mean 1/rate = 5 ms
    assert abs(statistics.pstdev(gaps) - 5.0) < 0.4  # sd = mean for an exponential
    assert {f["app"]["bytes"] for f in a} == {10_000}


def test_size_distributions_have_their_means(tmp_path):
    def sizes(size):
        fl = poisson_flows("cubic", rate_per_s=1000.0, size=size, start_ms=0.0, stop_ms=20_000.0, seed=3)
        return [f["app"]["bytes"] for f in fl]

    ex = sizes({"dist": "exponential", "mean_bytes": 50_000})
    assert abs(statistics.mean(ex) / 50_000 - 1) < 0.05
    pa = sizes({"dist": "pareto", "shape": 1.5, "mean_bytes": 30_000})
    assert min(pa) >= 10_000 - 1  # x_m = mean·(shape-1)/shape
    assert statistics.median(pa) < 30_000 < max(pa)  # heavy tail: median below the mean
    cdf = tmp_path / "sizes.cdf"
    cdf.write_text("# size prob\n1000 0.5\n100000 1.0\n", encoding="utf-8")
    em = sizes({"dist": "empirical", "cdf": str(cdf)})
    assert abs(sum(b <= 1000 for b in em) / len(em) - 0.5) < 0.03
    assert max(em) <= 100_000


def test_load_sets_the_rate_from_the_mean_size():
    fl = poisson_flows(
        "cubic", load_mbps=8.0, size={"dist": "fixed", "bytes": 10_000}, start_ms=0, stop_ms=10_000, seed=0
    )
    assert abs(len(fl) - 1000) < 5 * math.sqrt(1000)  # 8 Mbit/s / 80 kbit = 100 per s


@pytest.mark.parametrize(
    ("kw", "needle"),
    [
        ({"rate_per_s": 1.0, "size": {"dist": "zipf"}}, "arrivals.size.dist"),
        (
            {"rate_per_s": 1.0, "size": {"dist": "pareto", "shape": 1.0, "mean_bytes": 5}},
            "arrivals.size.shape",
        ),
        ({"rate_per_s": -1.0, "size": {"dist": "fixed", "bytes": 5}}, "arrivals.rate_per_s"),
        ({"size": {"dist": "fixed", "bytes": 5}}, "rate_per_s or load_mbps"),
        ({"rate_per_s": 1e6, "size": {"dist": "fixed", "bytes": 5}}, f"at most {MAX_ARRIVALS}"),
    ],
)
def test_poisson_errors_name_the_key(kw, needle):
    with pytest.raises(ScenarioError) as e:
        poisson_flows("cubic", start_ms=0.0, stop_ms=10_000.0, seed=0, **kw)
    assert needle in str(e.value)


def test_empirical_cdf_errors_name_file_and_line(tmp_path):
    bad = tmp_path / "bad.cdf"
    bad.write_text("1000 0.5\n500 0.7\n", encoding="utf-8")
    with pytest.raises(ScenarioError, match="bad.cdf line 2: sizes and probabilities must not decrease"):
        poisson_flows(
            "cubic", rate_per_s=1, size={"dist": "empirical", "cdf": str(bad)}, start_ms=0, stop_ms=1, seed=0
        )


# --- FCT and per-scheme figures --------------------------------------------------------------


def test_fct_stats_and_aggregates_on_a_hand_made_run():
    scenario = {
        "flows": [
            {"scheme": "abc", "count": 2},
            {"scheme": "cubic"},
            {"scheme": "cubic", "app": {"type": "finite", "bytes": 10_000}},
            {"scheme": "cubic", "app": {"type": "finite", "bytes": 10_000}},
            {"scheme": "cubic", "app": {"type": "finite", "bytes": 200_000}},
        ]
    }
    flows = [
        {"id": 0, "scheme": "abc", "throughput_mbps": 10.0},
        {"id": 1, "scheme": "abc", "throughput_mbps": 14.0},
        {"id": 2, "scheme": "cubic", "throughput_mbps": 6.0},
        {"id": 3, "scheme": "cubic", "throughput_mbps": 1.0, "completion_s": 0.2, "prop_rtt_ms": 100.0},
        {"id": 4, "scheme": "cubic", "throughput_mbps": 1.0, "completion_s": 0.4, "prop_rtt_ms": 100.0},
        {"id": 5, "scheme": "cubic", "throughput_mbps": 1.0, "completion_s": None, "prop_rtt_ms": 100.0},
    ]
    agg = {a["scheme"]: a for a in scheme_aggregates({"flows": flows}, scenario)}
    assert agg["abc"]["flows"] == 2 and agg["abc"]["mean_mbps"] == 12.0
    assert math.isclose(agg["abc"]["rel_std"], 2.0 / 12.0)
    assert agg["cubic"]["flows"] == 1 and agg["cubic"]["mean_mbps"] == 6.0  # finite flows left out
    rows = {r["bucket"]: r for r in fct_stats({"flows": flows}, scenario, capacity_mbps=8.0)}
    assert (rows["all"]["flows"], rows["all"]["completed"]) == (3, 2)
    small = rows["<= 10 KB"]
    assert small["fct_mean_ms"] == 300.0 and small["fct_p50_ms"] == 300.0
    # ideal = 100 ms + 10 kB at 8 Mbit/s (10 ms) = 110 ms
    assert math.isclose(small["slowdown_p50"], (200 / 110 + 400 / 110) / 2)
    assert rows["100 KB-1 MB"]["completed"] == 0 and math.isnan(rows["100 KB-1 MB"]["fct_p95_ms"])


# --- experiment files ------------------------------------------------------------------------


def _doc(entry):
    return {
        "name": "mixtest",
        "matrix": {"schemes": ["m"], "traces": ["const:24"], "seeds": 1},
        "run": {"duration_s": 5},
        "schemes": {"m": {"scheme": "abc", **entry}},
    }


def test_experiment_mix_arrivals_and_apps_build_the_flows():
    exp = parse_experiment(
        _doc(
            {
                "queue": "abc-coexist",
                "mix": ["abc:2", "cubic:1"],
                "arrivals": [{"scheme": "cubic", "rate_per_s": 20, "size": {"dist": "fixed", "bytes": 5000}}],
                "apps": [{"scheme": "abc", "count": 4, "rate_mbps": 0.5, "start_s": 1}],
            }
        ),
        source="x.toml",
    )
    sc = exp.scenario(next(exp.points()))
    kinds = [(f["scheme"], f.get("count", 1), (f.get("app") or {}).get("type", "bulk")) for f in sc["flows"]]
    assert kinds[:6] == [("abc", 2, "bulk"), ("cubic", 1, "bulk")] + [("abc", 1, "rate")] * 4
    # Application-limited flows start at random phases within one packet interval (1448 B at 0.5 Mbit/s).
    starts = [f["start_ms"] for f in sc["flows"][2:6]]
    assert len(set(starts)) == 4 and all(1000.0 <= s < 1000.0 + 1448 * 8 / 0.5e6 * 1000 for s in starts)
    assert all(k == ("cubic", 1, "finite") for k in kinds[6:]) and 60 < len(kinds) - 6 < 140


@pytest.mark.parametrize(
    ("entry", "key"),
    [
        ({"mix": "abc:3,cubc:3"}, "schemes.m.mix"),
        ({"mix": 5}, "schemes.m.mix"),
        ({"arrivals": [{"scheme": "cubic", "rate": 3}]}, "schemes.m.arrivals[0].rate"),
        (
            {"arrivals": [{"rate_per_s": 3, "size": {"dist": "fixed", "bytes": 1}}]},
            "schemes.m.arrivals[0].scheme",
        ),
        (
            {"arrivals": [{"scheme": "cubic", "rate_per_s": 3, "size": {"dist": "zipf"}}]},
            "schemes.m.arrivals[0].size.dist",
        ),
        ({"apps": [{"scheme": "abc", "count": 2}]}, "schemes.m.apps[0].rate_mbps"),
        ({"apps": [{"scheme": "abc", "rate_mbps": 1, "on_s": 1}]}, "schemes.m.apps[0].off_s"),
    ],
)
def test_experiment_errors_name_file_and_key(entry, key):
    with pytest.raises(ExperimentError) as e:
        parse_experiment(_doc(entry), source="x.toml")
    assert str(e.value).startswith(f"x.toml: {key}"), str(e.value)


# --- the coexistence router against one shared ABC queue -------------------------------------


def _abc_over_cubic(queue: str) -> float:
    sc = build_scenario(
        "abc", trace="const:48", duration_s=20, buffer_packets=400, flows="abc:2,cubic:2", queue=queue
    )
    r = simulate(sc)
    agg = {a["scheme"]: a["mean_mbps"] for a in scheme_aggregates(r.summary, sc)}
    return agg["abc"] / agg["cubic"]


def test_coexistence_router_keeps_cubic_alive_where_a_shared_abc_queue_starves_it():
    shared = _abc_over_cubic("abc")
    weighted = _abc_over_cubic("abc-coexist")
    # Measured (seed 0): 2.65 shared, 0.91 with the router (the short-flow aggregate plays
    # no part: no short flows here).
    assert shared > 2.0, f"one shared ABC queue: ABC/Cubic {shared:.2f}"
    assert 0.75 < weighted < 1.33, f"coexistence router: ABC/Cubic {weighted:.2f}"
    assert weighted < shared / 2


# --- Fig. 11: where the delay growth with 16 flows comes from (docs/coexistence.md) ----------


def test_fig11_delay_growth_comes_from_the_window_floor_and_the_additive_increase():
    def p95(n: int, sets: list[str]) -> float:
        sc = build_scenario("abc", duration_s=60, flows=n, sets=sets)
        return float(simulate(sc).summary["per_packet_delay_ms"]["p95"])

    # Measured on Verizon-LTE-short.up, 60 s, seed 0: 187, 286, 238, 202 ms.
    one = p95(1, [])
    sixteen = p95(16, [])
    floor2 = p95(16, ["abc.min_window=2"])
    neither = p95(16, ["abc.min_window=1", "abc.additive_increase=false"])
    assert sixteen > 1.4 * one
    assert floor2 < sixteen - 0.4 * (sixteen - one)  # the floor is most of the growth
    assert neither < 1.15 * one  # without floor and additive increase: nearly constant


def test_sweep_results_name_each_flows_own_controller(tmp_path):
    from accelbrake.experiments.runner import run_sweep

    exp = parse_experiment(_doc({"queue": "abc-coexist", "mix": "abc:1,cubic:2"}), source="x.toml")
    run_sweep(exp, tmp_path / "o", progress=False)
    import pandas as pd

    res = pd.read_parquet(tmp_path / "o" / "results.parquet")
    assert res["flow_cc"].tolist() == ["abc", "cubic", "cubic"]
    assert set(res["cc"]) == {"abc"}


def test_on_off_source_sends_only_while_on():
    exp = parse_experiment(
        _doc({"apps": [{"scheme": "cubic", "rate_mbps": 2.0, "on_s": 1.0, "off_s": 3.0, "spread_s": 0}]}),
        source="x.toml",
    )
    sc = exp.scenario(next(exp.points()))
    sc["duration_ms"] = 8000.0
    sc["flows"] = sc["flows"][1:]  # the on/off flow alone
    assert sc["flows"][0]["app"] == {"type": "onoff", "mbps": 2.0, "on_ms": 1000.0, "off_ms": 3000.0}
    r = simulate(sc)
    ts = r.flows_ts
    on = ts[(ts["t_s"] % 4.0 >= 0.3) & (ts["t_s"] % 4.0 < 0.9)]["throughput_mbps"].mean()
    off = ts[(ts["t_s"] % 4.0 >= 1.5) & (ts["t_s"] % 4.0 < 3.9)]["throughput_mbps"].mean()
    assert 1.6 < on < 2.4, on
    assert off < 0.05, off
    # 2 on periods of 1 s at 2 Mbit/s in 8 s: 4 Mbit of payload, as the flow's goodput says.
    assert abs(r.summary["flows"][0]["goodput_mbps"] * 8 - 4.0) < 0.4


def test_plot_of_a_mixed_run_draws_each_schemes_total():
    from accelbrake.plots import run_figure

    sc = build_scenario("abc", trace="const:24", duration_s=4, flows="abc:2,cubic:1", queue="abc-coexist")
    r = simulate(sc)
    fig = run_figure(r)
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "all abc flows" in labels and "all cubic flows" in labels
    total = {ln.get_label(): ln.get_ydata() for ln in ax.get_lines()}
    ts = r.flows_ts
    col = "egress_mbps" if "egress_mbps" in ts.columns else "throughput_mbps"
    abc = ts[ts["flow"].isin([0, 1])].groupby("t_s")[col].sum().to_numpy()
    assert abs(float(total["all abc flows"][: len(abc)].sum()) - float(abc.sum())) < 1e-6


def test_fig13_comparison_from_memory_equals_from_files(tmp_path):
    """abc-fig13's comparison takes each run's digest as the sweep writes the run (kept in
    memory and in the run's index) instead of parsing its multi-megabyte document again; the verdict
    rows are the same from memory, from the indexes (a rerun) and from the documents."""
    from accelbrake.experiments import reproduce as R
    from accelbrake.experiments import runner

    rep = reproduction("abc-fig13")
    out = tmp_path / "o"
    comp, _path, outcome = R.run_reproduction(
        rep,
        out,
        quick=True,
        overrides=["run.duration_s=4", "matrix.seeds=1"],
        progress=False,
        report=False,
        echo=lambda _s: None,
    )
    assert outcome.ran == 7  # 5 routers and loads, and RCP's zombie-list baseline at two loads
    assert all(runner.memo_fact(out, rid, "digest") is not None for rid in outcome.executed)
    # The workers computed them (from the summary's head and per-flow columns), as the function
    # computes them from the whole document (json.dumps: NaN equals NaN there).
    assert runner._point_kind(rep.digest) == "point+digest=accelbrake.papers.abc.mixed:digest_fig13"
    for rid in outcome.executed:
        doc = json.loads((out / "runs" / f"{rid}.json").read_text())
        assert json.dumps(runner.memo_fact(out, rid, "digest")) == json.dumps(rep.digest(doc))
    runner.RUN_FACTS.clear()  # now every digest comes from the runs' index files (a rerun)
    assert runner.memo_fact(out, outcome.executed[0], "digest") is None
    assert runner.stored_digest(out, outcome.executed[0]) is not None
    again = R.compare(rep, outcome.results, out)
    assert again["rows"] == comp["rows"]
    for p in (out / "runs").glob("*" + runner.FACTS_SUFFIX):  # and from the run documents
        p.unlink()
    assert runner.stored_digest(out, outcome.executed[0]) is None
    assert R.compare(rep, outcome.results, out)["rows"] == comp["rows"]
    assert any(r.get("verdict") not in (None, "not compared") for r in comp["rows"]), "rows that compare"
