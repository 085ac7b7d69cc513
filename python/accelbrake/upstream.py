"""The schemes' own programs (``accelbrake emulate --scheme S --upstream``): which of our schemes
have one, and the emulator options that run it. ``make upstream`` builds them."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from accelbrake.cli._common import CliError

#: Our scheme names with an authors' program (the Copa, Sprout, Verus and PCC-Vivace that the ABC
#: and C2TCP papers measured through Mahimahi).
UPSTREAM_SCHEMES = ("copa", "sprout", "verus", "pcc-vivace")


def upstream_argv(scheme: str, args: Any) -> list[str]:
    """The ``accelbrake-emu emulate`` options that run ``scheme``'s own programs; a clear error for
    options the authors' programs cannot take."""
    if scheme not in UPSTREAM_SCHEMES:
        raise CliError(
            f"--upstream: no authors' program for --scheme {scheme} (expected one of "
            f"{', '.join(UPSTREAM_SCHEMES)})"
        )
    if getattr(args, "set", None):
        raise CliError("--upstream: --set does not apply (the authors' programs run with their own settings)")
    if getattr(args, "receiver_cc", None) or getattr(args, "tcp_info", None):
        raise CliError("--upstream: --receiver-cc and --tcp-info are for kernel TCP")
    if getattr(args, "transport", "auto") != "auto":
        raise CliError(
            "--upstream: give it without --transport (the authors' programs are their own transport)"
        )
    if not _built(scheme):
        raise CliError(
            f"--upstream: the authors' {scheme} is not built in {programs_dir()} (run `make upstream`, "
            "or set ACCELBRAKE_UPSTREAM_DIR to where it was built)"
        )
    return ["--upstream", scheme]


def programs_dir() -> Path:
    """Where ``make upstream`` installs the programs (as the emulator looks for them)."""
    d = os.environ.get("ACCELBRAKE_UPSTREAM_DIR")
    if d:
        return Path(d)
    x = os.environ.get("XDG_DATA_HOME")
    base = Path(x) if x else Path.home() / ".local" / "share"
    return base / "accelbrake" / "upstream"


def _built(scheme: str) -> bool:
    first = {
        "copa": "copa/sender",
        "sprout": "sprout/sproutbt2",
        "verus": "verus/verus_server",
        "pcc-vivace": "pcc-vivace/sender/vivace_sender",
    }[scheme]
    return (programs_dir() / first).is_file()
