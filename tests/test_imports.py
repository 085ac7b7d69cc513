"""The package's import structure: no import cycles, and the light commands stay light."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "python" / "accelbrake"

HEAVY = ("pandas", "matplotlib", "pyarrow")


def _modules() -> dict[str, Path]:
    mods = {}
    for p in PACKAGE.rglob("*.py"):
        parts = list(p.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        mods[".".join(parts)] = p
    mods["accelbrake._core"] = PACKAGE / "_core.pyi"  # the extension (imports nothing of ours)
    return mods


def _imports(path: Path, name: str, mods: dict[str, Path]) -> set[str]:
    """Every accelbrake module ``path`` imports, at module level or inside functions (not under
    ``if TYPE_CHECKING``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = {
        id(n)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for n in ast.walk(node)
    }
    out = set()
    is_pkg = path.name == "__init__.py"
    for n in ast.walk(tree):
        if id(n) in skip:
            continue
        if isinstance(n, ast.Import):
            out.update(a.name for a in n.names)
        elif isinstance(n, ast.ImportFrom):
            base = n.module or ""
            if n.level:
                pkg = name if is_pkg else name.rsplit(".", 1)[0]
                for _ in range(n.level - 1):
                    pkg = pkg.rsplit(".", 1)[0]
                base = f"{pkg}.{base}" if base else pkg
            for a in n.names:
                full = f"{base}.{a.name}"
                out.add(full if full in mods else base)
    return {m for m in out if m in mods and m != name}


def test_no_import_cycles():
    """No cycle among the package's modules, counting imports inside functions too (a lazy import
    is for an optional or heavy dependency, not for dodging a cycle)."""
    mods = _modules()
    graph = {m: _imports(p, m, mods) if p.suffix == ".py" else set() for m, p in mods.items()}
    state: dict[str, int] = {}  # 1: on the stack, 2: done
    cycles = []

    def visit(m: str, stack: list[str]) -> None:
        state[m] = 1
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                cycles.append(" -> ".join([*stack[stack.index(n) :], n]))
            elif n not in state:
                visit(n, [*stack, n])
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    assert cycles == []


def _fresh_python(code: str) -> subprocess.CompletedProcess[str]:
    env = os.environ.copy()
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(PACKAGE.parent), env.get("PYTHONPATH", "")) if p)
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False, env=env
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "--scheme", "cubic", "--trace", "const:96", "--duration", "5", "--no-packets"],
        ["run", "--scheme", "abc", "--trace", "const:24", "--duration", "2", "--json"],
        ["reproduce", "--list"],
    ],
)
def test_light_commands_do_not_import_pandas_or_matplotlib(argv):
    code = (
        "import io, json, sys, contextlib\n"
        "from accelbrake.cli import main\n"
        "out = io.StringIO()\n"
        f"with contextlib.redirect_stdout(out):\n    rc = main({argv!r})\n"
        f"print(json.dumps([rc, sorted(m for m in {HEAVY!r} if m in sys.modules)]))\n"
    )
    r = _fresh_python(code)
    assert r.returncode == 0, r.stderr
    rc, heavy = json.loads(r.stdout.strip().splitlines()[-1])
    assert rc == 0
    assert heavy == []


def test_import_accelbrake_and_simulate_are_light():
    r = _fresh_python(
        "import sys\nimport accelbrake\nheavy = ('numpy', *" + repr(HEAVY) + ")\n"
        "print(sorted(m for m in heavy if m in sys.modules))\n"
        "r = accelbrake.simulate(accelbrake.build_scenario('cubic', trace='const:24', duration_s=1))\n"
        "r.summary_rows(); r._repr_html_()\n"
        "print(sorted(m for m in heavy if m in sys.modules))"
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["[]", "[]"]


def test_run_with_out_writes_parquet_without_pandas_or_matplotlib(tmp_path):
    argv = [
        "run",
        "--scheme",
        "cubic",
        "--trace",
        "const:24",
        "--duration",
        "2",
        "--out",
        str(tmp_path / "o"),
    ]
    r = _fresh_python(
        f"import sys\nfrom accelbrake.cli import main\nrc = main({argv!r})\n"
        "print(rc, sorted(m for m in ('pandas', 'matplotlib') if m in sys.modules))"
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines()[-1] == "0 []"
    assert (tmp_path / "o" / "flows_ts.parquet").is_file()
    assert not (tmp_path / "o" / "flows_ts.csv").exists()


def test_building_the_parser_is_light():
    r = _fresh_python(
        "import sys\nfrom accelbrake.cli import build_parser\nbuild_parser().format_help()\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))"
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[]"


def test_plot_still_imports_matplotlib(tmp_path):
    """The lazy imports still happen when a command needs them."""
    png = tmp_path / "run.png"
    argv = ["run", "--scheme", "cubic", "--trace", "const:24", "--duration", "2", "--plot", str(png)]
    r = _fresh_python(
        f"import sys\nfrom accelbrake.cli import main\nrc = main({argv!r})\n"
        "print(rc, 'matplotlib' in sys.modules, 'pandas' in sys.modules)"
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines()[-1] == "0 True True"
    assert png.is_file()


def test_reproduction_catalog_matches_the_reproductions():
    from accelbrake.papers import PAPERS, TITLES, reproductions

    reps = reproductions()
    assert list(TITLES) == list(reps)
    assert {k: r.title for k, r in reps.items()} == TITLES
    for paper in PAPERS:
        assert list(paper.reproductions()) == list(paper.titles)
        assert all(r.paper == paper.citation for r in paper.reproductions().values())


def test_listing_the_papers_needs_no_pandas():
    r = _fresh_python(
        "import sys\nfrom accelbrake.papers import PAPERS, TITLES\n"
        "print(len(TITLES) > 0, sum(len(p.results) for p in PAPERS) > 0, 'pandas' in sys.modules)"
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().splitlines()[-1] == "True True False"


def test_old_public_names_still_importable():
    import accelbrake.cli as cli
    import accelbrake.scenarios as scenarios

    for name in scenarios.__all__:
        assert getattr(scenarios, name) is not None
    for name in ("main", "build_parser", "render_table", "format_run", "CliError"):
        assert callable(getattr(cli, name))
