"""The ABC paper's cellular setup (§7): the network, the comparators and the document builder every
cellular reproduction of the paper starts from (the core's catalog default network is this setup).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from accelbrake import catalog

#: The ABC paper's cellular setup (§7), which is also the default network of the core's catalog.
#: The ABC paper's cellular setup (§7), which is also the default network of the core's catalog.
DELAY_MS = catalog.network_default("delay_ms")


BUFFER = int(catalog.network_default("buffer_packets"))


ACK_MBPS = catalog.network_default("ack_mbps")


#: The bundled Verizon LTE traces (``traces/``): Fig. 7's default and the quick subset of the paper's set.
BUNDLED_TRACES = ("traces/Verizon-LTE-short.down", "traces/Verizon-LTE-short.up")


#: The ABC paper's comparators that exist here, in the order of its tables (XCP runs over its own
#: router: see EXPLICIT_SCHEMES).
CELLULAR_SCHEMES = ("abc", "cubic+codel", "copa", "cubic", "pcc-vivace", "bbr", "sprout", "verus")


#: Fig. 1's schemes, in its panel order (a) Cubic, (b) Verus, (c) Cubic+CoDel, (d) ABC.
FIG1_SCHEMES = ("cubic", "verus", "cubic+codel", "abc")


#: The explicit schemes of the ABC paper's §7.3 and Appendix F (Fig. 18), each over its own router.
EXPLICIT_SCHEMES = ("xcp", "xcp-w", "rcp", "vcp")


#: Cubic+CoDel as in the ABC artifact (exp.sh: target 50 ms, interval 100 ms, 250 packets).
ARTIFACT_CODEL = "codel target=50,interval=100"


#: Copa as the ABC paper ran it: the authors' UDP implementation (genericCC, §7 "we used the UDP
#: implementations provided by the authors"), whose receiver sends one ACK per packet
#: (genericCC `receiver.cc`: "For each packet received, acks back"), so no delayed ACKs.
COPA_PER_PACKET_ACKS = ("flow.delayed_ack=false",)


def cellular(
    name: str,
    description: str,
    schemes: Sequence[str],
    traces: Sequence[str],
    duration: float,
    seeds: int,
    *,
    delays: Sequence[float] = (DELAY_MS,),
) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "name": name,
        "description": description,
        "matrix": {
            "schemes": list(schemes),
            "traces": list(traces),
            "delay_ms": list(delays),
            "buffer_packets": [BUFFER],
            "seeds": seeds,
        },
        "run": {"duration_s": duration, "ack_mbps": ACK_MBPS, "sample_ms": 100.0},
    }
    per_scheme: dict[str, Any] = {}
    if "cubic+codel" in schemes:
        per_scheme["cubic+codel"] = {"queue": ARTIFACT_CODEL}
    if "copa" in schemes:
        per_scheme["copa"] = {"set": list(COPA_PER_PACKET_ACKS)}
    if per_scheme:
        doc["schemes"] = per_scheme
    return doc


CELL_SETUP = (
    "ABC paper cellular setup: trace drives the data link, ACKs over a constant 12 Mbit/s link, 50 ms "
    "one-way delay each way (min RTT 100 ms), 250-packet buffer, one backlogged flow; Cubic+CoDel "
    "uses the ABC artifact's CoDel (target 50 ms, interval 100 ms); Copa ACKs every packet (genericCC's "
    "UDP receiver, which the paper ran); delay = per-packet delay "
    "(RTT + queueing)."
)
