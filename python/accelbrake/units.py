"""Numbers with units, as users type them: durations, rates, sizes, whole numbers, reals, booleans.

Every parser raises ``ValueError`` saying what it expected.
"""

from __future__ import annotations

import decimal
import math
import re
from collections.abc import Mapping
from typing import Any

from accelbrake._text import did_you_mean

__all__ = ["parse_bool", "parse_duration", "parse_float", "parse_int", "parse_rate", "parse_size"]


_NUMBER = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
_QUANTITY_RE = re.compile(rf"^\s*({_NUMBER})\s*([^\d\s].*?)?\s*$")

_DURATION_UNITS_MS = {
    "ns": 1e-6,
    "us": 1e-3,
    "µs": 1e-3,
    "μs": 1e-3,
    "ms": 1.0,
    "s": 1e3,
    "sec": 1e3,
    "min": 6e4,
}
_RATE_UNITS_MBPS = {
    "bps": 1e-6,
    "bit/s": 1e-6,
    "kbps": 1e-3,
    "kbit/s": 1e-3,
    "kbits/s": 1e-3,
    "mbps": 1.0,
    "mbit/s": 1.0,
    "mbits/s": 1.0,
    "gbps": 1e3,
    "gbit/s": 1e3,
    "gbits/s": 1e3,
}
_SIZE_UNITS_BYTES = {"b": 1, "kb": 1000, "kib": 1024, "mb": 1000**2, "mib": 1024**2}


def _quantity(text: Any, units: Mapping[str, float], default_unit: str, expected: str) -> float:
    """Parse ``number[unit]`` into the base unit; raise ``ValueError(expected ...)`` otherwise."""
    if isinstance(text, bool):
        raise ValueError(f"expected {expected}, got {text!r}")
    if isinstance(text, int | float):
        value, unit = float(text), ""
    else:
        m = _QUANTITY_RE.match(str(text))
        if not m:
            raise ValueError(f"expected {expected}, got '{text}'")
        value, unit = float(m.group(1)), (m.group(2) or "").lower()
    scale = units.get(unit or default_unit)
    if scale is None:
        raise ValueError(f"unknown unit '{unit}'{did_you_mean(unit, units)}; expected {expected}")
    value *= scale
    if not math.isfinite(value):
        raise ValueError(f"expected {expected}, got '{text}' (not a finite number)")
    return value


def parse_duration(text: Any, default_unit: str = "ms") -> float:
    """Parse a duration into milliseconds: ``"100ms"``, ``"0.1s"``, ``"250us"``, or a bare number
    in ``default_unit`` (ms unless told otherwise). Raises ``ValueError`` on anything else."""
    return _quantity(text, _DURATION_UNITS_MS, default_unit, "a duration like 100ms, 0.1s or 100 (ms)")


def parse_rate(text: Any) -> float:
    """Parse a rate into Mbit/s (10^6 bit/s): ``"12mbps"``, ``"12Mbit/s"``, ``"500kbps"``,
    ``"1gbps"``, or a bare number in Mbit/s. Raises ``ValueError`` on anything else."""
    return _quantity(text, _RATE_UNITS_MBPS, "mbps", "a rate like 12mbps, 12Mbit/s or 12 (Mbit/s)")


def parse_size(text: Any) -> int:
    """Parse a byte count: ``"150000"``, ``"150kB"``, ``"1MiB"``."""
    v = _quantity(text, _SIZE_UNITS_BYTES, "b", "a size in bytes like 150000, 150kB or 1MiB")
    if v != int(v) or v < 0:
        raise ValueError(f"expected a whole number of bytes ≥ 0, got '{text}'")
    return int(v)


def parse_int(text: Any) -> int:
    """A whole number, exactly: ints pass through unchanged (no float on the way, so seeds
    above 2^53 stay what they are); ``"12"``, ``"1e3"``, ``"3.0"`` and ``3.0`` are accepted."""
    if isinstance(text, bool):
        raise ValueError(f"expected a whole number, got {text!r}")
    if isinstance(text, int):
        return text
    if isinstance(text, float):
        if not math.isfinite(text) or not text.is_integer():
            raise ValueError(f"expected a whole number, got '{text}'")
        return int(text)
    s = str(text).strip()
    if re.fullmatch(r"[+-]?\d+", s):
        return int(s)
    try:
        v = decimal.Decimal(s)
    except decimal.InvalidOperation:
        raise ValueError(f"expected a whole number, got '{text}'") from None
    if not v.is_finite() or v != v.to_integral_value() or abs(v.adjusted()) > 100:
        raise ValueError(f"expected a whole number, got '{text}'")
    return int(v)


def parse_float(text: Any) -> float:
    if isinstance(text, bool):
        raise ValueError(f"expected a number, got {text!r}")
    try:
        v = float(str(text).strip())
    except ValueError:
        raise ValueError(f"expected a number like 0.95, got '{text}'") from None
    if not math.isfinite(v):
        raise ValueError(f"expected a finite number, got '{text}'")
    return v


_TRUE = {"true", "yes", "on", "1", "1.0"}
_FALSE = {"false", "no", "off", "0", "0.0"}


def parse_bool(text: Any) -> bool:
    if isinstance(text, bool):
        return text
    s = str(text).strip().lower()
    if s in _TRUE:
        return True
    if s in _FALSE:
        return False
    raise ValueError(f"expected true or false (also yes/no, on/off, 1/0), got '{text}'")
