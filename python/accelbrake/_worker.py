"""Work done in worker processes (kept free of pandas so that workers start fast)."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any


def _simulate(scenario_json: str) -> Any:
    """``_core.simulate``, resolving Python controllers (imported here in a worker process)."""
    from accelbrake import controllers

    return controllers.simulate_json(scenario_json)


def run_summary(key: Any, scenario_json: str) -> tuple[Any, dict[str, Any] | None, str | None]:
    """Run one scenario; return ``(key, summary, None)`` or ``(key, None, error message)``.

    Errors come back as text rather than exceptions so that nothing has to be unpickled.
    """
    try:
        raw = _simulate(scenario_json)
    except ValueError as e:  # SimulationError
        return key, None, str(e)
    return key, json.loads(raw["summary"]), None


def quantile(values: Any, q: float) -> float:
    """Mahimahi's percentile (as the core's summaries): the sorted value at index floor(q·N)."""
    import numpy as np

    v = np.sort(np.asarray(values, dtype=float))
    if len(v) == 0:
        return math.nan
    return float(v[min(int(q * len(v)), len(v) - 1)])


def run_hop_quantiles(
    key: Any, scenario_json: str, hop: int = 0, quantiles: Sequence[float] = (0.5, 0.9)
) -> tuple[Any, dict[str, Any] | None, str | None]:
    """Like :func:`run_summary`, plus quantiles of the queueing delay of the data packets that
    left hop ``hop`` (from the ``hop_packets`` table; the scenario needs ``record_packets``).

    The result is ``{"summary": ..., "hop_delay_ms": {"count": N, "p50": ..., "p90": ...}}`` with
    one ``p<100·q>`` entry per quantile (NaN without packets).
    """
    import numpy as np

    try:
        raw = _simulate(scenario_json)
    except ValueError as e:
        return key, None, str(e)
    cols = raw["tables"].get("hop_packets") or {}

    def col(name: str) -> Any:
        dtype, buf = cols[name]
        return np.frombuffer(buf, dtype=np.dtype(dtype))

    if cols:
        sel = (col("hop") == hop) & (col("is_ack") == 0)
        delays = col("queueing_delay_ms")[sel]
    else:
        delays = np.empty(0)
    stats: dict[str, float] = {"count": int(len(delays))}
    for q in quantiles:
        stats[f"p{100 * q:g}"] = quantile(delays, q)
    return key, {"summary": json.loads(raw["summary"]), "hop_delay_ms": stats}, None


#: Jain-index threshold θ of the ABE paper's convergence time (§IV-C: "the time it took F(t) to
#: reach a threshold θ = 0.95").
CONVERGENCE_THETA = 0.95


def convergence_time(
    t_end_s: Sequence[float],
    cum_bytes: Sequence[Sequence[float]],
    t0_s: float,
    theta: float = CONVERGENCE_THETA,
) -> float | None:
    """The ABE paper's convergence time (§IV-C): with ``x_i(t)`` the bytes flow ``i`` received from
    ``t0_s`` on, the first time ``t - t0_s`` at which Jain's index of the ``x_i``,
    F(t) = (Σ x_i)² / (N · Σ x_i²), reaches ``theta``; ``None`` if it never does.

    ``t_end_s`` are the ends of the sampling bins (increasing) and ``cum_bytes[i][k]`` flow ``i``'s
    cumulative received bytes at ``t_end_s[k]`` (counted from any origin: the values at ``t0_s``,
    taken from the last bin ending at or before it, are subtracted). Only bins ending after ``t0_s``
    are judged, and a bin where no flow received anything since ``t0_s`` does not count (F is 0/0).
    The answer's resolution is the bin width.

    >>> convergence_time([1, 2, 3, 4], [[10, 20, 30, 40], [0, 0, 15, 30]], t0_s=1.0)
    2.0
    """
    n = len(cum_bytes)
    if n == 0:
        raise ValueError("convergence_time: no flows")
    if any(len(c) != len(t_end_s) for c in cum_bytes):
        raise ValueError("convergence_time: every flow needs one cumulative count per bin end")
    import numpy as np

    t = np.asarray(t_end_s, dtype=float)
    c = np.asarray(cum_bytes, dtype=float)
    before = np.flatnonzero(t <= t0_s + 1e-9)
    base = c[:, before[-1]] if len(before) else np.zeros(n)
    after = t > t0_s + 1e-9
    x = c[:, after] - base[:, None]
    sq = (x * x).sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        f = x.sum(axis=0) ** 2 / (n * sq)
    hit = np.flatnonzero((sq > 0.0) & (f >= theta - 1e-12))
    if len(hit) == 0:
        return None
    return float(t[after][hit[0]] - t0_s)


def run_convergence(key: Any, scenario_json: str) -> tuple[Any, dict[str, Any] | None, str | None]:
    """Like :func:`run_summary`, plus the ABE paper's convergence time (:func:`convergence_time`)
    of the scenario's flows from the start of its last flow on (the ``flows_ts`` bins give each
    flow's received bytes). The result is ``{"summary": ..., "convergence_s": T or None,
    "t0_s": ..., "bin_s": ..., "end_s": ...}``; ``None``: F(t) stayed below θ until the run's end."""
    import numpy as np

    try:
        raw = _simulate(scenario_json)
    except ValueError as e:
        return key, None, str(e)
    scenario = json.loads(scenario_json)
    t0 = max(float(f.get("start_ms", 0.0)) for f in scenario["flows"]) / 1000.0
    bin_s = float(scenario.get("sample_ms", 100.0)) / 1000.0
    end_s = float(scenario["duration_ms"]) / 1000.0
    cols = _columns(raw["tables"].get("flows_ts"))
    t, fl, mbps = cols["t_s"], cols["flow"], cols["throughput_mbps"]
    # Each flow's received bytes per bin on one grid of bins (a flow is not sampled before it starts).
    nb = max(1, math.ceil(end_s / bin_s - 1e-9))
    flows = sorted({int(v) for v in fl})
    idx = np.minimum(np.rint(t / bin_s).astype(np.int64), nb - 1)
    starts = np.arange(nb) * bin_s
    t_end = np.minimum(starts + bin_s, end_s)
    series = []
    for f in flows:
        sel = fl == f
        per_bin = np.zeros(nb)
        np.add.at(per_bin, idx[sel], mbps[sel] * 1e6 / 8.0 * (t_end[idx[sel]] - starts[idx[sel]]))
        series.append(np.cumsum(per_bin))
    conv = convergence_time(t_end, series, t0)
    summary = json.loads(raw["summary"])
    return key, {"summary": summary, "convergence_s": conv, "t0_s": t0, "bin_s": bin_s, "end_s": end_s}, None


#: Quantile levels kept per run for delay CDFs: 0, 0.001, ..., 1 (Mahimahi's index rule; the
#: core's ``delay_cdf`` table).
CDF_LEVELS = 1001


def _columns(cols: Any) -> dict[str, Any]:
    import numpy as np

    return {name: np.frombuffer(buf, dtype=np.dtype(dt)) for name, (dt, buf) in (cols or {}).items()}


def materialise_traces(scenario: dict[str, Any], blobs: dict[str, tuple[str, bytes]]) -> dict[str, Any]:
    """Point the scenario's trace links at local copies of ``blobs`` (path → (sha256, content)),
    written once per content into a cache folder; for workers that do not share the driver's files."""
    import hashlib
    import os
    import tempfile
    from pathlib import Path

    cache = Path(tempfile.gettempdir()) / "accelbrake-traces"
    cache.mkdir(parents=True, exist_ok=True)
    for hop in scenario.get("hops", []):
        link = hop.get("link", {})
        if link.get("type") != "trace" or link.get("path") not in blobs:
            continue
        digest, content = blobs[link["path"]]
        local = cache / f"{digest}-{Path(link['path']).name}"
        if not local.is_file():
            if hashlib.sha256(content).hexdigest() != digest:
                raise ValueError(f"trace {link['path']}: content does not match its checksum")
            fd, tmp = tempfile.mkstemp(dir=cache, prefix=".tmp-")
            with os.fdopen(fd, "wb") as fh:
                fh.write(content)
            os.replace(tmp, local)
        link["path"] = str(local)
    return scenario


def split_summary(text: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The core's summary (JSON text) as its top level without ``flows`` (the "head": run-level
    figures, hops, warnings) and its per-flow figures by column
    (:func:`accelbrake.results.flow_columns`; numbers as numpy arrays, which travel back from a
    worker as bytes, not as one object per value)."""
    import numpy as np

    from accelbrake._io import loads
    from accelbrake.results import FLOW_INT_COLUMNS, flow_columns

    head = loads(text)
    flows = head.pop("flows", None) or []
    cols: dict[str, Any] = flow_columns(head, flows)
    for k, v in cols.items():
        if k != "scheme":
            cols[k] = np.array(v, dtype=np.int64 if k in FLOW_INT_COLUMNS else np.float64)
    return head, cols


def run_experiment_point(
    key: Any,
    scenario_json: str,
    trace_blobs: dict[str, tuple[str, bytes]] | None = None,
    digest: str | None = None,
) -> tuple[Any, dict[str, Any] | None, str | None]:
    """One run of a sweep: ``(key, payload, None)`` or ``(key, None, error message)``.

    The payload holds the core's summary (JSON text; and parsed, as :func:`split_summary` splits
    it, so that the sweep's process need not parse megabytes per run), the ``flows_ts`` table with
    two more columns (``delay_mean_ms`` and ``delay_p95_ms``: per-packet delay of the packets
    received in each bin), ``hops_ts``, and :data:`CDF_LEVELS` quantiles of the per-packet delay
    of all delivered packets (for CDFs). Tables travel as ``{column: (dtype, bytes)}`` so that
    nothing needs pandas here. ``trace_blobs`` (path → (sha256, bytes)) ship the trace files to a
    worker on another machine. ``digest`` (``"module:function"``): the payload's ``digest`` is that
    function of the run's document (:func:`point_digest`), computed here rather than in the sweep's
    process.
    """
    given_json = scenario_json
    import platform
    import time

    t0 = time.perf_counter()
    try:
        if trace_blobs:
            scenario = materialise_traces(json.loads(scenario_json), trace_blobs)
            scenario_json = json.dumps(scenario)
        raw = _simulate(scenario_json)
    except ValueError as e:  # SimulationError, or a bad trace blob
        return key, None, str(e)
    tables = raw.get("tables", {})
    # The core bins each flow's per-packet delay (delay_mean_ms, delay_p95_ms in flows_ts) and
    # gives the delay distribution's quantiles (delay_cdf), so no per-packet records are needed.
    cdf_cols = _columns(tables.get("delay_cdf"))
    cdf = [float(v) for v in cdf_cols.get("per_packet_delay_ms", ())]
    head, columns = split_summary(raw["summary"])
    payload = {
        "summary": raw["summary"],
        "summary_head": head,
        "flow_columns": columns,
        "flows_ts": tables.get("flows_ts") or {},
        "hops_ts": tables.get("hops_ts") or {},
        "delay_quantiles_ms": cdf,
        "host": platform.node(),
    }
    if digest is not None:
        payload["digest"] = point_digest(digest, head, columns, given_json)
    payload["wall_s"] = time.perf_counter() - t0
    return key, payload, None


def point_digest(name: str, head: dict[str, Any], columns: dict[str, Any], scenario_json: str) -> Any:
    """``module:function`` ``name`` of the run's document as the sweep's ``on_result`` sees it:
    ``summary`` (the head, :func:`split_summary`), ``flow_columns`` and ``scenario``."""
    import importlib

    from accelbrake._io import loads

    module, _, func = name.partition(":")
    fn = getattr(importlib.import_module(module), func)
    return fn({"summary": head, "flow_columns": columns, "scenario": loads(scenario_json)})


#: What a task computes (``kind`` of :func:`run_task`): ``point`` a sweep's run
#: (:func:`run_experiment_point`), ``summary`` the core's summary (:func:`run_summary`),
#: ``hop_quantiles`` the summary and the bottleneck's data-packet queueing-delay quantiles
#: (:func:`run_hop_quantiles`, hop 0, median and 90th percentile); ``convergence`` the summary and
#: the ABE paper's convergence time of the flows (:func:`run_convergence`).
KINDS = ("point", "summary", "hop_quantiles", "convergence")

#: ``point+digest=module:function``: a ``point`` whose payload also holds ``digest``, that function
#: of the run's document as the sweep sees it (:func:`point_digest`).
DIGEST_KIND = "point+digest="


def run_task(
    key: Any,
    scenario_json: str,
    trace_blobs: dict[str, tuple[str, bytes]] | None = None,
    kind: str = "point",
) -> tuple[Any, Any, str | None]:
    """The executors' worker: one task of ``kind`` (see :data:`KINDS`), ``(key, result, None)`` or
    ``(key, None, error message)``; ``trace_blobs`` as for :func:`run_experiment_point`."""
    if kind == "point" or kind.startswith(DIGEST_KIND):
        digest = kind[len(DIGEST_KIND) :] if kind != "point" else None
        return run_experiment_point(key, scenario_json, trace_blobs, digest)
    if trace_blobs:
        try:
            scenario_json = json.dumps(materialise_traces(json.loads(scenario_json), trace_blobs))
        except ValueError as e:
            return key, None, str(e)
    if kind == "summary":
        return run_summary(key, scenario_json)
    if kind == "hop_quantiles":
        return run_hop_quantiles(key, scenario_json)
    if kind == "convergence":
        return run_convergence(key, scenario_json)
    return key, None, f"unknown task kind '{kind}'"
