"""The emulator's recorded measurements behind docs/emulation.md (docs/data/emulation/*.json).

Emulated runs are real time and cannot be repeated exactly, so these tests do not re-run them.
They check that the records still describe commands the code has: each recorded ``accelbrake``
command parses with the CLI's own parser (an option removed or renamed fails here), each script
command names options its script still has, each file records exactly the runs and commands that
``accelbrake.papers.emulation_docs.EMU_RUNS`` asks for, with the machine it ran on, and the
recorded figures obey the invariants of the setup. The simulator's side and the rendered tables
are checked by tests/test_docs_results.py (dataset ``emulation-sim``, regions ``emu-*``).
"""

from __future__ import annotations

import shlex
import subprocess
import sys

import pytest
from accelbrake.papers import docs as D
from accelbrake.papers import emulation_docs as E

SETS = [*E.EMU_RUNS, "link-accuracy"]
ONE_WAY_MS = 50  # every comparison setup: 50 ms each way


def _records():
    for name in SETS:
        for rid, rec in E.read_emu(name)["runs"].items():
            yield name, rid, rec


def _script_options(script: str) -> set[str]:
    """The options a script's parser accepts, from its --help (which exits before anything runs)."""
    r = subprocess.run([sys.executable, str(E.ROOT / script), "--help"], capture_output=True, text=True)
    assert r.returncode == 0, f"{script} --help: {r.stderr}"
    return {w.strip("[],") for w in r.stdout.split() if w.strip("[],").startswith("--")}


@pytest.mark.parametrize("name", SETS)
def test_every_recorded_command_still_parses(name):
    for rid, rec in E.read_emu(name)["runs"].items():
        argv = shlex.split(rec["command"])
        if argv[0] == "accelbrake":
            try:
                args = E.parse(shlex.join(argv[1:]))
            except SystemExit as e:
                where = f"{E.EMU_DIR}/{name}.json {rid}"
                pytest.fail(f"{where}: `{rec['command']}` no longer parses (status {e})")
            assert args.command == "emulate", f"{name} {rid}: not an emulate command"
            assert args.json, f"{name} {rid}: the figures are read from --json"
        else:
            have = _script_options(argv[0])
            missing = {a for a in argv[1:] if a.startswith("--")} - have
            assert not missing, f"{name} {rid}: `{rec['command']}`: {argv[0]} has no {sorted(missing)}"


def test_the_parser_check_catches_an_option_that_does_not_exist():
    with pytest.raises(SystemExit):
        E.parse("emulate --scheme cubic --no-such-option 1 --json")


@pytest.mark.parametrize("name", SETS)
def test_each_file_records_the_runs_the_page_asks_for(name):
    data = E.read_emu(name)
    meta = data["meta"]
    for key in ("machine_class", "cpus", "kernel", "conditions", "script"):
        assert meta.get(key), f"{E.EMU_DIR}/{name}.json: meta has no {key}"
    want = (
        {rid: (cmd, None) for rid, cmd in E.ACCURACY_COMMANDS.items()}
        if name == "link-accuracy"
        else {rid: (f"accelbrake {cmd}", n) for rid, (cmd, n) in E.EMU_RUNS[name].items()}
    )
    assert set(data["runs"]) == set(want), f"{name}: runs {sorted(set(data['runs']) ^ set(want))} differ"
    for rid, rec in data["runs"].items():
        cmd, _ = want[rid]
        assert rec["command"] == cmd, f"{name} {rid}: recorded `{rec['command']}`, the page now runs `{cmd}`"
        assert rec["repeats"] == len(rec["values"]) >= 1, f"{name} {rid}: repeats and values disagree"


def test_recorded_figures_obey_the_setup():
    """Utilisation is a fraction of the link's capacity; a data packet's per-packet delay is at least
    the two propagation delays; the flows of a run share at most its capacity; Jain's index of n
    flows lies in [1/n, 1]."""
    for name, rid, rec in _records():
        if name == "link-accuracy":
            for v in rec["values"]:
                for t in v["traces"]:
                    assert 0 <= t["worst_bin_error"] <= 1 and t["received"] <= t["delivered"], (name, rid)
                    assert t["timing_p50_us"] <= t["timing_p99_us"] <= t["timing_max_us"], (name, rid)
            continue
        for v in rec["values"]:
            if "utilization" in v:
                assert 0 < v["utilization"] <= 1.0, (name, rid, v)
            if "p95_ms" in v:
                assert v["p95_ms"] >= 2 * ONE_WAY_MS, (name, rid, v)
            if "jain_index" in v:
                assert 0.5 <= v["jain_index"] <= 1.0, (name, rid, v)  # two flows
            if "flow0_mbps" in v:
                assert v["flow0_mbps"] + v["flow1_mbps"] <= 24.1, (name, rid, v)  # the 24 Mbit/s dumbbell


def test_simulator_and_emulator_runs_describe_the_same_setups():
    """Each `run` of a comparison has the link, ACK link, delay and duration of its `emulate`."""
    kernel = E.KERNEL_NAME.items()
    pairs = [(f"kernel/{s}/{cc}", "kernel-tcp", f"{s}/{k}") for s in E.SETUPS for cc, k in kernel]
    pairs += [(f"abc/{rid}", "abc-ebpf", rid) for rid in E.EMU_RUNS["abc-ebpf"]]
    pairs += [(f"user/{rid}", "user-space", rid) for rid in E.EMU_RUNS["user-space"]]
    pairs += [(f"flows/{sc}", "flows", sc) for sc in E.FLOW_SCHEMES]
    for sid, name, eid in pairs:
        r = E.parse(E.SIM_RUNS[sid])
        e = E.parse(E.EMU_RUNS[name][eid][0])
        for key in ("trace", "ack_trace", "delay", "duration", "flows"):
            assert getattr(r, key) == getattr(e, key), f"{sid} vs {name}/{eid}: {key}"


def test_the_simulator_dataset_holds_every_run_the_page_names():
    ds = D.DATASETS["emulation-sim"]
    assert set(D.read_data(ds)["run"]) == set(E.SIM_RUNS), "run `make results`"


def test_the_pages_linux_options_are_the_comparison_scripts():
    """The `run --linux` rows of the page are what `scripts/emu_vs_sim.py --linux` runs."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("emu_vs_sim", E.ROOT / "scripts/emu_vs_sim.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    page = {cc: shlex.split(opts)[1::2] for cc, opts in E.LINUX.items()}
    assert page == mod.LINUX
