"""The L4S study's per-flow report reads a sweep's run records."""

import json

import pytest
from accelbrake import l4s_report


def _run(folder, name, scheme, trace, flows, util):
    rec = {
        "point": {"scheme": scheme, "trace": trace},
        "seed": 0,
        "summary": {
            "utilization": util,
            "flows": [
                {
                    "scheme": s,
                    "throughput_mbps": mbps,
                    "retransmits": 0,
                    "queueing_delay_ms": {"p50": 1.0, "p95": p95},
                }
                for s, mbps, p95 in flows
            ],
        },
    }
    (folder / "runs" / f"{name}.json").write_text(json.dumps(rec))


def test_shares_and_headline(tmp_path):
    (tmp_path / "runs").mkdir()
    _run(tmp_path, "a", "abc+prague@abc", "const:24", [("abc", 1.0, 50.0), ("prague", 3.0, 60.0)], 0.99)
    rows = l4s_report.flow_rows(l4s_report.load_runs(tmp_path))
    assert [r[4] for r in rows] == ["25", "75"]
    assert l4s_report.headline(l4s_report.load_runs(tmp_path)) is None  # two flows: no headline
    _run(tmp_path, "a", "prague", "const:24", [("prague", 20.0, 1.7)], 0.9)
    header, table = l4s_report.headline(l4s_report.load_runs(tmp_path))
    assert header == ["scheme", "const:24"] and table == [["prague", "90 / 2"]]


def test_a_folder_without_runs_is_a_clear_error(tmp_path):
    with pytest.raises(SystemExit, match="accelbrake: error: .*no runs/ folder"):
        l4s_report.load_runs(tmp_path)


@pytest.mark.parametrize("name", ["l4s-study", "l4s-clash"])
def test_the_experiment_files_check(name):
    import subprocess
    import sys
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "experiments" / f"{name}.toml"
    r = subprocess.run(
        [sys.executable, "-m", "accelbrake.cli", "sweep", str(path), "--check"],
        capture_output=True,
        text=True,
    )
    assert r.returncode == 0, r.stderr
