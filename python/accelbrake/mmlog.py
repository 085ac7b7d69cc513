"""Mahimahi link logs as tables: what ``mm-throughput-graph`` and ``mm-delay-graph`` draw, per bin.

A link log (``mm-link --uplink-log``, or ``accelbrake shell/emulate --log``) has one event per line
after ``#`` header lines::

    0 + 1504        a packet of 1504 bytes arrived at the link's queue (ms, size)
    1 # 1504        a delivery opportunity of 1504 bytes, used or not
    1 - 1504 1      a packet left at that opportunity after 1 ms in the queue

:func:`read_link_log` gives the events as arrays; :func:`link_log_series` bins them as Mahimahi's
graphs do: capacity (the opportunities' bytes), ingress (arrivals) and egress (departures) in Mbit/s
per bin, and the departures' queueing delay per bin (mean, and the 95th percentile as
``mm-delay-graph``'s percentile: the sorted value at index ⌊q·N⌋). Times are the log's milliseconds:
bins start at 0 (both Mahimahi's and our logs count from the link's start).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["link_log_series", "read_link_log"]


def read_link_log(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The events of a Mahimahi link log: ``{"arrivals", "opportunities", "departures"}``, each a dict
    of numpy arrays (``t_ms``, ``bytes``; departures also ``delay_ms``), in file order.

    Raises ``ValueError`` naming the file and line of the first line that is not an event."""
    import numpy as np

    kinds = {"+": "arrivals", "#": "opportunities", "-": "departures"}
    cols: dict[str, dict[str, list[float]]] = {
        k: {"t_ms": [], "bytes": [], **({"delay_ms": []} if k == "departures" else {})}
        for k in kinds.values()
    }
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            fields = line.split()
            if not fields or fields[0].startswith("#"):
                continue
            kind = kinds.get(fields[1]) if len(fields) >= 3 else None
            want = 4 if kind == "departures" else 3
            try:
                if kind is None or len(fields) != want:
                    raise ValueError
                values = [float(x) for x in fields[:1] + fields[2:]]
            except ValueError:
                raise ValueError(
                    f"{path}, line {n}: expected 'T + SIZE', 'T # SIZE' or 'T - SIZE DELAY' (a Mahimahi link "
                    f"log event), got {line.strip()!r}"
                ) from None
            c = cols[kind]
            c["t_ms"].append(values[0])
            c["bytes"].append(values[1])
            if kind == "departures":
                c["delay_ms"].append(values[2])
    return {k: {name: np.asarray(v, dtype=float) for name, v in c.items()} for k, c in cols.items()}


def link_log_series(path: str | os.PathLike[str], bin_ms: float = 100.0) -> pd.DataFrame:
    """A link log per ``bin_ms`` bin from 0 to its last event: ``t_s`` (the bin's start),
    ``capacity_mbps``, ``ingress_mbps``, ``egress_mbps``, ``queueing_delay_mean_ms`` and
    ``queueing_delay_p95_ms`` of the packets that left in the bin (NaN when none did)."""
    import numpy as np
    import pandas as pd

    if not bin_ms > 0:
        raise ValueError(f"bin_ms: expected a positive number of milliseconds, got {bin_ms}")
    ev = read_link_log(path)
    last = max((float(e["t_ms"].max()) for e in ev.values() if len(e["t_ms"])), default=0.0)
    n = int(last // bin_ms) + 1
    per_bin_mbps = 8.0 / (bin_ms * 1000.0)  # bytes per bin → Mbit/s

    def rate(e: dict[str, Any]) -> Any:
        idx = (e["t_ms"] // bin_ms).astype(np.int64)
        return np.bincount(idx, weights=e["bytes"], minlength=n)[:n] * per_bin_mbps

    dep = ev["departures"]
    mean = np.full(n, np.nan)
    p95 = np.full(n, np.nan)
    if len(dep["t_ms"]):
        idx = (dep["t_ms"] // bin_ms).astype(np.int64)
        order = np.lexsort((dep["delay_ms"], idx))  # by bin, then by delay
        b, d = idx[order], dep["delay_ms"][order]
        starts = np.searchsorted(b, np.arange(n), side="left")
        ends = np.searchsorted(b, np.arange(n), side="right")
        for i in np.nonzero(ends > starts)[0]:
            seg = d[starts[i] : ends[i]]
            mean[i] = float(seg.mean())
            p95[i] = float(seg[int(0.95 * len(seg))])
    return pd.DataFrame(
        {
            "t_s": np.arange(n) * bin_ms / 1000.0,
            "capacity_mbps": rate(ev["opportunities"]),
            "ingress_mbps": rate(ev["arrivals"]),
            "egress_mbps": rate(dep),
            "queueing_delay_mean_ms": mean,
            "queueing_delay_p95_ms": p95,
        }
    )
