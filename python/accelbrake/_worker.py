"""Work done in worker processes (kept free of pandas so that workers start fast)."""

from __future__ import annotations

import json
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
