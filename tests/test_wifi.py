"""The 802.11n link as the Python layer sees it: ``wifi:`` link texts, errors naming the item, a
run through the core with its ``wifi_batches`` table, and the Wi-Fi reproductions' verdicts."""

from __future__ import annotations

import json

import numpy as np
import pytest
from accelbrake import _core
from accelbrake import papers as P
from accelbrake.experiments import reproduce as R
from accelbrake.papers import reproduction
from accelbrake.papers.abc import wifi as W
from accelbrake.scenarios import ScenarioError, build_scenario, link_spec, wifi_link_spec


def test_wifi_texts_become_wifi_links():
    assert wifi_link_spec("wifi:alt=1/7@2000") == {
        "type": "wifi",
        "users": [{"mcs": {"type": "alternate", "values": [1, 7], "period_ms": 2000.0}}],
    }
    two = link_spec("wifi:brownian=3/7@2000:users=2:per-user:m=64:jitter=300:width=40:sgi")
    assert two["queues"] == "per-user" and two["width_mhz"] == 40 and two["short_gi"] is True
    assert two["jitter_us"] == 300.0 and len(two["users"]) == 2
    assert two["users"][0] == {
        "mcs": {"type": "brownian", "min": 3, "max": 7, "period_ms": 2000.0},
        "max_batch": 64,
    }
    assert link_spec("wifi:mcs=7")["users"] == [{"mcs": {"type": "fixed", "mcs": 7}}]


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("wifi:", "no MCS schedule"),
        ("wifi:alt=1/7", "needs a period"),
        ("wifi:mcs=7:mcs=1", "one schedule"),
        ("wifi:mcs=x", "mcs=x is not a whole number"),
        ("wifi:mcs=7:colour=red", "unknown item 'colour=red'"),
        ("wifi:brownian=3@2000", "two MCS values"),
        ("wifi:mcs=7:users=0", "users=0"),
    ],
)
def test_bad_wifi_texts_name_the_item(text, says):
    with pytest.raises(ScenarioError) as e:
        link_spec(text)
    assert says in str(e.value) and "wifi:SCHEDULE" in str(e.value)


def test_the_core_names_bad_wifi_fields():
    sc = build_scenario("abc", trace="wifi:mcs=9", duration_s=1)
    with pytest.raises(_core.SimulationError) as e:
        _core.simulate(json.dumps(sc))
    assert e.value.key == "hops[0].link.users[0].mcs.mcs"


def test_a_run_records_every_batch_with_estimate_and_truth():
    sc = build_scenario("abc", trace="wifi:alt=1/7@1000", duration_s=4, delay_ms=10)
    out = _core.simulate(json.dumps(sc))
    t = {k: np.frombuffer(buf, dtype=dt) for k, (dt, buf) in out["tables"]["wifi_batches"].items()}
    assert set(np.unique(t["mcs"])) == {1, 7}
    assert (t["b"] >= 1).all() and (t["b"] <= 32).all()
    # The truth (at the block ACK) follows the MCS (at the batch's start; a batch may straddle a
    # change); the estimate is positive and never above twice the truth.
    hi, lo = t["truth_mbps"][t["mcs"] == 7], t["truth_mbps"][t["mcs"] == 1]
    assert np.median(hi) > 4 * np.median(lo)
    assert (t["mu_hat_mbps"] > 0).all() and (t["mu_hat_mbps"] < 2 * t["truth_mbps"].max()).all()
    summary = json.loads(out["summary"])
    assert 0.5 < summary["utilization"] < 1.02


def test_the_wifi_reproductions_are_listed_and_wired():
    for rid in ("abc-fig5", "abc-fig6", "abc-fig9", "abc-fig16"):
        assert rid in P.reproductions()
    doc = W.doc_fig9(True, None)
    assert doc["matrix"]["traces"] == [W.FIG9_LINK, W.FIG9_LINK_2]
    assert doc["schemes"]["abc-dt20"]["set"] == ["abc.dt=20ms"]
    with pytest.raises(R.ExperimentError, match="takes only run.duration_s"):
        R.run_reproduction(reproduction("abc-fig5"), "/tmp/unused", quick=True, overrides=["abc.eta=0.9"])
