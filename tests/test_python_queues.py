"""Python router queues: a pass-through Python queue is drop-tail bit for bit; marking and
dropping decisions reach the flows; errors name the queue and the callback."""

from __future__ import annotations

import json

import accelbrake
import pytest
from accelbrake import _core, controllers


class PassThrough(accelbrake.Queue):
    """Drop-tail written as a Python queue: every decision is 'pass'."""

    def on_enqueue(self, now, pkt, len_packets, len_bytes):
        return "pass"

    def on_dequeue(self, now, pkt, len_packets, len_bytes):
        return None


class StepMarker(accelbrake.Queue):
    """DCTCP-style step marking on sojourn time (CE when the head waited longer than K)."""

    params = {"packets": 1000, "k_ms": 10.0}

    def on_dequeue(self, now, pkt, len_packets, len_bytes):
        if not pkt.is_ack and pkt.sojourn_ns > self.params["k_ms"] * 1e6:
            return "mark"
        return None


class Broken(accelbrake.Queue):
    def on_enqueue(self, now, pkt, len_packets, len_bytes):
        return "maybe"


@pytest.fixture(autouse=True)
def _registered():
    accelbrake.register_queue("py-droptail", PassThrough)
    accelbrake.register_queue("step-marker", StepMarker)
    accelbrake.register_queue("broken", Broken)
    yield
    for n in ("py-droptail", "step-marker", "broken"):
        accelbrake.unregister_queue(n)


def _raw(scheme, **kw):
    sc = accelbrake.build_scenario(scheme, **kw)
    js, specs = controllers.prepare(json.dumps(sc))
    return _core.simulate(js, specs)


@pytest.mark.parametrize("kw", [dict(trace="const:12", delay_ms=20), dict(flows=2)])
def test_pass_through_python_queue_is_droptail_bit_for_bit(kw):
    kw = dict(kw, duration_s=5, buffer_packets=60)
    ref = _raw("cubic", queue="droptail", **kw)
    got = _raw("cubic", queue="py-droptail", **kw)
    s_ref, s_got = json.loads(ref["summary"]), json.loads(got["summary"])
    assert s_got["hops"][0].pop("queue") == "py-droptail"
    s_ref["hops"][0].pop("queue")
    assert s_got == s_ref
    for t, cols in ref["tables"].items():
        for c, v in cols.items():
            assert got["tables"][t][c] == v, f"{t}.{c}"


def test_marking_queue_marks_ecn_flows_instead_of_dropping():
    r = accelbrake.simulate(
        accelbrake.build_scenario(
            "newreno", trace="const:12", delay_ms=20, duration_s=5, queue="step-marker k_ms=5", ecn=True
        )
    )
    hop = r.summary["hops"][0]
    assert hop["marks"] > 0 and hop["drops"] == 0
    assert r.summary["queueing_delay_ms"]["p50"] < 30
    # the same queue drops a flow that is not ECN-capable
    r2 = accelbrake.simulate(
        accelbrake.build_scenario("newreno", trace="const:12", delay_ms=20, duration_s=5, queue="step-marker")
    )
    assert r2.summary["hops"][0]["drops"] > 0 and r2.summary["hops"][0]["marks"] == 0


def test_queue_errors_name_queue_callback_and_parameter():
    with pytest.raises(
        accelbrake.ControllerError, match=r"queue 'broken' \(hops\[0\]\) failed in on_enqueue"
    ):
        accelbrake.simulate(
            accelbrake.build_scenario("cubic", trace="const:12", duration_s=1, queue="broken")
        )
    with pytest.raises(accelbrake.ScenarioError, match="key 'k_m' unknown.*did you mean 'k_ms'"):
        accelbrake.build_scenario("cubic", trace="const:12", queue="step-marker k_m=5")
    sc = accelbrake.build_scenario("cubic", trace="const:12", queue="step-marker")
    sc["hops"][0]["queue"]["k_ms"] = "x"
    with pytest.raises(accelbrake.SimulationError, match=r"hops\[0\]\.queue\.k_ms.*expected a finite number"):
        accelbrake.simulate(sc)
    with pytest.raises(accelbrake.ScenarioError, match="built-in queue type"):
        accelbrake.register_queue("codel", PassThrough)
