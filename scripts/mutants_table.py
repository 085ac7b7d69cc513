#!/usr/bin/env python3
"""Per-file table of a cargo-mutants run: viable mutants, caught, %, and the survivors.

    python3 scripts/mutants_table.py mutants.out/outcomes.json [--missed]

Viable = caught + missed + timed out (unviable mutants do not build and are left out); a mutant
that makes the tests hang (timeout) counts as caught. See docs/testing.md.
"""

import json
import sys
from collections import defaultdict


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__)
        return 2
    with open(argv[0], encoding="utf-8") as f:
        outcomes = json.load(f)["outcomes"]
    rows: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    missed = []
    for o in outcomes:
        m = o["scenario"]
        if not isinstance(m, dict) or "Mutant" not in m:
            continue  # the baseline
        path = m["Mutant"]["file"].removeprefix("crates/accelbrake-sim/src/")
        kind = o["summary"]
        rows[path][kind] += 1
        if kind == "MissedMutant":
            missed.append(m["Mutant"]["name"])
    print("| file | viable | caught | % | unviable |")
    print("|---|---|---|---|---|")
    for path in sorted(rows):
        r = rows[path]
        caught = r["CaughtMutant"] + r["Timeout"]
        viable = caught + r["MissedMutant"]
        pct = f"{100 * caught / viable:.0f} %" if viable else "-"
        print(f"| `{path}` | {viable} | {caught} | {pct} | {r['Unviable']} |")
    if "--missed" in argv[1:]:
        print()
        for name in missed:
            print(f"- {name.removeprefix('crates/accelbrake-sim/src/')}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
