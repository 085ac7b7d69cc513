"""Three-way tables: published | the authors' code through our emulated link | our simulator.

For the ABC paper's headline table and the C2TCP paper's Table I, each scheme that has an authors'
program (Copa, Sprout, Verus, PCC-Vivace; ``make upstream`` builds them) is run twice on the same
trace window and setup: by ``accelbrake emulate --upstream`` (their code, real time) and by
``accelbrake run`` (our simulator). Two verdicts per row:

* implementation fidelity, simulator / authors' code: within ±10 % utilisation (throughput) and
  ±20 % p95 delay;
* setup fidelity, authors' code / paper: the authors' code normalised as the paper normalises (by
  ABC, by C2TCP: our simulator's ABC and C2TCP on the same window, which match their kernel
  implementations through the same link) against the published number, within ±20 %.

Interface: :func:`plan` lists the points, :func:`run_point` measures one (resumable: a point whose
JSON exists in ``out/points`` is not run again), :func:`table` builds the rows and
:func:`write` the CSV and Markdown. ``scripts/upstream_table.py`` drives them.

A trace window starting at ``w`` ms is the trace rotated by ``w`` (Mahimahi's replay of the same
file started ``w`` ms in), written next to the results, so that the emulator (which starts a trace
at its beginning) and the simulator see the same opportunities.
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from accelbrake.upstream import UPSTREAM_SCHEMES, _built, programs_dir  # noqa: F401

__all__ = ["SETUPS", "Point", "Setup", "plan", "rotate_trace", "run_point", "table", "write"]

#: Implementation fidelity: simulator / authors' code within these (utilisation, p95 delay).
UTIL_TOL = 0.10
P95_TOL = 0.20
#: Setup fidelity: authors' code / published within the reproductions' usual ±20 %.
PAPER_TOL = 0.20


@dataclass(frozen=True)
class Setup:
    """One paper's measurement setup and table."""

    id: str
    traces: tuple[str, ...]
    quick_traces: tuple[str, ...]
    delay_ms: float
    queue: dict[str, Any]
    ack_mbps: float
    reference: str
    """The scheme the paper normalises by (run in the simulator on the same window)."""
    schemes: tuple[str, ...]
    delay_metric: str
    """``per_packet_delay_ms`` (ABC: RTT + queueing) or ``queueing_delay_ms`` (C2TCP)."""


def _traceset(name: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    from accelbrake.experiments.tracesets import TRACE_SETS

    s = TRACE_SETS[name]
    return tuple(s.files), tuple(s.quick)


def _setups() -> dict[str, Setup]:
    abc_files, _ = _traceset("abc-paper")
    c2_files, c2_quick = _traceset("c2tcp-paper")
    return {
        # ABC §7 / its artifact: 50 ms each way, 250-packet drop-tail (the baselines' queue), ACKs
        # over a constant 12 Mbit/s link.
        "abc-table": Setup(
            "abc-table",
            abc_files,
            ("traces/Verizon-LTE-short.up",),
            50.0,
            {"type": "droptail", "packets": 250},
            12.0,
            "abc",
            ("copa", "pcc-vivace", "sprout", "verus"),
            "per_packet_delay_ms",
        ),
        # C2TCP §VII: 10 ms each way, a 150 KB drop-tail buffer, ACKs over 100 Mbit/s.
        "c2tcp-table1": Setup(
            "c2tcp-table1",
            c2_files,
            c2_quick[:1],
            10.0,
            {"type": "droptail", "bytes": 150000},
            100.0,
            "c2tcp",
            ("verus", "sprout", "pcc-vivace"),
            "queueing_delay_ms",
        ),
    }


SETUPS = _setups()


@dataclass(frozen=True)
class Point:
    """One measurement: a setup, a trace window, a scheme, and which implementation."""

    setup: str
    trace: str
    window_ms: int
    scheme: str
    impl: str
    """``upstream`` (the authors' code, emulated) or ``sim`` (ours)."""
    duration_s: float

    @property
    def key(self) -> str:
        parts = [self.setup, Path(self.trace).name, f"w{self.window_ms}", self.scheme, self.impl]
        return "__".join(parts) + f"__{self.duration_s:g}s"


def _period_ms(trace: str) -> int:
    last = 0
    with open(trace) as f:
        for line in f:
            if line.strip():
                last = int(line)
    return last


def plan(setup: str, quick: bool, windows: int | None = None, duration_s: float | None = None) -> list[Point]:
    """The points of one table: per trace, ``windows`` windows spread over the trace's period (1
    with ``quick``), each scheme by its authors' code and by the simulator, and the reference scheme
    by the simulator."""
    from accelbrake.scenarios import resolve_trace

    s = SETUPS[setup]
    n = windows or (1 if quick else 2)
    dur = duration_s or (30.0 if quick else 60.0)
    out = []
    for t in s.quick_traces if quick else s.traces:
        path = resolve_trace(t)
        if path is None:
            raise FileNotFoundError(f"upstream table {setup}: trace {t} is not bundled here")
        period = _period_ms(path)
        for k in range(n):
            w = period * k // n
            for scheme in s.schemes:
                out.append(Point(setup, path, w, scheme, "upstream", dur))
                out.append(Point(setup, path, w, scheme, "sim", dur))
            out.append(Point(setup, path, w, s.reference, "sim", dur))
    return out


def rotate_trace(src: str, offset_ms: int, dst: Path) -> Path:
    """``src`` as replayed from ``offset_ms`` on: opportunities after the offset moved back by it,
    then those up to it moved past the end (the loop's next period)."""
    ts = [int(x) for x in Path(src).read_text().split()]
    if not ts:
        raise ValueError(f"{src}: empty trace")
    period = ts[-1]
    off = offset_ms % period if period else 0
    if off == 0:
        rot = ts
    else:
        rot = [t - off for t in ts if t > off] + [t + period - off for t in ts if t <= off]
    dst.write_text("\n".join(str(t) for t in rot) + "\n")
    return dst


def _queue(p: Point) -> dict[str, Any]:
    """The setup's buffer with the scheme's own queue discipline (ABC's router for the ABC
    reference; drop-tail for the baselines, as in both papers)."""
    from accelbrake.schemes import scheme_preset

    q = dict(SETUPS[p.setup].queue)
    own = scheme_preset(p.scheme).queue
    if own != "droptail":
        q["type"] = own
    return q


def _scenario(p: Point, trace: str) -> dict[str, Any]:
    s = SETUPS[p.setup]
    return {
        "duration_ms": p.duration_s * 1000.0,
        "seed": 0,
        "record_packets": False,
        "hops": [
            {
                "name": "data",
                "link": {"type": "trace", "path": trace, "offset_ms": 0},
                "queue": _queue(p),
                "delay_ms": s.delay_ms,
            },
            {
                "name": "ack",
                "link": {"type": "constant", "mbps": s.ack_mbps},
                "queue": {"type": "infinite"},
                "delay_ms": s.delay_ms,
            },
        ],
        "flows": [{"scheme": p.scheme, "params": {}, "fwd": [0], "rev": [1]}],
    }


def _load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"


def run_point(p: Point, out: Path, rt: bool = True) -> dict[str, Any]:
    """Measure ``p`` (or read it back when ``out/points/<key>.json`` exists). ``rt``: the emulated
    runs use ``emulate --rt`` (the link loop under SCHED_FIFO, the programs at nice -20), so that
    other work on the machine disturbs them less."""
    pts = out / "points"
    pts.mkdir(parents=True, exist_ok=True)
    done = pts / f"{p.key}.json"
    if done.exists():
        return json.loads(done.read_text())
    traces = out / "traces"
    traces.mkdir(exist_ok=True)
    rot = rotate_trace(p.trace, p.window_ms, traces / f"{Path(p.trace).name}.w{p.window_ms}")
    sc = traces / f"{p.key}.scenario.json"
    sc.write_text(json.dumps(_scenario(p, str(rot))))
    cli = [sys.executable, "-m", "accelbrake.cli"]
    if p.impl == "upstream":
        argv = [*cli, "emulate", "--scenario", str(sc), "--upstream", "--json", *(["--rt"] if rt else [])]
    else:
        argv = [*cli, "run", "--scenario", str(sc), "--json", "--no-packets"]
    load_before = _load()
    r = subprocess.run(argv, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(
            f"{p.key}: {' '.join(argv[2:])} failed ({r.returncode}): {r.stderr.strip()[-400:]}"
        )
    summary = json.loads(r.stdout)
    row = {
        "key": p.key,
        "setup": p.setup,
        "trace": Path(p.trace).name,
        "window_ms": p.window_ms,
        "scheme": p.scheme,
        "impl": p.impl,
        "duration_s": p.duration_s,
        "utilization": summary["utilization"],
        "throughput_mbps": summary["throughput_mbps"],
        "per_packet_delay_ms": summary["per_packet_delay_ms"],
        "queueing_delay_ms": summary["queueing_delay_ms"],
        "load_before": load_before,
        "load_after": _load(),
    }
    if p.impl == "upstream":
        row["timing_error_us"] = summary.get("timing_error_us")
        row["rt"] = rt
    done.write_text(json.dumps(row, indent=1) + "\n")
    return row


def _ratio(a: float, b: float) -> float:
    return a / b if b else float("nan")


def table(setup: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per scheme (means over its trace windows): the raw figures of both implementations, their
    ratios and verdicts, the normalised figures and the published ones."""
    s = SETUPS[setup]
    by = {(r["trace"], r["window_ms"], r["scheme"], r["impl"]): r for r in rows if r["setup"] == setup}
    windows = sorted({(r["trace"], r["window_ms"]) for r in rows if r["setup"] == setup})
    util_key = "utilization" if setup == "abc-table" else "throughput_mbps"
    from accelbrake.papers import BY_KEY

    paper = BY_KEY["abc" if setup.startswith("abc") else "c2tcp"]
    pub = {(p.ours, p.metric): p.value for p in paper.published[setup] if p.ours and p.value is not None}
    pub_util = "norm. utilisation" if setup == "abc-table" else "norm. throughput"
    pub_p95 = "norm. p95 per-packet delay" if setup == "abc-table" else "norm. p95 queueing delay"
    out = []
    for scheme in s.schemes:
        acc: dict[str, list[float]] = {k: [] for k in ("sim_u", "up_u", "sim_d", "up_d", "ref_u", "ref_d")}
        for tr, w in windows:
            sim, up, ref = (
                by.get((tr, w, scheme, "sim")),
                by.get((tr, w, scheme, "upstream")),
                by.get((tr, w, s.reference, "sim")),
            )
            if not (sim and up and ref):
                continue
            acc["sim_u"].append(sim[util_key])
            acc["up_u"].append(up[util_key])
            acc["sim_d"].append(sim[s.delay_metric]["p95"])
            acc["up_d"].append(up[s.delay_metric]["p95"])
            acc["ref_u"].append(ref[util_key])
            acc["ref_d"].append(ref[s.delay_metric]["p95"])
        if not acc["sim_u"]:
            continue
        n = len(acc["sim_u"])
        mean = {k: sum(v) / n for k, v in acc.items()}
        # Normalised per window, then averaged (the papers' method: per trace, then the mean).
        norm_up_u = sum(_ratio(a, b) for a, b in zip(acc["up_u"], acc["ref_u"], strict=True)) / n
        norm_up_d = sum(_ratio(a, b) for a, b in zip(acc["up_d"], acc["ref_d"], strict=True)) / n
        norm_sim_u = sum(_ratio(a, b) for a, b in zip(acc["sim_u"], acc["ref_u"], strict=True)) / n
        norm_sim_d = sum(_ratio(a, b) for a, b in zip(acc["sim_d"], acc["ref_d"], strict=True)) / n
        ru, rd = _ratio(mean["sim_u"], mean["up_u"]), _ratio(mean["sim_d"], mean["up_d"])
        pu, pd = pub.get((scheme, pub_util)), pub.get((scheme, pub_p95))
        out.append(
            {
                "scheme": scheme,
                "windows": n,
                "published_util": pu,
                "published_p95": pd,
                "upstream_norm_util": norm_up_u,
                "upstream_norm_p95": norm_up_d,
                "sim_norm_util": norm_sim_u,
                "sim_norm_p95": norm_sim_d,
                "upstream_util": mean["up_u"],
                "sim_util": mean["sim_u"],
                "upstream_p95_ms": mean["up_d"],
                "sim_p95_ms": mean["sim_d"],
                "sim_over_upstream_util": ru,
                "sim_over_upstream_p95": rd,
                "implementation": "ok"
                if abs(ru - 1) <= UTIL_TOL and abs(rd - 1) <= P95_TOL
                else "differs (simulator-side)",
                "setup_vs_paper": "n/a"
                if pu is None or pd is None
                else (
                    "ok"
                    if abs(norm_up_u / pu - 1) <= PAPER_TOL and abs(norm_up_d / pd - 1) <= PAPER_TOL
                    else f"differs (setup-side: the authors' code gives {norm_up_u:.2f}/{norm_up_d:.2f} "
                    f"on the same link vs {pu:g}/{pd:g})"
                ),
            }
        )
    return out


def write(setup: str, rows: list[dict[str, Any]], out: Path) -> tuple[Path, Path]:
    """``out/<setup>.csv`` and ``out/<setup>.md`` of :func:`table`."""
    t = table(setup, rows)
    out.mkdir(parents=True, exist_ok=True)
    c = out / f"{setup}.csv"
    if t:
        with c.open("w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(t[0]))
            w.writeheader()
            w.writerows(t)
    else:
        c.write_text("")
    util = "utilisation" if setup == "abc-table" else "throughput"
    lines = [
        f"| scheme | published {util} / p95 | authors' code (norm.) | simulator (norm.) | "
        f"sim/authors' {util} | sim/authors' p95 | implementation | setup vs paper |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in t:
        pubtxt = "—" if r["published_util"] is None else f"{r['published_util']:g} / {r['published_p95']:g}"
        lines.append(
            f"| {r['scheme']} | {pubtxt} | {r['upstream_norm_util']:.2f} / {r['upstream_norm_p95']:.2f} | "
            f"{r['sim_norm_util']:.2f} / {r['sim_norm_p95']:.2f} | {r['sim_over_upstream_util']:.2f} | "
            f"{r['sim_over_upstream_p95']:.2f} | {r['implementation']} | {r['setup_vs_paper']} |"
        )
    m = out / f"{setup}.md"
    m.write_text("\n".join(lines) + "\n")
    return c, m


def run_table(
    setup: str,
    out: Path,
    quick: bool,
    windows: int | None = None,
    duration_s: float | None = None,
    progress: bool = True,
    rt: bool = True,
) -> list[dict[str, Any]]:
    """Every point of one table (resuming), then its CSV and Markdown; the measured rows."""
    rows = []
    pts = plan(setup, quick, windows, duration_s)
    for i, p in enumerate(pts, 1):
        if progress:
            print(f"[{i}/{len(pts)}] {p.key}", file=sys.stderr, flush=True)
        rows.append(run_point(p, out, rt))
    write(setup, rows, out)
    return rows


def available() -> str | None:
    """Why the authors' programs cannot run here, or ``None``."""
    from accelbrake.cli.emu import emu_binary

    try:
        binary = emu_binary()
    except Exception as e:  # the CLI's own message
        return str(e)
    r = subprocess.run([binary, "check"], capture_output=True, text=True)
    if r.returncode != 0:
        return (r.stderr or r.stdout).strip()
    missing = [s for s in UPSTREAM_SCHEMES if not _built(s)]
    if missing:
        return f"the authors' programs are not built ({', '.join(missing)}): run `make upstream`"
    return None
