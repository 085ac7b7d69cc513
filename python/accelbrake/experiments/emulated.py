"""Tables, plots and a report page for ``sweep --emulate``.

An emulated sweep leaves ``OUT/emulated.csv`` (one row per point: the point's labels and the
emulator's summary). This module turns it into what a simulated sweep has:

* ``OUT/plots/emulated-tradeoff.png`` and ``OUT/plots/emulated-per-trace.png`` — the same
  throughput–delay and per-trace plots as the simulator's report, from the emulated runs (seed
  means ± sd);
* ``OUT/emulated-vs-sim.csv`` — when the same folder also holds the simulated sweep of the same
  experiment (``accelbrake sweep EXP --out OUT`` and ``sweep EXP --out OUT --emulate``), each
  point's utilisation and p95 per-packet delay both ways, their ratio, and whether they agree
  within the tolerances the emulation issue sets (utilisation ±5 %, p95 delay ±10 %);
* ``OUT/plots/emulated-run-*.png`` — each scheme's first emulated run (matrix order) over time, as
  Mahimahi's ``mm-throughput-graph`` and ``mm-delay-graph`` show it, from the run's link log
  (``OUT/emulated/<run_id>.log``, :mod:`accelbrake.mmlog`); on kernel TCP also the sender's window
  (cwnd, ssthresh, in flight) from its TCP_INFO (``OUT/emulated/<run_id>.tcp_info.csv``,
  ``emulate --tcp-info``);
* ``OUT/emulated.html`` — one self-contained page with both tables and the plots.

Matplotlib is imported only when the plots are drawn.
"""

from __future__ import annotations

import datetime as _dt
import html
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from accelbrake._io import atomic_path, atomic_write_text

if TYPE_CHECKING:
    import pandas as pd

#: Agreement between simulator and emulator asked for by the emulation issue ("Simulator vs real
#: kernel": utilisation within ±5 %, p95 per-packet delay within ±10 %).
UTIL_TOLERANCE = 0.05
P95_TOLERANCE = 0.10

#: emulated.csv column → the simulator's aggregate name (figures.METRICS' short names).
_EMU_METRICS = {
    "utilization": "utilization",
    "throughput_mbps": "throughput_mbps",
    "per_packet_delay_p95_ms": "p95_delay_ms",
    "queueing_delay_p95_ms": "p95_queueing_ms",
}


def emulated_aggregate(rows: pd.DataFrame) -> pd.DataFrame:
    """Mean, sd and count over seeds of the emulated metrics, per scheme × point, with the column
    names of :func:`accelbrake.experiments.figures.aggregate` (so its plots draw them)."""
    from accelbrake.experiments.figures import aggregate_runs

    return aggregate_runs(rows, _EMU_METRICS)


def emulated_vs_sim(rows: pd.DataFrame, results: pd.DataFrame) -> pd.DataFrame:
    """Each emulated point beside the simulated run of the same point (scheme, axes, seed): the
    simulator's link utilisation and p95 per-packet delay over all flows, the emulator's, their
    ratios (emulated / simulated) and whether each is within its tolerance. Points the simulated
    sweep lacks are left out."""
    from accelbrake.experiments.figures import AXES, run_level

    sim = run_level(results)
    keys = ["scheme", *[a for a in AXES if a in rows.columns and a in sim.columns], "seed"]
    sim = sim[[*keys, "link_utilization", "run_per_packet_delay_p95_ms"]].rename(
        columns={"link_utilization": "sim_utilization", "run_per_packet_delay_p95_ms": "sim_p95_ms"}
    )
    emu = rows[[*keys, "transport", "utilization", "per_packet_delay_p95_ms"]].rename(
        columns={"utilization": "emu_utilization", "per_packet_delay_p95_ms": "emu_p95_ms"}
    )
    # Labels written to CSV and read back: the same types on both sides before joining.
    for k in keys:
        if emu[k].dtype != sim[k].dtype:
            emu[k] = emu[k].astype(str)
            sim[k] = sim[k].astype(str)
    t = emu.merge(sim, on=keys, how="inner", validate="one_to_one")
    t["utilization_ratio"] = t["emu_utilization"] / t["sim_utilization"]
    t["p95_ratio"] = t["emu_p95_ms"] / t["sim_p95_ms"]
    t["utilization_agrees"] = (t["utilization_ratio"] - 1).abs() <= UTIL_TOLERANCE
    t["p95_agrees"] = (t["p95_ratio"] - 1).abs() <= P95_TOLERANCE
    return t


def write_emulated_report(out_dir: str | Path, *, title: str = "emulated sweep") -> Path:
    """Plots, the sim-vs-emulation table (when ``OUT/results.parquet`` is there) and
    ``OUT/emulated.html`` for the emulated sweep in ``out_dir``; returns the page's path."""
    import pandas as pd

    from accelbrake.experiments import figures as F
    from accelbrake.experiments.report import _CSS, _img

    out = Path(out_dir)
    table = out / "emulated.csv"
    if not table.is_file():
        raise FileNotFoundError(2, "no emulated.csv (run `accelbrake sweep EXP --emulate` first)", str(table))
    # Run ids are hex text: one of digits only (or "1e5…") must not be read as a number.
    rows = pd.read_csv(table, dtype={"run_id": str})
    if "flow_rtts_ms" in rows:  # "" (one RTT for all flows) reads back as NaN
        rows["flow_rtts_ms"] = rows["flow_rtts_ms"].astype(object).fillna("").astype(str)
    agg = emulated_aggregate(rows)
    plots = out / "plots"
    plots.mkdir(parents=True, exist_ok=True)
    tradeoff = F.plot_tradeoff(agg, plots / "emulated-tradeoff")[0]
    bars = F.plot_bars(agg, plots / "emulated-per-trace")[0]
    e = html.escape
    body = [f"<h1>accelbrake: {e(title)}</h1>"]
    body.append(
        f'<p class="note">{len(rows)} emulated runs (real time, over the emulated link; '
        "<code>accelbrake sweep --emulate</code>). Utilisation = bytes that left the data link / its "
        "opportunities; delays in ms; ± is one standard deviation over seeds.</p>"
    )
    body.append('<h2 id="points">Per scheme and setting (emulated)</h2>')
    body.append(_agg_html(agg))
    results = out / "results.parquet"
    (out / "emulated-vs-sim.csv").unlink(missing_ok=True)  # never one of an earlier simulated sweep
    if results.is_file():
        cmp = emulated_vs_sim(rows, pd.read_parquet(results))
        with atomic_path(out / "emulated-vs-sim.csv") as tmp:
            cmp.to_csv(tmp, index=False)
        body.append('<h2 id="vs-sim">Emulated vs simulated, point by point</h2>')
        body.append(
            f'<p class="note">Ratio = emulated / simulated. Agreement: utilisation within '
            f"±{UTIL_TOLERANCE:.0%}, p95 per-packet delay within ±{P95_TOLERANCE:.0%} (the emulation "
            f"issue's tolerances). {int(cmp['utilization_agrees'].sum())} of {len(cmp)} utilisations "
            f"and {int(cmp['p95_agrees'].sum())} of {len(cmp)} p95 delays agree.</p>"
        )
        body.append(_cmp_html(cmp))
    body.append('<h2 id="tradeoff">Throughput–delay trade-off (emulated)</h2>')
    body.append(f"<figure>{_img(tradeoff, 'emulated trade-off')}</figure>")
    body.append('<h2 id="bars">Per trace (emulated)</h2>')
    body.append(f"<figure>{_img(bars, 'emulated per trace')}</figure>")
    runs = _run_plots(out, rows, plots)
    if runs:
        body.append('<h2 id="timeseries">Time series of single emulated runs</h2>')
        body.append(
            "<p class=\"note\">Each scheme's first run, from the data link's Mahimahi log: capacity "
            "(the delivery opportunities), traffic arriving at the link (ingress) and leaving it (egress) "
            "per 100 ms, and the queueing delay of the packets that left in each 100 ms (p95 and mean), "
            "as <code>mm-throughput-graph</code> and <code>mm-delay-graph</code> show a run; on kernel "
            "TCP also the sender's congestion window, ssthresh and packets in flight from its "
            "TCP_INFO.</p>"
        )
        for png, caption in runs:
            body.append(f"<figure>{_img(png, caption)}<figcaption>{e(caption)}</figcaption></figure>")
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    page = (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{e(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
        + "\n".join(body)
        + f'\n<p class="note">Written by accelbrake sweep --emulate, {e(stamp)}.</p>\n</body>\n</html>\n'
    )
    dest = out / "emulated.html"
    atomic_write_text(dest, page)
    return dest


#: Emulated runs drawn over time at most (one per scheme).
MAX_RUN_PLOTS = 12


def _run_plots(out: Path, rows: pd.DataFrame, plots: Path) -> list[tuple[Path, str]]:
    """Each scheme's first run (in the table's order) whose link log is there, drawn over time;
    ``(png, caption)`` per plot. Tables of older sweeps have no ``run_id`` column: nothing."""
    if "run_id" not in rows:
        return []
    import pandas as pd

    from accelbrake.mmlog import link_log_series

    made: list[tuple[Path, str]] = []
    seen: set[str] = set()
    for _, r in rows.iterrows():
        scheme = str(r["scheme"])
        log = out / "emulated" / f"{r['run_id']}.log"
        if scheme in seen or not log.is_file() or len(made) >= MAX_RUN_PLOTS:
            continue
        seen.add(scheme)
        series = link_log_series(log)
        point = f"{Path(str(r['trace'])).name}, {float(r['delay_ms']):g} ms one-way, seed {r['seed']}"
        title = (
            f"{scheme} on {point} (emulated): utilisation {100 * float(r['utilization']):.1f} %, "
            f"p95 per-packet delay {float(r['per_packet_delay_p95_ms']):.0f} ms"
        )
        info = out / "emulated" / f"{r['run_id']}.tcp_info.csv"
        sender = pd.read_csv(info) if info.is_file() else None
        png = plot_link_log(series, plots / f"emulated-run-{r['run_id']}", title=title, sender=sender)
        made.append((png, f"{scheme} on {point} (run {r['run_id']})."))
    return made


def plot_link_log(
    series: pd.DataFrame, stem: Path, *, title: str, sender: pd.DataFrame | None = None
) -> Path:
    """A run's :func:`accelbrake.mmlog.link_log_series` as Mahimahi's graphs show it: capacity
    (shaded), ingress and egress of the link in Mbit/s; the queueing delay per bin on a linear
    axis; with ``sender`` (a kernel sender's ``emulate --tcp-info`` table) a third panel with its
    window over time: cwnd, ssthresh and packets in flight of each flow. Writes ``stem.png``;
    returns its path."""
    from matplotlib.figure import Figure

    from accelbrake.experiments.figures import save

    panels = 3 if sender is not None and len(sender) else 2
    fig = Figure(figsize=(10, 6.0 if panels == 2 else 8.4))
    fig.subplots_adjust(left=0.075, right=0.80, top=0.9 if panels == 2 else 0.93, bottom=0.09, hspace=0.3)
    axes = fig.subplots(panels, 1, sharex=True)
    ax, axd = axes[0], axes[1]
    t = series["t_s"].to_numpy()
    ax.fill_between(t, series["capacity_mbps"], step="post", color="0.8", linewidth=0, label="capacity")
    ax.step(t, series["ingress_mbps"], where="post", color="C0", linewidth=0.9, label="ingress")
    ax.step(t, series["egress_mbps"], where="post", color="C3", linewidth=0.9, label="egress")
    ax.set_ylabel("Mbit/s")
    ax.set_title("throughput (as mm-throughput-graph)", loc="left", fontsize="small", y=1.0)
    axd.step(t, series["queueing_delay_p95_ms"], where="post", color="C3", linewidth=0.9, label="p95 per bin")
    axd.step(
        t, series["queueing_delay_mean_ms"], where="post", color="C3", linewidth=0.8, linestyle=":",
        label="mean per bin",
    )  # fmt: skip
    axd.set_ylabel("queueing delay (ms)")
    axd.set_title("queueing delay of the packets leaving the link (as mm-delay-graph)", loc="left",
                  fontsize="small", y=1.0)  # fmt: skip
    if panels == 3:
        axw = axes[2]
        for i, (flow, f) in enumerate(sender.groupby("flow")):
            tag = f" (flow {flow})" if sender["flow"].nunique() > 1 else ""
            axw.step(f["t_s"], f["cwnd"], where="post", color=f"C{i}", linewidth=0.9, label=f"cwnd{tag}")
            axw.step(f["t_s"], f["in_flight"], where="post", color=f"C{i}", linewidth=0.6, alpha=0.6,
                     label=f"in flight{tag}")  # fmt: skip
            axw.step(f["t_s"], f["ssthresh"], where="post", color=f"C{i}", linewidth=0.8, linestyle="--",
                     label=f"ssthresh{tag}")  # fmt: skip
        axw.set_ylabel("packets")
        axw.set_title(
            "the kernel sender's window (TCP_INFO every 10 ms)", loc="left", fontsize="small", y=1.0
        )
    axes[-1].set_xlabel("time (s)")
    for a in axes:
        a.grid(True, alpha=0.3)
        a.set_ylim(bottom=0)
        a.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, fontsize="x-small")
    axd.set_xlim(0, float(t[-1]) + float(t[1] - t[0]) if len(t) > 1 else None)
    fig.suptitle(title, fontsize="medium")
    return save(fig, stem, dpi=90)[0]


def _num(v: Any, fmt: str) -> str:
    try:
        x = float(v)
    except (TypeError, ValueError):
        return html.escape(str(v))
    return "—" if math.isnan(x) else format(x, fmt)


def _agg_html(agg: pd.DataFrame) -> str:
    from accelbrake.experiments.figures import varying_axes

    cols = varying_axes(agg) or ["trace"]
    head = ["scheme", *cols, "utilisation", "throughput Mbit/s", "p95 per-packet delay ms", "seeds"]
    out = ["<table><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>"]
    for _, r in agg.iterrows():
        cells = [html.escape(str(r["scheme"])), *(html.escape(str(r[c])) for c in cols)]
        cells.append(f"{_num(r['utilization_mean'], '.3f')} ± {_num(r['utilization_std'], '.3f')}")
        cells.append(f"{_num(r['throughput_mbps_mean'], '.2f')}")
        cells.append(f"{_num(r['p95_delay_ms_mean'], '.0f')} ± {_num(r['p95_delay_ms_std'], '.0f')}")
        cells.append(str(int(r["seeds"])))
        out.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    return "\n".join([*out, "</table>"])


def _cmp_html(cmp: pd.DataFrame) -> str:
    head = ["scheme", "trace", "seed", "transport"]
    head += ["utilisation sim / emu", "ratio", "p95 ms sim / emu", "ratio"]
    out = ["<table><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>"]
    for _, r in cmp.iterrows():

        def verdict(ok: bool) -> str:
            return "agrees" if ok else "differs"

        cells = [
            html.escape(str(r["scheme"])),
            html.escape(str(r.get("trace", ""))),
            html.escape(str(r["seed"])),
            html.escape(str(r["transport"])),
            f"{_num(r['sim_utilization'], '.3f')} / {_num(r['emu_utilization'], '.3f')}",
            f"{_num(r['utilization_ratio'], '.3f')} ({verdict(bool(r['utilization_agrees']))})",
            f"{_num(r['sim_p95_ms'], '.0f')} / {_num(r['emu_p95_ms'], '.0f')}",
            f"{_num(r['p95_ratio'], '.3f')} ({verdict(bool(r['p95_agrees']))})",
        ]
        out.append("<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>")
    return "\n".join([*out, "</table>"])
