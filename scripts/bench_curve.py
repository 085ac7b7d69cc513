#!/usr/bin/env python3
"""CPU time per data packet of the release ``run`` example, against flows and bandwidth.

Each scenario of ``CURVE`` runs ``--repeat`` times (default 5) in a fresh process; a run's CPU time
is the child's user + system seconds from ``os.wait4`` (the operating system's accounting of that
process alone), and the figure quoted is the median over the runs. "Data packets" are segments sent
(retransmissions included), as in ``scripts/bench.py``. CPU time rather than wall time, because the
benchmark machine is shared and wall time there varies by ±40 %; CPU time varies by a few %.

    python3 scripts/bench_curve.py                   # writes docs/bench/curve.{md,json,svg}
    python3 scripts/bench_curve.py --baseline BIN    # also the CPU ratio against another build's
                                                     # run example, runs interleaved A B A B ...

and rewrites the ``<!-- bench:curve -->`` region of docs/performance.md with the table. Whole
processes are timed (parsing the scenario, building, running, summarising), as a user waits for
them. Needs only Python 3.10+ and cargo (it builds the example itself unless ``--no-build``).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = ROOT / "target" / "release" / "examples" / "run"

# htsim's CPU ns per data packet on the same dumbbells (NewReno, 100 ms RTT, drop-tail), measured on
# this machine kind with htsim's own driver: the reference figures of the side-by-side.
HTSIM_NS = {"newreno-96mbps": 166.0, "newreno-24mbps": 193.0, "newreno10-1gbps": 162.0}
# htsim measured side by side on this machine by scripts/htsim_compare.py (its TCP core built from
# source with our driver): the table shows its figures next to the recorded ones when present.
HTSIM_MEASURED = ROOT / "docs" / "bench" / "htsim.json"


def htsim_measured() -> dict[str, float]:
    """htsim's CPU ns per data packet by scenario key, from the last scripts/htsim_compare.py run."""
    try:
        doc = json.loads(HTSIM_MEASURED.read_text())
        return {r["key"]: float(r["htsim"]["ns_per_packet"]) for r in doc["rows"]}
    except (OSError, ValueError, KeyError, TypeError):
        return {}


# (key = docs/bench/KEY.json, group, flows, Mbit/s, description). NewReno, 100 ms RTT, drop-tail
# unless said otherwise; "htsim": the three reference dumbbells; "flows" and "bandwidth": the
# two axes of the curve.
CURVE = [
    ("newreno-96mbps", "htsim", 1, 96, "1 flow, 96 Mbit/s, 250 pkts, 600 s"),
    ("newreno-24mbps", "htsim", 1, 24, "1 flow, 24 Mbit/s, 250 pkts, 60 s"),
    ("newreno10-1gbps", "htsim", 10, 1000, "10 flows, 1 Gbit/s, 8333 pkts (BDP), 10 s"),
    ("newreno10-96mbps", "flows", 10, 96, "10 flows, 96 Mbit/s, 250 pkts, 120 s"),
    ("newreno100-96mbps", "flows", 100, 96, "100 flows, 96 Mbit/s, 250 pkts, 120 s"),
    ("newreno1000-96mbps", "flows", 1000, 96, "1000 flows, 96 Mbit/s, 250 pkts, 120 s"),
    ("newreno10-24mbps", "bandwidth", 10, 24, "10 flows, 24 Mbit/s, 200 pkts (BDP), 300 s"),
    ("newreno10-96mbps-bdp", "bandwidth", 10, 96, "10 flows, 96 Mbit/s, 800 pkts (BDP), 120 s"),
    ("newreno10-10gbps", "bandwidth", 10, 10000, "10 flows, 10 Gbit/s, 83333 pkts (BDP), 10 s"),
    ("newreno100-10gbps", "bandwidth", 100, 10000, "100 flows, 10 Gbit/s, 83333 pkts (BDP), 10 s"),
    # The whole-run benchmarks of scripts/bench.py (Cubic, ABC), for the before/after ratio.
    ("cubic-96mbps", "existing", 1, 96, "Cubic, 1 flow, 96 Mbit/s, 250 pkts, 60 s"),
    ("abc-verizon", "existing", 1, 0, "ABC, Verizon-LTE-short.up, 250 pkts, 140 s"),
    ("cubic16-24mbps", "existing", 16, 24, "Cubic, 16 flows, 24 Mbit/s, 250 pkts, 60 s"),
    ("cubic10-1gbps", "existing", 10, 1000, "Cubic, 10 flows, 1 Gbit/s, 8333 pkts (BDP), 60 s"),
]


def run_timed(binary: str, path: str) -> dict:
    """One run, timed with ``os.wait4`` on the child's own resource usage."""
    fd, tmp = tempfile.mkstemp(prefix="bench_curve.", suffix=".out")
    os.close(fd)
    out_path = Path(tmp)
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    actions = [(os.POSIX_SPAWN_OPEN, 1, str(out_path), flags, 0o600)]
    pid = os.posix_spawn(binary, [binary, "--bench", path], os.environ, file_actions=actions)
    _, status, usage = os.wait4(pid, 0)
    text = out_path.read_text()
    out_path.unlink()
    if status != 0:
        sys.exit(f"{binary} {path}: exit status {status}")
    stats = json.loads(text)
    stats["cpu_s"] = usage.ru_utime + usage.ru_stime
    return stats


def measure(path: str, repeat: int, baseline: str | None) -> dict:
    runs, base, ratios = [], [], []
    for _ in range(repeat):
        a = run_timed(str(BIN), path)
        runs.append(a)
        if baseline:
            b = run_timed(baseline, path)
            base.append(b)
            ratios.append(a["cpu_s"] / b["cpu_s"])
    r = dict(runs[0])
    r["cpu_s_all"] = [x["cpu_s"] for x in runs]
    r["cpu_s"] = statistics.median(r["cpu_s_all"])
    r["peak_rss_mb"] = max((x["peak_rss_kib"] or 0) for x in runs) / 1024
    r["ns_per_packet"] = r["cpu_s"] / r["data_packets"] * 1e9
    if baseline:
        r["baseline_cpu_s"] = statistics.median(x["cpu_s"] for x in base)
        r["baseline_ns_per_packet"] = r["baseline_cpu_s"] / base[0]["data_packets"] * 1e9
        r["cpu_ratio"] = statistics.median(ratios)
    return r


def markdown(rows: list[dict]) -> str:
    base = any("cpu_ratio" in r for r in rows)
    measured = htsim_measured()
    head = (
        "| scenario | data packets | events / packet | CPU s (median) | CPU ns / data packet |"
        " htsim ns, reference | htsim ns, measured here |"
    )
    sep = "|---|---|---|---|---|---|---|"
    if base:
        head += " before ns | after / before |"
        sep += "---|---|"
    head += " peak RSS MB |"
    sep += "---|"
    lines = [head, sep]
    for r in rows:
        ht, hm = HTSIM_NS.get(r["key"]), measured.get(r["key"])
        line = (
            f"| {r['description']} | {r['data_packets']:,} | {r['events'] / r['data_packets']:.2f} | "
            f"{r['cpu_s']:.3f} | **{r['ns_per_packet']:.0f}** | {f'{ht:.0f}' if ht else '–'} | "
            f"{f'{hm:.0f}' if hm else '–'} |"
        )
        if base:
            line += f" {r['baseline_ns_per_packet']:.0f} | {r['cpu_ratio']:.2f} |"
        line += f" {r['peak_rss_mb']:.1f} |"
        lines.append(line)
    flows = [r for r in rows if r["key"] == "newreno-96mbps" or r["group"] == "flows"]
    bw = [r for r in rows if r["group"] == "bandwidth" and r["flows"] == 10]
    for name, grp in (("1 → 1000 flows at 96 Mbit/s", flows), ("24 Mbit/s → 10 Gbit/s with 10 flows", bw)):
        if len(grp) > 1:
            ns = [r["ns_per_packet"] for r in grp]
            lines.append("")
            lines.append(f"Spread {name}: {min(ns):.0f}–{max(ns):.0f} ns, max/min = {max(ns) / min(ns):.2f}.")
    return "\n".join(lines) + "\n"


def svg(rows: list[dict]) -> str:
    """Two panels, log-scale x: ns per data packet against flows, and against bandwidth."""
    import math

    def on_flows_axis(r: dict) -> bool:
        return r["key"] == "newreno-96mbps" or r["group"] == "flows"

    flows = sorted((r["flows"], r["ns_per_packet"]) for r in rows if on_flows_axis(r))
    bw_rows = [r for r in rows if r["group"] == "bandwidth" and r["flows"] == 10]
    bw = sorted((r["mbps"], r["ns_per_packet"]) for r in bw_rows)
    ymax = max(r["ns_per_packet"] for r in rows) * 1.15
    w, h, pad = 360, 240, 45
    xmlns = "http://www.w3.org/2000/svg"
    parts = [f'<svg xmlns="{xmlns}" width="{2 * w}" height="{h}" font-family="sans-serif" font-size="11">']
    panels = (
        (flows, "flows (96 Mbit/s, 250 pkts)"),
        (bw, "bandwidth, Mbit/s (10 flows, BDP buffer)"),
    )
    for i, (pts, label) in enumerate(panels):
        x0 = i * w
        if not pts:
            continue
        lo, hi = math.log10(pts[0][0]), math.log10(pts[-1][0])
        span = hi - lo or 1.0
        left, right, bottom = x0 + pad, x0 + w - pad, h - pad

        def px(v: float, lo: float = lo, span: float = span, left: int = left) -> float:
            return left + (math.log10(v) - lo) / span * (w - 2 * pad)

        def py(v: float, bottom: int = bottom) -> float:
            return bottom - v / ymax * (h - 2 * pad)

        parts.append(f'<line x1="{left}" y1="{bottom}" x2="{right}" y2="{bottom}" stroke="black"/>')
        parts.append(f'<line x1="{left}" y1="{pad / 2}" x2="{left}" y2="{bottom}" stroke="black"/>')
        for t in range(0, int(ymax) + 1, 50):
            y = f"{py(t):.1f}"
            parts.append(f'<text x="{left - 4}" y="{py(t) + 4:.1f}" text-anchor="end">{t}</text>')
            parts.append(f'<line x1="{left}" y1="{y}" x2="{right}" y2="{y}" stroke="#ddd"/>')
        line = " ".join(f"{px(x):.1f},{py(y):.1f}" for x, y in pts)
        parts.append(f'<polyline points="{line}" fill="none" stroke="#1f77b4" stroke-width="2"/>')
        for x, y in pts:
            cx, cy = f"{px(x):.1f}", f"{py(y):.1f}"
            parts.append(f'<circle cx="{cx}" cy="{cy}" r="3" fill="#1f77b4"/>')
            parts.append(f'<text x="{cx}" y="{bottom + 14}" text-anchor="middle">{x:g}</text>')
            parts.append(f'<text x="{cx}" y="{py(y) - 6:.1f}" text-anchor="middle">{y:.0f}</text>')
        parts.append(f'<text x="{x0 + w / 2}" y="{h - 8}" text-anchor="middle">{label}</text>')
        rot = f"rotate(-90 {x0 + 12} {h / 2})"
        ylabel = "CPU ns per data packet"
        parts.append(
            f'<text x="{x0 + 12}" y="{h / 2}" transform="{rot}" text-anchor="middle">{ylabel}</text>'
        )
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--only", help="comma-separated scenario keys")
    ap.add_argument("--baseline", help="another build's run example, for before/after ratios")
    ap.add_argument("--out", default="docs/bench", help="directory for curve.md / curve.json / curve.svg")
    ap.add_argument("--no-docs", action="store_true", help="do not rewrite docs/performance.md")
    ap.add_argument("--no-build", action="store_true")
    args = ap.parse_args()
    if not args.no_build:
        cmd = ["cargo", "build", "--release", "--quiet", "--example", "run", "-p", "accelbrake-sim"]
        subprocess.run(cmd, cwd=ROOT, check=True)
    keys = set(args.only.split(",")) if args.only else None
    rows = []
    for key, group, flows, mbps, desc in CURVE:
        if keys and key not in keys:
            continue
        r = measure(f"docs/bench/{key}.json", args.repeat, args.baseline)
        r.update(key=key, group=group, flows=flows, mbps=mbps, description=desc)
        rows.append(r)
        extra = f"  after/before {r['cpu_ratio']:.2f}" if args.baseline else ""
        ns, cpu, mb = r["ns_per_packet"], r["cpu_s"], r["peak_rss_mb"]
        print(f"{key:22s} {ns:6.0f} ns/pkt  cpu {cpu:.3f} s  {mb:.1f} MB{extra}", flush=True)
    out = ROOT / args.out
    out.mkdir(parents=True, exist_ok=True)
    meta = {"machine": platform.platform(), "cpus": os.cpu_count(), "repeat": args.repeat}
    (out / "curve.json").write_text(json.dumps({"meta": meta, "runs": rows}, indent=1) + "\n")
    table = markdown(rows)
    (out / "curve.md").write_text(table)
    if not keys:
        (out / "curve.svg").write_text(svg(rows))
    if not args.no_docs and not keys:
        doc = ROOT / "docs" / "performance.md"
        text = doc.read_text()
        region = re.compile(r"(<!-- bench:curve -->\n).*?(<!-- /bench:curve -->)", re.S)
        if region.search(text):
            doc.write_text(region.sub(lambda m: m.group(1) + table + m.group(2), text))
    print(f"wrote {out / 'curve.md'}, {out / 'curve.json'}")


if __name__ == "__main__":
    main()
