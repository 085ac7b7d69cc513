"""`accelbrake reproduce all`: the catalogue of the papers' results and its verdict table."""

from __future__ import annotations

import csv
import json
import time

import pytest
from accelbrake.experiments.published import Result
from accelbrake.papers import CITATIONS as PAPERS
from accelbrake.papers import RESULTS, SHORT, TITLES, UNAVAILABLE
from accelbrake.papers import index as RA

#: What the catalogue must hold at least: per paper, the figures/tables named there.
REQUIRED = {
    "abc": [f"Fig. {i}" for i in range(1, 22)] + ["Table 1", "results table", "Theorem 1"],
    "abe": [f"Fig. {i}" for i in range(4, 9)] + ["Figs. 9 and 10", "Figs. 11 and 12", "Eq. 1"],
    "c2tcp": ["Table I", "Fig. 15", "Fig. 16", "Fig. 17", "Fig. 18", "Fig. 19"],
    "proprate": ["Fig. 7", "Fig. 8", "Fig. 10", "Fig. 11"],
}


def test_catalogue_names_every_required_figure_and_table():
    for paper, items in REQUIRED.items():
        wheres = [r.where for r in RESULTS if r.paper == paper]
        for item in items:
            # "Fig. 7" must match "Fig. 7a, §7.3" but "Fig. 1" must not be satisfied by "Fig. 15".
            ok = any(w == item or w.startswith((item + ",", item + "a", item + " ")) for w in wheres)
            assert ok, f"{paper}: no catalogue entry for {item}"


def test_catalogue_entries_are_well_formed():
    keys = [r.key for r in RESULTS]
    assert len(keys) == len(set(keys)), "duplicate catalogue keys"
    for r in RESULTS:
        assert r.paper in PAPERS and r.key.startswith(r.paper + "/"), r
        assert r.claim and r.where, r
        # Every entry is judged by a known id (runnable or "not available yet" with its reason) or says
        # why nothing judges it.
        assert (r.repro in TITLES or r.repro in UNAVAILABLE) if r.repro else r.why, r


def test_verdict_table_has_a_row_for_every_entry_even_without_runs():
    rows = RA.catalogue_verdicts({}, {})
    assert [v["key"] for v in rows] == [r.key for r in RESULTS]
    for v in rows:
        if not v["id"] or v["id"] not in TITLES:
            assert v["verdict"] == "not implemented" and v["reason"], v
        else:
            assert v["verdict"] == "no data"


def test_entry_verdict_rules():
    e = Result("abc", "abc/x", "Fig. 99", "a claim", "abc-fig15", ("rises",))
    comp = {
        "rows": [
            {"metric": "utilisation rises with η", "verdict": "direction holds"},
            {"metric": "p95 delay rises with η", "verdict": "direction fails"},
            {"metric": "other", "verdict": "differs"},
        ]
    }
    v = RA.entry_verdict(e, {"abc-fig15": comp}, {})
    assert v["verdict"] == "differs" and v["detail"].startswith("1 of 2")
    comp["rows"][1]["verdict"] = "direction holds"
    assert RA.entry_verdict(e, {"abc-fig15": comp}, {})["verdict"] == "reproduced"
    comp["rows"][0]["verdict"] = comp["rows"][1]["verdict"] = "not compared"
    assert RA.entry_verdict(e, {"abc-fig15": comp}, {})["verdict"] == "not compared"
    assert RA.entry_verdict(e, {}, {"abc-fig15": "boom"})["verdict"] == "failed"
    line = RA.paper_summary(
        [{"verdict": "reproduced"}, {"verdict": "differs"}, {"verdict": "not implemented"}]
    )
    assert line == "1 of 3 reproduced; of the 1 that differ, 1 open; 1 not implemented"
    line = RA.paper_summary(
        [
            {"verdict": "reproduced"},
            *[
                {"verdict": "differs", "status": s}
                for s in ("explained by experiment", "hypothesis", "hypothesis")
            ],
            {"verdict": "differs", "status": ""},
        ]
    )
    assert line == "1 of 5 reproduced; of the 4 that differ, 1 explained by experiment, 2 hypotheses, 1 open"


def test_every_runnable_id_belongs_to_a_paper_and_a_catalogue_entry():
    covered = {r.repro for r in RESULTS}
    for rid in TITLES:
        assert RA.paper_of(rid) in PAPERS
        if rid != "abc-table-robustness":  # context on other traces, not a published result
            assert rid in covered, f"{rid} judges no catalogue entry"
    with pytest.raises(ValueError, match="expected one of"):
        RA.ids_for("bbr")


def test_reproduce_all_quick_cli(run_cli, tmp_path):
    """The whole `reproduce all --quick` (every id of the four papers; no HTML reports, which the
    report tests cover): a verdict row per catalogue entry, the index, the per-paper closing lines.
    Then a rerun reuses every run (resumable)."""
    out = tmp_path / "all"
    t0 = time.monotonic()
    # 77 s on 2 busy cores; the machine running the tests may be shared, hence the timeout.
    r = run_cli("reproduce", "all", "--quick", "--no-report", "--no-progress", "--out", str(out), timeout=900)
    wall = time.monotonic() - t0
    assert r.returncode == 0, r.stderr[-3000:]
    assert wall < 900, f"reproduce all --quick took {wall:.0f} s"
    with open(out / "verdicts.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert [x["key"] for x in rows] == [e.key for e in RESULTS]
    allowed = set(RA.VERDICTS) - {RA.FAILED, "no data"}
    assert all(x["verdict"] in allowed for x in rows), [x for x in rows if x["verdict"] not in allowed]
    doc = json.loads((out / "verdicts.json").read_text(encoding="utf-8"))
    assert set(doc["reproductions"]) == set(TITLES)
    index = (out / "index.html").read_text(encoding="utf-8")
    for e in RESULTS:
        assert f"id='{e.key}'" in index
    tail = r.stdout.strip().splitlines()[-len(PAPERS) :]
    for paper, line in zip(PAPERS, tail, strict=True):
        assert line.startswith(f"{SHORT[paper]}: ") and " reproduced" in line, line
        n = sum(1 for e in RESULTS if e.paper == paper)
        assert f" of {n} reproduced" in line
    again = run_cli(
        "reproduce",
        "all",
        "--quick",
        "--no-report",
        "--no-progress",
        "--paper",
        "c2tcp",
        "--out",
        str(out),
        timeout=300,
    )
    assert again.returncode == 0, again.stderr[-2000:]
    assert "0 now" in again.stdout and " now" in again.stdout
    assert again.stdout.strip().splitlines()[-1].startswith(f"{SHORT['c2tcp']}: ")


def test_paper_option_only_with_all(run_cli):
    r = run_cli("reproduce", "abc-fig15", "--paper", "abc")
    assert r.returncode == 2 and "only with 'all'" in r.stderr
    r = run_cli("reproduce", "all", "--set", "run.duration_s=5")
    assert r.returncode == 2 and "apply to single ids" in r.stderr


def _hops_doc(**hop):
    return {
        "name": "two-hops",
        "matrix": {
            "schemes": ["abc-cubic"],
            "traces": ["const:12"],
            "delay_ms": [25],
            "buffer_packets": [100],
        },
        "run": {"duration_s": 4, "ack_mbps": 100, "queue": "droptail"},
        "hops": [hop],
    }


def test_experiment_file_hops_build_the_path():
    from accelbrake.experiments.spec import parse_experiment

    exp = parse_experiment(
        _hops_doc(
            name="wireless", position="before", link="steps:0=6,2=18", queue="abc packets=250", delay_ms=5
        )
    )
    (p,) = exp.points()
    sc = exp.scenario(p)
    assert [h["name"] for h in sc["hops"]] == ["wireless", "data", "ack"]
    assert sc["hops"][0]["link"] == {"type": "schedule", "steps": [[0.0, 6.0], [2000.0, 18.0]]}
    assert sc["hops"][0]["queue"]["type"] == "abc" and sc["hops"][0]["delay_ms"] == 5.0
    assert sc["hops"][1]["queue"] == {"type": "droptail", "packets": 100}
    assert sc["flows"][0]["fwd"] == [0, 1] and sc["flows"][0]["rev"] == [2]
    same = parse_experiment(_hops_doc(link="const:24", queue="same"))
    sc = same.scenario(next(same.points()))
    assert sc["hops"][1]["queue"] == sc["hops"][0]["queue"] == {"type": "droptail", "packets": 100}
    after = parse_experiment(_hops_doc(link="const:24"))
    sc = after.scenario(next(after.points()))
    assert [h["name"] for h in sc["hops"]] == ["data", "hop1", "ack"]
    assert sc["hops"][1]["queue"] == {"type": "droptail", "packets": 100}


@pytest.mark.parametrize(
    ("hop", "msg"),
    [
        ({"queue": "droptail"}, "hops[0]: missing: link"),
        ({"link": "steps:0=6,x"}, "hops[0].link: step 2 'x': expected TIME=RATE"),
        ({"link": "steps:1=6"}, "expected steps starting at 0"),
        ({"link": "steps:0=6,0=7"}, "times must increase"),
        ({"link": "const:12", "position": "middle"}, "hops[0].position: expected 'after' or 'before'"),
        ({"link": "const:12", "lnik": 1}, "hops[0]"),
        ({"link": "no-such-trace.up"}, "hops[0].link"),
    ],
)
def test_experiment_file_hops_errors_name_the_key(hop, msg):
    from accelbrake.experiments.spec import ExperimentError, parse_experiment

    with pytest.raises(ExperimentError) as e:
        parse_experiment(_hops_doc(**hop), source="exp.toml")
    assert msg in str(e.value) and str(e.value).startswith("exp.toml: ")


def test_index_shows_each_experiments_main_plot(tmp_path):
    """The index showed the trade-off plot for every id, even for experiments about
    behaviour over time (abc-stability, abc-fig4); it shows the report's first plot of the id's
    main section (reproduce.MAIN_PLOTS)."""
    from accelbrake.papers import reproduction

    def main_plot(rid):
        return reproduction(rid).main_plot

    assert main_plot("abc-stability") == main_plot("abc-fig4") == "timeseries"
    assert main_plot("abc-table") == "tradeoff"
    folder = tmp_path / "abc-stability"
    (folder / "plots").mkdir(parents=True)
    stems = ["tradeoff", "per-trace", "run-abc-const-12-seed0-aaaa", "run-abc-const-12-seed0-bbbb"]
    for stem in stems:
        (folder / "plots" / f"{stem}.png").write_bytes(b"png")
    (folder / "report.html").write_text(
        '<h2 id="tradeoff">T</h2><figure id="fig-tradeoff"></figure>'
        '<h2 id="bars">B</h2><figure id="fig-per-trace"></figure>'
        '<h2 id="timeseries">S</h2><figure id="fig-run-abc-const-12-seed0-bbbb"></figure>'
        '<figure id="fig-run-abc-const-12-seed0-aaaa"></figure>',
        encoding="utf-8",
    )
    # The first run plot in the report's order (not the first file name).
    assert RA._plot_for(tmp_path, "abc-stability", "timeseries") == (
        "abc-stability/plots/run-abc-const-12-seed0-bbbb.png"
    )
    assert RA._plot_for(tmp_path, "abc-stability", "tradeoff") == "abc-stability/plots/tradeoff.png"
    # A section the report lacks: the usual order (the trade-off first).
    assert RA._plot_for(tmp_path, "abc-stability", "fairness") == "abc-stability/plots/tradeoff.png"


def test_ids_run_two_at_a_time_give_the_verdicts_of_ids_run_one_by_one(run_cli, tmp_path):
    """On the local pool `reproduce all` runs two ids at a time (each in a driver process
    with the pool's workers); the verdicts and every compared number are those of the ids run one
    after the other (--jobs 1), in the same order."""
    common = ["reproduce", "all", "--quick", "--paper", "c2tcp", "--no-report", "--no-progress"]
    both = run_cli(*common, "--jobs", "2", "--out", str(tmp_path / "two"), timeout=600)
    assert both.returncode == 0, both.stderr[-3000:]
    one = run_cli(*common, "--jobs", "1", "--out", str(tmp_path / "one"), timeout=600)
    assert one.returncode == 0, one.stderr[-3000:]
    for name in ("verdicts.csv", "rows.csv"):
        assert (tmp_path / "two" / name).read_bytes() == (tmp_path / "one" / name).read_bytes(), name
    assert both.stdout.strip().splitlines()[-1] == one.stdout.strip().splitlines()[-1]
    ids = [rid for rid in TITLES if rid.startswith("c2tcp-")]
    assert all(f"{rid}: " in both.stdout for rid in ids)
