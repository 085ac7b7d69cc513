"""scripts/htsim_compare.py: the rows are dumbbells the htsim driver can build, with the numbers
their descriptions claim; bad scenarios and Makefiles give errors naming the file and field.

With HTSIM_SRC set to a csg-htsim checkout, the driver is also built and run on a short dumbbell."""

import importlib.util
import json
import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _module():
    spec = importlib.util.spec_from_file_location("htsim_compare", ROOT / "scripts" / "htsim_compare.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


hc = _module()


@pytest.mark.parametrize("key,desc,_issue", hc.ROWS)
def test_rows_match_their_descriptions(key, desc, _issue):
    d = hc.dumbbell(ROOT / "docs" / "bench" / f"{key}.json")
    flows = int(re.match(r"(\d+) flows?", desc).group(1))
    rate = re.search(r"([\d.]+) (Mbit|Gbit)/s", desc)
    mbps = float(rate.group(1)) * (1000 if rate.group(2) == "Gbit" else 1)
    pkts = int(re.search(r"(\d+) pkts", desc).group(1))
    secs = float(re.search(r"(\d+) s$", desc).group(1))
    assert (d["flows"], d["mbps"], d["buffer_pkts"], d["seconds"]) == (flows, mbps, pkts, secs)


def test_issue_rows_are_the_recorded_ones():
    assert [k for k, _, issue in hc.ROWS if issue] == list(hc.RECORDED_HTSIM_NS)


def test_initial_ssthresh_fills_the_path():
    # 96 Mbit/s × 100 ms = 800 packets of 1500 bytes; + 250 buffered.
    assert hc.initial_ssthresh_pkts(96, 250, 1) == pytest.approx(1050)
    # 1 Gbit/s: BDP 8333.3 packets, buffer 8333, shared by 10 flows.
    assert hc.initial_ssthresh_pkts(1000, 8333, 10) == pytest.approx((1e9 * 0.1 / 12000 + 8333) / 10)


@pytest.mark.parametrize(
    "change,field",
    [
        (lambda s: s["flows"][0].update(scheme="cubic"), "flows[0].scheme"),
        (lambda s: s["hops"][0].update(delay_ms=20), "hops[0].delay_ms"),
        (lambda s: s["hops"][1]["link"].update(mbps=12), "hops[1].link.mbps"),
        (lambda s: s["hops"][0]["queue"].update(type="codel"), "hops[0].queue"),
        (lambda s: s["flows"][0].update(start_ms=5), "flows[0].start_ms"),
        (lambda s: s["hops"].pop(), "hops"),
    ],
)
def test_non_dumbbell_names_file_and_field(tmp_path, change, field):
    sc = json.loads((ROOT / "docs" / "bench" / "newreno-24mbps.json").read_text())
    change(sc)
    p = tmp_path / "x.json"
    p.write_text(json.dumps(sc))
    with pytest.raises(ValueError) as e:
        hc.dumbbell(p)
    assert str(p) in str(e.value) and field in str(e.value)


def test_unreadable_scenario(tmp_path):
    p = tmp_path / "bad.json"
    p.write_text("{")
    with pytest.raises(ValueError, match="bad.json"):
        hc.dumbbell(p)


def test_makefile_flags(tmp_path):
    (tmp_path / "Makefile").write_text(
        "CC=g++\nCFLAGS = -Wall -std=c++11 -g\n#CFLAGS += -fsanitize=address\nCFLAGS += -O3\n"
    )
    assert hc.makefile_flags(tmp_path) == ("g++", ["-Wall", "-std=c++11", "-g", "-O3"])
    (tmp_path / "Makefile").write_text("all:\n")
    with pytest.raises(ValueError, match="no CFLAGS"):
        hc.makefile_flags(tmp_path)
    with pytest.raises(ValueError, match="Makefile"):
        hc.makefile_flags(tmp_path / "nowhere")


def test_build_needs_a_checkout(tmp_path):
    (tmp_path / "sim").mkdir()
    with pytest.raises(ValueError, match="eventlist.cpp"):
        hc.build_htsim(tmp_path)


@pytest.mark.skipif(not os.environ.get("HTSIM_SRC"), reason="HTSIM_SRC (a csg-htsim checkout) not set")
def test_driver_carries_the_expected_traffic(tmp_path, monkeypatch):
    monkeypatch.setattr(hc, "BUILD", tmp_path)
    binary = hc.build_htsim(Path(os.environ["HTSIM_SRC"]))
    ss = hc.initial_ssthresh_pkts(24, 250, 1)
    out = subprocess.run(
        [str(binary), "24", "250", "1", "20", "--ssthresh-pkts", str(ss)], capture_output=True
    )
    d = json.loads(out.stdout.decode().splitlines()[-1])
    # 24 Mbit/s for 20 s is 40 000 packets of 1500 bytes; one SYN round trip and slow start to a full
    # path (450 packets) cost about 1 s of it.
    assert 0.9 < d["utilization"] <= 1.0
    assert 36_000 < d["data_packets"] <= 40_000
    bad = subprocess.run([str(binary), "24", "0", "1", "20"], capture_output=True)
    assert bad.returncode == 2 and b"BUFFER_PKTS" in bad.stderr


def test_same_ssthresh_scenario_runs_our_newreno_without_the_slow_start_overshoot(tmp_path):
    """The like-for-like variant: our scenario with htsim's initial ssthresh, which our core takes
    and which ends slow start without the overshoot of the unbounded default (456 segments lost
    and retransmitted in the first 3 s; with the threshold, 2: slow start's last bursts)."""
    import accelbrake

    src = ROOT / "docs" / "bench" / "newreno-24mbps.json"
    ss = hc.initial_ssthresh_pkts(24, 250, 1)  # 200-packet BDP + 250 buffered
    out = hc.same_ssthresh_scenario(src, ss, tmp_path / "same.json")
    sc = json.loads(out.read_text())
    assert sc["flows"][0]["params"] == {"initial_ssthresh": 450}
    assert hc.same_ssthresh_scenario(src, 1.05, tmp_path / "none.json") is None  # below 2 segments
    sc["duration_ms"] = 3_000
    same = accelbrake.simulate(sc).summary["flows"][0]["retransmits"]
    sc["flows"][0].pop("params")
    unbounded = accelbrake.simulate(sc).summary["flows"][0]["retransmits"]
    assert unbounded > 200 and same < unbounded / 50, (same, unbounded)
