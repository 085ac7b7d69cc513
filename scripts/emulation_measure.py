"""Measure the emulator's side of docs/emulation.md and write docs/data/emulation/NAME.json.

Runs every command of ``accelbrake.papers.emulation_docs.EMU_RUNS`` (``accelbrake emulate ...
--json``; each as many times as it asks, or ``--repeats N``) and the link-accuracy script
(``scripts/emu_accuracy.py`` with and without ``--rt``), then writes one file per set: for each run
its exact command, the figures of each repeat and, in ``meta``, the machine class, kernel and the
conditions given with ``--conditions``. ``make results`` then renders the page's tables from these
files and the simulator's runs. Real-time runs are sensitive to load: say what else the machine
was doing.

Needs root, network namespaces and the emulator (``make emu``).

    sudo .venv/bin/python scripts/emulation_measure.py --conditions "idle" [--only kernel-tcp] [--repeats N]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

from accelbrake.papers import emulation_docs as E  # noqa: E402

SETS = [*E.EMU_RUNS, "link-accuracy"]


def values(s: dict[str, Any]) -> dict[str, Any]:
    """The figures the tables read from one ``emulate --json`` summary."""
    t = s.get("timing_error_us", {})
    v: dict[str, Any] = {
        "utilization": s["utilization"],
        "p95_ms": s["per_packet_delay_ms"]["p95"],
        "queueing_p50_ms": s["queueing_delay_ms"]["p50"],
        "drops": s["drops"],
        "marks": s["marks"],
        "data_packets": s["data_packets"],
        "timing_p50_us": t.get("p50"),
        "timing_p99_us": t.get("p99"),
        "timing_max_us": t.get("max"),
    }
    snd = s.get("sender")  # the user-space transport's counters
    if isinstance(snd, dict):
        for k in ("timeouts", "spurious_timeouts", "recoveries", "retransmits"):
            v[k] = snd.get(k)
        v["local_drops"] = s.get("local_drops")
    if "jain_index" in s:
        v["jain_index"] = s["jain_index"]
        for f in s["flows"]:
            v[f"flow{f['id']}_mbps"] = f["throughput_mbps"]
            v[f"flow{f['id']}_p95_ms"] = f["per_packet_delay_ms"]["p95"]
    return v


def emulate(command: str) -> dict[str, Any]:
    argv = shlex.split(command)
    r = subprocess.run([sys.executable, "-m", "accelbrake.cli", *argv], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"accelbrake {command}: status {r.returncode}: {r.stderr.strip()}")
    return values(json.loads(r.stdout))


def accuracy(command: str) -> dict[str, Any]:
    """scripts/emu_accuracy.py's --json, one row per trace and per constant rate."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "accuracy.json"
        argv = shlex.split(command)
        r = subprocess.run([sys.executable, str(ROOT / argv[0]), *argv[1:], "--json", str(out)], text=True)
        if r.returncode != 0:
            sys.exit(f"{command}: status {r.returncode}")
        a = json.loads(out.read_text())

    def row(v: dict[str, Any]) -> dict[str, Any]:
        t = v["timing_error_us"]
        return {
            "worst_bin_error": v["worst_bin_error"],
            "worst_bin_error_by_write_time": v["worst_bin_error_by_write_time"],
            "timing_p50_us": t["p50"],
            "timing_p99_us": t["p99"],
            "timing_max_us": t["max"],
            "received": v["received_packets"],
            "delivered": v["delivered_packets"],
        }

    return {
        "traces": [{"trace": name, **row(v)} for name, v in a["traces"].items()],
        "sweep": [{"rate_mbps": float(rate), **row(v)} for rate, v in a["sweep"].items()],
    }


def meta(name: str, conditions: str) -> dict[str, Any]:
    arch = {"x86_64": "x86-64", "aarch64": "arm64"}.get(platform.machine(), platform.machine())
    cpus = os.cpu_count()
    return {
        "machine_class": f"{cpus}-core {arch} machine",
        "cpus": cpus,
        "machine": platform.machine(),
        "kernel": platform.release(),
        "conditions": conditions,
        "script": f"scripts/emulation_measure.py --only {name}",
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", action="append", choices=SETS, help="a set (repeatable; default: all)")
    ap.add_argument("--repeats", type=int, help="runs per command (default: as each set asks)")
    ap.add_argument(
        "--conditions",
        required=True,
        help="what else the machine was doing, e.g. 'idle' or 'shared with builds'",
    )
    ap.add_argument("--out", type=Path, default=ROOT / E.EMU_DIR, help="where the files go")
    a = ap.parse_args()
    if a.repeats is not None and a.repeats < 1:
        ap.error("--repeats: at least 1")
    a.out.mkdir(parents=True, exist_ok=True)
    for name in a.only or SETS:
        runs: dict[str, Any] = {}
        if name == "link-accuracy":
            for rid, cmd in E.ACCURACY_COMMANDS.items():
                print(f"{name} {rid}: {cmd}", flush=True)
                runs[rid] = {"command": cmd, "repeats": 1, "values": [accuracy(cmd)]}
        else:
            for rid, (cmd, n) in E.EMU_RUNS[name].items():
                n = a.repeats or n
                print(f"{name} {rid} ×{n}: accelbrake {cmd}", flush=True)
                runs[rid] = {
                    "command": f"accelbrake {cmd}",
                    "repeats": n,
                    "values": [emulate(cmd) for _ in range(n)],
                }
        path = a.out / f"{name}.json"
        path.write_text(
            json.dumps({"meta": meta(name, a.conditions), "runs": runs}, indent=1, ensure_ascii=False) + "\n"
        )
        print(f"wrote {path}", flush=True)
    print("now `make results` (or python -m accelbrake.papers.docs --only emulation-sim) re-renders the page")


if __name__ == "__main__":
    main()
