"""accelbrake: a fast, deterministic packet-level simulator for congestion control on wireless links.

Quick start::

    import accelbrake
    scenario = accelbrake.build_scenario("abc", trace="traces/Verizon-LTE-short.up", duration_s=30)
    result = accelbrake.simulate(scenario)
    print(result.summary_table())
    result.to_dir("out/abc")

The simulator itself is the Rust extension :mod:`accelbrake._core`; this package builds scenarios
(:mod:`accelbrake.scenarios`), turns results into pandas tables (:mod:`accelbrake.results`), draws
them (:mod:`accelbrake.plots`) and provides the ``accelbrake`` command line (:mod:`accelbrake.cli`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from accelbrake._core import SimulationError, __version__

# The extension declares the exception in a module called `_core`; give it its public home so that
# it prints as `accelbrake.SimulationError` and survives pickling (e.g. across a process pool).
SimulationError.__module__ = "accelbrake"

from accelbrake.scenarios import (  # noqa: E402
    SCHEMES,
    ScenarioError,
    apply_sets,
    build_scenario,
    load_scenario_file,
    parse_queue_spec,
)

if TYPE_CHECKING:
    from accelbrake.results import Result, simulate

#: Names served by :mod:`accelbrake.controllers` (Python congestion controllers).
_CONTROLLER_NAMES = (
    "Ack",
    "Controller",
    "ControllerError",
    "Queue",
    "QueuePacket",
    "register_controller",
    "register_queue",
    "unregister_controller",
    "unregister_queue",
)

__all__ = [
    "Ack",
    "Controller",
    "ControllerError",
    "Queue",
    "QueuePacket",
    "SCHEMES",
    "Result",
    "ScenarioError",
    "SimulationError",
    "__version__",
    "apply_sets",
    "build_scenario",
    "load_scenario_file",
    "parse_queue_spec",
    "register_controller",
    "register_queue",
    "simulate",
    "unregister_controller",
    "unregister_queue",
]


def __getattr__(name: str) -> Any:
    # `simulate` and `Result` are imported when first used (accelbrake.results is not needed to build
    # scenarios).
    if name in ("simulate", "Result"):
        from accelbrake import results

        return getattr(results, name)
    if name in _CONTROLLER_NAMES:
        from accelbrake import controllers

        return getattr(controllers, name)
    raise AttributeError(f"module 'accelbrake' has no attribute '{name}'")


def __dir__() -> list[str]:
    return sorted([*globals(), "simulate", "Result", *_CONTROLLER_NAMES])
