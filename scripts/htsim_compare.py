#!/usr/bin/env python3
"""CPU time per data packet of htsim and of our ``run`` example on the same dumbbells.

    python3 scripts/htsim_compare.py --htsim-src DIR      # DIR: a csg-htsim checkout (DIR/sim/*.cpp)

builds htsim's TCP core and our driver ``scripts/htsim/dumbbell.cpp`` from DIR (no network: g++ with
the CC and CFLAGS of DIR/sim/Makefile, objects in target/htsim/), builds our ``run`` example
(``cargo build --release -p accelbrake-sim --example run``), then times whole processes of the two
simulators interleaved (ours, htsim, ours, htsim, ...; ``--repeat`` pairs, default 5) on each row of
``ROWS``. A run's CPU time is the child's user + system seconds from ``os.wait4``, exactly as
``scripts/bench_curve.py`` measures ours; CPU ns per data packet = that / data packets sent
(retransmissions included). The ratio quoted is the median of the per-pair ratios (ours / htsim).
Writes docs/bench/htsim.json and docs/bench/htsim.md.

Each row is one of our benchmark scenarios (docs/bench/KEY.json, read here: rate, buffer, flows,
duration); the htsim driver gets the same numbers. htsim's initial ssthresh is set to the window at
which the path is full, (BDP + buffer) / flows packets (see the driver's header for why), and the
table gives both simulators' data packets and utilisation so that the reader can see how close the
carried traffic is. The machine may be shared: the 1-minute load average is sampled around every run
and reported; interleaving keeps the ratio fair under load, absolute figures are inflated by it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUR_BIN = ROOT / "target" / "release" / "examples" / "run"
BUILD = ROOT / "target" / "htsim"
DRIVER = ROOT / "scripts" / "htsim" / "dumbbell.cpp"

# htsim sources the dumbbell needs (event list, packets, routes, drop-tail queue, pipe, TCP; mtcp.cpp
# and loggers.cpp only for symbols tcp.cpp and Logged name; no logger is attached).
HTSIM_SOURCES = "eventlist network config pipe queue tcp tcppacket route mtcp loggers".split()

# (key = docs/bench/KEY.json, description, reference row). The first three are the reference rows
# (htsim 166 / 193 / 162 ns per data packet, measured with htsim's own driver on this machine class).
ROWS = [
    ("newreno-96mbps", "1 flow, 96 Mbit/s, 250 pkts, 600 s", True),
    ("newreno-24mbps", "1 flow, 24 Mbit/s, 250 pkts, 60 s", True),
    ("newreno10-1gbps", "10 flows, 1 Gbit/s, 8333 pkts (BDP), 10 s", True),
    ("newreno1000-96mbps", "1000 flows, 96 Mbit/s, 250 pkts, 120 s", False),
    ("newreno10-10gbps", "10 flows, 10 Gbit/s, 83333 pkts (BDP), 10 s", False),
]
RECORDED_HTSIM_NS = {"newreno-96mbps": 166.0, "newreno-24mbps": 193.0, "newreno10-1gbps": 162.0}

ONE_WAY_MS = 50.0  # the driver's pipes: 50 ms each way, 100 ms base RTT
PACKET_BYTES = 1500  # htsim's default data packet; our MTU (1448 + 52)


def dumbbell(path: Path) -> dict:
    """The dumbbell parameters of one of our NewReno scenarios; ValueError naming the file and field."""
    try:
        sc = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise ValueError(f"{path}: {e}") from e

    def need(cond: bool, field: str, what: str) -> None:
        if not cond:
            raise ValueError(f"{path}: {field}: {what} (the htsim driver builds only that dumbbell)")

    hops, flows = sc.get("hops"), sc.get("flows")
    need(isinstance(hops, list) and len(hops) == 2, "hops", "exactly two hops (bottleneck, ack)")
    need(isinstance(flows, list) and len(flows) == 1, "flows", "exactly one flow entry")
    fwd, rev = hops
    for i, h in enumerate(hops):
        need(h.get("link", {}).get("type") == "constant", f"hops[{i}].link.type", '"constant"')
        need(h.get("delay_ms") == ONE_WAY_MS, f"hops[{i}].delay_ms", f"{ONE_WAY_MS:g}")
    mbps = fwd["link"].get("mbps")
    need(isinstance(mbps, (int, float)) and mbps > 0, "hops[0].link.mbps", "a positive rate")
    need(rev["link"].get("mbps") == mbps, "hops[1].link.mbps", "the bottleneck's rate")
    q = fwd.get("queue", {})
    droptail = q.get("type") == "droptail" and isinstance(q.get("packets"), int)
    need(droptail, "hops[0].queue", "drop-tail with a whole number of packets")
    need(rev.get("queue", {}).get("type") == "infinite", "hops[1].queue.type", '"infinite"')
    f = flows[0]
    need(f.get("scheme") == "newreno", "flows[0].scheme", '"newreno"')
    need(f.get("fwd") == [0] and f.get("rev") == [1], "flows[0].fwd/rev", "[0] and [1]")
    extra = sorted(set(f) - {"scheme", "fwd", "rev", "count"})
    need(not extra, f"flows[0].{','.join(extra)}", "not supported")
    count = f.get("count", 1)
    need(isinstance(count, int) and count >= 1, "flows[0].count", "a positive integer")
    dur = sc.get("duration_ms")
    need(isinstance(dur, (int, float)) and dur > 0, "duration_ms", "a positive duration")
    return {"mbps": float(mbps), "buffer_pkts": q["packets"], "flows": count, "seconds": dur / 1000.0}


def initial_ssthresh_pkts(mbps: float, buffer_pkts: int, flows: int) -> float:
    """Window (packets per flow) at which the path is full: (bandwidth-delay product + buffer) / flows."""
    bdp = mbps * 1e6 * (2 * ONE_WAY_MS / 1000.0) / (8 * PACKET_BYTES)
    return (bdp + buffer_pkts) / flows


def makefile_flags(sim: Path) -> tuple[str, list[str]]:
    """CC and CFLAGS of htsim's own Makefile (``CFLAGS = ...`` then ``CFLAGS += ...``, uncommented)."""
    mk = sim / "Makefile"
    try:
        text = mk.read_text()
    except OSError as e:
        raise ValueError(f"--htsim-src: {mk}: {e}") from e
    cc, flags = "g++", []
    for line in text.splitlines():
        m = re.match(r"^\s*(CC|CFLAGS)\s*(\+?=)\s*(.*)$", line)
        if not m:
            continue
        name, op, value = m.groups()
        if name == "CC":
            cc = value.strip()
        elif op == "=":
            flags = shlex.split(value)
        else:
            flags += shlex.split(value)
    if not flags:
        raise ValueError(f"--htsim-src: {mk}: no CFLAGS line")
    return cc, flags


def build_htsim(src: Path) -> Path:
    """Compile htsim's TCP core from SRC/sim and link our driver against it; returns the binary."""
    sim = src / "sim"
    missing = [f"{s}.cpp" for s in HTSIM_SOURCES if not (sim / f"{s}.cpp").is_file()]
    if missing:
        raise ValueError(f"--htsim-src: {sim} lacks {', '.join(missing)} (need a csg-htsim checkout)")
    cc, flags = makefile_flags(sim)
    BUILD.mkdir(parents=True, exist_ok=True)
    objs = []
    for s in HTSIM_SOURCES:
        obj = BUILD / f"{s}.o"
        subprocess.run([cc, *flags, "-c", "-o", str(obj), str(sim / f"{s}.cpp")], check=True)
        objs.append(str(obj))
    binary = BUILD / "dumbbell"
    cmd = [cc, *flags, "-I", str(sim), "-o", str(binary), str(DRIVER), *objs]
    subprocess.run(cmd, check=True)
    print(f"built {binary}: {shlex.join([cc, *flags])}", flush=True)
    return binary


def run_timed(argv: list[str]) -> dict:
    """One run, timed with ``os.wait4`` on the child's own resource usage; its last JSON line."""
    fd, tmp = tempfile.mkstemp(prefix="htsim_compare.", suffix=".out")
    os.close(fd)
    out_path = Path(tmp)
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    actions = [(os.POSIX_SPAWN_OPEN, 1, str(out_path), flags, 0o600)]
    load = os.getloadavg()[0]
    pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=actions)
    _, status, usage = os.wait4(pid, 0)
    text = out_path.read_text()
    out_path.unlink()
    if status != 0:
        sys.exit(f"{shlex.join(argv)}: exit status {status}")
    lines = text.splitlines()
    stats = json.loads(next(x for x in reversed(lines) if x.startswith("{")))
    stats["stdout_lines"] = len(lines)
    stats["cpu_s"] = usage.ru_utime + usage.ru_stime
    stats["user_s"], stats["sys_s"] = usage.ru_utime, usage.ru_stime
    stats["load"] = [load, os.getloadavg()[0]]
    return stats


def summarise(runs: list[dict], name: str, key: str) -> dict:
    pkts = {r["data_packets"] for r in runs}
    if len(pkts) != 1:
        sys.exit(f"{key}: {name} is not deterministic: data packets {sorted(pkts)}")
    cpu = [r["cpu_s"] for r in runs]
    r = {k: v for k, v in runs[0].items() if k not in ("cpu_s", "user_s", "sys_s", "load")}
    r["cpu_s_all"] = cpu
    r["cpu_s"] = statistics.median(cpu)
    r["user_s"] = statistics.median(x["user_s"] for x in runs)
    r["sys_s"] = statistics.median(x["sys_s"] for x in runs)
    r["ns_per_packet"] = r["cpu_s"] / r["data_packets"] * 1e9
    r["peak_rss_mb"] = max((x.get("peak_rss_kib") or 0) for x in runs) / 1024
    return r


def same_ssthresh_scenario(path: Path, ss: float, out: Path) -> Path | None:
    """Our scenario with NewReno's ``initial_ssthresh`` set to htsim's (rounded), written to ``out``:
    both simulators then leave slow start at the same window, with no overshoot. None when that
    window is below RFC 5681's 2 segments (the 1000-flow row: 1.05 packets per flow)."""
    n = round(ss)
    if n < 2:
        return None
    sc = json.loads(path.read_text())
    sc["flows"][0]["params"] = {**sc["flows"][0].get("params", {}), "initial_ssthresh": n}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(sc))
    return out


def per_packet_ratio(a: dict, b: dict) -> float:
    return (a["cpu_s"] / a["data_packets"]) / (b["cpu_s"] / b["data_packets"])


def measure(key: str, desc: str, issue_row: bool, htsim_bin: Path, repeat: int) -> dict:
    path = ROOT / "docs" / "bench" / f"{key}.json"
    d = dumbbell(path)
    ss = initial_ssthresh_pkts(d["mbps"], d["buffer_pkts"], d["flows"])
    ht_argv = [str(htsim_bin), f"{d['mbps']:g}", str(d["buffer_pkts"]), str(d["flows"]), f"{d['seconds']:g}"]
    ht_argv += ["--ssthresh-pkts", f"{ss:.2f}"]
    ours_argv = [str(OUR_BIN), "--bench", str(path)]
    same = same_ssthresh_scenario(path, ss, BUILD / f"{key}.same-ssthresh.json")
    same_argv = [str(OUR_BIN), "--bench", str(same)] if same else None
    ours, ht, ours_same, ratios, ratios_same, loads = [], [], [], [], [], []
    for _ in range(repeat):
        a = run_timed(ours_argv)
        b = run_timed(ht_argv)
        ours.append(a)
        ht.append(b)
        loads += a["load"] + b["load"]
        ratios.append(per_packet_ratio(a, b))
        if same_argv:
            c = run_timed(same_argv)
            ours_same.append(c)
            loads += c["load"]
            ratios_same.append(per_packet_ratio(c, b))
    row = {"key": key, "description": desc, "issue_row": issue_row, "dumbbell": d}
    row["htsim_argv"] = [Path(ht_argv[0]).name, *ht_argv[1:]]
    row["ours_argv"] = ["run", "--bench", f"docs/bench/{key}.json"]
    row["initial_ssthresh_pkts"] = ss
    row["ours"] = summarise(ours, "our run example", key)
    row["htsim"] = summarise(ht, "htsim", key)
    row["ratio_all"] = ratios
    row["ratio"] = statistics.median(ratios)
    if ours_same:
        row["ours_same_ssthresh"] = summarise(ours_same, "our run example (htsim's ssthresh)", key)
        row["ratio_same_ssthresh_all"] = ratios_same
        row["ratio_same_ssthresh"] = statistics.median(ratios_same)
    row["load_min"], row["load_max"] = min(loads), max(loads)
    row["recorded_htsim_ns"] = RECORDED_HTSIM_NS.get(key)
    return row


def markdown(rows: list[dict], meta: dict) -> str:
    head = (
        "| scenario | data packets: ours / htsim | CPU ns / data packet: ours / htsim | ours / htsim "
        "| utilisation: ours / htsim | peak RSS MB: ours / htsim "
        "| ours with htsim's initial ssthresh: ns (÷ htsim) | machine load during the row (1-min) |"
    )
    src = f"git {meta['htsim_git'][:12]}" if meta["htsim_git"] else "not a git checkout"
    commit = (meta["accelbrake_commit"] or "?")[:12]
    arch = "x86-64" if "x86_64" in meta["machine"] else platform.machine()
    intro = (
        f"Measured on a {meta['cpus']}-core {arch} Linux machine (see the load column) by "
        "`python3 scripts/htsim_compare.py --htsim-src DIR`; ours: the `run` "
        f"example at commit `{commit}`; htsim: csg-htsim's `sim/` ({src}) with our driver "
        f"`scripts/htsim/dumbbell.cpp`, built as `{meta['htsim_build']}`."
    )
    lines = [intro, "", head, "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        o, h, same = r["ours"], r["htsim"], r.get("ours_same_ssthresh")
        same_txt = f"{same['ns_per_packet']:.0f} ({r['ratio_same_ssthresh']:.2f})" if same else "– (below 2)"
        lines.append(
            f"| {r['description']} | {o['data_packets']:,} / {h['data_packets']:,} "
            f"| **{o['ns_per_packet']:.0f}** / **{h['ns_per_packet']:.0f}** | {r['ratio']:.2f} "
            f"| {o['utilization']:.3f} / {h['utilization']:.3f} "
            f"| {o['peak_rss_mb']:.1f} / {h['peak_rss_mb']:.1f} | {same_txt} "
            f"| {r['load_min']:.1f}–{r['load_max']:.1f} |"
        )
    lines.append("")
    lines.append(
        f"Median of {meta['repeat']} interleaved pairs (ours, htsim, ...); CPU = user + system seconds of "
        'each whole process from `os.wait4`; "ours / htsim" is the median of the per-pair ratios of CPU ns '
        "per data packet (below 1: ours cheaper). Data packets: segments sent, retransmissions included. "
        "Utilisation: ours, the bottleneck link's busy fraction; htsim, bytes received by the sinks × 8 / "
        '(rate × duration). "Ours with htsim\'s initial ssthresh": the same scenario with '
        "`newreno.initial_ssthresh` set to the value htsim gets (rounded), timed in the same pairs, so "
        "that neither simulator overshoots in slow start (ours otherwise starts unbounded, as Linux does, "
        "and repairs the overshoot with SACK)."
    )
    notes = []
    for r in rows:
        o, h = r["ours"], r["htsim"]
        dp = h["data_packets"] / o["data_packets"] - 1
        du = h["utilization"] - o["utilization"]
        ss = r["initial_ssthresh_pkts"]
        ss_txt = f"{ss:.0f} packets" if ss >= 10 else f"{ss:.2f} packets (below the initial window of 10)"
        user = [x["user_s"] / x["data_packets"] * 1e9 for x in (o, h)]
        events = [x["events"] / x["data_packets"] for x in (o, h)]
        rec = r["recorded_htsim_ns"]
        rec_txt = f"; htsim reference: {rec:.0f} ns" if rec else ""
        rto = h["stdout_lines"] - 1
        noisy = f"; htsim printed {rto:,} retransmission-timeout lines (part of its CPU)" if rto else ""
        notes.append(
            f"- {r['description']}: htsim carried {dp:+.1%} data packets, utilisation {du:+.3f}; "
            f"htsim's initial ssthresh {ss_txt}; user time only {user[0]:.0f} / {user[1]:.0f} ns "
            f"({user[0] / user[1]:.2f}); events per data packet {events[0]:.2f} / {events[1]:.2f}"
            f"{rec_txt}{noisy}."
        )
    text = "\n".join(lines + [""] + notes) + "\n"
    if meta.get("htsim_provenance"):
        # The checkout's own account of where its files came from (a tree rebuilt without network).
        body = re.sub(r"^# .*\n+", "", meta["htsim_provenance"])
        text += f"\n### The htsim source used (its PROVENANCE.md)\n\n{body.rstrip()}\n"
    return text


def git_rev(path: Path) -> str | None:
    try:
        out = subprocess.run(["git", "-C", str(path), "rev-parse", "HEAD"], capture_output=True, text=True)
    except OSError:
        return None
    return out.stdout.strip() if out.returncode == 0 else None


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--htsim-src", required=True, type=Path, help="a csg-htsim checkout (with sim/)")
    ap.add_argument("--repeat", type=int, default=5, help="interleaved pairs per row (default 5)")
    ap.add_argument("--only", help="comma-separated row keys (default: all of ROWS)")
    ap.add_argument("--out", default="docs/bench", help="directory for htsim.md / htsim.json")
    ap.add_argument("--no-build", action="store_true", help="use the existing binaries")
    args = ap.parse_args()
    if args.repeat < 1:
        ap.error("--repeat must be at least 1")
    keys = set(args.only.split(",")) if args.only else None
    known = {k for k, _, _ in ROWS}
    if keys and keys - known:
        unknown, names = ", ".join(sorted(keys - known)), ", ".join(sorted(known))
        ap.error(f"--only: unknown row(s) {unknown}; known: {names}")
    src = args.htsim_src.resolve()
    try:
        if args.no_build:
            htsim_bin = BUILD / "dumbbell"
        else:
            cmd = ["cargo", "build", "--release", "--quiet", "-p", "accelbrake-sim", "--example", "run"]
            subprocess.run(cmd, cwd=ROOT, check=True)
            htsim_bin = build_htsim(src)
        cc, flags = makefile_flags(src / "sim")
        rows = []
        for key, desc, issue_row in ROWS:
            if keys and key not in keys:
                continue
            r = measure(key, desc, issue_row, htsim_bin, args.repeat)
            rows.append(r)
            o, h = r["ours"], r["htsim"]
            print(
                f"{key:20s} ours {o['ns_per_packet']:5.0f} ns/pkt  htsim {h['ns_per_packet']:5.0f} ns/pkt  "
                f"ratio {r['ratio']:.2f}  util {o['utilization']:.3f}/{h['utilization']:.3f}  "
                f"load {r['load_min']:.1f}-{r['load_max']:.1f}",
                flush=True,
            )
    except ValueError as e:
        sys.exit(f"error: {e}")
    except subprocess.CalledProcessError as e:
        sys.exit(f"error: {shlex.join(map(str, e.cmd))} failed with exit status {e.returncode}")
    except OSError as e:  # no g++ / cargo on PATH, an unreadable file
        sys.exit(f"error: {e}")
    meta = {
        "machine": platform.platform(),
        "cpus": os.cpu_count(),
        "repeat": args.repeat,
        "accelbrake_commit": git_rev(ROOT),
        "htsim_git": git_rev(src),
        "htsim_build": shlex.join([cc, *flags]),
        "htsim_provenance": None,
    }
    prov = src / "PROVENANCE.md"
    if prov.is_file():
        meta["htsim_provenance"] = prov.read_text()
    out = ROOT / args.out
    out.mkdir(parents=True, exist_ok=True)
    (out / "htsim.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=1) + "\n")
    (out / "htsim.md").write_text(markdown(rows, meta))
    print(f"wrote {out / 'htsim.md'}, {out / 'htsim.json'}")


if __name__ == "__main__":
    main()
