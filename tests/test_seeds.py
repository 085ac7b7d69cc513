"""Seeds draw the flows' phase in the trace; ``link.offset`` / ``offset_ms`` pins it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from accelbrake import ScenarioError, build_scenario, simulate

UP, DOWN = "traces/Verizon-LTE-short.up", "traces/Verizon-LTE-short.down"


def _offsets(result) -> list:
    return [h.get("trace_offset_ms") for h in result.summary["hops"]]


@pytest.mark.parametrize(("raw", "ms"), [("0", 0), ("2s", 2000), ("1500ms", 1500), ("35657", 35657)])
def test_link_offset_lands_on_every_trace_link(repo, raw, ms):
    sc = build_scenario("abc", trace=repo / UP, ack_trace=repo / DOWN, sets=[f"link.offset={raw}"])
    assert [h["link"]["offset_ms"] for h in sc["hops"]] == [ms, ms]
    assert all(type(h["link"]["offset_ms"]) is int for h in sc["hops"])
    # The scenario field's name is accepted too.
    assert (
        build_scenario("abc", trace=repo / UP, sets=[f"link.offset_ms={raw}"])["hops"][0]["link"]["offset_ms"]
        == ms
    )


def test_link_offset_only_touches_trace_links(repo):
    sc = build_scenario("abc", trace=repo / UP, sets=["link.offset=7"])
    assert sc["hops"][0]["link"]["offset_ms"] == 7
    assert "offset_ms" not in sc["hops"][1]["link"]  # the constant ACK link
    with pytest.raises(ScenarioError, match="no trace link"):
        build_scenario("abc", trace="const:24", sets=["link.offset=0"])


@pytest.mark.parametrize("raw", ["-5", "0.5ms", "x"])
def test_link_offset_rejects_bad_values(repo, raw):
    with pytest.raises(ScenarioError, match="link.offset"):
        build_scenario("abc", trace=repo / UP, sets=[f"link.offset={raw}"])


def test_seeds_draw_distinct_offsets_deterministically(repo):
    def run(seed, sets=()):
        return simulate(build_scenario("abc", trace=repo / UP, duration_s=5, seed=seed, sets=sets))

    a, a2, b = run(1), run(1), run(2)
    assert a.summary == a2.summary
    oa, ob = _offsets(a)[0], _offsets(b)[0]
    assert oa != ob and 0 <= oa < 140_000 and 0 <= ob < 140_000
    assert _offsets(a)[1] is None  # the constant ACK link has no trace offset
    assert a.summary["utilization"] != b.summary["utilization"]
    # Pinning the drawn value gives the same run; pinning 0 gives offset 0 whatever the seed.
    assert run(1, [f"link.offset={oa}"]).summary == a.summary
    assert _offsets(run(2, ["link.offset=0"]))[0] == 0


def test_cli_set_link_offset_zero(repo):
    cmd = [sys.executable, "-m", "accelbrake", "run", "--scheme", "cubic", "--trace", str(repo / UP)]
    cmd += ["--duration", "3s", "--seed", "4", "--no-packets", "--json"]
    pinned = json.loads(
        subprocess.run([*cmd, "--set", "link.offset=0"], check=True, capture_output=True, text=True).stdout
    )
    drawn = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    assert pinned["hops"][0]["trace_offset_ms"] == 0
    assert drawn["hops"][0]["trace_offset_ms"] > 0
