"""The papers' data (accelbrake.papers): one place per paper, each published number written once."""

from __future__ import annotations

import pytest
from accelbrake.experiments.published import EXPLAINED, STATUSES, Difference
from accelbrake.papers import BY_KEY, PAPERS, RESULTS, TITLES, UNAVAILABLE


def test_every_result_names_a_known_reproduction_or_why_not():
    keys = [r.key for r in RESULTS]
    assert len(keys) == len(set(keys))
    for p in PAPERS:
        assert p.citation and p.results and p.titles
        for r in p.results:
            assert r.paper == p.key
            assert r.repro in p.titles or r.repro in p.unavailable or (not r.repro and r.why), r.key
    assert not set(TITLES) & set(UNAVAILABLE)


def test_a_claim_in_words_does_not_repeat_its_published_numbers():
    """The numbers of a result live in its Published rows; the claim says it in words and the
    numbers are generated (Paper.numbers), so no value is written twice."""
    for p in PAPERS:
        for r in p.results:
            for pub in p.published_for(r):
                if pub.value is None:
                    continue
                text = f"{pub.value:g}"
                if len(text.replace(".", "").lstrip("0")) >= 3:
                    assert text not in r.claim, f"{r.key}: {text} in its claim"
            if p.published_for(r) and any(x.claim is None for x in p.published_for(r)):
                assert p.numbers(r), r.key


def test_statuses_are_checked():
    with pytest.raises(ValueError, match="status"):
        Difference("probably", "x")
    with pytest.raises(ValueError, match="evidence"):
        Difference(EXPLAINED, "found it")
    for r in RESULTS:
        if r.difference is not None:
            assert r.difference.status in STATUSES
            assert r.difference.status != EXPLAINED or r.difference.evidence


def test_c2tcp_fig17_is_judged_on_its_own_scenarios():
    c2 = BY_KEY["c2tcp"]
    fig16, fig17 = (next(r for r in c2.results if r.key == k) for k in ("c2tcp/fig16", "c2tcp/fig17"))
    assert {p.ours for p in c2.published_for(fig17)} == {"newreno-c2tcp", "c2tcp-c2tcp"}
    assert {p.ours for p in c2.published_for(fig16)} >= {"bbr", "verus", "pcc-vivace", "c2tcp"}
    doc = c2.reproductions()["c2tcp-friendliness"].document(False, None)
    assert {"newreno-c2tcp", "c2tcp-c2tcp", "cubic-verus", "cubic-pcc-vivace"} <= set(
        doc["matrix"]["schemes"]
    )


def test_abc_fig8_judges_the_papers_17_percent():
    pubs = [
        p
        for p in BY_KEY["abc"].published["abc-fig8"]
        if p.ours in ("copa", "cubic+codel") and "p95" in p.metric
    ]
    assert [round(p.value, 3) for p in pubs] == [0.855, 0.855]
