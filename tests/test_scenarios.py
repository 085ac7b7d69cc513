"""Scenario building: units, presets, --set overrides and their error messages, scenario files."""

from __future__ import annotations

import json
import pickle
import sys
from pathlib import Path

import accelbrake
import pytest
from accelbrake import SCHEMES, ScenarioError, SimulationError, build_scenario, catalog
from accelbrake.scenarios import (
    SET_KEYS,
    apply_sets,
    link_spec,
    load_scenario_file,
    parse_duration,
    parse_rate,
    resolve_trace,
    set_applies,
    sets_for_scheme,
)

CONST = "const:24"
#: How a time value may be written, as the errors of time parameters say.
TIME_FORM = "(like 50 or 50ms (bare numbers are ms))"


# --- units ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "ms"),
    [
        ("100ms", 100.0),
        ("0.1s", 100.0),
        ("100", 100.0),
        (100, 100.0),
        (" 2 s ", 2000.0),
        ("250us", 0.25),
        ("1e3ms", 1000.0),
        ("1.5min", 90000.0),
        (".5s", 500.0),
    ],
)
def test_parse_duration(text, ms):
    assert parse_duration(text) == pytest.approx(ms)


def test_parse_duration_default_unit_seconds():
    assert parse_duration("140", "s") == 140000.0
    assert parse_duration("500ms", "s") == 500.0


@pytest.mark.parametrize("text", ["fast", "", "ms", "10 parsecs", "nan", "inf", "1e999", True])
def test_parse_duration_rejects(text):
    with pytest.raises(ValueError, match="duration"):
        parse_duration(text)


def test_parse_duration_unknown_unit_suggests():
    with pytest.raises(ValueError, match=r"unknown unit 'sec?s'.*did you mean"):
        parse_duration("10secs")


@pytest.mark.parametrize(
    ("text", "mbps"),
    [
        ("12mbps", 12.0),
        ("12Mbit/s", 12.0),
        ("12 Mbps", 12.0),
        ("12", 12.0),
        (12, 12.0),
        ("500kbps", 0.5),
        ("1gbps", 1000.0),
        ("1Gbit/s", 1000.0),
        ("12000000bps", 12.0),
    ],
)
def test_parse_rate(text, mbps):
    assert parse_rate(text) == pytest.approx(mbps)


@pytest.mark.parametrize("text", ["fast", "12 furlongs", "", "mbps"])
def test_parse_rate_rejects(text):
    with pytest.raises(ValueError, match="rate"):
        parse_rate(text)


# --- presets and topology --------------------------------------------------------------------


def test_scheme_presets():
    assert SCHEMES["abc"] == ("abc", "abc", False)
    assert SCHEMES["abc-cubic"] == ("abc-cubic", "abc", False)
    assert SCHEMES["cubic"] == ("cubic", "droptail", False)
    assert SCHEMES["newreno"] == ("newreno", "droptail", False)
    assert {p.cc for p in SCHEMES.values()} <= set(accelbrake._core.schemes())


def test_default_scenario_is_the_artifact_setup(trace_up):
    sc = build_scenario("abc")
    assert sc["duration_ms"] == 140000.0
    assert sc["seed"] == 0
    assert sc["record_packets"] is False, "per-packet records are opt-in (their memory grows with time)"
    assert sc["sample_ms"] == 100.0
    data, ack = sc["hops"]
    assert data["link"]["type"] == "trace"
    assert resolve_trace(data["link"]["path"]) is not None
    assert data["link"]["path"].endswith("Verizon-LTE-short.up")
    assert data["queue"] == {"type": "abc", "packets": 250}
    assert data["delay_ms"] == 50.0
    assert ack["link"] == {"type": "constant", "mbps": 12.0}
    assert ack["queue"] == {"type": "infinite"}
    assert ack["delay_ms"] == 50.0
    assert sc["flows"] == [{"scheme": "abc", "params": {}, "fwd": [0], "rev": [1]}]
    json.dumps(sc, allow_nan=False)  # plain JSON


@pytest.mark.parametrize(
    ("scheme", "queue"), [("cubic", "droptail"), ("newreno", "droptail"), ("abc-cubic", "abc")]
)
def test_scheme_queue(scheme, queue):
    sc = build_scenario(scheme, trace=CONST)
    assert sc["hops"][0]["queue"]["type"] == queue
    assert sc["flows"][0]["scheme"] == scheme


def test_scheme_name_is_forgiving():
    assert build_scenario("ABC_Cubic", trace=CONST)["flows"][0]["scheme"] == "abc-cubic"


def test_arguments_land_in_place(tmp_path):
    sc = build_scenario(
        "cubic",
        trace=CONST,
        ack_mbps="24mbps",
        delay_ms="20ms",
        buffer_packets=100,
        duration_s="30s",
        flows=3,
        seed=7,
        record_packets=False,
        sample_ms=50,
    )
    assert sc["hops"][0]["link"] == {"type": "constant", "mbps": 24.0}
    assert sc["hops"][1]["link"] == {"type": "constant", "mbps": 24.0}
    assert sc["hops"][0]["delay_ms"] == sc["hops"][1]["delay_ms"] == 20.0
    assert sc["hops"][0]["queue"]["packets"] == 100
    assert sc["duration_ms"] == 30000.0
    assert sc["flows"][0]["count"] == 3
    assert sc["seed"] == 7
    assert sc["record_packets"] is False
    assert sc["sample_ms"] == 50.0


@pytest.mark.parametrize(
    ("spec", "link"),
    [
        ("const:24", {"type": "constant", "mbps": 24.0}),
        ("constant:24mbps", {"type": "constant", "mbps": 24.0}),
        ("24mbps", {"type": "constant", "mbps": 24.0}),
        (48, {"type": "constant", "mbps": 48.0}),
        (1.5, {"type": "constant", "mbps": 1.5}),
    ],
)
def test_link_spec_constant(spec, link):
    assert link_spec(spec) == link


def test_link_spec_mahi_and_ack_trace(repo):
    sc = build_scenario("abc", trace=str(repo / "traces" / "bw12_24_5_5.mahi"), ack_trace="traces/bw12.mahi")
    assert sc["hops"][0]["link"]["path"].endswith("bw12_24_5_5.mahi")
    assert sc["hops"][1]["link"]["type"] == "trace"
    assert sc["hops"][1]["link"]["path"].endswith("bw12.mahi")


def test_trace_found_from_another_directory(tmp_path, monkeypatch, trace_up):
    monkeypatch.chdir(tmp_path)
    sc = build_scenario("abc", duration_s=10)
    assert Path(sc["hops"][0]["link"]["path"]).resolve() == trace_up.resolve()
    # A bare file name is looked up among the bundled traces.
    assert resolve_trace("Verizon-LTE-short.down").endswith("traces/Verizon-LTE-short.down")


def test_missing_trace_names_the_path(tmp_path):
    missing = tmp_path / "nope.up"
    with pytest.raises(ScenarioError, match="nope.up") as e:
        build_scenario("abc", trace=str(missing))
    assert e.value.key == "trace"
    with pytest.raises(ScenarioError, match="ack_trace"):
        build_scenario("abc", trace=CONST, ack_trace=str(missing))


# --- --set overrides -------------------------------------------------------------------------

QUEUE = ("hops", 0, "queue")
PARAMS = ("flows", 0, "params")


def _get(sc, path):
    for p in path:
        sc = sc[p]
    return sc


@pytest.mark.parametrize(
    ("scheme", "item", "path", "value"),
    [
        ("abc", "abc.delta=100ms", (*QUEUE, "delta_ms"), 100.0),
        ("abc", "abc.delta=0.1s", (*QUEUE, "delta_ms"), 100.0),
        ("abc", "abc.delta_ms=120", (*QUEUE, "delta_ms"), 120.0),
        ("abc", "abc.eta=0.95", (*QUEUE, "eta"), 0.95),
        ("abc", "abc.dt=50ms", (*QUEUE, "dt_ms"), 50.0),
        ("abc", "abc.qdelay_ref=60", (*QUEUE, "dt_ms"), 60.0),
        ("abc", "abc.window=20ms", (*QUEUE, "window_ms"), 20.0),
        ("abc", "abc.token_limit=5", (*QUEUE, "token_limit"), 5.0),
        ("abc", "abc.rate_source=enqueue", (*QUEUE, "rate_source"), "enqueue"),
        ("abc", "abc.delay_source=Sojourn", (*QUEUE, "delay_source"), "sojourn"),
        ("abc-cubic", "abc.delta=80ms", (*QUEUE, "delta_ms"), 80.0),
        ("abc", "abc.additive_increase=false", (*PARAMS, "additive_increase"), 0.0),
        ("abc", "abc.additive_increase=on", (*PARAMS, "additive_increase"), 1.0),
        ("abc", "abc.min_window=6", (*PARAMS, "min_window"), 6.0),
        ("abc-cubic", "abc.min_window=8", (*PARAMS, "min_window"), 8.0),
        ("abc", "abc.pacing_gain=2", (*PARAMS, "pacing_gain"), 2.0),
        ("abc", "abc.initial_window=10", (*PARAMS, "initial_window"), 10.0),
        ("cubic", "cubic.beta=0.7", (*PARAMS, "beta"), 0.7),
        ("cubic", "cubic.hystart=false", (*PARAMS, "hystart"), 0.0),
        ("cubic", "cubic.hystart_ack_delta=2ms", (*PARAMS, "hystart_ack_delta_ms"), 2.0),
        ("newreno", "newreno.beta=0.5", (*PARAMS, "beta"), 0.5),
        ("newreno", "newreno.beta_ecn=0.8", (*PARAMS, "beta_ecn"), 0.8),
        ("cubic", "queue.packets=100", (*QUEUE, "packets"), 100),
        ("abc", "queue.packets=100", (*QUEUE, "packets"), 100),
        ("cubic", "queue.bytes=150000", (*QUEUE, "bytes"), 150000),
        ("cubic", "queue.bytes=150kB", (*QUEUE, "bytes"), 150000),
        ("cubic", "flow.ecn=true", ("flows", 0, "ecn"), True),
        ("cubic", "flow.delayed_ack=no", ("flows", 0, "delayed_ack"), False),
        ("cubic", "flow.start=1s", ("flows", 0, "start_ms"), 1000.0),
        ("cubic", "flow.stop=5s", ("flows", 0, "stop_ms"), 5000.0),
        ("cubic", "flow.extra_delay=10", ("flows", 0, "extra_delay_ms"), 10.0),
        ("cubic", "link.once=true", ("hops", 0, "link", "once"), True),
        ("abc", "abc.ai_per_segment=true", (*PARAMS, "ai_per_segment"), 1.0),
        ("c2tcp", "c2tcp.target=80ms", (*PARAMS, "target_ms"), 80.0),
        ("c2tcp", "c2tcp.cubic_holdoff=off", (*PARAMS, "cubic_holdoff"), 0.0),
        ("proprate", "proprate.target=60ms", (*PARAMS, "target_ms"), 60.0),
        ("proprate-h", "proprate.target=0.1s", (*PARAMS, "target_ms"), 100.0),
        ("proprate-l", "proprate.feedback=false", (*PARAMS, "feedback"), 0.0),
        ("copa", "copa.delta=0.25", (*PARAMS, "delta"), 0.25),
        ("vegas", "vegas.alpha=3", (*PARAMS, "alpha"), 3.0),
        ("ledbat", "ledbat.target=25ms", (*PARAMS, "target_ms"), 25.0),
        ("bbr", "bbr.cwnd_gain=2.5", (*PARAMS, "cwnd_gain"), 2.5),
    ],
)
def test_set_lands_in_the_right_place(scheme, item, path, value):
    sc = build_scenario(scheme, trace="traces/Verizon-LTE-short.up", sets=[item])
    got = _get(sc, path)
    assert got == value
    assert type(got) is type(value)


def test_flow_params_are_floats_in_json():
    sc = build_scenario("abc", trace=CONST, sets=["abc.additive_increase=false", "abc.min_window=6"])
    assert json.loads(json.dumps(sc))["flows"][0]["params"] == {"additive_increase": 0.0, "min_window": 6.0}


def test_queue_limit_switches_between_packets_and_bytes():
    sc = build_scenario("cubic", trace=CONST, sets=["queue.bytes=150000"])
    assert sc["hops"][0]["queue"] == {"type": "droptail", "bytes": 150000}
    sc = build_scenario("cubic", trace=CONST, sets=["queue.bytes=150000", "queue.packets=10"])
    assert sc["hops"][0]["queue"] == {"type": "droptail", "packets": 10}


def test_later_set_wins_and_mapping_is_accepted():
    sc = build_scenario("abc", trace=CONST, sets=["abc.eta=0.9", "abc.eta=0.95"])
    assert sc["hops"][0]["queue"]["eta"] == 0.95
    sc = build_scenario("abc", trace=CONST, sets={"abc.delta": "100ms", "abc.eta": 0.9})
    assert sc["hops"][0]["queue"]["delta_ms"] == 100.0
    assert sc["hops"][0]["queue"]["eta"] == 0.9


def test_sets_do_not_touch_the_ack_queue():
    sc = build_scenario("abc", trace=CONST, sets=["queue.packets=10", "abc.eta=0.9"])
    assert sc["hops"][1]["queue"] == {"type": "infinite"}


def test_flow_interval_staggers_starts():
    sc = build_scenario("cubic", trace=CONST, flows=3, sets=["flow.interval=10s"])
    assert [f["start_ms"] for f in sc["flows"]] == [0.0, 10000.0, 20000.0]
    assert all("count" not in f for f in sc["flows"])


def test_every_set_key_has_help_and_known_target():
    # Registry keys are prefixed by a scheme (family) or a queue type of the core's catalog.
    schemes = {s.name for s in catalog.schemes()}
    queues = {q.name for q in catalog.queues()}
    assert {"abc", "cubic", "newreno", "cubic-abe", "newreno-abe", "c2tcp", "proprate", "bbr", "copa",
            "vegas", "ledbat", "westwood"} <= schemes  # fmt: skip
    assert {
        "droptail", "infinite", "abc", "pk-abc", "abc-predict", "codel", "pie", "xcp", "xcp-w", "rcp", "vcp",
        "abc-coexist", "dualpi2",
    } == queues  # fmt: skip
    prefixes = schemes | queues | {"queue", "flow", "link"}
    for key, spec in SET_KEYS.items():
        assert spec.help, key
        assert spec.target in {"router", "param", "queue", "flow", "link"}, key
        prefix, _, name = key.partition(".")
        assert prefix in prefixes, key
        if spec.target == "param":
            assert spec.schemes and all(s in SCHEMES for s in spec.schemes), key
            assert prefix in schemes, key
        if spec.target == "router":
            assert spec.qtype == prefix and prefix in queues, key
        if spec.target in ("router", "param"):
            # a registry parameter: its range, unit and doc come from the catalog entry
            assert spec.kind == "param" and spec.param is not None, key
            assert spec.param.key == name and spec.field == spec.param.name, key
            assert spec.param.expected, key
        else:
            assert spec.param is None, key
    for key in ["bbr.probe_rtt", "westwood.bw_on_entry", "codel.packets", "abc.dt", "droptail.packets"]:
        assert key in SET_KEYS


# --- error messages --------------------------------------------------------------------------


def _error(scheme="abc", sets=(), **kw) -> ScenarioError:
    with pytest.raises(ScenarioError) as e:
        build_scenario(scheme, trace=kw.pop("trace", CONST), sets=sets, **kw)
    assert isinstance(e.value, SimulationError)
    assert isinstance(e.value, ValueError)
    assert "\n" not in str(e.value)
    return e.value


def test_unknown_key_did_you_mean():
    e = _error(sets=["abc.detla=100ms"])
    assert "abc.detla" in str(e)
    assert "did you mean 'abc.delta'" in str(e)
    assert e.key == "abc.detla"


def test_unknown_prefix_lists_keys():
    e = _error(sets=["tcp.beta=0.5"])
    assert "'tcp.beta'" in str(e)
    assert "cubic.beta" in str(e)  # the list of known keys


def test_misspelled_scheme_prefix():
    e = _error(scheme="cubic", sets=["cubc.beta=0.7"])
    assert "did you mean 'cubic.beta'" in str(e)


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        (
            "abc.delta=fast",
            "expected a time in ms in [0.001, 1e7] (like 50 or 50ms (bare numbers are ms)), got 'fast'",
        ),
        ("abc.delta=10parsecs", "unknown unit"),
        ("abc.eta=high", "expected a number in (0, 1], got 'high'"),
        ("abc.additive_increase=maybe", "true or false"),
        ("abc.rate_source=enq", "did you mean 'enqueue'"),
        ("abc.delay_source=depth", "expected qlen or sojourn"),
        ("queue.packets=ten", "a whole number"),
        ("queue.packets=1.5", "a whole number"),
        ("queue.bytes=lots", "bytes"),
    ],
)
def test_bad_value_names_key_and_form(item, expected):
    e = _error(sets=[item])
    key = item.partition("=")[0]
    assert f"--set {item}" in str(e)
    assert expected in str(e)
    assert e.key == key


@pytest.mark.parametrize(
    ("scheme", "item", "expected"),
    [
        # range-checked in Python against the core's table
        ("abc", "abc.eta=5", "expected a number in (0, 1], got '5'"),
        ("abc", "abc.delta=0", f"expected a time in ms in [0.001, 1e7] {TIME_FORM}, got '0'"),
        ("abc", "abc.min_window=0", "expected a number of segments in [1, 1e6], got '0'"),
        ("cubic", "cubic.beta=1.5", "expected a number in (0, 1), got '1.5'"),
        ("newreno", "newreno.beta=0", "expected a number in (0, 1], got '0'"),
        ("proprate-m", "proprate.target=0", f"expected a time in ms in (0, 10000] {TIME_FORM}, got '0'"),
        ("copa", "copa.delta=2", "expected a number in (0, 1], got '2'"),
        # checked by the core, its error put back on the --set item
        ("cubic", "queue.packets=0", "got 0; expected a whole number of packets in [1, 1e9]"),
        ("cubic", "queue.bytes=100", "got 100; expected a whole number of bytes in [1500, 1e12]"),
        ("c2tcp", "c2tcp.alpha_init=20", "got 20; expected a number in [alpha_min, alpha_max]"),
    ],
)
def test_out_of_range_value_names_the_set_item(scheme, item, expected):
    e = _error(scheme=scheme, sets=[item])
    assert str(e) == f"--set {item}: {expected}"
    assert e.key == item.partition("=")[0]


def test_missing_equals():
    e = _error(sets=["abc.delta"])
    assert "key=value" in str(e)


@pytest.mark.parametrize(
    ("scheme", "item"),
    [
        ("abc", "cubic.beta=0.7"),
        ("cubic", "abc.delta=100ms"),
        ("cubic", "abc.min_window=6"),
        ("abc", "newreno.beta=0.5"),
    ],
)
def test_inapplicable_key_is_an_error_unless_not_strict(scheme, item):
    e = _error(scheme=scheme, sets=[item])
    assert item.partition("=")[0] in str(e)
    sc = build_scenario(scheme, trace=CONST, sets=[item], strict=False)
    assert sc == build_scenario(scheme, trace=CONST)


def test_set_applies_and_sets_for_scheme():
    assert set_applies("abc.delta", "abc-cubic")
    assert not set_applies("abc.delta", "cubic")
    assert not set_applies("cubic.beta", "abc-cubic")
    assert set_applies("queue.packets", "newreno")
    keep, skipped = sets_for_scheme(["abc.delta=1ms", "cubic.beta=0.7", "queue.packets=9"], "cubic")
    assert keep == [("cubic.beta", "0.7"), ("queue.packets", "9")]
    assert skipped == ["abc.delta"]


def test_unknown_scheme_did_you_mean():
    with pytest.raises(ScenarioError, match=r"unknown scheme 'cubc' \(did you mean 'cubic'\?\)") as e:
        build_scenario("cubc")
    assert e.value.key == "scheme"


@pytest.mark.parametrize(
    ("kw", "name"),
    [
        ({"delay_ms": -1}, "delay_ms"),
        ({"buffer_packets": 0}, "buffer_packets"),
        ({"duration_s": 0}, "duration_s"),
        ({"flows": 0}, "flows"),
        ({"seed": -1}, "seed"),
        ({"sample_ms": 0.5}, "sample_ms"),
        ({"ack_mbps": "fast"}, "ack_mbps"),
        ({"delay_ms": "soon"}, "delay_ms"),
    ],
)
def test_bad_arguments_name_the_argument(kw, name):
    e = _error(**kw)
    assert str(e).startswith(name)
    assert e.key == name


def test_scenario_error_pickles():
    e = ScenarioError("--set x=1: bad", key="x")
    e2 = pickle.loads(pickle.dumps(e))
    assert type(e2) is ScenarioError
    assert str(e2) == str(e)
    assert e2.key == "x"


def test_apply_sets_on_a_hand_written_scenario():
    sc = {
        "duration_ms": 1000,
        "hops": [
            {"link": {"type": "constant", "mbps": 10}, "queue": {"type": "infinite"}},
            {"link": {"type": "constant", "mbps": 10}, "queue": {"type": "abc"}},
            {"link": {"type": "constant", "mbps": 10}, "queue": {"type": "infinite"}},
        ],
        "flows": [{"scheme": "abc", "fwd": [0, 1], "rev": [2], "count": 2}],
    }
    out = apply_sets(sc, ["abc.eta=0.9", "queue.packets=50", "abc.pacing_gain=0"])
    assert out["hops"][1]["queue"] == {"type": "abc", "eta": 0.9, "packets": 50}
    assert out["hops"][0]["queue"] == {"type": "infinite"}
    assert out["flows"][0]["params"] == {"pacing_gain": 0.0}
    assert "eta" not in sc["hops"][1]["queue"]  # the input is not modified


# --- scenario files --------------------------------------------------------------------------

TOML = """
duration_ms = 5000
seed = 3

[[hops]]
name = "uplink"
link = { type = "trace", path = "trace.up" }
queue = { type = "abc", packets = 100, delta_ms = 100 }
delay_ms = 20

[[hops]]
name = "ack"
link = { type = "constant", mbps = 12 }
queue = { type = "infinite" }
delay_ms = 20

[[flows]]
scheme = "abc"
fwd = [0]
rev = [1]
"""


def test_load_toml_resolves_trace_next_to_the_file(tmp_path, trace_up):
    if sys.version_info < (3, 11):
        pytest.importorskip("tomli")
    (tmp_path / "trace.up").write_text(trace_up.read_text())
    f = tmp_path / "s.toml"
    f.write_text(TOML)
    sc = load_scenario_file(f)
    assert sc["seed"] == 3
    assert sc["hops"][0]["queue"]["delta_ms"] == 100
    assert sc["hops"][0]["link"]["path"] == str(tmp_path / "trace.up")


def test_load_json_passes_through(tmp_path):
    doc = build_scenario("cubic", trace=CONST, duration_s=5)
    f = tmp_path / "s.json"
    f.write_text(json.dumps(doc))
    assert load_scenario_file(f) == doc
    assert load_scenario_file(f, sets=["cubic.beta=0.5"])["flows"][0]["params"] == {"beta": 0.5}


def test_load_errors_name_the_file(tmp_path):
    with pytest.raises(FileNotFoundError) as e:
        load_scenario_file(tmp_path / "missing.json")
    assert e.value.filename.endswith("missing.json")

    bad = tmp_path / "bad.json"
    bad.write_text('{"duration_ms": 1000,\n "hops": [}')
    with pytest.raises(ScenarioError, match=r"bad\.json: invalid JSON at line 2"):
        load_scenario_file(bad)

    bad = tmp_path / "bad.toml"
    bad.write_text("duration_ms = = 3")
    if sys.version_info < (3, 11):
        pytest.importorskip("tomli")
    with pytest.raises(ScenarioError, match=r"bad\.toml: invalid TOML"):
        load_scenario_file(bad)

    doc = build_scenario("cubic", trace=CONST)
    doc["hops"][0]["delay_ms"] = -5
    neg = tmp_path / "neg.json"
    neg.write_text(json.dumps(doc))
    with pytest.raises(SimulationError, match=r"neg\.json: parameter hops\[0\]\.delay_ms"):
        load_scenario_file(neg)

    lst = tmp_path / "list.json"
    lst.write_text("[1, 2]")
    with pytest.raises(ScenarioError, match=r"list\.json: expected an object"):
        load_scenario_file(lst)
