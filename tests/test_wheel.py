"""The wheel works anywhere: installed into a fresh venv with no Rust on PATH, run from an empty
directory, it finds its bundled traces and runs a reproduction.

The wheel is built by ``make wheel`` (maturin with zig, manylinux) into ``dist/``; a wheel there that
is newer than every source file is reused, so ``make test`` builds it once per change. Set
``ACCELBRAKE_WHEEL=path/to.whl`` to test a given wheel instead.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import REPO

DIST = REPO / "dist"
SOURCES = ("crates", "python", "Cargo.toml", "Cargo.lock", "pyproject.toml")


def _newest_source() -> float:
    newest = 0.0
    for name in SOURCES:
        p = REPO / name
        files = [p] if p.is_file() else (f for f in p.rglob("*") if f.is_file())
        for f in files:
            if "__pycache__" in f.parts or f.suffix in (".so", ".pyc"):
                continue
            newest = max(newest, f.stat().st_mtime)
    return newest


def _wheel() -> Path:
    given = os.environ.get("ACCELBRAKE_WHEEL")
    if given:
        return Path(given)
    wheels = sorted(DIST.glob("accelbrake-*.whl"), key=lambda p: p.stat().st_mtime)
    if wheels and wheels[-1].stat().st_mtime >= _newest_source():
        return wheels[-1]
    if shutil.which("make") is None:
        pytest.skip("no wheel in dist/ and no make to build one (run: make wheel)")
    r = subprocess.run(["make", "wheel"], cwd=REPO, capture_output=True, text=True, check=False)
    assert r.returncode == 0, f"make wheel failed:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    wheels = sorted(DIST.glob("accelbrake-*.whl"), key=lambda p: p.stat().st_mtime)
    assert wheels, "make wheel wrote no wheel to dist/"
    return wheels[-1]


@pytest.fixture(scope="module")
def wheel() -> Path:
    return _wheel()


def test_the_wheel_is_manylinux_abi3_and_carries_the_traces(wheel):
    assert "manylinux" in wheel.name and "abi3" in wheel.name, wheel.name
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "accelbrake/traces/Verizon-LTE-short.up" in names
    assert "accelbrake/traces/c2tcp-nyc/downlink-4g-with-cross-times" in names
    assert any(n.startswith("accelbrake/_core") and n.endswith(".so") for n in names)
    # The README's example files, and the emulator, installed beside the `accelbrake` command.
    assert "accelbrake/examples/two-bottlenecks.json" in names
    assert "accelbrake/examples/abc-vs-cubic.toml" in names
    emu = [n for n in names if n.endswith(".data/scripts/accelbrake-emu")]
    assert emu, "the wheel has no accelbrake-emu"
    assert (zipfile.ZipFile(wheel).getinfo(emu[0]).external_attr >> 16) & 0o111


def _can_emulate() -> str | None:
    """Why the emulator cannot run here (it needs root and network namespaces), or None."""
    if os.geteuid() != 0:
        return "the emulator needs root"
    if shutil.which("ip") is None:
        return "no `ip` (iproute2)"
    return None


def test_the_wheels_emulator_takes_runs_options(installed, tmp_path):
    """`pip install` gives the real-network mode: `emulate` with `run`'s queue keys and trace spec."""
    bindir, env = installed
    assert (bindir / "accelbrake-emu").is_file()
    why = _can_emulate()
    if why:
        pytest.skip(why)
    r = subprocess.run(
        [str(bindir / "accelbrake"), "emulate", "--scheme", "cubic",
         "--queue", "codel target=50,interval=100", "--trace", "const:12",
         "--delay", "10", "--duration", "2", "--json"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    if r.returncode == 3:
        pytest.skip(f"the emulator cannot run here: {r.stderr.strip()[-300:]}")
    assert r.returncode == 0, r.stderr[-3000:]
    import json

    s = json.loads(r.stdout)
    assert (
        s["queue"] == "codel" and "target_ms=50" in s["queue_args"] and "interval_ms=100" in s["queue_args"]
    )
    assert s["throughput_mbps"] > 1.0


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory):
    """The wheel installed into a fresh venv: ``(bin dir, environment without Rust or the repo)``."""
    tmp_path = tmp_path_factory.mktemp("wheel")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    bindir = venv / "bin"
    # pip may use its cache and the index; what matters is that nothing is compiled.
    r = subprocess.run(
        [str(bindir / "python"), "-m", "pip", "install", "-q", "--only-binary", ":all:", str(wheel)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CARGO", "RUSTUP", "VIRTUAL_ENV"))}
    env.pop("PYTHONPATH", None)
    env.pop("ACCELBRAKE_EMU", None)
    env["PATH"] = str(bindir) + os.pathsep + "/usr/sbin:/usr/bin:/sbin:/bin"
    env["MPLBACKEND"] = "Agg"
    return bindir, env


def test_the_wheel_runs_a_reproduction_from_an_empty_directory_without_rust(installed, tmp_path):
    bindir, env = installed
    venv = bindir.parent
    assert shutil.which("cargo", path=env["PATH"]) is None and shutil.which("rustc", path=env["PATH"]) is None
    empty = tmp_path / "empty"
    empty.mkdir()

    def accelbrake(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(bindir / "accelbrake"), *argv],
            cwd=empty,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )

    where = subprocess.run(
        [str(bindir / "python"), "-c", "import accelbrake, sys; print(accelbrake.__file__)"],
        cwd=empty,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert where.returncode == 0, where.stderr
    assert str(venv) in where.stdout, f"imported accelbrake from outside the venv: {where.stdout}"

    tr = accelbrake("traces")
    assert tr.returncode == 0, tr.stderr
    assert "Verizon-LTE-short.up" in tr.stdout and "downlink-4g-with-cross-times" in tr.stdout
    assert "README" not in tr.stdout and "SHA256SUMS" not in tr.stdout

    run = accelbrake("run", "--scheme", "cubic", "--trace", "Verizon-LTE-short.up", "--duration", "5")
    assert run.returncode == 0, run.stderr
    assert "Verizon-LTE-short.up" in run.stdout

    rep = accelbrake("reproduce", "abc-table", "--quick", "--out", "out", "--no-progress")
    assert rep.returncode == 0, rep.stdout[-2000:] + rep.stderr[-3000:]
    done = empty / "out" / "abc-table-quick"
    assert (done / "report.html").is_file() and (done / "results.parquet").is_file()


def _readme_commands() -> list[list[str]]:
    """The ``accelbrake ...`` command lines of README.md's code blocks (comments dropped, ``\\``
    continuations joined), as argument lists."""
    import shlex

    out, block, pending = [], False, ""
    for line in (REPO / "README.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            block = not block
            continue
        if not block:
            continue
        text = pending + line.strip()
        if text.endswith("\\"):
            pending = text[:-1] + " "
            continue
        pending = ""
        if text.startswith("accelbrake "):
            out.append(shlex.split(text, comments=True)[1:])
    return out


def _shortened(argv: list[str]) -> list[str] | None:
    """A README command as the test runs it: the same options, with runs shortened to 2 simulated
    seconds and sweeps checked (``--check``: every file, trace and scenario) rather than run;
    ``None`` for the long ones that the test only checks are known (reproductions, ``abe-sweep``)."""
    cmd = argv[0]
    if cmd in ("run", "compare") and "--help" not in argv:
        if "--duration" in argv:
            i = argv.index("--duration")
            argv = argv[:i] + argv[i + 2 :]
        return [*argv, "--duration", "2"]
    if cmd == "sweep" and "--check" not in argv:
        return [*argv, "--check"]
    if cmd in ("reproduce", "abe-sweep") and "--list" not in argv:
        return None
    return argv


def test_every_readme_command_works_from_an_empty_directory(installed, tmp_path):
    """What the README shows works with nothing but the wheel installed, from an empty directory:
    its example files and experiment file are bundled, trace names and globs find the bundled
    traces. Runs are shortened to 2 s, sweeps checked; reproductions and ``abe-sweep`` (minutes
    each; ``reproduce abc-table --quick`` runs above) must name known ids and options; ``shell``
    and ``emulate`` run where the emulator can (root, network namespaces)."""
    bindir, env = installed
    commands = _readme_commands()
    assert len(commands) >= 4, commands  # the README shows at least these: run, compare, reproduce, params
    empty = tmp_path / "empty"
    empty.mkdir()

    def accelbrake(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(bindir / "accelbrake"), *argv], cwd=empty, env=env, capture_output=True, text=True,
            timeout=600, check=False,
        )  # fmt: skip

    known = accelbrake("reproduce", "--list").stdout
    failures = []
    for argv in commands:
        if argv[0] in ("shell", "emulate"):
            if _can_emulate() or any(shutil.which(a) is None for a in ("iperf3",) if a in argv):
                continue
            if argv[0] == "emulate":
                argv = [*argv, "--duration", "2"]
        if argv[0] == "report":
            # Its folder is what the README's sweep line before it writes: run that sweep, shortened.
            r = accelbrake("sweep", "experiments/abc-vs-cubic.toml", "--set", "run.duration_s=2",
                           "--set", "matrix.seeds=1", "--no-report", "--no-progress")  # fmt: skip
            assert r.returncode == 0, r.stderr[-2000:]
        run = _shortened(argv)
        if run is None:
            ids = [a for a in argv[1:] if not a.startswith("-")]
            if argv[0] == "reproduce":
                missing = [i for i in ids if i != "all" and i not in known]
                if missing:
                    failures.append((argv, f"unknown reproductions {missing}"))
            continue
        r = accelbrake(*run)
        if r.returncode != 0 or "Traceback" in r.stderr:
            failures.append((run, r.stderr[-1500:]))
    assert not failures, "\n\n".join(f"accelbrake {' '.join(a)}:\n{e}" for a, e in failures)
