"""Work done in worker processes (kept free of pandas so that workers start fast)."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from typing import Any

from accelbrake import _core


def run_summary(key: Any, scenario_json: str) -> tuple[Any, dict[str, Any] | None, str | None]:
    """Run one scenario; return ``(key, summary, None)`` or ``(key, None, error message)``.

    Errors come back as text rather than exceptions so that nothing has to be unpickled.
    """
    try:
        raw = _core.simulate(scenario_json)
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
        raw = _core.simulate(scenario_json)
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
