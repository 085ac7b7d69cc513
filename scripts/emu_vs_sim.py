"""Simulator vs real kernel TCP over the emulated link, same traces and settings.

For each setup and congestion control: `accelbrake run` (the simulator; trace offset pinned to 0,
as the emulator starts its traces at 0) and `accelbrake emulate` (Linux's cubic, reno, bbr on real
sockets through `accelbrake-emu`, the same TraceLink and drop-tail queue), then utilisation and p95
per-packet delay side by side with the tolerances (±5 % utilisation, ±10 % p95 delay).

Setups: the ABC paper's cellular setup (Verizon-LTE-short.up data link, bw12 ACK link, 50 ms
one-way delay, 250-packet drop-tail) and a 24 Mbit/s dumbbell (bw24 both ways, 50 ms, 250 packets).

ABC (`abc`, `abc-cubic`): the simulator's ABC sender and router against ABC in eBPF (both ends)
over the same ABC router in the emulator, 250 packets (goal: ±10 % utilisation and p95 delay);
`abc-cubic+droptail`: the §4.1 sender over a 250-packet drop-tail queue (its Cubic window in control).

`S@user` (e.g. `copa@user,abc@user`): scheme S on the user-space transport (`emulate --transport
user`, the simulator's own sender, receiver and controller over UDP), against `run` (±10 % / ±10 %).

`--flows N`: N flows of the scheme at once both ways (`run --flows N`, `emulate --flows
N`); a second table then gives each flow's throughput and p95 per-packet delay and Jain's index.

`--sim-set KEY=VALUE` (repeatable) passes parameters to `run` only, e.g. `--sim-set
bbr.ack_aggregation=true` for the ACK-aggregation allowance of the kernel's BBR (Linux ≥ 5.1).

`--linux`: the simulator with the Linux behaviours that the comparison found missing,
each an option that is off by default (the ABC paper's reproductions keep RFC 6298/6675 senders):
Cubic and NewReno with Linux's RTO (`linux_rto`), RACK (`rack`) and, for Cubic, PRR (`prr`); BBR
with the ACK-aggregation allowance (Linux ≥ 5.1) and the 2-segment send quantum read off the
kernel's TCP_INFO over these devices (`LINUX`).

`--repeat N`: N runs each way — `run` with seeds 0 … N − 1 (which draw BBR's PROBE_BW
phase and the host jitter), `emulate` N times — and the means compared, with each side's range:
the kernel's BBR on the cellular trace spreads more than ±10 % from run to run.

`--state DIR`: the senders' state over time, both ways, for kernel TCP: `emulate
--tcp-info` (the kernel sender's TCP_INFO every 10 ms) and `run --out` (the simulator's per-flow
time series) into DIR, then each scheme's window side by side every half second (cwnd, in flight,
srtt; the kernel's ssthresh and ca_state), and the kernel sender's TcpExt counters.

    sudo .venv/bin/python scripts/emu_vs_sim.py [--duration 30] [--schemes abc,cubic] [--flows 2]
        [--sim-set bbr.ack_aggregation=true] [--linux] [--repeat N] [--state DIR] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from statistics import mean

ROOT = Path(__file__).resolve().parents[1]
T = ROOT / "traces"
SETUPS = {
    "dumbbell-24": dict(trace=T / "bw24.mahi", ack=T / "bw24.mahi", delay=50, buffer=250),
    "verizon-cellular": dict(trace=T / "Verizon-LTE-short.up", ack=T / "bw12.mahi", delay=50, buffer=250),
}
# Our scheme names → the kernel's (Linux "reno" is NewReno with SACK, like ours).
SCHEMES = {
    "cubic": "cubic",
    "newreno": "reno",
    "bbr": "bbr",
    "abc": "abc",
    "abc-cubic": "abc-cubic",
    # ABC §4.1 over a non-ABC bottleneck: w_cubic in control.
    "abc-cubic+droptail": "abc-cubic",
    # The user-space transport (`emulate --transport user`): the simulator's own sender, receiver
    # and controller over UDP across the emulated link ("@user"; not in the default list).
    "copa@user": "copa",
    "vegas@user": "vegas",
    "cubic@user": "cubic",
    "abc@user": "abc",
    "bbr@user": "bbr",
    "xcp@user": "xcp",
}
DEFAULT_SCHEMES = [k for k in SCHEMES if not k.endswith("@user")]
# `--linux`: per scheme, the `run` options that model today's kernel (docs/emulation.md, "The
# senders' state over time").
LINUX = {
    "cubic": ["cubic.linux_rto=true", "cubic.rack=true", "cubic.prr=true"],
    "newreno": ["newreno.linux_rto=true", "newreno.rack=true"],
    "bbr": ["bbr.ack_aggregation=true", "bbr.tso_segs=2"],
}
# Tolerances (utilisation, p95 per-packet delay): ±5 % / ±10 % for kernel TCP, ±10 % /
# ±10 % for ABC in eBPF.
TOLERANCE = {"abc": (0.10, 0.10), "abc-cubic": (0.10, 0.10), "abc-cubic+droptail": (0.10, 0.10)}
DEFAULT_TOLERANCE = (0.05, 0.10)


def cli(*args: str) -> dict:
    r = subprocess.run([sys.executable, "-m", "accelbrake.cli", *args], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"accelbrake {' '.join(args)}: {r.stderr.strip()}")
    return json.loads(r.stdout)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--duration", type=float, default=30.0)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--schemes", default=",".join(DEFAULT_SCHEMES), help="comma-separated subset of SCHEMES")
    ap.add_argument("--setups", default=",".join(SETUPS), help="comma-separated subset of SETUPS")
    ap.add_argument("--flows", type=int, default=1, help="flows of the scheme at once, both ways")
    ap.add_argument(
        "--sim-set", action="append", default=[], metavar="KEY=VALUE", help="`run`-only parameter, repeatable"
    )
    ap.add_argument("--state", type=Path, metavar="DIR", help="keep both senders' state over time in DIR")
    ap.add_argument("--linux", action="store_true", help="`run` with the Linux options of LINUX")
    ap.add_argument("--repeat", type=int, default=1, metavar="N", help="N runs each way, means compared")
    a = ap.parse_args()
    if a.state:
        a.state.mkdir(parents=True, exist_ok=True)
    states = []
    fopt = ["--flows", str(a.flows)] if a.flows > 1 else []
    schemes = {k: SCHEMES[k] for k in a.schemes.split(",")}
    setups = {k: SETUPS[k] for k in a.setups.split(",")}
    out = []
    if a.repeat > 1:
        print(f"means of {a.repeat} runs each way; p95 range in brackets")
    print("| setup | scheme | util sim | util kernel | Δ | p95 ppd sim ms | p95 ppd kernel ms | Δ | within |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, s in setups.items():
        common = ["--trace", str(s["trace"]), "--ack-trace", str(s["ack"]), "--delay", str(s["delay"])]
        for ours, kernel in schemes.items():
            # `run` puts each scheme behind its own queue (ABC: the ABC router), as `emulate` below;
            # "scheme+queue" names another queue.
            ours_t, _, transport = ours.partition("@")
            scheme, _, forced = ours_t.partition("+")
            own = "abc" if scheme.startswith("abc") else "xcp" if scheme == "xcp" else "droptail"
            queue = forced or own
            spec = f"{queue} packets={s['buffer']}"
            qopt = ["--queue", spec] if forced else ["--buffer", str(s["buffer"])]
            kernel_tcp = not transport and not scheme.startswith("abc")
            stem = a.state / f"{name}-{ours.replace('@', '-')}" if a.state and kernel_tcp else None
            sopt = ["--out", f"{stem}-run"] if stem else []
            sets = [*a.sim_set, *(LINUX.get(ours, []) if a.linux else [])]
            sims, emus = [], []
            for i in range(a.repeat):
                seed = ["--seed", str(i)] if a.repeat > 1 else []
                seed += sopt if i == 0 else []  # the first run's state only
                sims.append(cli("run", "--scheme", scheme, *common, *qopt, "--duration", str(a.duration),
                                "--set", "link.offset=0", *sets, *seed, *fopt, "--json"))  # fmt: skip
                topt = ["--transport", transport] if transport else []
                topt += ["--tcp-info", f"{stem}-tcp_info.csv"] if stem and i == 0 else []
                emus.append(cli("emulate", "--scheme", kernel, *common, "--queue", spec, *topt,
                                "--duration", str(a.duration), "--rt", *fopt, "--json"))  # fmt: skip
            sim, emu = sims[0], emus[0]
            if stem:
                states.append((f"{name} {ours}", stem, emu.get("sender_tcp_ext", {})))
            us, ue = mean(r["utilization"] for r in sims), mean(r["utilization"] for r in emus)
            ps = mean(r["per_packet_delay_ms"]["p95"] for r in sims)
            pe = mean(r["per_packet_delay_ms"]["p95"] for r in emus)
            du, dp = (ue - us) / us, (pe - ps) / ps
            tu, tp = TOLERANCE.get(ours_t, (0.10, 0.10) if transport else DEFAULT_TOLERANCE)
            ok = abs(du) <= tu and abs(dp) <= tp
            print(
                f"| {name} | {ours} / {kernel} | {us:.3f} | {ue:.3f} | {100 * du:+.1f} % | "
                f"{ps:.0f}{spread(sims)} | {pe:.0f}{spread(emus)} | "
                f"{100 * dp:+.1f} % | {'yes' if ok else 'no'} |",
                flush=True,
            )
            row = {"setup": name, "scheme": ours, "kernel_cc": kernel, "sim_set": sets}
            out.append(
                row
                | {"sim": sim, "emulate": emu}
                | ({"sims": sims, "emulates": emus} if a.repeat > 1 else {})
            )
            if a.json:  # after every row: a run cut short (Ctrl-C, a closed pipe) keeps what it measured
                a.json.write_text(json.dumps(out, indent=1))
    if a.flows > 1:
        print_flows(out)
    for title, stem, ext in states:
        print_state(title, stem, ext)
    if a.json:
        a.json.write_text(json.dumps(out, indent=1))


def spread(runs: list[dict]) -> str:
    """The range of the runs' p95 per-packet delay, when there are several."""
    if len(runs) < 2:
        return ""
    p = [r["per_packet_delay_ms"]["p95"] for r in runs]
    return f" ({min(p):.0f}–{max(p):.0f})"


def print_state(title: str, stem: Path, ext: dict) -> None:
    """Each flow's window every 0.5 s: the simulator's (`run --out`, flows_ts: the sample at the
    start of each 100-ms bin) beside the kernel's (TCP_INFO, the last sample of each half second)."""
    import pandas as pd

    k = pd.read_csv(f"{stem}-tcp_info.csv")
    s = pd.read_parquet(f"{stem}-run/flows_ts.parquet")
    k["b"] = (k["t_s"] * 2).astype(int) / 2
    s["b"] = ((s["t_s"] + 1e-9) * 2).astype(int) / 2
    kk = k.groupby(["flow", "b"]).agg(
        cwnd=("cwnd", "last"), ssthresh=("ssthresh", "last"), in_flight=("in_flight", "last"),
        srtt_ms=("srtt_ms", "last"), ca_state=("ca_state", "max"), total_retrans=("total_retrans", "last"),
    )  # fmt: skip
    ss = s.groupby(["flow", "b"]).agg(
        run_cwnd=("cwnd", "last"), run_in_flight=("in_flight", "last"), run_srtt_ms=("srtt_ms", "last")
    )
    t = kk.join(ss, how="outer").reset_index()
    print(f"\n{title}: kernel (TCP_INFO) vs run, every 0.5 s (ca_state: 0 open, 3 recovery, 4 loss)")
    print(t.round(1).to_string(index=False))
    print("kernel sender's TcpExt:", ", ".join(f"{n} {v}" for n, v in sorted(ext.items())))


def print_flows(out: list[dict]) -> None:
    """Per flow: throughput (Mbit/s) and p95 per-packet delay (ms), `run` / `emulate`; Jain's index."""
    print()
    print(
        "| setup | scheme | flow | throughput run / emulate, Mbit/s "
        "| p95 per-packet delay run / emulate, ms |"
    )
    print("|---|---|---|---|---|")
    for r in out:
        for fs, fe in zip(r["sim"]["flows"], r["emulate"]["flows"], strict=True):
            print(
                f"| {r['setup']} | {r['scheme']} | {fs['id']} | {fs['throughput_mbps']:.2f} / "
                f"{fe['throughput_mbps']:.2f} | {fs['per_packet_delay_ms']['p95']:.0f} / "
                f"{fe['per_packet_delay_ms']['p95']:.0f} |"
            )
        print(
            f"| {r['setup']} | {r['scheme']} | Jain's index | {r['sim']['jain_index']:.3f} / "
            f"{r['emulate']['jain_index']:.3f} | |"
        )


if __name__ == "__main__":
    main()
