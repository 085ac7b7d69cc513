"""Fuzzing the core through ``accelbrake._core`` with hypothesis: whatever the scenario or trace
file, the result is a simulation or a typed :class:`SimulationError` — never another exception, a
panic, or a hang. Bounded and derandomised for CI (``ACCELBRAKE_FUZZ_EXAMPLES`` for longer runs)."""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path

import pytest
from accelbrake import SimulationError, _core
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

TRACE_UP = Path(__file__).resolve().parent.parent / "traces" / "Verizon-LTE-short.up"

EXAMPLES = int(os.environ.get("ACCELBRAKE_FUZZ_EXAMPLES", "60"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

BASE = {
    "duration_ms": 1000,
    "seed": 1,
    "sample_ms": 100,
    "record_packets": True,
    "hops": [
        {
            "name": "up",
            "link": {"type": "trace", "path": str(TRACE_UP)},
            "queue": {"type": "abc", "packets": 100, "eta": 0.98, "delta_ms": 133},
            "delay_ms": 20,
        },
        {
            "link": {"type": "constant", "mbps": 12},
            "queue": {"type": "codel", "target_ms": 5},
            "delay_ms": 20,
        },
        {
            "link": {"type": "schedule", "steps": [[0, 10], [300, 0], [500, 20]], "repeat_ms": 800},
            "queue": {"type": "pie", "packets": 50, "ecn": True},
            "delay_ms": 5,
        },
    ],
    "flows": [
        {"scheme": "abc", "fwd": [0], "rev": [1]},
        {
            "scheme": "cubic",
            "fwd": [2],
            "rev": [1],
            "app": {"type": "finite", "bytes": 50000},
            "extra_delay_ms": 3,
        },
        {"scheme": "bbr", "fwd": [0, 2], "rev": [1], "start_ms": 100, "stop_ms": 600, "params": {}},
    ],
}

HOSTILE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.integers(min_value=-2, max_value=300),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(
        ["", "x", "cubic", "abc", "trace", "constant", "droptail", "infinite", "codel", "pie", "/"]
    ),
    st.lists(st.integers(min_value=-1, max_value=5), max_size=3),
    st.just({}),
    st.just([[0, 1]]),
)


def _paths(doc, at=()):
    yield at
    if isinstance(doc, dict):
        for k, v in doc.items():
            yield from _paths(v, (*at, k))
    elif isinstance(doc, list):
        for i, v in enumerate(doc):
            yield from _paths(v, (*at, i))


def _check_error(e: SimulationError) -> None:
    assert str(e), "an error names the problem"
    assert e.kind in ("param", "trace", "scenario"), f"{e.kind}: {e}"
    if e.kind == "param":
        assert e.key
    if e.kind == "trace":
        assert e.path is not None and e.line is not None


def _run(doc) -> None:
    text = json.dumps(doc)  # NaN / Infinity become tokens JSON does not allow: an error, not a crash
    try:
        _core.validate(text)
    except SimulationError as e:
        _check_error(e)
        return
    d = json.loads(text)
    d["duration_ms"] = min(float(d["duration_ms"]), 1000.0)
    if sum(int(f.get("count", 1)) for f in d["flows"]) > 20:
        return
    if any(h["link"].get("mbps", 0) > 500 for h in d["hops"]):
        return  # valid, but slow: not what this fuzzer is for
    try:
        out = _core.simulate(json.dumps(d))
        json.loads(out["summary"])
    except SimulationError as e:
        _check_error(e)


@FUZZ
@given(data=st.data(), value=HOSTILE, op=st.sampled_from(["set", "delete", "add", "scale"]))
def test_scenario_mutations_give_results_or_typed_errors(data, value, op):
    doc = copy.deepcopy(BASE)
    paths = list(_paths(doc))
    path = data.draw(st.sampled_from(paths))
    if not path:
        doc = value
    else:
        parent = doc
        for k in path[:-1]:
            parent = parent[k]
        k = path[-1]
        if op == "set":
            parent[k] = value
        elif op == "delete":
            del parent[k]
        elif op == "add" and isinstance(parent, dict):
            parent[f"{k}_extra"] = value
        elif op == "scale" and isinstance(parent[k], (int, float)) and not isinstance(parent[k], bool):
            parent[k] = parent[k] * data.draw(st.sampled_from([0, 1e-6, 0.5, 2, 1000, 1e6]))
    _run(doc)


@FUZZ
@given(text=st.text(alphabet=st.sampled_from(list("0123456789 \r\n-x.\t\ufeff")), max_size=80))
def test_trace_files_give_info_or_typed_errors(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("fuzz") / "t.trace"
    path.write_text(text, encoding="utf-8")
    try:
        n, period, mbps = _core.trace_info(str(path))
    except SimulationError as e:
        _check_error(e)
        assert e.kind == "trace" and e.path == str(path)
        return
    assert n > 0 and period > 0 and mbps > 0


def test_errors_carry_typed_fields(tmp_path):
    bad = copy.deepcopy(BASE)
    bad["hops"][0]["delay_ms"] = -1
    with pytest.raises(SimulationError) as e:
        _core.validate(json.dumps(bad))
    assert (e.value.kind, e.value.key) == ("param", "hops[0].delay_ms")
    trace = tmp_path / "bad.up"
    trace.write_text("1\n2\nthree\n")
    with pytest.raises(SimulationError) as e:
        _core.trace_info(str(trace))
    assert (e.value.kind, e.value.path, e.value.line) == ("trace", str(trace), 3)
    with pytest.raises(SimulationError) as e:
        _core.validate("{")
    assert e.value.kind == "scenario" and e.value.key is None
