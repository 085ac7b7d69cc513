"""The error every scenario-building module raises (re-exported by :mod:`accelbrake.scenarios`)."""

from __future__ import annotations

from accelbrake._core import SimulationError

__all__ = ["ScenarioError"]


class ScenarioError(SimulationError):
    """An invalid scenario argument, ``--set`` override or scenario file.

    A :class:`accelbrake.SimulationError` (hence a ``ValueError``); ``key`` names what was wrong
    (a ``--set`` key, an argument name or a file), or is ``None``.
    """

    def __init__(self, message: str, key: str | None = None) -> None:
        super().__init__(message)
        self.key = key

    def __reduce__(self):  # keep `key` across pickling (process pools)
        return (type(self), (str(self), self.key))
