"""AQM presets (cubic+codel, newreno-abe, ...), Mahimahi-style --queue specs, the codel/pie/ABE
--set keys, the ECN rules and their error messages."""

from __future__ import annotations

import json

import accelbrake
import pytest
from accelbrake import SCHEMES, ScenarioError, SimulationError, build_scenario, catalog, parse_queue_spec
from accelbrake.scenarios import (
    QUEUE_KEYS,
    SET_KEYS,
    apply_sets,
    load_scenario_file,
    scheme_preset,
    set_applies,
    sets_for_scheme,
)

CONST = "const:10"
#: What a CoDel time (target, interval) must be, as the core's table says.
#: How a time value may be written, as the errors of time parameters say.
TIME_FORM = "(like 50 or 50ms (bare numbers are ms))"
CODEL_TIME = f"a time in ms in [0.000001, 1e7] {TIME_FORM}"


def _queue(sc):
    return sc["hops"][0]["queue"]


# --- presets ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("scheme", "cc", "queue", "ecn"),
    [
        ("cubic+codel", "cubic", "codel", False),
        ("cubic+pie", "cubic", "pie", False),
        ("newreno+codel", "newreno", "codel", False),
        ("newreno+pie", "newreno", "pie", False),
        ("newreno-abe", "newreno-abe", "codel", True),
        ("cubic-abe", "cubic-abe", "codel", True),
        ("newreno-abe+pie", "newreno-abe", "pie", True),
        ("cubic-abe+pie", "cubic-abe", "pie", True),
    ],
)
def test_aqm_presets_produce_the_right_json(scheme, cc, queue, ecn):
    assert SCHEMES[scheme] == (cc, queue, ecn)
    sc = build_scenario(scheme, trace=CONST)
    assert _queue(sc) == {"type": queue, "packets": 250, "ecn": ecn}
    flow = sc["flows"][0]
    assert flow["scheme"] == cc
    assert flow["params"] == {}
    assert flow.get("ecn", False) is ecn
    assert sc["hops"][1]["queue"] == {"type": "infinite"}
    json.dumps(sc, allow_nan=False)


def test_every_preset_controller_is_in_the_core():
    assert {p.cc for p in SCHEMES.values()} <= set(accelbrake._core.schemes())
    assert {p.queue for p in SCHEMES.values()} <= set(QUEUE_KEYS)


@pytest.mark.parametrize(
    "name", ["Cubic+CoDel", "cubic + codel", "CUBIC+codel", "cubic_abe", "NewReno_ABE+PIE"]
)
def test_scheme_names_are_case_space_and_underscore_insensitive(name):
    preset = scheme_preset(name)
    assert build_scenario(name, trace=CONST)["flows"][0]["scheme"] == preset.cc


@pytest.mark.parametrize(
    ("name", "hint"),
    [("cubic+codl", "cubic+codel"), ("abe-cubic", "cubic-abe"), ("newreno-abe+pei", "newreno-abe+pie")],
)
def test_unknown_scheme_suggests(name, hint):
    with pytest.raises(ScenarioError) as e:
        scheme_preset(name)
    assert f"did you mean '{hint}'" in str(e.value)
    assert e.value.key == "scheme"


# --- ECN on / off ----------------------------------------------------------------------------


@pytest.mark.parametrize("how", [{"ecn": True}, {"sets": ["flow.ecn=true"]}])
@pytest.mark.parametrize("scheme", ["cubic+codel", "newreno+pie"])
def test_ecn_on_makes_the_aqm_mark(scheme, how):
    sc = build_scenario(scheme, trace=CONST, **how)
    assert sc["flows"][0]["ecn"] is True
    assert _queue(sc)["ecn"] is True


def test_ecn_on_a_droptail_scheme_only_touches_the_flow():
    sc = build_scenario("cubic", trace=CONST, ecn=True)
    assert sc["flows"][0]["ecn"] is True
    assert _queue(sc) == {"type": "droptail", "packets": 250}


def test_ecn_off_is_the_default_and_can_be_explicit():
    assert build_scenario("cubic+codel", trace=CONST, ecn=False) == build_scenario("cubic+codel", trace=CONST)
    sc = build_scenario("newreno-abe", trace=CONST, sets=["flow.ecn=true"])
    assert _queue(sc)["ecn"] is True


@pytest.mark.parametrize(
    ("kw", "queue_ecn"),
    [
        ({"ecn": True, "sets": ["codel.ecn=false"]}, False),
        ({"ecn": True, "queue": "codel ecn=0"}, False),
        ({"queue": "codel ecn=1"}, True),
        ({"sets": ["codel.ecn=true"]}, True),
    ],
)
def test_an_explicit_queue_ecn_wins(kw, queue_ecn):
    sc = build_scenario("cubic+codel", trace=CONST, **kw)
    assert _queue(sc)["ecn"] is queue_ecn


def test_abe_with_another_queue_keeps_marking():
    assert _queue(build_scenario("newreno-abe", trace=CONST, queue="pie"))["ecn"] is True
    sc = build_scenario("cubic-abe", trace=CONST, queue="codel ecn=false")
    assert _queue(sc)["ecn"] is False  # explicit: the user asked for a dropping CoDel
    assert sc["flows"][0]["ecn"] is True


@pytest.mark.parametrize(
    ("kw", "needle"), [({"ecn": False}, "ecn=False"), ({"sets": ["flow.ecn=no"]}, "flow.ecn=no")]
)
def test_abe_cannot_turn_ecn_off(kw, needle):
    with pytest.raises(ScenarioError, match="newreno-abe always uses ECN") as e:
        build_scenario("newreno-abe", trace=CONST, **kw)
    assert needle in str(e.value)
    assert "newreno+codel" in str(e.value)


# --- --queue specs ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "queue"),
    [
        (
            "codel target=50,interval=100,packets=250",
            {"type": "codel", "target_ms": 50.0, "interval_ms": 100.0, "packets": 250},
        ),
        (
            "pie qdelay_ref=20,t_update=30,max_burst=100,alpha=0.125,beta=1.25,ecn=1,packets=1000",
            {
                "type": "pie",
                "qdelay_ref_ms": 20.0,
                "t_update_ms": 30.0,
                "max_burst_ms": 100.0,
                "alpha": 0.125,
                "beta": 1.25,
                "ecn": True,
                "packets": 1000,
            },
        ),
        ("droptail packets=100", {"type": "droptail", "packets": 100}),
        ("droptail bytes=150000", {"type": "droptail", "bytes": 150000}),
        ("droptail bytes=150kB", {"type": "droptail", "bytes": 150000}),
        ("infinite", {"type": "infinite"}),
        ("abc delta=133,qdelay_ref=50", {"type": "abc", "delta_ms": 133.0, "dt_ms": 50.0}),
        ("abc window=20ms,eta=0.95", {"type": "abc", "window_ms": 20.0, "eta": 0.95}),
        ("cellular delta=100", {"type": "abc", "delta_ms": 100.0}),
        ("codel target=50ms,interval=0.1s", {"type": "codel", "target_ms": 50.0, "interval_ms": 100.0}),
        ("CoDel target = 5, interval = 100", {"type": "codel", "target_ms": 5.0, "interval_ms": 100.0}),
        ("codel target=5 interval=100 ecn",
         {"type": "codel", "target_ms": 5.0, "interval_ms": 100.0, "ecn": True}),
        ("codel:mtu=1500,limit=300", {"type": "codel", "mtu": 1500, "packets": 300}),
        ("pie target=15,tupdate=15,ecn_prob_max=0.2",
         {"type": "pie", "qdelay_ref_ms": 15.0, "t_update_ms": 15.0, "ecn_prob_max": 0.2}),
        ("pie derandomize=yes,bytemode=off,dq_rate_estimator=true,max_burst=0",
         {"type": "pie", "derandomize": True, "bytemode": False, "dq_rate_estimator": True,
          "max_burst_ms": 0.0}),
    ],
)  # fmt: skip
def test_queue_spec_parses(spec, queue):
    assert parse_queue_spec(spec) == queue


@pytest.mark.parametrize(
    ("spec", "message", "key"),
    [
        ("codel targt=5", "--queue codel: key 'targt' unknown (did you mean 'target'?)", "targt"),
        ("pie qdelay=20", "--queue pie: key 'qdelay' unknown (did you mean 'qdelay_ref'?)", "qdelay"),
        ("codel target=", f"--queue codel: target=: missing value; expected {CODEL_TIME}", "target"),
        ("codel target", "--queue codel: target: missing value", "target"),
        ("codel target=-5", f"--queue codel: target=-5: expected {CODEL_TIME}, got '-5'", "target"),
        ("codel target=0", f"--queue codel: target=0: expected {CODEL_TIME}, got '0'", "target"),
        ("codel target=fast", f"--queue codel: target=fast: expected {CODEL_TIME}, got 'fast'", "target"),
        ("codel interval=5parsecs", "--queue codel: interval=5parsecs: unknown unit 'parsecs'", "interval"),
        ("codel packets=1.5",
         "--queue codel: packets=1.5: expected a whole number of packets in [1, 1e9], got '1.5'", "packets"),
        ("codel packets=0",
         "--queue codel: packets=0: expected a whole number of packets in [1, 1e9], got '0'", "packets"),
        ("codel mtu=-1",  # 0 is valid: CoDel then never skips dropping for the last packet
         "--queue codel: mtu=-1: expected a whole number of bytes in [0, 1e6], got '-1'", "mtu"),
        ("codel bytes=1000",
         "--queue codel: bytes=1000: expected a whole number of bytes in [1500, 1e12], got '1000'", "bytes"),
        ("codel ecn=maybe", "--queue codel: ecn=maybe: expected true or false", "ecn"),
        ("pie alpha=-0.1", "--queue pie: alpha=-0.1: expected a number of 1/s in [0, 1e6], got '-0.1'",
         "alpha"),
        ("pie alpha=x", "--queue pie: alpha=x: expected a number of 1/s in [0, 1e6], got 'x'", "alpha"),
        ("pie max_burst=-1",
         f"--queue pie: max_burst=-1: expected a time in ms in [0, 1e7] {TIME_FORM}, got '-1'", "max_burst"),
        ("pie ecn_prob_max=1.5", "--queue pie: ecn_prob_max=1.5: expected a number in [0, 1], got '1.5'",
         "ecn_prob_max"),
        ("abc delta=-5",
         f"--queue abc: delta=-5: expected a time in ms in [0.001, 1e7] {TIME_FORM}, got '-5'", "delta"),
        ("abc rate_source=enq", "--queue abc: rate_source=enq: got 'enq' (did you mean 'enqueue'?)",
         "rate_source"),
        ("codel target=5,target=6", "--queue codel: key 'target' given twice", "target"),
        ("codel packets=10,bytes=15000", "--queue codel: give packets or bytes, not both", "bytes"),
        ("infinite packets=10", "--queue infinite: takes no parameters", "packets"),
        ("codl target=5", "--queue codl: unknown queue type 'codl' (did you mean 'codel'?)", "queue"),
        ("red", "--queue red: unknown queue type 'red'; available: droptail, infinite, abc, pk-abc, "
         "abc-predict, codel, pie, xcp, xcp-w, rcp, vcp", "queue"),
        ("", "expected TYPE [key=value,...]", "queue"),
        ("=5", "expected TYPE [key=value,...]", "queue"),
    ],
)  # fmt: skip
def test_bad_queue_specs_name_the_key(spec, message, key):
    with pytest.raises(ScenarioError) as e:
        parse_queue_spec(spec)
    assert message in str(e.value)
    assert e.value.key == key
    assert "\n" not in str(e.value)
    assert isinstance(e.value, SimulationError)


def test_unknown_queue_key_lists_the_known_ones():
    with pytest.raises(
        ScenarioError,
        match=r"^--queue codel: key 'foo' unknown; codel keys: target, interval, mtu, ecn, packets, bytes$",
    ):
        parse_queue_spec("codel foo=1")


def test_queue_replaces_the_preset_queue_and_takes_the_buffer():
    sc = build_scenario("cubic", trace=CONST, queue="codel target=50,interval=100")
    assert _queue(sc) == {
        "type": "codel",
        "target_ms": 50.0,
        "interval_ms": 100.0,
        "packets": 250,
        "ecn": False,
    }
    sc = build_scenario("cubic+codel", trace=CONST, buffer_packets=80, queue="pie bytes=150000")
    assert _queue(sc) == {"type": "pie", "bytes": 150000, "ecn": False}
    assert _queue(build_scenario("abc", trace=CONST, queue="infinite")) == {"type": "infinite"}
    assert _queue(build_scenario("cubic", trace=CONST, buffer_packets=80, queue="droptail")) == {
        "type": "droptail",
        "packets": 80,
    }


def test_queue_as_a_json_object():
    sc = build_scenario("cubic", trace=CONST, queue={"type": "pie", "qdelay_ref_ms": 20})
    assert _queue(sc) == {"type": "pie", "qdelay_ref_ms": 20, "packets": 250, "ecn": False}
    # A JSON object takes the scenario field names; the core's error is put back on the user's key.
    with pytest.raises(ScenarioError) as e:
        build_scenario("cubic", trace=CONST, queue={"type": "codel", "target": 5})
    assert str(e.value) == (
        "queue target=5: unknown parameter (did you mean 'target_ms'?); "
        "the codel queue accepts: target_ms, interval_ms, mtu, ecn, packets, bytes"
    )
    assert e.value.key == "target"


@pytest.mark.parametrize(
    ("queue", "message", "key"),
    [
        (
            "codel bytes=1000",
            "--queue codel: bytes=1000: expected a whole number of bytes in [1500, 1e12], got '1000'",
            "bytes",
        ),
        (
            {"type": "codel", "bytes": 1000},
            "queue bytes=1000: got 1000; expected a whole number of bytes in [1500, 1e12]",
            "bytes",
        ),
        (
            {"type": "codel", "target_ms": -5},
            "queue target_ms=-5: got -5; expected a time in ms in [0.000001, 1e7]",
            "target_ms",
        ),
    ],
)
def test_range_errors_name_the_queue_parameter(queue, message, key):
    # The --queue spec is range-checked in Python, a JSON object by the core: both name the key.
    with pytest.raises(ScenarioError) as e:
        build_scenario("cubic", trace=CONST, queue=queue)
    assert str(e.value) == message
    assert e.value.key == key


def test_sets_apply_after_the_queue_spec():
    sc = build_scenario("cubic", trace=CONST, queue="codel target=50,packets=100",
                        sets=["codel.target=20ms", "queue.bytes=300000"])  # fmt: skip
    assert _queue(sc) == {"type": "codel", "target_ms": 20.0, "bytes": 300000, "ecn": False}


@pytest.mark.parametrize(
    ("scheme", "item", "queue"),
    [
        ("cubic+codel", "codel.bytes=150kB", {"type": "codel", "bytes": 150000, "ecn": False}),
        ("cubic+pie", "pie.bytes=150000", {"type": "pie", "bytes": 150000, "ecn": False}),
        ("cubic", "droptail.bytes=150000", {"type": "droptail", "bytes": 150000}),
        ("abc", "abc.bytes=150000", {"type": "abc", "bytes": 150000}),
    ],
)
def test_a_queue_types_bytes_key_replaces_the_packet_limit(scheme, item, queue):
    # Like queue.bytes (and a --queue spec with bytes=): the preset's 250-packet limit goes, rather
    # than the core rejecting "give either packets or bytes, not both" without naming the --set key.
    sc = build_scenario(scheme, trace=CONST, sets=[item])
    assert _queue(sc) == queue


# --- --set keys for the AQMs and ABE ---------------------------------------------------------

QUEUE = ("hops", 0, "queue")
PARAMS = ("flows", 0, "params")


@pytest.mark.parametrize(
    ("scheme", "item", "path", "value"),
    [
        ("cubic+codel", "codel.target=50ms", (*QUEUE, "target_ms"), 50.0),
        ("cubic+codel", "codel.target_ms=50", (*QUEUE, "target_ms"), 50.0),
        ("cubic+codel", "codel.interval=0.2s", (*QUEUE, "interval_ms"), 200.0),
        ("cubic+codel", "codel.ecn=true", (*QUEUE, "ecn"), True),
        ("cubic+codel", "codel.mtu=1500", (*QUEUE, "mtu"), 1500),
        ("newreno-abe", "codel.target=10", (*QUEUE, "target_ms"), 10.0),
        ("cubic+pie", "pie.qdelay_ref=20", (*QUEUE, "qdelay_ref_ms"), 20.0),
        ("cubic+pie", "pie.target=20ms", (*QUEUE, "qdelay_ref_ms"), 20.0),
        ("cubic+pie", "pie.t_update=30ms", (*QUEUE, "t_update_ms"), 30.0),
        ("cubic+pie", "pie.max_burst=100", (*QUEUE, "max_burst_ms"), 100.0),
        ("cubic+pie", "pie.alpha=0.125", (*QUEUE, "alpha"), 0.125),
        ("cubic+pie", "pie.beta=1.25", (*QUEUE, "beta"), 1.25),
        ("cubic+pie", "pie.ecn=1", (*QUEUE, "ecn"), True),
        ("cubic+pie", "pie.ecn_prob_max=0.2", (*QUEUE, "ecn_prob_max"), 0.2),
        ("cubic+pie", "pie.derandomize=yes", (*QUEUE, "derandomize"), True),
        ("cubic+pie", "pie.bytemode=on", (*QUEUE, "bytemode"), True),
        ("cubic+pie", "pie.dq_rate_estimator=true", (*QUEUE, "dq_rate_estimator"), True),
        ("cubic+pie", "queue.packets=1000", (*QUEUE, "packets"), 1000),
        ("newreno+codel", "newreno.abe_slow_start=false", (*PARAMS, "abe_slow_start"), 0.0),
        ("newreno-abe", "newreno.beta_ecn=0.9", (*PARAMS, "beta_ecn"), 0.9),
        ("newreno-abe", "newreno-abe.beta_ecn=0.9", (*PARAMS, "beta_ecn"), 0.9),
        ("newreno-abe", "newreno_abe.abe_slow_start=off", (*PARAMS, "abe_slow_start"), 0.0),
        ("newreno-abe", "newreno-abe.beta=0.6", (*PARAMS, "beta"), 0.6),
        ("cubic", "cubic.beta_ecn=0.85", (*PARAMS, "beta_ecn"), 0.85),
        ("cubic+codel", "cubic.abe_slow_start=0", (*PARAMS, "abe_slow_start"), 0.0),
        ("cubic-abe", "cubic-abe.beta_ecn=0.95", (*PARAMS, "beta_ecn"), 0.95),
        ("cubic-abe", "cubic.beta_ecn=0.95", (*PARAMS, "beta_ecn"), 0.95),
        ("cubic-abe", "cubic-abe.hystart=false", (*PARAMS, "hystart"), 0.0),
        ("cubic-abe", "cubic-abe.hystart_ack_delta_ms=3", (*PARAMS, "hystart_ack_delta_ms"), 3.0),
    ],
)
def test_aqm_and_abe_sets_land_in_place(scheme, item, path, value):
    sc = build_scenario(scheme, trace=CONST, sets=[item])
    got = sc
    for p in path:
        got = got[p]
    assert got == value
    assert type(got) is type(value)


@pytest.mark.parametrize(
    ("scheme", "item", "expected"),
    [
        ("cubic+codel", "codel.target=-5", f"--set codel.target=-5: expected {CODEL_TIME}, got '-5'"),
        ("cubic+codel", "codel.target=", f"--set codel.target=: missing value; expected {CODEL_TIME}"),
        (
            "cubic+codel",
            "codel.interval=soon",
            f"--set codel.interval=soon: expected {CODEL_TIME}, got 'soon'",
        ),
        (
            "cubic+codel",
            "codel.mtu=-3",
            "--set codel.mtu=-3: expected a whole number of bytes in [0, 1e6], got '-3'",
        ),
        ("cubic+codel", "codel.trget=5", "unknown --set key 'codel.trget' (did you mean 'codel.target'?)"),
        ("cubic+pie", "pie.alpha=-1", "--set pie.alpha=-1: expected a number of 1/s in [0, 1e6], got '-1'"),
        ("cubic+pie", "pie.ecn_prob_max=2", "--set pie.ecn_prob_max=2: expected a number in [0, 1], got '2'"),
        ("cubic+pie", "pie.qdelay=20", "did you mean 'pie.qdelay_ref'"),
        ("cubic", "codel.target=5", "--set codel.target=5: it sets CoDel, but no hop has a codel queue"),
        ("cubic+codel", "pie.alpha=0.1", "--set pie.alpha=0.1: it sets PIE, but no hop has a pie queue"),
        ("cubic", "cubic-abe.beta_ecn=0.9", "it applies to cubic-abe flows, but the flows use cubic"),
        ("newreno", "newreno-abe.beta_ecn=0.9", "it applies to newreno-abe flows"),
        (
            "cubic-abe",
            "cubic-abe.beta_ecn=1.5",
            "--set cubic-abe.beta_ecn=1.5: expected a number in (0, 1], got '1.5'",
        ),
        (
            "cubic-abe",
            "cubic.beta_ecn=1.5",
            "--set cubic.beta_ecn=1.5: expected a number in (0, 1], got '1.5'",
        ),
        (
            "newreno-abe",
            "newreno-abe.beta_ecn=0",
            "--set newreno-abe.beta_ecn=0: expected a number in (0, 1], got '0'",
        ),
        (
            "cubic",
            "cubic.hystart_ack_delta=5000",
            "--set cubic.hystart_ack_delta=5000: expected a time in ms in [0, 1000] "
            "(like 50 or 50ms (bare numbers are ms)), got '5000'",
        ),
    ],
)
def test_bad_aqm_and_abe_sets(scheme, item, expected):
    with pytest.raises(ScenarioError) as e:
        build_scenario(scheme, trace=CONST, sets=[item])
    assert expected in str(e.value)
    assert "\n" not in str(e.value)
    assert e.value.key == item.partition("=")[0]


def test_set_applies_knows_queues_and_abe_prefixes():
    assert set_applies("codel.target", "cubic+codel")
    assert set_applies("codel.target", "newreno-abe")
    assert not set_applies("codel.target", "cubic")
    assert not set_applies("codel.target", "cubic+pie")
    assert set_applies("codel.target", "cubic", queue="codel")
    assert not set_applies("codel.target", "cubic+codel", queue="pie")
    assert set_applies("pie.alpha", "cubic-abe+pie")
    assert set_applies("cubic.beta_ecn", "cubic-abe")
    assert set_applies("cubic.beta_ecn", "cubic+codel")
    assert not set_applies("cubic-abe.beta_ecn", "cubic")
    assert set_applies("newreno-abe.beta_ecn", "newreno-abe+pie")
    assert not set_applies("queue.packets", "cubic", queue="infinite")
    keep, skipped = sets_for_scheme(["codel.target=50ms", "pie.alpha=0.1", "cubic.beta=0.7"], "cubic+codel")
    assert keep == [("codel.target", "50ms"), ("cubic.beta", "0.7")]
    assert skipped == ["pie.alpha"]


def test_abe_copies_of_sender_keys_are_hidden_from_the_listing():
    assert not SET_KEYS["newreno-abe.beta_ecn"].listed
    assert SET_KEYS["newreno-abe.beta_ecn"].schemes == ("newreno-abe",)
    assert SET_KEYS["newreno.beta_ecn"].schemes == ("newreno", "newreno-abe")
    assert SET_KEYS["codel.target"].listed


def test_apply_sets_reaches_every_queue_of_the_type_and_not_the_flow_ecn():
    sc = {
        "duration_ms": 1000,
        "hops": [
            {"link": {"type": "constant", "mbps": 10}, "queue": {"type": "codel"}},
            {"link": {"type": "constant", "mbps": 10}, "queue": {"type": "codel", "target_ms": 3}},
        ],
        "flows": [{"scheme": "cubic", "fwd": [0, 1], "rev": [1]}],
    }
    out = apply_sets(sc, ["codel.interval=50", "flow.ecn=true"])
    assert [h["queue"] for h in out["hops"]] == [
        {"type": "codel", "interval_ms": 50.0},
        {"type": "codel", "target_ms": 3, "interval_ms": 50.0},
    ]
    assert out["flows"][0]["ecn"] is True


# --- scenario files --------------------------------------------------------------------------


def test_scenario_file_passes_aqm_queues_through(tmp_path):
    doc = build_scenario("newreno-abe", trace=CONST, duration_s=5, queue="pie qdelay_ref=20,t_update=30")
    f = tmp_path / "abe.json"
    f.write_text(json.dumps(doc))
    assert load_scenario_file(f) == doc
    out = load_scenario_file(f, sets=["pie.alpha=0.25", "newreno-abe.beta_ecn=0.7"])
    assert out["hops"][0]["queue"]["alpha"] == 0.25
    assert out["flows"][0]["params"] == {"beta_ecn": 0.7}


def test_scenario_file_with_a_bad_codel_key_names_it(tmp_path):
    doc = build_scenario("cubic+codel", trace=CONST, duration_s=5)
    doc["hops"][0]["queue"]["targt_ms"] = 5
    f = tmp_path / "bad.json"
    f.write_text(json.dumps(doc))
    with pytest.raises(ScenarioError) as e:
        load_scenario_file(f)
    msg = str(e.value)
    assert msg == (
        f"scenario file {f}: parameter hops[0].queue.targt_ms: unknown parameter (did you mean "
        "'target_ms'?); the codel queue accepts: target_ms, interval_ms, mtu, ecn, packets, bytes"
    )
    assert "line 1 column" not in msg
    assert e.value.key == "hops[0].queue.targt_ms"


def test_scenario_file_with_an_out_of_range_queue_value_names_it(tmp_path):
    doc = build_scenario("cubic+codel", trace=CONST, duration_s=5)
    doc["hops"][0]["queue"]["target_ms"] = -5
    f = tmp_path / "bad.json"
    f.write_text(json.dumps(doc))
    with pytest.raises(ScenarioError) as e:
        load_scenario_file(f)
    assert str(e.value) == (
        f"scenario file {f}: parameter hops[0].queue.target_ms: got -5; "
        "expected a time in ms in [0.000001, 1e7]"
    )
    assert e.value.key == "hops[0].queue.target_ms"


def test_scenario_file_names_the_right_hop_when_the_key_is_valid_elsewhere(tmp_path):
    doc = build_scenario("cubic+codel", trace=CONST, duration_s=5, sets=["codel.mtu=1500"])
    doc["hops"][1]["queue"] = {"type": "pie", "mtu": 1500}  # PIE has no mtu in the schema
    f = tmp_path / "bad.json"
    f.write_text(json.dumps(doc))
    with pytest.raises(ScenarioError) as e:
        load_scenario_file(f)
    msg = str(e.value)
    assert msg.startswith(f"scenario file {f}: parameter hops[1].queue.mtu: unknown parameter")
    assert msg.endswith(
        "the pie queue accepts: qdelay_ref_ms, t_update_ms, max_burst_ms, alpha, beta, ecn, "
        "ecn_prob_max, derandomize, bytemode, dq_rate_estimator, packets, bytes"
    )
    assert e.value.key == "hops[1].queue.mtu"


def test_scenario_file_with_a_bad_queue_type(tmp_path):
    f = tmp_path / "bad.toml"
    f.write_text(
        'duration_ms = 1000\n[[hops]]\nlink = { type = "constant", mbps = 10 }\nqueue = { type = "codle" }\n'
        '[[flows]]\nscheme = "cubic"\nfwd = [0]\nrev = [0]\n'
    )
    with pytest.raises(ScenarioError) as e:
        load_scenario_file(f)
    assert str(e.value) == (
        f"scenario file {f}: parameter hops[0].queue.type: unknown queue type 'codle' "
        f"(did you mean 'codel'?); available: {', '.join(q.name for q in catalog.queues())}"
    )


# --- it runs ---------------------------------------------------------------------------------


def test_codel_with_ecn_marks_instead_of_dropping():
    def run(scheme, **kw):
        sc = build_scenario(scheme, trace=CONST, ack_mbps=10, duration_s=20, record_packets=False, **kw)
        return accelbrake.simulate(sc).summary["hops"][0]

    plain = run("cubic+codel")
    marking = run("cubic+codel", ecn=True)
    abe = run("cubic-abe")
    assert plain["queue"] == "codel" and plain["drops"] > 0 and plain["marks"] == 0
    assert marking["marks"] > 0 and marking["drops"] == 0
    assert abe["marks"] > 0 and abe["drops"] == 0
