"""Mahimahi link logs as per-bin tables (accelbrake.mmlog): hand-worked bins, and bad lines named."""

from __future__ import annotations

import math

import pytest
from accelbrake.mmlog import link_log_series, read_link_log

LOG = """# mm-link test
# base timestamp: 0
0 + 1504
0 # 1504
0 - 1504 0
10 + 1504
10 + 1504
50 # 1504
50 - 1504 40
99 # 1504
99 - 1504 89
100 # 1504
150 # 1504
150 - 1504 5
250 + 1504
"""


def test_bins_are_what_mm_throughput_graph_and_mm_delay_graph_count(tmp_path):
    path = tmp_path / "link.log"
    path.write_text(LOG)
    ev = read_link_log(path)
    assert list(ev["arrivals"]["t_ms"]) == [0, 10, 10, 250]
    assert list(ev["departures"]["delay_ms"]) == [0, 40, 89, 5]
    s = link_log_series(path, bin_ms=100)
    assert list(s["t_s"]) == [0.0, 0.1, 0.2]
    mbps = 1504 * 8 / 100e3  # one 1504-byte packet per 100 ms, in Mbit/s
    assert s["capacity_mbps"].tolist() == pytest.approx([3 * mbps, 2 * mbps, 0.0])
    assert s["ingress_mbps"].tolist() == pytest.approx([3 * mbps, 0.0, mbps])
    assert s["egress_mbps"].tolist() == pytest.approx([3 * mbps, mbps, 0.0])
    # bin 0 left after 0, 40 and 89 ms: mean 43; p95 = sorted[floor(0.95 * 3)] = sorted[2] = 89
    assert s["queueing_delay_mean_ms"][0] == pytest.approx(43.0)
    assert s["queueing_delay_p95_ms"][0] == 89.0
    assert s["queueing_delay_p95_ms"][1] == 5.0
    assert math.isnan(s["queueing_delay_mean_ms"][2])  # nothing left in the last bin


@pytest.mark.parametrize("bad", ["12 - 1504", "12 ? 1504", "x + 1504", "12 +"])
def test_a_line_that_is_not_an_event_is_named_with_its_file_and_line(tmp_path, bad):
    path = tmp_path / "bad.log"
    path.write_text("# base timestamp: 0\n0 + 1504\n" + bad + "\n")
    with pytest.raises(ValueError, match=r"bad\.log, line 3: expected .*Mahimahi link log"):
        read_link_log(path)
    with pytest.raises(ValueError, match="bin_ms"):
        link_log_series(tmp_path / "bad.log", bin_ms=0)
