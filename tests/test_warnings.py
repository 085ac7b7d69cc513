"""Warnings for runs outside a scheme's or queue's known operating range: in the summary, on
`accelbrake run`'s stderr, in ``Result.warnings`` and in a sweep's HTML report."""

from __future__ import annotations

import accelbrake
from accelbrake.experiments.report import build_report, run_warnings
from accelbrake.experiments.runner import load_results, run_sweep
from accelbrake.experiments.spec import parse_experiment
from accelbrake.results import simulate
from conftest import TRACE_UP

FIELDS = {"code", "subject", "parameter", "value", "bound", "unit", "source", "message"}


def _warning_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("warning: ")]


def test_c2tcp_target_below_min_rtt_is_one_line_on_stderr(run_cli):
    r = run_cli(
        "run", "--scheme", "c2tcp", "--set", "c2tcp.target=50ms", "--trace", "const:12", "--duration", "2"
    )
    assert r.returncode == 0, r.stderr
    lines = _warning_lines(r.stderr)
    assert len(lines) == 1, r.stderr
    line = lines[0]
    assert "flows[0].params.target_ms = 50 ms (bound 100 ms)" in line
    assert "C2TCP paper" in line and "JSAC 2019" in line and "§III-B" in line
    assert "shared/" not in line and ".txt" not in line  # a paper and a section, not a file
    assert "warning" not in r.stdout  # the table on stdout stays as it was
    # At the bound (Target = the 100 ms propagation RTT): nothing.
    r = run_cli(
        "run", "--scheme", "c2tcp", "--set", "c2tcp.target=100ms", "--trace", "const:12", "--duration", "2"
    )
    assert r.returncode == 0, r.stderr
    assert _warning_lines(r.stderr) == []


def test_abc_buffer_below_dt_mu_on_stderr_and_in_the_json_summary(run_cli):
    # The bundled Verizon uplink: 5.96 Mbit/s × 50 ms = 24.8 packets of 1504 wire bytes.
    r = run_cli("run", "--scheme", "abc", "--buffer", "20", "--duration", "2", "--json")
    assert r.returncode == 0, r.stderr
    lines = _warning_lines(r.stderr)
    assert len(lines) == 1, r.stderr
    assert "hops[0].queue.packets = 20 packets (bound 24.77 packets)" in lines[0]
    assert "NSDI 2020" in lines[0] and "§3.1.2" in lines[0]
    import json

    (w,) = json.loads(r.stdout)["warnings"]
    assert set(w) == FIELDS
    assert (w["code"], w["subject"], w["value"], w["unit"]) == (
        "abc-buffer-below-dt-mu",
        "hops[0]",
        20,
        "packets",
    )
    r = run_cli("run", "--scheme", "abc", "--buffer", "25", "--duration", "2")
    assert r.returncode == 0 and _warning_lines(r.stderr) == [], r.stderr


def test_abc_delta_at_the_stability_bound_is_in_result_warnings():
    # 150 ms propagation RTT: δ must be above 100 ms.
    sc = accelbrake.build_scenario(
        "abc", trace="const:12", delay_ms=75, duration_s=1, sets=["abc.delta=100ms"]
    )
    res = simulate(sc)
    (w,) = res.warnings
    assert w == res.summary["warnings"][0]
    assert (w["code"], w["parameter"], w["value"], w["bound"]) == (
        "abc-delta-below-stability-bound",
        "hops[0].queue.delta_ms",
        100,
        100,
    )
    assert "§3.1.4" in w["source"] and "2/3" in w["source"]
    sc = accelbrake.build_scenario(
        "abc", trace="const:12", delay_ms=75, duration_s=1, sets=["abc.delta=101ms"]
    )
    assert simulate(sc).warnings == []
    # The paper's setting (δ 133 ms, 100 ms RTT, 250 packets) is inside every range.
    assert simulate(accelbrake.build_scenario("abc", trace="const:12", duration_s=1)).warnings == []


def test_report_lists_distinct_warnings_with_the_runs_they_affect(tmp_path):
    doc = {
        "name": "warn",
        "matrix": {
            "schemes": ["abc", "cubic"],
            "traces": [str(TRACE_UP)],
            "seeds": [0, 1],
            "buffer_packets": [20, 250],
        },
        "run": {"duration_s": 2},
    }
    run_sweep(parse_experiment(doc), tmp_path, progress=False)
    results, _ = load_results(tmp_path)
    found = run_warnings(tmp_path, results)
    # One distinct warning (ABC over a 20-packet buffer), affecting both seeds of that point only.
    assert len(found) == 1, found
    w, runs = found[0]
    assert w["code"] == "abc-buffer-below-dt-mu"
    assert len(runs) == 2 and all("buffer 20" in r for r in runs), runs
    assert {r.split("seed ")[1].split(" ")[0] for r in runs} == {"0", "1"}
    page = build_report(tmp_path, max_timeseries=0).read_text(encoding="utf-8")
    assert '<h2 id="warnings">Warnings (1)</h2>' in page
    assert "hops[0].queue.packets" in page and "§3.1.2" in page and "Affects 2 runs" in page
    import html5lib

    html5lib.HTMLParser(strict=True, namespaceHTMLElements=False).parse(page)


def test_report_without_warnings_has_no_warnings_section(tmp_path):
    doc = {"name": "ok", "matrix": {"schemes": ["abc"], "traces": [str(TRACE_UP)]}, "run": {"duration_s": 1}}
    run_sweep(parse_experiment(doc), tmp_path, progress=False)
    page = build_report(tmp_path, max_timeseries=0).read_text(encoding="utf-8")
    assert 'id="warnings"' not in page


def test_sweep_prints_the_distinct_warnings_on_stderr(run_cli, tmp_path):
    exp = tmp_path / "w.toml"
    exp.write_text(
        f'name = "w"\n[matrix]\nschemes = ["abc"]\ntraces = ["{TRACE_UP}"]\nseeds = [0, 1]\n'
        "buffer_packets = [20]\n[run]\nduration_s = 1\n",
        encoding="utf-8",
    )
    r = run_cli("sweep", str(exp), "--out", str(tmp_path / "out"), "--no-report")
    assert r.returncode == 0, r.stderr
    lines = _warning_lines(r.stderr)
    assert len(lines) == 1, r.stderr
    assert "hops[0].queue.packets" in lines[0] and "(affects 2 runs)" in lines[0]
