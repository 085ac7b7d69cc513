"""The same scenario gives byte-identical results in separate Python processes."""

import hashlib
import json
import subprocess
import sys
from pathlib import Path

TRACE = str(Path(__file__).resolve().parent.parent / "traces" / "Verizon-LTE-short.up")

CHILD = """
import hashlib, json, sys
from accelbrake import _core
r = _core.simulate(sys.argv[1])
h = hashlib.sha256(r["summary"].encode())
for name in sorted(r["tables"]):
    for col in sorted(r["tables"][name]):
        dtype, data = r["tables"][name][col]
        h.update(name.encode() + col.encode() + dtype.encode() + data)
print(h.hexdigest())
"""


def test_same_output_in_two_processes():
    sc = {
        "duration_ms": 5000,
        "seed": 4,
        "record_packets": True,
        "hops": [
            {
                "link": {"type": "trace", "path": TRACE},
                "queue": {"type": "abc", "packets": 250},
                "delay_ms": 50,
            },
            {"link": {"type": "constant", "mbps": 12}, "queue": {"type": "codel"}, "delay_ms": 50},
        ],
        "flows": [
            {"scheme": "abc", "fwd": [0], "rev": [1]},
            {"scheme": "cubic", "fwd": [0], "rev": [1], "count": 2, "start_ms": 300},
        ],
    }
    text = json.dumps(sc)
    digests = [
        subprocess.run([sys.executable, "-c", CHILD, text], capture_output=True, text=True, check=True).stdout
        for _ in range(2)
    ]
    assert digests[0] == digests[1]
    assert len(digests[0].strip()) == hashlib.sha256().digest_size * 2
