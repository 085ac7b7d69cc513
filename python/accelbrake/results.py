"""Run scenarios and work with their results as pandas tables.

Delay conventions (as in the core's ``metrics.rs``; every column says which delay it is):

* **queueing delay**: time from entering a hop's queue to leaving its link, summed over the data
  path's hops. On a trace link it includes waiting for a delivery opportunity, exactly what
  Mahimahi logs as a packet's delay.
* **per-packet delay**: the flow's propagation RTT + its queueing delay (the ABC paper's
  convention: 100 ms + Mahimahi queueing delay).
* **one-way delay**: from the sender's transmission to arrival at the receiver.

Percentiles follow Mahimahi's ``mm-delay-graph``: the sorted value at index ``floor(q·N)``.

pandas (and numpy) are imported only when a table is first used: running a scenario and reading its
``summary`` does not need them.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from accelbrake import _core
from accelbrake._core import SimulationError
from accelbrake._io import atomic_path, atomic_write_json, package_dir

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["TABLE_COLUMNS", "Result", "simulate"]

#: The tables a run produces and their columns (dtype): ``flows_ts``, ``hops_ts`` and
#: ``delay_cdf`` always, ``packets`` and ``hop_packets`` when the scenario has ``record_packets``.
TABLE_COLUMNS: dict[str, dict[str, str]] = {
    "flows_ts": {
        "t_s": "<f8",
        "flow": "<i8",
        "throughput_mbps": "<f8",
        "egress_mbps": "<f8",
        "delay_mean_ms": "<f8",
        "delay_p95_ms": "<f8",
        "cwnd": "<f8",
        "w_abc": "<f8",
        "w_cubic": "<f8",
        "srtt_ms": "<f8",
        "pacing_mbps": "<f8",
        "in_flight": "<i8",
    },
    "hops_ts": {
        "t_s": "<f8",
        "hop": "<i8",
        "capacity_mbps": "<f8",
        "throughput_mbps": "<f8",
        "ingress_mbps": "<f8",
        "queue_packets": "<i8",
        "queue_bytes": "<i8",
        "abc_f": "<f8",
    },
    "delay_cdf": {
        "level": "<f8",
        "per_packet_delay_ms": "<f8",
    },
    "packets": {
        "sent_s": "<f8",
        "recv_s": "<f8",
        "queueing_delay_ms": "<f8",
        "per_packet_delay_ms": "<f8",
        "one_way_delay_ms": "<f8",
        "flow": "<i8",
        "seq": "<i8",
    },
    "hop_packets": {
        "hop": "<i8",
        "flow": "<i8",
        "is_ack": "<i8",
        "seq": "<i8",
        "enqueue_s": "<f8",
        "dequeue_s": "<f8",
        "queueing_delay_ms": "<f8",
        "size": "<i8",
    },
}


def _frame(name: str, columns: Mapping[str, tuple[str, bytes]] | None) -> pd.DataFrame:
    """A DataFrame from the core's ``{column: (dtype, bytes)}``; empty with the documented columns
    if the table is absent."""
    import numpy as np
    import pandas as pd

    if not columns:
        return pd.DataFrame(
            {c: np.empty(0, dtype=np.dtype(t)) for c, t in TABLE_COLUMNS.get(name, {}).items()}
        )
    return pd.DataFrame({c: np.frombuffer(buf, dtype=np.dtype(dt)) for c, (dt, buf) in columns.items()})


class _RawTable:
    """A table as the core returns it, ``{column: (dtype, bytes)}``, not yet a DataFrame."""

    __slots__ = ("columns",)

    def __init__(self, columns: Mapping[str, tuple[str, bytes]] | None) -> None:
        self.columns = columns


#: Arrow types of the core's column dtypes.
_ARROW_TYPES = {"<f8": "float64", "<i8": "int64"}


def arrow_table(name: str, given: Any) -> Any:
    """A ``pyarrow.Table`` of a table as the core returns it (``{column: (dtype, bytes)}``, wrapped or
    not), built on the core's buffers without copying them or importing pandas; a DataFrame is
    converted. Empty with the documented columns when the table is absent."""
    import pyarrow as pa

    if given is not None and not isinstance(given, _RawTable | Mapping):
        return pa.Table.from_pandas(given, preserve_index=False)
    columns = given.columns if isinstance(given, _RawTable) else given
    if not columns:
        columns = {c: (t, b"") for c, t in TABLE_COLUMNS.get(name, {}).items()}
    arrays = []
    for dt, buf in columns.values():
        if dt not in _ARROW_TYPES:  # not produced by the core today; go through numpy
            import numpy as np

            arrays.append(pa.array(np.frombuffer(buf, dtype=np.dtype(dt))))
            continue
        # (pa.array / pa.table on Python objects would import pandas to check for DataFrames.)
        typ = getattr(pa, _ARROW_TYPES[dt])()
        arrays.append(pa.Array.from_buffers(typ, len(buf) // 8, [None, pa.py_buffer(buf)]))
    return pa.Table.from_arrays(arrays, names=list(columns))


def write_parquet(path: str | os.PathLike[str], name: str, given: Any) -> Path:
    """Write a table (see :func:`arrow_table`) to ``path`` as Parquet, atomically, straight from Arrow."""
    import pyarrow.parquet as pq

    table = arrow_table(name, given)
    with atomic_path(path) as tmp:
        pq.write_table(table, tmp)
    return Path(path)


def _dist_version(module: str) -> str | None:
    """A dependency's version without importing it (when it is not imported already)."""
    loaded = sys.modules.get(module)
    if loaded is not None and hasattr(loaded, "__version__"):
        return str(loaded.__version__)
    from importlib import metadata

    try:
        return metadata.version(module)
    except metadata.PackageNotFoundError:
        return None


def format_warning(w: Mapping[str, Any]) -> str:
    """One warning of a summary (``summary["warnings"]``) as one line: parameter, value, bound,
    what it does, and the source of the bound."""
    unit = w.get("unit", "")

    def num(x: Any) -> str:
        return f"{float(x):.4g}" if isinstance(x, int | float) else str(x)

    return (
        f"warning: {w.get('parameter', '?')} = {num(w.get('value'))} {unit} "
        f"(bound {num(w.get('bound'))} {unit}): {w.get('message', '')} [source: {w.get('source', '?')}]"
    )


def _nan(v: Any) -> float:
    """JSON null (the core's NaN) → NaN."""
    return float("nan") if v is None else float(v)


#: The integer columns of :func:`flow_columns` (the others are floats, but ``scheme``).
FLOW_INT_COLUMNS = ("flow", "delivered_packets", "packets_sent", "retransmits", "drops", "timeouts")


def flow_columns(summary: Mapping[str, Any], flows: Sequence[Mapping[str, Any]]) -> dict[str, list[Any]]:
    """The per-flow rows of :meth:`Result.summary_rows` by column (one list per column, a value per
    flow of ``flows``, in order): what a table is built from without a dict per row (a sweep's runs
    with thousands of flows). ``summary`` gives the bottleneck's capacity (its ``flows`` are not
    read: a sweep's worker passes them apart, see ``accelbrake._worker``)."""
    hops = summary.get("hops", [])
    b = int(summary.get("bottleneck_hop", 0))
    cap = _nan(hops[b].get("capacity_mbps")) if b < len(hops) else float("nan")
    nan = float("nan")

    def col(key: str) -> list[float]:
        return [nan if (v := f.get(key)) is None else float(v) for f in flows]

    tput = col("throughput_mbps")
    cols: dict[str, list[Any]] = {
        "flow": [int(f["id"]) for f in flows],
        "scheme": [f.get("scheme") for f in flows],
        "start_s": col("start_s"),
        "prop_rtt_ms": col("prop_rtt_ms"),
        "capacity_mbps": [cap] * len(flows),
        "throughput_mbps": tput,
        "goodput_mbps": col("goodput_mbps"),
        "utilization": [t / cap for t in tput] if cap > 0 else [nan] * len(flows),
    }
    for stat_name, prefix, stats in (
        ("queueing_delay_ms", "queueing_delay", ("mean", "p50", "p95", "p99")),
        ("per_packet_delay_ms", "per_packet_delay", ("mean", "p50", "p95", "p99")),
        ("one_way_delay_ms", "one_way_delay", ("mean", "p95")),
    ):
        sts = [f.get(stat_name) or {} for f in flows]
        for q in stats:
            cols[f"{prefix}_{q}_ms"] = [nan if (v := st.get(q)) is None else float(v) for st in sts]
    cols["delivered_packets"] = [int((f.get("per_packet_delay_ms") or {}).get("count", 0)) for f in flows]
    for k in ("packets_sent", "retransmits", "drops", "timeouts"):
        cols[k] = [int(f.get(k, 0)) for f in flows]
    cols["completion_s"] = col("completion_s")
    return cols


class Result:
    """The outcome of one simulation.

    Attributes:
        summary: the core's summary (``Summary`` in ``metrics.rs``) as a dict; statistics without
            samples are ``None``.
        scenario: the scenario that was run.
        tables: every table by name (``flows_ts``, ``hops_ts``, ``delay_cdf``, ``packets``,
            ``hop_packets``).
        flows_ts: per-flow time series, one row per flow per ``sample_ms`` bin in which the flow is
            active (it starts before the bin ends and has not retired; a finite flow retires once
            all its data is acknowledged and nothing of it is left in the network): no rows before
            a flow's start bin nor after its retirement, where the rates would be 0 (``t_s``, ``flow``,
            ``throughput_mbps`` received over the bin, ``egress_mbps`` the flow's bytes leaving the
            bottleneck link over the bin (measured where ``hops_ts.capacity_mbps`` is),
            ``delay_mean_ms``/``delay_p95_ms`` of the packets received in the bin,
            ``cwnd``/``w_abc``/``w_cubic`` in segments, ``srtt_ms``, ``pacing_mbps``, ``in_flight``).
        delay_cdf: the per-packet delay of all flows' packets at levels 0, 0.001, …, 1.
        hops_ts: per-hop time series (``t_s``, ``hop``, ``capacity_mbps``, ``throughput_mbps`` the
            bytes leaving the hop's link, ``ingress_mbps`` the bytes arriving at the hop (dropped or
            not; Mahimahi's ingress), ``queue_packets``, ``queue_bytes``, ``abc_f``).
        packets: one row per delivered data packet (``sent_s``, ``recv_s``, ``queueing_delay_ms``,
            ``per_packet_delay_ms``, ``one_way_delay_ms``, ``flow``, ``seq``); empty without
            ``record_packets``.
        hop_packets: one row per packet departure from a hop, data and ACKs; empty without
            ``record_packets``.
    """

    def __init__(self, summary: dict[str, Any], tables: Mapping[str, Any], scenario: dict[str, Any]):
        self.summary = summary
        self.scenario = scenario
        # Each table as given: a DataFrame, or the core's {column: (dtype, bytes)} in a _RawTable,
        # turned into a DataFrame (importing pandas) the first time it is used.
        self._given: dict[str, Any] = dict(tables)
        self._built: dict[str, pd.DataFrame] = {}

    def _table(self, name: str) -> pd.DataFrame:
        if name not in self._built:
            given = self._given.get(name)
            if given is None or isinstance(given, _RawTable):
                self._built[name] = _frame(name, given.columns if given is not None else None)
            else:
                self._built[name] = given
        return self._built[name]

    @property
    def tables(self) -> dict[str, pd.DataFrame]:
        """Every table by name (the documented ones first), as DataFrames."""
        names = list(dict.fromkeys([*TABLE_COLUMNS, *self._given]))
        if list(self._built) != names:
            self._built = {name: self._table(name) for name in names}
        return self._built

    @classmethod
    def from_core(cls, raw: Mapping[str, Any], scenario: dict[str, Any]) -> Result:
        """Wrap the dict returned by ``_core.simulate`` (tables become DataFrames when first used)."""
        raw_tables = raw.get("tables", {})
        tables = {name: _RawTable(cols) for name, cols in raw_tables.items()}
        return cls(json.loads(raw["summary"]), tables, scenario)

    @property
    def flows_ts(self) -> pd.DataFrame:
        """Per-flow time series."""
        return self._table("flows_ts")

    @property
    def hops_ts(self) -> pd.DataFrame:
        """Per-hop time series."""
        return self._table("hops_ts")

    @property
    def delay_cdf(self) -> pd.DataFrame:
        """Quantiles of the per-packet delay of all flows' packets (``level``, ``per_packet_delay_ms``)."""
        return self._table("delay_cdf")

    @property
    def packets(self) -> pd.DataFrame:
        """Delivered data packets."""
        return self._table("packets")

    @property
    def hop_packets(self) -> pd.DataFrame:
        """Packet departures from hops."""
        return self._table("hop_packets")

    @property
    def bottleneck_hop(self) -> int:
        """Index of the bottleneck hop (least capacity on flow 0's data path)."""
        return int(self.summary.get("bottleneck_hop", 0))

    @property
    def scheme(self) -> str:
        """The schemes of the flows, ``+``-joined when they differ."""
        names = list(dict.fromkeys(f.get("scheme", "?") for f in self.scenario.get("flows", [])))
        return "+".join(names) if names else "?"

    @property
    def link_name(self) -> str:
        """A short name of the bottleneck link: the trace file's name or ``"24 Mbit/s"``."""
        hops = self.scenario.get("hops", [])
        if not hops:
            return "?"
        link = hops[min(self.bottleneck_hop, len(hops) - 1)].get("link", {})
        if link.get("type") == "trace":
            return Path(str(link.get("path", "?"))).name
        if link.get("type") == "constant":
            return f"{link.get('mbps'):g} Mbit/s"
        return str(link.get("type", "?"))

    @property
    def utilization(self) -> float:
        """The bottleneck link's utilisation over the run (bytes that left it / its capacity,
        Mahimahi's; ``summary["utilization"]``). Identifiers spell it ``utilization`` everywhere
        (summary, tables, files); ``utilisation`` is an alias."""
        return _nan(self.summary.get("utilization"))

    @property
    def utilisation(self) -> float:
        """Alias of :attr:`utilization`."""
        return self.utilization

    @property
    def warnings(self) -> list[dict[str, Any]]:
        """Settings of this run outside a scheme's or queue's known operating range: the
        summary's ``warnings`` (each with ``code``, ``subject``, ``parameter``, ``value``,
        ``bound``, ``unit``, ``source``, ``message``); empty when there is none."""
        return list(self.summary.get("warnings") or [])

    def __repr__(self) -> str:
        s = self.summary
        ppd = s.get("per_packet_delay_ms") or {}
        return (
            f"<Result {self.scheme} on {self.link_name}: {s.get('duration_s', 0):g} s, "
            f"utilization {_nan(s.get('utilization')):.3f}, "
            f"throughput {_nan(s.get('throughput_mbps')):.2f} Mbit/s, "
            f"p95 per-packet delay {_nan(ppd.get('p95')):.1f} ms>"
        )

    def summary_table(self) -> pd.DataFrame:
        """One row per flow, units in the column names (a DataFrame of :meth:`summary_rows`).

        ``capacity_mbps`` is the bottleneck's mean capacity; ``utilization`` is the flow's
        throughput over it (the link's Mahimahi utilisation, counting framing bytes, is
        ``summary["utilization"]``). Delay columns give mean/p50/p95/p99 of the queueing delay and
        of the per-packet delay (propagation RTT + queueing delay), and mean/p95 of the one-way
        delay, in ms.
        """
        import pandas as pd

        return pd.DataFrame(self.summary_rows())

    def summary_rows(self) -> list[dict[str, Any]]:
        """The rows of :meth:`summary_table` as dicts (no pandas needed).

        ``capacity_mbps`` is the bottleneck's mean capacity; ``utilization`` is the flow's
        throughput over it (the link's Mahimahi utilisation, counting framing bytes, is
        ``summary["utilization"]``). Delay columns give mean/p50/p95/p99 of the queueing delay and
        of the per-packet delay (propagation RTT + queueing delay), and mean/p95 of the one-way
        delay, in ms.
        """
        cols = self.summary_columns()
        names = list(cols)
        return [dict(zip(names, vals, strict=True)) for vals in zip(*cols.values(), strict=True)]

    def summary_columns(self) -> dict[str, list[Any]]:
        """:meth:`summary_rows` by column (:func:`flow_columns`)."""
        return flow_columns(self.summary, self.summary.get("flows") or [])

    def metadata(self) -> dict[str, Any]:
        """Provenance: versions, git commit, scenario, seed, host and a UTC timestamp."""
        return {
            "accelbrake_version": _core.__version__,
            "git_commit": git_commit(),
            "seed": self.scenario.get("seed", 0),
            "scenario": self.scenario,
            "python": sys.version.split()[0],
            "platform": platform.platform(),
            "numpy": _dist_version("numpy"),
            "pandas": _dist_version("pandas"),
            "pyarrow": _dist_version("pyarrow"),
            "argv": list(sys.argv),
            "created_utc": _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        }

    def to_dir(self, path: str | os.PathLike[str], *, parquet: bool = True, csv: bool = False) -> Path:
        """Write the run to directory ``path`` (created if needed) and return it.

        Files: ``summary.json`` (the core's summary), ``metadata.json`` (see :meth:`metadata`),
        ``scenario.json`` (reusable with ``accelbrake run --scenario``), ``summary_table.csv`` and,
        for each table, ``<name>.parquet`` (written straight from the core's buffers with Arrow, no
        pandas) and, with ``csv=True``, ``<name>.csv`` too. Every file is written atomically (to a
        temporary file in the same directory, then renamed with ``os.replace``).
        """
        if not (parquet or csv):
            raise ValueError("to_dir: parquet and csv are both off; nothing to write")
        out = Path(path)
        out.mkdir(parents=True, exist_ok=True)
        atomic_write_json(out / "summary.json", self.summary)
        atomic_write_json(out / "scenario.json", self.scenario)
        atomic_write_json(out / "metadata.json", self.metadata())
        _write_csv_rows(out / "summary_table.csv", self.summary_rows())
        names = list(dict.fromkeys([*TABLE_COLUMNS, *self._given]))
        for name in names:
            given = self._built.get(name, self._given.get(name))
            if parquet:
                write_parquet(out / f"{name}.parquet", name, given)
            if csv:
                with atomic_path(out / f"{name}.csv") as tmp:
                    self._table(name).to_csv(tmp, index=False)
        return out

    def _repr_html_(self) -> str:
        """The summary table as HTML (what a notebook shows for a Result)."""
        import html

        rows = self.summary_rows()
        cols = [
            ("flow", "flow", None),
            ("scheme", "scheme", None),
            ("capacity_mbps", "capacity (Mbit/s)", 2),
            ("throughput_mbps", "throughput (Mbit/s)", 2),
            ("utilization", "utilisation (%)", 1),
            ("queueing_delay_p50_ms", "queueing delay p50 (ms)", 1),
            ("queueing_delay_p95_ms", "queueing delay p95 (ms)", 1),
            ("per_packet_delay_mean_ms", "per-packet delay mean (ms)", 1),
            ("per_packet_delay_p95_ms", "per-packet delay p95 (ms)", 1),
            ("drops", "drops", None),
        ]

        def cell(row: dict[str, Any], key: str, digits: int | None) -> str:
            v = row.get(key)
            if key == "utilization" and isinstance(v, float):
                v = 100 * v
            if digits is None or not isinstance(v, float):
                return html.escape(str(v))
            return "–" if v != v else f"{v:.{digits}f}"

        head = "".join(f"<th>{html.escape(label)}</th>" for _, label, _ in cols)
        body = "".join(
            "<tr>" + "".join(f"<td>{cell(r, k, d)}</td>" for k, _, d in cols) + "</tr>" for r in rows
        )
        title = html.escape(repr(self)[1:-1])
        table = f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
        return f"<div><p><code>{title}</code></p>{table}</div>"

    def plot(self, path: str | os.PathLike[str] | None = None, *, view: str = "paper", **kwargs: Any) -> Any:
        """Draw the run (throughput/egress vs capacity, delay, queue; see :func:`accelbrake.plots.plot_run`).
        ``view="mahimahi"``: Mahimahi's view instead (capacity, ingress, egress; queueing delay on a
        linear axis). Returns the matplotlib Figure (shown inline by a notebook); with ``path`` also
        saves it there."""
        from accelbrake.plots import run_figure

        fig = run_figure(self, view=view, **kwargs)
        if path is not None:
            from accelbrake.plots import save_figure

            save_figure(fig, path)
        return fig


def _write_csv_rows(path: Path, rows: list[dict[str, Any]]) -> None:
    """Rows of dicts as CSV (NaN as an empty field, as pandas writes it), atomically."""
    import csv

    keys = list(dict.fromkeys(k for r in rows for k in r))

    def val(v: Any) -> Any:
        return "" if isinstance(v, float) and v != v else v

    with atomic_path(path) as tmp, tmp.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(keys)
        for r in rows:
            w.writerow([val(r.get(k)) for k in keys])


#: Entries of a sweep's ``metadata.json`` that must be objects when present (the report reads
#: keys inside them).
_METADATA_OBJECTS = ("experiment", "machine", "columns")


def check_results_folder(out: str | os.PathLike[str]) -> dict[str, Any]:
    """A finished sweep's ``metadata.json``, checked to be what the report reads: a JSON object
    whose ``experiment`` (and ``machine``, ``columns``) are objects. A damaged or foreign file is a
    ``ValueError`` naming it, rather than an ``AttributeError`` deep in the report."""
    path = Path(out) / "metadata.json"
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as e:
        raise ValueError(f"{path}: not UTF-8 text ({e.reason}); the results folder is damaged") from None
    except json.JSONDecodeError as e:
        raise ValueError(
            f"{path}: not valid JSON (line {e.lineno}, column {e.colno}: {e.msg}); the results folder is "
            "damaged: run the sweep again to rewrite it (finished runs are reused)"
        ) from None
    except RecursionError:
        raise ValueError(f"{path}: nested too deeply to be a sweep's metadata") from None
    if not isinstance(meta, dict):
        raise ValueError(
            f"{path}: expected a JSON object (a sweep's metadata), got {type(meta).__name__}; the results "
            "folder is damaged: run the sweep again to rewrite it (finished runs are reused)"
        )
    for key in _METADATA_OBJECTS:
        if key in meta and not isinstance(meta[key], dict):
            raise ValueError(
                f"{path}: '{key}' should be an object, got {type(meta[key]).__name__}; the results folder "
                "is damaged: run the sweep again to rewrite it"
            )
    labels = meta.get("experiment", {}).get("labels", {})
    if not isinstance(labels, dict):
        raise ValueError(f"{path}: 'experiment.labels' should be an object; the results folder is damaged")
    return meta


def git_commit() -> str | None:
    """The commit of the git checkout the package lives in, or ``None`` (not a checkout, no git)."""
    try:
        r = subprocess.run(
            ["git", "-C", str(package_dir()), "rev-parse", "--verify", "HEAD"],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    commit = r.stdout.strip()
    return commit if r.returncode == 0 and commit else None


def _dumps(scenario: Mapping[str, Any]) -> str:
    try:
        return json.dumps(scenario, allow_nan=False)
    except ValueError as e:
        raise SimulationError(f"scenario: {e} (NaN and infinity are not allowed)") from None
    except TypeError as e:
        raise SimulationError(f"scenario: {e}") from None


def simulate(scenario: Mapping[str, Any]) -> Result:
    """Run a scenario (a dict in the core's schema, e.g. from :func:`accelbrake.build_scenario`).

    Raises :class:`accelbrake.SimulationError` for an invalid scenario or trace file.
    """
    if not isinstance(scenario, Mapping):
        from accelbrake.errors import ScenarioError

        raise ScenarioError(
            "scenario: expected a dict in the core's schema (e.g. from accelbrake.build_scenario, or "
            f"accelbrake.load_scenario_file for a file), got {type(scenario).__name__} {scenario!r:.80}",
            key="scenario",
        )
    scenario = dict(scenario)
    from accelbrake import controllers

    return Result.from_core(controllers.simulate_json(_dumps(scenario)), scenario)
