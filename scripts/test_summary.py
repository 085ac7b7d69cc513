"""The closing line of `make test`: what ran and how many tests passed, from the logs its steps
wrote (cargo test's "test result:" lines, pytest's last line).

    python scripts/test_summary.py LOG_DIR

prints one line per suite and then ``make test: N passed, N failed`` (plus ``, N skipped``)."""

from __future__ import annotations

import re
import sys
from pathlib import Path


def cargo_counts(text: str) -> tuple[int, int, int]:
    """Passed, failed and ignored tests over every ``test result:`` line of ``cargo test``."""
    passed = failed = ignored = 0
    for m in re.finditer(r"test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored", text):
        passed, failed, ignored = passed + int(m[1]), failed + int(m[2]), ignored + int(m[3])
    return passed, failed, ignored


def pytest_counts(text: str) -> tuple[int, int, int]:
    """Passed, failed (failures and errors) and skipped tests of pytest's closing line."""
    lines = [ln for ln in text.splitlines() if re.search(r"\d+ (passed|failed|error)", ln)]
    if not lines:
        return 0, 0, 0
    last = lines[-1]

    def n(word: str) -> int:
        m = re.search(rf"(\d+) {word}", last)
        return int(m[1]) if m else 0

    return n("passed"), n("failed") + n("errors?"), n("skipped")


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    logs = Path(argv[1])
    total = [0, 0, 0]
    for name, what, counts in (
        ("rs.log", "Rust (cargo test)", cargo_counts),
        ("py.log", "Python (pytest)", pytest_counts),
    ):
        path = logs / name
        if not path.is_file():
            print(f"{what}: did not run (no {path})")
            continue
        p, f, s = counts(path.read_text(encoding="utf-8", errors="replace"))
        print(f"{what}: {p} passed, {f} failed, {s} skipped")
        total = [total[0] + p, total[1] + f, total[2] + s]
    print(f"make test: {total[0]} passed, {total[1]} failed, {total[2]} skipped")
    return 1 if total[1] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
