"""ABC in eBPF over the emulated ABC router (`accelbrake emulate --scheme abc`; Linux, root, clang +
libbpf at build time, a kernel with BPF struct_ops).

The echo checker is tested on synthetic tables everywhere; the runs skip with the reason where the
emulator or ABC in eBPF is unavailable. Runs are a few seconds each.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from accelbrake.cli import emu

ROOT = Path(__file__).resolve().parents[1]
VERIZON = str(ROOT / "traces" / "Verizon-LTE-short.up")
BW12 = str(ROOT / "traces" / "bw12.mahi")
COLUMNS = ["dir", "arrived_ns", "written_ns", "ecn_out", "tcp_seq", "tcp_ack", "tcp_flags", "tcp_payload"]


def cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "accelbrake.cli", *args], capture_output=True, text=True, timeout=timeout
    )


def _table(data: list[tuple[int, bool]], acks: list[tuple[int, bool]]) -> pd.DataFrame:
    """Data segments (seq, CE) of 1000 bytes delivered at t = seq, and ACKs (ack, ECE) sent after
    the data they acknowledge (t = ack + 1)."""
    rows = [("up", s, s, 3 if ce else 2, s, 0, 0x10, 1000) for s, ce in data]
    rows += [("down", a + 1, a + 1, 0, 0, a, 0x10 | (0x40 if ece else 0), 0) for a, ece in acks]
    return pd.DataFrame(rows, columns=COLUMNS)


def test_the_echo_checker_accepts_a_per_packet_echo_and_catches_latched_or_mixed_ones():
    marks = [False, False, True, True, False, True, False, False]
    data = [(1000 * (i + 1), ce) for i, ce in enumerate(marks)]
    # A per-packet echo (delayed ACKs of 2 segments, an immediate ACK where the state changes).
    per_packet = [(1000, False), (3000, False), (5000, True), (6000, False), (7000, True), (9000, False)]
    assert emu.check_echo(_table(data, per_packet)) == dict(
        acks=5, match=5, mismatch=0, mixed=0, uncovered=0, ce_acks=2
    )
    # RFC 3168's latched ECE: set from the first CE until the sender's CWR, here for all later ACKs.
    latched = [(1000, False), (3000, False), (5000, True), (6000, True), (7000, True), (9000, True)]
    assert emu.check_echo(_table(data, latched))["mismatch"] == 2
    # Delayed ACKs over segments of both states (each of these three does).
    mixed = [(1000, False), (4000, True), (6000, False), (9000, False)]
    r = emu.check_echo(_table(data, mixed))
    assert r["mixed"] == 3 and r["match"] == 0
    # An ACK for data the table never saw is counted, not judged.
    assert emu.check_echo(_table(data[:2], [(1000, False), (5000, False)]))["uncovered"] == 1


def test_abc_parameters_are_checked_against_the_registry_before_anything_runs():
    try:
        emu.emu_binary()
    except Exception as e:  # noqa: BLE001 - the reason is the skip message
        pytest.skip(f"emulator not built: {e}")
    r = cli("emulate", "--scheme", "abc", "--trace", BW12, "--set", "abc.min_window=0")
    assert r.returncode != 0 and "min_window" in r.stderr
    r = cli("emulate", "--scheme", "abc", "--trace", BW12, "--set", "min_window=4")
    assert r.returncode != 0 and "unknown --set key 'min_window'" in r.stderr  # as run says it


@pytest.fixture(scope="module")
def abc_bin() -> str:
    try:
        b = emu.emu_binary()
    except Exception as e:  # noqa: BLE001 - the reason is the skip message
        pytest.skip(f"emulator not built: {e}")
    r = subprocess.run([b, "check", "--cc", "abc"], capture_output=True, text=True)
    if r.returncode == 3:
        pytest.skip(r.stderr.strip())
    assert r.returncode == 0 and "registered as" in r.stdout, r.stderr
    return b


def _available() -> list[str]:
    return Path("/proc/sys/net/ipv4/tcp_available_congestion_control").read_text().split()


def _emulate_abc(tmp_path: Path, seconds: float) -> tuple[dict, Path]:
    csv = tmp_path / "packets.csv"
    r = cli("emulate", "--scheme", "abc", "--trace", VERIZON, "--ack-trace", BW12, "--delay", "50",
            "--queue", "abc packets=250", "--duration", str(seconds), "--rt", "--packets", str(csv),
            "--json", timeout=60 + seconds)  # fmt: skip
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout), csv


def test_abc_in_ebpf_is_unregistered_when_the_emulator_exits(abc_bin):
    assert not any(n == "abc" or n.startswith("abc_") for n in _available())


def test_the_kernel_receiver_echoes_every_mark_packet_by_packet(abc_bin, tmp_path):
    s, csv = _emulate_abc(tmp_path, 4)
    assert s["cc_registered"] == "abc" and s["receiver_cc"] == "abc" and s["marks_encoding"] == "ce"
    df = pd.read_csv(csv)
    up = df[(df["dir"] == "up") & (df["tcp_payload"] > 0)]
    # The router's marks on the wire: ECT(0) as Linux sent it (accelerate) or CE (brake), never ECT(1).
    assert set(up["ecn_in"]) <= {0, 2} and set(up["ecn_out"]) <= {0, 2, 3}
    assert 0.05 < (up["ecn_out"] == 3).mean() < 0.95
    r = emu.check_echo(df)
    assert r["acks"] > 500, r
    assert r["mismatch"] == 0 and r["mixed"] == 0, r
    assert r["uncovered"] <= 0.01 * r["acks"], r
    assert 0.05 * r["acks"] < r["ce_acks"] < 0.95 * r["acks"], r
    # The sender reacts: it neither fills the 250-packet buffer (no drops) nor starves the link.
    assert s["drops"] == 0 and s["utilization"] > 0.6, s


def test_abc_in_ebpf_agrees_with_the_simulated_abc_on_the_verizon_trace(abc_bin, tmp_path):
    # The ABC paper's cellular setup (50 ms each way, 250-packet ABC router, bw12 ACK link), 10 s.
    s, _ = _emulate_abc(tmp_path, 10)
    r = cli("run", "--scheme", "abc", "--trace", VERIZON, "--ack-trace", BW12, "--delay", "50",
            "--buffer", "250", "--duration", "10", "--set", "link.offset=0", "--json")  # fmt: skip
    assert r.returncode == 0, r.stderr
    sim = json.loads(r.stdout)
    du = s["utilization"] / sim["utilization"] - 1
    dp = s["per_packet_delay_ms"]["p95"] / sim["per_packet_delay_ms"]["p95"] - 1
    assert abs(du) <= 0.10 and abs(dp) <= 0.10, (s["utilization"], sim["utilization"], du, dp)


def test_abc_cubic_in_ebpf_lets_its_cubic_window_rule_over_a_drop_tail_queue(abc_bin, tmp_path):
    # ABC §4.1 over a non-ABC bottleneck: no brakes ever come, so w_abc only grows and w_cubic
    # (Linux's Cubic) must hold the sender back: drops, no ECE, and the simulator's abc-cubic
    # figures. ±10 % utilisation, ±15 % p95 delay: 10 s hold only the first Cubic epochs.
    common = ["--trace", VERIZON, "--ack-trace", BW12, "--delay", "50", "--duration", "10"]
    r = cli("emulate", "--scheme", "abc-cubic", *common, "--queue", "droptail packets=250", "--rt", "--json",
            timeout=80)  # fmt: skip
    assert r.returncode == 0, r.stderr
    s = json.loads(r.stdout)
    assert s["cc_registered"] == "abc_cubic" and s["drops"] > 0 and s["ece_acks"] == 0, s
    r = cli("run", "--scheme", "abc-cubic", *common, "--queue", "droptail packets=250",
            "--set", "link.offset=0", "--json")  # fmt: skip
    assert r.returncode == 0, r.stderr
    sim = json.loads(r.stdout)
    du = s["utilization"] / sim["utilization"] - 1
    dp = s["per_packet_delay_ms"]["p95"] / sim["per_packet_delay_ms"]["p95"] - 1
    assert abs(du) <= 0.10 and abs(dp) <= 0.15, (s["utilization"], sim["utilization"], du, dp)
