#!/usr/bin/env python3
"""Side-by-side with ns-3 on the dumbbell benchmark scenarios: speed, utilisation, queueing delay.

    pip install ns3            # ns-3 3.44 with its cppyy Python bindings (~1 GB installed)
    python3 scripts/ns3_compare.py [--only cubic-96mbps] [--out docs/bench]

For each scenario of ``docs/bench/`` with a constant-rate bottleneck, the same dumbbell is built in
ns-3 and in accelbrake and both are run for the same simulated time:

* ns-3: two nodes joined by one point-to-point link (bottleneck rate both ways, one-way delay 50 ms,
  so 100 ms RTT), ``ns3::TcpCubic`` bulk senders on one node and packet sinks on the other,
  1448-byte segments (1500-byte IP packets), delayed ACKs every 2 segments, SACK and timestamps
  (ns-3 defaults), 200 ms minimum RTO (Linux, as ours), initial window 10, socket buffers large
  enough not to limit the window, and the bottleneck queue a 250-packet (here: the scenario's)
  drop-tail device queue with the traffic-control layer removed. This is the smallest ns-3 setup of
  the dumbbell (no access links), i.e. the fastest for ns-3.
* accelbrake: the scenario file as is (the ``run`` example in a fresh process).

Packets per wall second are data packets handed to the bottleneck queue (sent, incl. retransmits)
per second of ``Simulator::Run`` (ns-3; import and setup excluded) or of build + run + summary
(ours). Utilisation is the bottleneck's busy fraction; queueing delay is a data packet's time from
entering the bottleneck queue to the end of its transmission (ns-3: from the queue's Enqueue and
Dequeue trace sources, hooked in C++ through cppyy so that Python is not called per packet).

Each ns-3 run is a fresh process (``--ns3-worker``) whose peak RSS (``VmHWM``) is reported.
Long ns-3 runs can be shortened with ``--ns3-seconds KEY=S``; both simulators then run S seconds.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench  # noqa: E402  (scripts/bench.py)

ROOT = bench.ROOT
# Dumbbell scenarios and the simulated seconds both simulators run (the 1 Gbit/s case is shortened:
# ns-3 needs several minutes of wall time per simulated 10 s there).
DUMBBELLS = {
    "cubic-24mbps": 60.0,
    "cubic-96mbps": 60.0,
    "cubic16-24mbps": 60.0,
    "cubic10-1gbps": 10.0,
}
SEGMENT = 1448  # payload bytes: 1500-byte IP packets with 52 bytes of IP+TCP(+timestamps) headers
PPP_HEADER = 2  # ns-3's point-to-point device adds a 2-byte PPP header on the wire

PROBE_CPP = r"""
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include <deque>
#include <vector>
namespace abprobe {
static std::deque<int64_t> enq;        // enqueue times (ns) of the queued packets, FIFO
static std::vector<uint64_t> hist;     // sojourn histogram, 10 us bins
static double rate_bps = 0;
static uint64_t n = 0, dropped = 0, dequeued = 0, deq_bytes = 0;
static double sum_ns = 0;
static int64_t half_ns = 0;                 // second-half statistics from here on
static uint64_t n2 = 0, deq_bytes2 = 0;
static double sum2_ns = 0;
void OnEnqueue(ns3::Ptr<const ns3::Packet>) { enq.push_back(ns3::Simulator::Now().GetNanoSeconds()); }
void OnDrop(ns3::Ptr<const ns3::Packet>) { dropped++; }
void OnDequeue(ns3::Ptr<const ns3::Packet> p) {
    int64_t t0 = enq.front();
    enq.pop_front();
    // Time in the queue plus the packet's own transmission (our "queueing delay" convention).
    double d = double(ns3::Simulator::Now().GetNanoSeconds() - t0) + p->GetSize() * 8e9 / rate_bps;
    size_t bin = size_t(d / 1e4);
    if (bin >= hist.size()) hist.resize(bin + 1, 0);
    hist[bin]++;
    n++;
    sum_ns += d;
    dequeued++;
    deq_bytes += p->GetSize();
    if (ns3::Simulator::Now().GetNanoSeconds() >= half_ns) { n2++; sum2_ns += d; deq_bytes2 += p->GetSize(); }
}
void Attach(ns3::Ptr<ns3::NetDevice> dev, double rate, double half_s) {
    rate_bps = rate;
    half_ns = int64_t(half_s * 1e9);
    auto q = ns3::DynamicCast<ns3::PointToPointNetDevice>(dev)->GetQueue();
    q->TraceConnectWithoutContext("Enqueue", ns3::MakeCallback(&OnEnqueue));
    q->TraceConnectWithoutContext("Dequeue", ns3::MakeCallback(&OnDequeue));
    q->TraceConnectWithoutContext("Drop", ns3::MakeCallback(&OnDrop));
}
double Quantile(double q) {  // Mahimahi index floor(q*N), bin midpoint, ns
    uint64_t r = uint64_t(q * n), seen = 0;
    for (size_t i = 0; i < hist.size(); i++) { seen += hist[i]; if (seen > r) return (i + 0.5) * 1e4; }
    return 0;
}
}
"""


def ns3_worker(key: str, seconds: float) -> None:
    """Run one dumbbell in ns-3 and print a JSON line (called in a fresh process)."""
    sc = json.loads((ROOT / f"docs/bench/{key}.json").read_text())
    mbps = sc["hops"][0]["link"]["mbps"]
    buffer = sc["hops"][0]["queue"]["packets"]
    delay_ms = sc["hops"][0]["delay_ms"]
    flows = sc["flows"][0].get("count", 1)
    assert sc["hops"][1]["delay_ms"] == delay_ms, "ns-3's point-to-point link has one delay both ways"

    import cppyy
    from ns import ns  # slow: loads ns-3 into cling

    cppyy.include("ns3/point-to-point-module.h")
    cppyy.cppdef(PROBE_CPP)
    probe = cppyy.gbl.abprobe

    bdp_bytes = mbps * 1e6 / 8 * 2 * delay_ms / 1e3
    buf = int(4 * (bdp_bytes + buffer * 1500))
    ns.Config.SetDefault("ns3::TcpL4Protocol::SocketType", ns.TypeIdValue(ns.TcpCubic.GetTypeId()))
    ns.Config.SetDefault("ns3::TcpSocket::SegmentSize", ns.UintegerValue(SEGMENT))
    ns.Config.SetDefault("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(10))
    ns.Config.SetDefault("ns3::TcpSocket::DelAckCount", ns.UintegerValue(2))
    ns.Config.SetDefault("ns3::TcpSocket::SndBufSize", ns.UintegerValue(buf))
    ns.Config.SetDefault("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(buf))
    ns.Config.SetDefault("ns3::TcpSocketBase::MinRto", ns.TimeValue(ns.MilliSeconds(200)))
    ns.Config.SetDefault("ns3::DropTailQueue<Packet>::MaxSize", ns.StringValue(f"{buffer}p"))

    nodes = ns.NodeContainer()
    nodes.Create(2)
    p2p = ns.PointToPointHelper()
    p2p.SetDeviceAttribute("DataRate", ns.StringValue(f"{mbps}Mbps"))
    p2p.SetChannelAttribute("Delay", ns.StringValue(f"{delay_ms}ms"))
    devices = p2p.Install(nodes)
    ns.InternetStackHelper().Install(nodes)
    addr = ns.Ipv4AddressHelper()
    addr.SetBase(ns.Ipv4Address("10.1.1.0"), ns.Ipv4Mask("255.255.255.0"))
    ifaces = addr.Assign(devices)
    ns.TrafficControlHelper().Uninstall(devices)  # the device queue is the bottleneck's drop-tail
    probe.Attach(devices.Get(0), mbps * 1e6, seconds / 2)

    sinks = []
    for i in range(flows):
        port = 5000 + i
        sink = ns.PacketSinkHelper(
            "ns3::TcpSocketFactory", ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo()
        )
        apps = sink.Install(nodes.Get(1))
        apps.Start(ns.Seconds(0))
        sinks.append(apps)
        dst = ns.InetSocketAddress(ifaces.GetAddress(1), port).ConvertTo()
        src = ns.BulkSendHelper("ns3::TcpSocketFactory", dst)
        src.SetAttribute("MaxBytes", ns.UintegerValue(0))
        src.SetAttribute("SendSize", ns.UintegerValue(SEGMENT))
        sapps = src.Install(nodes.Get(0))
        sapps.Start(ns.Seconds(0))
    ns.Simulator.Stop(ns.Seconds(seconds))
    t0 = time.perf_counter()
    ns.Simulator.Run()
    wall = time.perf_counter() - t0
    rx = sum(ns.DynamicCast[ns.PacketSink](a.Get(0)).GetTotalRx() for a in sinks)
    out = {
        "wall_s": wall,
        "simulated_s": seconds,
        "data_packets": int(probe.dequeued + probe.dropped + len(probe.enq)),
        "dropped": int(probe.dropped),
        "utilization": probe.deq_bytes * 8 / (mbps * 1e6 * seconds),
        "utilization_2nd_half": probe.deq_bytes2 * 8 / (mbps * 1e6 * seconds / 2),
        "queueing_delay_mean_2nd_half_ms": probe.sum2_ns / max(probe.n2, 1) / 1e6,
        "goodput_mbps": rx * 8 / seconds / 1e6,
        "queueing_delay_ms": {
            "count": int(probe.n),
            "mean": probe.sum_ns / max(probe.n, 1) / 1e6,
            "p50": probe.Quantile(0.5) / 1e6,
            "p95": probe.Quantile(0.95) / 1e6,
        },
        "maxrss_mb": bench.vmhwm_kib() / 1024,
    }
    ns.Simulator.Destroy()
    print(json.dumps(out), flush=True)


def run_ns3(key: str, seconds: float) -> dict:
    cmd = [sys.executable, __file__, "--ns3-worker", key, str(seconds)]
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    if proc.returncode != 0 or not lines:
        sys.exit(f"ns-3 {key}: exit {proc.returncode}\n{proc.stderr[-3000:]}")
    return json.loads(lines[-1])


def _pair(o: dict, n: dict, key: str, fmt: str) -> str:
    return f"{format(o[key], fmt)} / {format(n[key], fmt)}"


def markdown(rows: list[dict]) -> str:
    head = [
        "scenario", "simulated s", "data packets (ours / ns-3)", "wall s (ours / ns-3)",
        "data packets / wall s (ours / ns-3)", "speed ratio", "events / s (ours)",
        "utilisation (ours / ns-3)", "utilisation, 2nd half",
        "mean queueing delay ms (ours / ns-3)", "mean queueing delay ms, 2nd half",
        "p95 queueing delay ms (ours / ns-3)", "peak RSS MB (ours / ns-3)",
    ]  # fmt: skip
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        o, n = r["ours"], r["ns3"]
        oq, nq = o["queueing_delay_ms"], n["queueing_delay_ms"]
        cells = [
            r["key"],
            f"{o['simulated_s']:.0f}",
            _pair(o, n, "data_packets", ","),
            f"{o['wall_s']:.3f} / {n['wall_s']:.1f}",
            _pair(o, n, "data_packets_per_s", ",.0f"),
            f"**{r['ratio']:.0f}×**",
            f"{o['events_per_s'] / 1e6:.2f} M",
            _pair(o, n, "utilization", ".3f"),
            _pair(o, n, "utilization_2nd_half", ".3f"),
            _pair(oq, nq, "mean", ".1f"),
            _pair(o, n, "queueing_delay_mean_2nd_half_ms", ".1f"),
            _pair(oq, nq, "p95", ".1f"),
            f"{o['maxrss_mb']:.1f} / {n['maxrss_mb']:.0f}",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--only", help="comma-separated scenario keys; the other rows of the committed table are kept"
    )
    ap.add_argument("--ns3-seconds", action="append", default=[], help="KEY=S: simulate S seconds for KEY")
    ap.add_argument("--repeat", type=int, default=3, help="runs of ours per scenario (best wall time)")
    ap.add_argument("--out", default="docs/bench")
    ap.add_argument("--no-build", action="store_true")
    ap.add_argument("--ns3-worker", nargs=2, metavar=("KEY", "SECONDS"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.ns3_worker:
        ns3_worker(args.ns3_worker[0], float(args.ns3_worker[1]))
        return
    seconds = dict(DUMBBELLS)
    for kv in args.ns3_seconds:
        k, v = kv.split("=")
        seconds[k] = float(v)
    keys = args.only.split(",") if args.only else list(DUMBBELLS)
    if not args.no_build:
        bench.build()
    rows = []
    for key in keys:
        path = f"docs/bench/{key}.json"
        ours = bench.best_of(path, args.repeat, seconds[key] * 1000)
        # Second half [T/2, T): a run is deterministic, so a run to T/2 is the first half of the
        # run to T and the difference of the two gives the second half's figures.
        half = bench.run_one(path, seconds[key] * 500)
        ours["utilization_2nd_half"] = 2 * ours["utilization"] - half["utilization"]
        qt, qh = ours["queueing_delay_ms"], half["queueing_delay_ms"]
        ours["queueing_delay_mean_2nd_half_ms"] = (qt["mean"] * qt["count"] - qh["mean"] * qh["count"]) / (
            qt["count"] - qh["count"]
        )
        n3 = run_ns3(key, seconds[key])
        n3["data_packets_per_s"] = n3["data_packets"] / n3["wall_s"]
        ratio = ours["data_packets_per_s"] / n3["data_packets_per_s"]
        rows.append({"key": key, "ours": ours, "ns3": n3, "ratio": ratio})
        oq, nq = ours["queueing_delay_ms"], n3["queueing_delay_ms"]
        parts = [
            f"packets/s {_pair(ours, n3, 'data_packets_per_s', ',.0f')} -> {ratio:.0f}x",
            f"utilisation {_pair(ours, n3, 'utilization', '.3f')}",
            f"2nd half {_pair(ours, n3, 'utilization_2nd_half', '.3f')}",
            f"mean queueing delay {_pair(oq, nq, 'mean', '.1f')} ms",
            f"2nd half {_pair(ours, n3, 'queueing_delay_mean_2nd_half_ms', '.1f')} ms",
            f"peak RSS {_pair(ours, n3, 'maxrss_mb', '.0f')} MB",
        ]
        print(f"{key:16s} {seconds[key]:.0f} s: " + "; ".join(parts), flush=True)
    out = ROOT / args.out
    out.mkdir(parents=True, exist_ok=True)
    if args.only and (out / "ns3.json").is_file():
        # --only re-measures some rows and keeps the others, in the table's order.
        kept = {r["key"]: r for r in json.loads((out / "ns3.json").read_text())}
        kept.update({r["key"]: r for r in rows})
        rows = [kept[k] for k in list(DUMBBELLS) + sorted(set(kept) - set(DUMBBELLS)) if k in kept]
    (out / "ns3.json").write_text(json.dumps(rows, indent=1) + "\n")
    (out / "ns3.md").write_text(markdown(rows))
    print(f"wrote {out / 'ns3.md'} and {out / 'ns3.json'}")


if __name__ == "__main__":
    main()
