"""Each published number is written once: in its paper's ``published.py``.

Everything else that quotes a published value (the comparisons, the docs tables, the generated prose)
takes it from the data model (:mod:`accelbrake.papers`). This test scans the Python sources of the
package and of ``scripts/`` for a literal equal to a published value within a few lines of that
value's figure id (its reproduction id, the figure or table it comes from): a second copy that would
drift from the first when one is corrected. Numbers inside string literals count too (a sentence with
"0.66 / 0.85" is a copy). The allow-list below holds the reviewed exceptions, each with its reason.
"""

from __future__ import annotations

import io
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path

import pytest
from accelbrake.experiments.published import selects
from accelbrake.papers import PAPERS

ROOT = Path(__file__).resolve().parents[1]
SCANNED = (ROOT / "python" / "accelbrake", ROOT / "scripts")
#: Lines either side of a literal in which its figure id counts as "next to it".
WINDOW = 3

#: Reviewed exceptions: (path relative to the repository, value, text on the literal's line) → why
#: that literal is not a copy of the published value.
ALLOWED: dict[tuple[str, float, str], str] = {
    ("python/accelbrake/papers/c2tcp/reproductions.py", 1.5, "1.5 MB"): (
        "Fig. 19's largest buffer (1.5 MB), a setup parameter beside c2tcp-target's text, not Eq. 9's "
        "1.5 × Setpoint bound"
    ),
}

_FIG = re.compile(r"\b(?:Figs?\.\s*\d+[a-z]?|Table\s+[IVX]+\b|Table\s+\d+|Eq\.\s*\d+)")
_NUM = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w]|\.\d)")


#: Values too common to tell a copy from any other number (counts, unit ratios, small integers):
#: whole numbers up to this are not scanned.
TRIVIAL = 10


@dataclass(frozen=True)
class Value:
    value: float
    ids: frozenset[str]
    """The reproduction id (unique across papers) and the figure/table labels."""
    paper: str
    """The paper's key; a figure label counts only in its folder or beside the paper's name."""
    names: tuple[str, ...]
    where: str


def published_values() -> list[Value]:
    """Every numeric published value (value, low and high of a range) with its figure ids: its
    reproduction id, the figures/tables of the results judged on it and those its metric names."""
    out = []
    for paper in PAPERS:
        for section, pubs in paper.published.items():
            for p in pubs:
                ids = {section, *_FIG.findall(p.metric)}
                for r in paper.results:
                    if r.repro == section and selects(r.rows, p.scheme, p.metric):
                        ids.update(_FIG.findall(r.where))
                for v in (p.value, p.low, p.high):
                    if v is None or (float(v).is_integer() and abs(v) <= TRIVIAL):
                        continue
                    out.append(
                        Value(
                            float(v),
                            frozenset(ids),
                            paper.key,
                            (paper.key, paper.short),
                            f"{paper.key} {section}: {p.statement()}",
                        )
                    )
    return out


def literals(source: str) -> list[tuple[int, float]]:
    """(line, value) of every number in ``source``: number tokens and numbers inside strings."""
    out = []
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    string_types = {
        tokenize.STRING,
        *(getattr(tokenize, n) for n in ("FSTRING_MIDDLE",) if hasattr(tokenize, n)),
    }
    for tok in tokens:
        if tok.type == tokenize.NUMBER:
            try:
                out.append((tok.start[0], float(tok.string.replace("_", ""))))
            except ValueError:
                continue  # complex or other literals are never published values
        elif tok.type in string_types:
            for i, line in enumerate(tok.string.splitlines() or [""]):
                out.extend((tok.start[0] + i, float(m.group())) for m in _NUM.finditer(line))
    return out


def copies(path: Path, source: str, values: list[Value]) -> list[str]:
    """The copies of published values in ``source`` (one message each), allow-list applied."""
    lines = source.splitlines()
    rel = path.relative_to(ROOT).as_posix() if path.is_absolute() and path.is_relative_to(ROOT) else str(path)
    by_value: dict[float, list[Value]] = {}
    for v in values:
        by_value.setdefault(v.value, []).append(v)
    found = []
    for lineno, x in literals(source):
        if any(k[:2] == (rel, x) and k[2] in lines[lineno - 1] for k in ALLOWED):
            continue
        for v in by_value.get(x, ()):
            near = "\n".join(lines[max(0, lineno - 1 - WINDOW) : lineno + WINDOW])
            # A figure label ("Fig. 9") names a figure of this paper only in its folder or beside its
            # name; a reproduction id ("abc-fig9") names it anywhere.
            own = f"/papers/{v.paper}/" in f"/{rel}" or any(
                re.search(r"\b" + re.escape(n) + r"\b", near, re.IGNORECASE) for n in v.names
            )
            for fid in sorted(v.ids):
                if not own and not re.fullmatch(r"[a-z0-9]+-[\w-]+", fid):
                    continue
                if re.search(re.escape(fid) + r"(?![\w-])", near):
                    found.append(f"{rel}:{lineno}: {x:g} next to {fid!r} is a copy of {v.where}")
    return sorted(set(found))


def sources() -> list[Path]:
    files = [f for d in SCANNED for f in sorted(d.rglob("*.py"))]
    # The one place each value is written.
    return [f for f in files if not (f.name == "published.py" and f.parent.parent.name == "papers")]


def test_every_paper_has_published_values():
    values = published_values()
    assert len(values) > 50
    assert {v.where.split()[0] for v in values} == {p.key for p in PAPERS}


def test_the_scanner_finds_a_copy_and_ignores_unrelated_numbers():
    values = [
        Value(
            0.66,
            frozenset({"abc-table", "Table 1"}),
            "abc",
            ("abc", "ABC"),
            "abc abc-table: Copa norm. utilisation: 0.66",
        )
    ]
    src = 'ROWS = {\n    "abc-table": [("copa", 0.66)],\n}\nOTHER = 0.66\n\n\n\nX = 0.66\n'
    found = copies(Path("example.py"), src, values)
    assert len(found) == 2 and all("0.66 next to 'abc-table'" in f for f in found)
    # In prose: a sentence quoting the value beside its figure.
    found = copies(Path("example.py"), 'TEXT = f"ABC Table 1 gives Copa {x:.2f}, the paper 0.66"\n', values)
    assert found and "'Table 1'" in found[0]
    # A figure label without the paper's name, outside its folder, may be another paper's figure.
    assert copies(Path("example.py"), 'TEXT = "Table 1 of C2TCP: 0.66"\n', values) == []
    assert copies(Path("python/accelbrake/papers/abc/x.py"), 'TEXT = "Table 1: 0.66"\n', values)
    # The same number far from any figure id, or a different number, is not a copy.
    assert copies(Path("example.py"), 'A = 0.66\n\n\n\n\nB = "abc-table"\nC = 0.661\n', values) == []


def test_each_published_value_is_written_once():
    values = published_values()
    found = [c for f in sources() for c in copies(f, f.read_text(encoding="utf-8"), values)]
    assert not found, "published values written again outside published.py:\n" + "\n".join(found)


@pytest.mark.parametrize("key", sorted(ALLOWED))
def test_allowed_exceptions_are_still_needed(key):
    """An exception whose literal is gone, or no longer equals a published value, is removed."""
    path, value, text = key
    assert any(v.value == value for v in published_values()), f"{key}: {value:g} is no longer published"
    src = (ROOT / path).read_text(encoding="utf-8")
    lines = src.splitlines()
    assert any(x == value and text in lines[n - 1] for n, x in literals(src)), (
        f"{key}: the allowed literal is gone; remove it from ALLOWED"
    )
