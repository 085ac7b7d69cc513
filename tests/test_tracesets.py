"""The trace sets: bundled with matching checksums, used by the reproductions, never mixed."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pandas as pd
import pytest
from accelbrake import papers as P
from accelbrake.experiments import reproduce as R
from accelbrake.experiments.tracesets import ABC_PAPER, C2TCP_PAPER, CELLULAR_ROBUSTNESS, TRACE_SETS
from accelbrake.papers import reproduction
from accelbrake.papers.abc import reproductions as ABCR
from accelbrake.papers.c2tcp import reproductions as C2R
from conftest import REPO


def _sums(folder: Path) -> dict[str, str]:
    out = {}
    for line in (folder / "SHA256SUMS").read_text(encoding="utf-8").splitlines():
        digest, name = line.split(maxsplit=1)
        out[name.lstrip("*")] = digest
    return out


@pytest.mark.parametrize("folder", ["traces", "traces/c2tcp-nyc"])
def test_bundled_traces_match_their_sha256sums_and_every_trace_is_listed(folder):
    d = REPO / folder
    sums = _sums(d)
    for name, digest in sums.items():
        assert hashlib.sha256((d / name).read_bytes()).hexdigest() == digest, name
    files = {f.name for f in d.iterdir() if f.is_file() and f.name not in ("README.md", "SHA256SUMS")}
    assert files == set(sums)


def test_every_trace_set_file_is_bundled_and_checksummed():
    for tset in TRACE_SETS.values():
        assert set(tset.quick) <= set(tset.files), tset.id
        assert len(set(tset.files)) == len(tset.files), tset.id
        for f in tset.files:
            p = REPO / f
            assert p.is_file(), f
            assert p.name in _sums(p.parent), f
        assert [Path(p).resolve() for p in tset.paths()] == [(REPO / f).resolve() for f in tset.files]


def test_the_abc_papers_set_is_its_five_available_traces_and_the_robustness_set_is_disjoint():
    names = {Path(f).name for f in ABC_PAPER.files}
    assert names == {
        "Verizon-LTE-short.up",
        "Verizon-LTE-short.down",
        "TMobile-LTE-driving.down",
        "ATT-LTE-driving-2016.up",
        "ATT-LTE-driving-2016.down",
    }
    assert ABC_PAPER.label == "the paper's traces, 5 of 8" and len(ABC_PAPER.missing) == 3
    assert not names & {Path(f).name for f in CELLULAR_ROBUSTNESS.files}
    # Every bundled cellular trace is in exactly one of the two ABC sets.
    cellular = {f.name for f in (REPO / "traces").iterdir() if f.suffix in (".up", ".down")}
    assert cellular == names | {Path(f).name for f in CELLULAR_ROBUSTNESS.files}


def _doc_traces(rid: str, quick: bool) -> list[str]:
    return [Path(t).name for t in P.reproductions()[rid].document(quick, None)["matrix"]["traces"]]


@pytest.mark.parametrize("quick", [False, True])
@pytest.mark.parametrize("rid", ["abc-table", "abc-fig8"])
def test_abc_averages_run_on_the_papers_set_by_default_and_say_so(rid, quick):
    rep = P.reproductions()[rid]
    doc = rep.document(quick, None)
    want = ABC_PAPER.quick if quick else ABC_PAPER.files
    assert _doc_traces(rid, quick) == [Path(f).name for f in want]
    assert not set(_doc_traces(rid, quick)) & {Path(f).name for f in CELLULAR_ROBUSTNESS.files}
    assert "the paper's traces, 5 of 8" in doc["description"]
    assert "the paper's traces, 5 of 8" in rep.setup


@pytest.mark.parametrize("quick", [False, True])
def test_robustness_table_runs_on_the_other_traces_only(quick):
    got = set(_doc_traces("abc-table-robustness", quick))
    want = CELLULAR_ROBUSTNESS.quick if quick else CELLULAR_ROBUSTNESS.files
    assert got == {Path(f).name for f in want}
    assert not got & {Path(f).name for f in ABC_PAPER.files}


def test_robustness_rows_are_never_compared_with_the_papers_numbers():
    rows = ABCR._cmp_table_robustness(_synthetic_cellular(), Path("."))
    assert rows and all(
        r["kind"] == "info" and r["verdict"] == "not compared" and r["ratio"] is None for r in rows
    )
    assert all("own traces" in r["published_text"] for r in rows)


def _synthetic_cellular() -> pd.DataFrame:
    rows = []
    for i, (scheme, util, p95) in enumerate(
        [
            ("abc", 0.8, 200.0),
            ("cubic+codel", 0.6, 180.0),
            ("copa", 0.6, 200.0),
            ("cubic", 0.9, 900.0),
            ("bbr", 0.85, 500.0),
        ]
    ):
        rows.append(
            {
                "run_id": f"r{i}",
                "scheme": scheme,
                "trace": "traces/TMobile-LTE-short.up",
                "flow": 0,
                "link_utilization": util,
                "run_per_packet_delay_p95_ms": p95,
                "run_per_packet_delay_mean_ms": p95 / 2,
                "jain_index": 1.0,
            }
        )
    return pd.DataFrame(rows)


def test_c2tcp_table1_runs_on_the_c2tcp_papers_traces():
    rep = reproduction("c2tcp-table1")
    assert _doc_traces("c2tcp-table1", False) == [Path(f).name for f in C2TCP_PAPER.files]
    assert _doc_traces("c2tcp-table1", True) == [Path(f).name for f in C2TCP_PAPER.quick]
    assert "NYC 6 of 8 scenarios" in rep.document(False, None)["description"]
    assert "NYC 6 of 8 scenarios" in rep.setup and "queueing delay" in rep.setup
    nyc = [f for f in C2TCP_PAPER.files if "c2tcp-nyc" in f]
    assert len(nyc) == 6 and all("downlink" in f for f in nyc)


def test_c2tcp_table1_compares_queueing_delay_normalised_per_trace():
    # Two traces; per trace, BBR's queueing delay is 2x and 4x C2TCP's: the per-trace normalised mean
    # is 3 (a ratio of means would give 40/15 = 2.67). RTT + queueing (min RTT 20 ms) is the other column.
    q = {("c2tcp", "a"): 20.0, ("c2tcp", "b"): 10.0}
    for s in ("bbr", "cubic", "westwood"):
        q[(s, "a")], q[(s, "b")] = 40.0, 40.0
    rows = []
    for i, ((scheme, trace), qd) in enumerate(q.items()):
        rows.append(
            {
                "run_id": f"r{i}",
                "scheme": scheme,
                "trace": trace,
                "flow": 0,
                "link_throughput_mbps": 5.0,
                "queueing_delay_mean_ms": qd,
                "queueing_delay_p95_ms": 2 * qd,
                "run_per_packet_delay_mean_ms": qd + 20.0,
                "run_per_packet_delay_p95_ms": 2 * qd + 20.0,
            }
        )
    comp = C2R._cmp_c2tcp_table(pd.DataFrame(rows), Path("."))
    bbr = {r["metric"]: r for r in comp if r["scheme"] == "BBR"}
    avg = bbr["norm. average queueing delay"]
    assert avg["ours"] == pytest.approx(3.0)
    assert avg["ratio"] == pytest.approx(3.0 / 2.44)
    assert avg["ours_rtt_plus_queueing"] == pytest.approx((60 / 40 + 60 / 30) / 2)
    assert "RTT + queueing delay: 1.75" in avg["note"]
    p95 = bbr["norm. p95 queueing delay"]
    assert p95["ours"] == pytest.approx(3.0)
    assert p95["ours_rtt_plus_queueing"] == pytest.approx((100 / 60 + 100 / 40) / 2)
    assert bbr["norm. throughput"]["ours"] == pytest.approx(1.0)
    assert not [r for r in comp if "delay" in r["metric"] and "queueing" not in r["metric"]]


def test_traces_folder_argument_expands_to_every_trace_file():
    got = R.expand_traces([str(REPO / "traces" / "c2tcp-nyc")])
    assert len(got) == 10 and not [g for g in got if g.endswith(("README.md", "SHA256SUMS"))]
