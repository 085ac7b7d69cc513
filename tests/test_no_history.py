"""The tree speaks to users, not about how it was developed.

Every tracked text file (docs, README, code and its comments, tests, scripts) and every tracked file
name is scanned for what only the project's own history explains:

* tracker references: "issue 12", "issues 12 and 13", "#12", names such as ``test_x_i17.py``;
* the work diary: "session" in the sense of a stretch of work ("the fifth session", "this
  session's fix"), the people or agents who worked ("helpers", "subagent", "the lead");
* development dates and the machine's load at the time ("2026-11-27", "load average 5");
* paths that exist on one machine only (a checkout under ``/work``, a home directory, a fixed
  ``/tmp/<name>``).

A measurement says what, how, on what kind of machine and with which command; the history is in
``git log`` and user-visible changes are in CHANGELOG.md.

Technical uses of the same words (pytest's ``scope="session"``, a Unix process session, a helper
thread, a colour ``#222``) do not match the patterns or are in :data:`ALLOWED`, each with its reason.
When this test fails, rewrite the line as a user would want to read it; add to :data:`ALLOWED` only a
technical use that the patterns cannot tell apart, with the reason.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SELF = "tests/test_no_history.py"

# Data, not prose: measured rows, traces, images, lock files.
SKIP_SUFFIXES = (".csv", ".png", ".svg", ".lock", ".parquet", ".pcap", ".whl", ".gz")
SKIP_DIRS = ("traces/", "python/accelbrake/traces/")

_ORDINAL = (
    r"first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|"
    r"previous|last|next|this|that|same|earlier|later|other|another|each|one|two|three|whole"
)

# (name, pattern, what to do instead). Patterns are case-insensitive and match within one line.
RULES: list[tuple[str, re.Pattern[str], str]] = [
    (
        "tracker number",
        re.compile(r"\b(?:issues?|tickets?|bugs?|PRs?|pull requests?|tasks?)\s*#?\s*\d+\b", re.I),
        "say what the change does or why the code is so; the tracker is not public",
    ),
    (
        "tracker number",
        re.compile(
            r"\bthis issue\b|\bthe issue's\b|\bthe issue (?:asks|asked|sets|set)\b"
            r"|\bthis branch\b|\bmain's build\b",
            re.I,
        ),
        "say what the requirement is, not which tracker item asked for it",
    ),
    (
        "tracker number",
        re.compile(r"(?:^|[\s(\[,;/])#\d+\b"),
        "say what is meant instead of a tracker number",
    ),
    (
        "tracker number in a name",
        re.compile(r"(?:^|[_\-/.])i(?!8\b|16\b|32\b|64\b|128\b)\d+[a-z]?(?=[_\-/.]|$)", re.I),
        "name the file or test after what it checks",
    ),
    (
        "diary 'session'",
        re.compile(
            rf"\b(?:{_ORDINAL})\s+sessions?\b|\bsessions?'s?\s+(?:start|end|notes?|fix|fixes|changes?|numbers?|runs?|median)\b|\bin\s+the\s+same\s+session\b|\bsession\)|\(\w+\s+session\b",
            re.I,
        ),
        "state the current behaviour; the history is in git log",
    ),
    (
        "diary 'session'",
        re.compile(r"\bsessions?\b", re.I),
        "a work session is history; if this is a technical session, reword or allow it with a reason",
    ),
    (
        "helper or agent",
        re.compile(
            r"\bsub-?agents?\b|\bhelpers'|\bhelper's\s+(?:arena|branch|work|run|change)|"
            r"\b(?:other|two|three|four|five|six|seven)\s+helpers\b|\bby\s+the\s+(?:helper|lead)\b|"
            r"\bhelper\s+(?:branch|session|agent)\b|\(lead,|\bthe\s+lead(?:'s)?\s+(?:merged|closed|measured|ran|found)\b",
            re.I,
        ),
        "the people and agents who worked on the code are history",
    ),
    (
        "development date",
        re.compile(r"\b20\d\d-[01]\d-[0-3]\d\b"),
        "a measurement says what, how, on what machine class and the command, not when",
    ),
    (
        "load average",
        re.compile(r"\bload\s+averages?\b|\bload\s+(?:of\s+)?~?\d+(?:\.\d+)?\b|\bat\s+load\s", re.I),
        "say 'on an idle 2-core x86-64 VM' (the machine class), not the load at the time",
    ),
    (
        "machine path",
        re.compile(r"(?<![\w.])/(?:work|home|root|Users)/\w|(?<![\w.])/tmp/[\w.{-]", re.I),
        "take a path argument (say what to fetch when it is missing) or use a temporary directory",
    ),
]

# Reviewed exceptions: (path, substring of the line, reason). Keep this list short.
ALLOWED: list[tuple[str, str, str]] = [
    ("tests/conftest.py", 'scope="session"', "pytest's fixture scope"),
    ("tests/test_pool.py", "session", "a Unix process session (setsid / pgrep -s)"),
    ("CHANGELOG.md", "## [", "release headings carry their release date (Keep a Changelog)"),
    ("python/accelbrake/experiments/spec.py", "``/tmp/x``", "an example of an absolute path that is refused"),
    ("tests/test_input_validation.py", '"/tmp/x"', "a refused absolute path, as input"),
    ("scripts/cli_speed.py", "load average", "prints the machine's load beside each figure it measures"),
    ("scripts/htsim_compare.py", "load average", "prints the machine's load beside each figure it measures"),
    ("scripts/bulk_sweep.py", "load average", "prints the machine's load beside each figure it measures"),
    (
        "scripts/gym_vector_speed.py",
        "load average",
        "prints the machine's load beside each figure it measures",
    ),
    # Real-time kernel runs record the machine's load when they start: a run on a busy machine is
    # flagged and set aside when a calmer run of the same point exists.
    ("docs/abe-kernel.md", "load", "the kernel runs' load flag, part of the method"),
    ("docs/data/abe-kernel/abe-kernel.md", "load average", "the kernel runs' load flag (method)"),
    ("python/accelbrake/papers/abe/kernel.py", "load average", "the kernel runs' load flag"),
    ("tests/test_wifi.py", '"/tmp/unused"', "a path the code must not touch (the call fails first)"),
]


def _tracked() -> list[str]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout.decode()
    return [p for p in out.split("\0") if p]


def _allowed(path: str, line: str) -> bool:
    return any(path == p and s in line for p, s, _ in ALLOWED)


def scan(paths: list[str]) -> list[str]:
    """Every offending line (``path:line: kind: text``) and file name in ``paths``."""
    found = []
    for path in paths:
        if path == SELF:
            continue
        for name, pat, _ in RULES:
            if name == "tracker number in a name" and pat.search(path):
                found.append(f"{path}: file name: {name}")
        if path.endswith(SKIP_SUFFIXES) or path.startswith(SKIP_DIRS):
            continue
        f = ROOT / path
        if not f.is_file():  # deleted in the work tree, not yet in the index
            continue
        raw = f.read_bytes()
        if b"\0" in raw[:8192]:
            continue
        text = raw.decode("utf-8", errors="replace")
        for no, line in enumerate(text.splitlines(), 1):
            for name, pat, _ in RULES:
                if pat.search(line) and not _allowed(path, line):
                    found.append(f"{path}:{no}: {name}: {line.strip()[:160]}")
                    break
    return found


@pytest.mark.parametrize("rule", sorted({r[0] for r in RULES}))
def test_no_development_history_in_the_tree(rule):
    hits = [h for h in scan(_tracked()) if f": {rule}" in h]
    hint = next(h for n, _, h in RULES if n == rule)
    assert not hits, f"{len(hits)} line(s) with a {rule} ({hint}):\n" + "\n".join(hits[:200])


@pytest.mark.parametrize(
    "line",
    [
        "Issue 12: after an outage the router",
        "see #12 for the plan",
        "(fifth session, 2026-11-27)",
        "this session's fixes",
        "load average 5-6 from other helpers' builds",
        "left by the helper (out of time) and closed by the lead the same day",
        'ap.add_argument("--traces-dir", default="/work/shared/traces")',
        "--out /tmp/i12b-final",
        "the issue's tolerances (±5 %)",
    ],
)
def test_the_patterns_catch_a_diary_line(line):
    assert any(pat.search(line) for _, pat, _ in RULES), line


@pytest.mark.parametrize(
    "line",
    [
        'style: ("#525252", "."),',
        "color:#222;line-height:1.4",
        "let x: i64 = 3; as_i32()",
        "a helper thread, kept by a descriptor",
        "#[derive(Debug)]",
        "## 2. Install",
        "the load on the link rises to 0.9 of its capacity",
    ],
)
def test_the_patterns_leave_technical_text_alone(line):
    assert not any(pat.search(line) for _, pat, _ in RULES), line


def test_a_file_named_after_a_tracker_number_is_caught():
    assert scan(["tests/test_validation_i17.py"])[0].endswith("file name: tracker number in a name")
