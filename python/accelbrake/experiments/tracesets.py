"""The trace sets the reproductions run on, in one place.

Each set names its files (in the repository's ``traces/`` folder, checksums in ``traces/SHA256SUMS``
and ``traces/c2tcp-nyc/SHA256SUMS``), the files of the paper's own set that could not be obtained,
the subset ``--quick`` uses and where the choice comes from. Sets are never mixed: the ABC paper's
averages run on :data:`ABC_PAPER` only; the other cellular traces are :data:`CELLULAR_ROBUSTNESS`,
reported in a table of their own (``abc-table-robustness``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from accelbrake.scenarios import resolve_trace

__all__ = ["ABC_PAPER", "C2TCP_PAPER", "CELLULAR_ROBUSTNESS", "TRACE_SETS", "TraceSet"]


@dataclass(frozen=True)
class TraceSet:
    """A named list of bundled trace files."""

    id: str
    label: str
    """How output names the set (``the paper's traces, 5 of 8``)."""
    files: tuple[str, ...]
    """Paths relative to the repository (``traces/...``)."""
    quick: tuple[str, ...]
    """The subset ``--quick`` runs on (a subset of ``files``)."""
    quick_label: str
    source: str
    """Where the set comes from (the paper, section, the authors' scripts)."""
    missing: tuple[str, ...] = ()
    """Files of the paper's set that are not bundled (could not be obtained)."""

    def paths(self, quick: bool = False) -> list[str]:
        """The files to run (found with :func:`~accelbrake.scenarios.resolve_trace`); raises
        ``FileNotFoundError`` naming the first one that is not there."""
        out = []
        for f in self.quick if quick else self.files:
            found = resolve_trace(f)
            if found is None:
                raise FileNotFoundError(2, f"trace set {self.id} ({self.label}): {f} is not bundled here", f)
            out.append(found)
        return out

    def describe(self) -> str:
        """One sentence for a reproduction's setup: label, files, missing ones, --quick subset."""
        names = ", ".join(Path(f).name for f in self.files)
        text = f"Traces: {self.label} ({names})"
        if self.missing:
            text += f"; not available: {', '.join(self.missing)}"
        quick = ", ".join(Path(f).name for f in self.quick)
        return f"{text}. --quick: {self.quick_label} ({quick})."


#: The ABC paper's eight LTE traces (§7; the authors' artifact, ``run-exp.sh``, runs its cellular
#: experiments on them with ACKs over ``bw12.mahi``), of which five are bundled byte-identical.
ABC_PAPER = TraceSet(
    id="abc-paper",
    label="the paper's traces, 5 of 8",
    files=(
        "traces/Verizon-LTE-short.down",
        "traces/Verizon-LTE-short.up",
        "traces/TMobile-LTE-driving.down",
        "traces/ATT-LTE-driving-2016.down",
        "traces/ATT-LTE-driving-2016.up",
    ),
    quick=("traces/Verizon-LTE-short.down", "traces/Verizon-LTE-short.up"),
    quick_label="2 of the paper's traces",
    source="ABC (Goyal et al., NSDI 2020) §7 and its authors' artifact (run-exp.sh): Verizon-LTE-short, "
    "Verizon-LTE-driving, TMobile-LTE-driving and ATT-LTE-driving-2016, uplink and downlink",
    missing=("Verizon-LTE-driving.up", "Verizon-LTE-driving.down", "TMobile-LTE-driving.up"),
)

#: The other bundled cellular traces (Mahimahi's 2013 Boston recordings, 3G included), which the ABC
#: paper did not use: a robustness check, never averaged with :data:`ABC_PAPER`.
CELLULAR_ROBUSTNESS = TraceSet(
    id="cellular-robustness",
    label="other cellular traces, not the paper's (6)",
    files=(
        "traces/TMobile-LTE-short.down",
        "traces/TMobile-LTE-short.up",
        "traces/ATT-LTE-driving.down",
        "traces/ATT-LTE-driving.up",
        "traces/TMobile-UMTS-driving.down",
        "traces/Verizon-EVDO-driving.down",
    ),
    quick=("traces/TMobile-LTE-short.down", "traces/TMobile-LTE-short.up"),
    quick_label="2 of these traces",
    source="Mahimahi's cellular traces (Netravali et al., USENIX ATC 2015; recorded for Sprout, Winstein "
    "et al., NSDI 2013) that are not in the ABC paper's set",
)

#: The C2TCP paper's Table I traces (§VII-A): its New York City recordings (8 scenarios: subway /
#: Times Square × with / without cross traffic × LTE / HSPA) plus the Boston Mahimahi traces of 5
#: networks. Reading taken: downlinks only, as the authors' evaluation script (``evaluate.sh`` in the
#: public C2TCP repository) lists 13 downlink traces (7 NYC, 6 Mahimahi) and no uplink; one file per
#: NYC scenario (``-times-1`` where a scenario has two parts, as that script does), including
#: 3g-with-cross-subway, which the script omits but the paper's 8 scenarios include. Not bundled:
#: the NYC LTE scenarios without cross traffic and Verizon-LTE-driving.down. The NYC uplinks and
#: ``-times-2`` parts are bundled too (``--traces traces/c2tcp-nyc`` runs all ten NYC files).
C2TCP_PAPER = TraceSet(
    id="c2tcp-paper",
    label="the C2TCP paper's traces: NYC 6 of 8 scenarios + Boston Mahimahi 5 of 6 (downlinks)",
    files=(
        "traces/c2tcp-nyc/downlink-4g-with-cross-subway.pps",
        "traces/c2tcp-nyc/downlink-4g-with-cross-times",
        "traces/c2tcp-nyc/downlink-3g-no-cross-subway.pps",
        "traces/c2tcp-nyc/downlink-3g-with-cross-subway",
        "traces/c2tcp-nyc/downlink-3g-no-cross-times-1",
        "traces/c2tcp-nyc/downlink-3g-with-cross-times-1",
        "traces/ATT-LTE-driving-2016.down",
        "traces/ATT-LTE-driving.down",
        "traces/TMobile-LTE-driving.down",
        "traces/TMobile-UMTS-driving.down",
        "traces/Verizon-EVDO-driving.down",
    ),
    quick=(
        "traces/c2tcp-nyc/downlink-4g-with-cross-times",
        "traces/c2tcp-nyc/downlink-3g-no-cross-subway.pps",
    ),
    quick_label="2 NYC downlinks",
    source="C2TCP (Abbasloo, Xu, Chao, IEEE JSAC 37(4), 2019) §VII-A, traces published as "
    "Cellular-Traces-2018; the authors' evaluate.sh for the downlink-only, one-file-per-scenario reading",
    missing=(
        "downlink-4g-no-cross-subway",
        "downlink-4g-no-cross-times",
        "Verizon-LTE-driving.down",
    ),
)

#: Every set by id.
TRACE_SETS: dict[str, TraceSet] = {s.id: s for s in (ABC_PAPER, CELLULAR_ROBUSTNESS, C2TCP_PAPER)}
