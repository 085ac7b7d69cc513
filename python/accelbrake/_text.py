"""Small text helpers shared by the error messages of every module."""

from __future__ import annotations

import difflib
from collections.abc import Iterable

__all__ = ["did_you_mean"]


def did_you_mean(word: str, known: Iterable[str]) -> str:
    """A `` (did you mean 'x'?)`` suffix for the closest known word, or ``""``."""
    match = difflib.get_close_matches(word, list(known), n=1, cutoff=0.6)
    return f" (did you mean '{match[0]}'?)" if match else ""
