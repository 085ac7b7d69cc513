"""The registry is the one source of truth: every scheme and parameter the core declares is
runnable, reachable with --set (unit and range enforced), listed in --help and docs/parameters.md,
and drawn with a label — with no Python edit per scheme. Scenario files follow the published schema."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import accelbrake
import jsonschema
import pytest
from accelbrake import _core, catalog
from accelbrake.cli import build_parser
from accelbrake.experiments import figures as F
from accelbrake.scenarios import SCHEMES, ScenarioError, build_scenario, load_scenario_file
from accelbrake.setkeys import SET_KEYS

ROOT = Path(__file__).resolve().parents[1]
SCHEME_NAMES = [s.name for s in catalog.schemes()]


def _valid_value(p: catalog.Param):
    """A valid value for a parameter other than its default where possible, as a --set string."""
    if p.kind == "flag":
        return "false" if p.default else "true"
    if p.kind == "choice":
        return p.choices[-1]
    v = p.default if p.default is not None else (p.min if not p.min_open else p.min + 1)
    if p.kind == "whole":
        return str(int(v))
    return repr(float(v))


def _out_of_range(p: catalog.Param) -> str | None:
    if p.kind in ("flag", "choice") or p.max is None:
        return None
    if p.max < 1e12:
        return repr(p.max * 2 + 1)
    return repr(p.min - 1) if p.min > -1e12 else None


def test_catalog_matches_the_core_scheme_list():
    assert SCHEME_NAMES == _core.schemes()
    assert {q.name for q in catalog.queues()} >= {"droptail", "infinite", "abc", "codel", "pie"}


@pytest.mark.parametrize("name", SCHEME_NAMES)
def test_every_scheme_runs_by_name_and_is_labelled_and_listed(name):
    sc = build_scenario(name, trace="const:12", duration_s=2, record_packets=False)
    r = accelbrake.simulate(sc)
    assert r.summary["utilization"] > 0.02, name  # it delivers (LEDBAT starts at 2 segments)
    # Drawn with its own label and a colour.
    assert F.display_name(name) == catalog.scheme(name).display
    colour, marker = F.scheme_style([name])[name]
    assert colour.startswith("#") and marker
    # Listed in the top-level help, `run --help` and docs/parameters.md.
    assert name in build_parser().format_help()
    assert f"`{name}`" in (ROOT / "docs" / "parameters.md").read_text(encoding="utf-8")
    assert name in SCHEMES


def _every_param():
    for q in catalog.queues():
        for p in q.params:
            yield q.name, "queue", p
    seen = set()
    for s in catalog.schemes():
        if s.family in seen:
            continue
        seen.add(s.family)
        for p in s.params:
            yield s.family, "scheme", p


PARAMS = list(_every_param())


def test_every_parameter_has_a_set_key():
    missing = [f"{owner}.{p.key}" for owner, _, p in PARAMS if f"{owner}.{p.key}" not in SET_KEYS]
    assert not missing
    assert len(PARAMS) > 100


def _scheme_for(owner: str, kind: str) -> tuple[str, str | None]:
    """A preset and --queue that exercise a parameter of `owner`."""
    if kind == "queue":
        if owner == "droptail":
            return "cubic", "droptail packets=100"
        return "cubic", owner
    return next(s.name for s in catalog.schemes() if s.family == owner), None


@pytest.mark.parametrize(("owner", "kind", "p"), PARAMS, ids=[f"{o}.{p.key}" for o, _, p in PARAMS])
def test_every_parameter_is_reachable_with_set_and_checked(owner, kind, p):
    scheme, queue = _scheme_for(owner, kind)
    if kind == "queue" and owner == "infinite":
        pytest.skip("no parameters")
    key = f"{owner}.{p.key}"
    if kind == "queue" and p.name == "packets" and owner != "droptail":
        queue = owner
    if kind == "queue" and p.name == "bytes":
        queue = f"{owner} bytes=150000" if owner != "droptail" else "droptail bytes=150000"
    value = _valid_value(p)
    if kind == "scheme" and p.name == "min_window" and owner == "abc":
        value = "6"
    sc = build_scenario(scheme, trace="const:12", duration_s=1, queue=queue, sets=[f"{key}={value}"])
    if kind == "queue":
        target = sc["hops"][0]["queue"]
    else:
        target = sc["flows"][0]["params"]
    assert p.name in target, (key, target)
    got = target[p.name]
    if p.kind == "flag":
        assert bool(got) == (value == "true")
    elif p.kind == "choice":
        assert got == value
    else:
        assert math.isclose(float(got), float(value)), (key, got, value)
    # Out of range: refused, naming the user's key and the valid range.
    bad = _out_of_range(p)
    if bad is not None:
        with pytest.raises(ScenarioError) as e:
            build_scenario(scheme, trace="const:12", duration_s=1, queue=queue, sets=[f"{key}={bad}"])
        assert f"--set {key}={bad}" in str(e.value) and "expected" in str(e.value)
    # Units are enforced: a time takes time units (and converts), nothing takes a rate unit.
    if p.unit in ("ms", "s") and p.default:
        sc = build_scenario(
            scheme,
            trace="const:12",
            duration_s=1,
            queue=queue,
            sets=[f"{key}={p.default * 1000}us"] if p.unit == "ms" else [f"{key}={p.default * 1000}ms"],
        )
        target = sc["hops"][0]["queue"] if kind == "queue" else sc["flows"][0]["params"]
        assert math.isclose(target[p.name], p.default)
        with pytest.raises(ScenarioError, match="unit"):
            build_scenario(scheme, trace="const:12", duration_s=1, queue=queue, sets=[f"{key}=5mbps"])
    # Listed in `run --help` (family and queue keys) and in docs/parameters.md.
    assert f"`{key}`" in (ROOT / "docs" / "parameters.md").read_text(encoding="utf-8")


def test_run_help_lists_every_listed_set_key():
    out = subprocess.run(
        [sys.executable, "-m", "accelbrake", "run", "--help"], capture_output=True, text=True, check=True
    ).stdout
    for key, spec in SET_KEYS.items():
        if spec.listed:
            assert key in out, key


def test_parameters_doc_is_generated_from_the_catalog():
    doc = (ROOT / "docs" / "parameters.md").read_text(encoding="utf-8")
    assert doc == catalog.parameters_markdown(), "run: accelbrake params --markdown > docs/parameters.md"


def test_network_defaults_are_defined_once_in_the_core():
    net = catalog.network()
    assert (net["delay_ms"].default, net["buffer_packets"].default) == (50.0, 250.0)
    sc = build_scenario("abc")
    assert sc["hops"][0]["delay_ms"] == net["delay_ms"].default
    assert sc["hops"][0]["queue"]["packets"] == net["buffer_packets"].default
    assert sc["duration_ms"] == net["duration_s"].default * 1000
    assert sc["hops"][1]["link"] == {"type": "constant", "mbps": net["ack_mbps"].default}
    # The ABC router's own default limit is the same fact.
    assert catalog.queue("abc").param("packets").default == net["buffer_packets"].default


EXAMPLES = sorted((ROOT / "examples").glob("*.json")) + sorted((ROOT / "examples").glob("*.toml"))


def test_schema_command_prints_the_core_schema():
    out = subprocess.run(
        [sys.executable, "-m", "accelbrake", "schema"], capture_output=True, text=True, check=True
    ).stdout
    schema = json.loads(out)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert set(schema["$defs"]) >= {"HopSpec", "FlowSpec", "LinkSpec", "QueueSpec", "AppSpec"}


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.name for p in EXAMPLES])
def test_examples_follow_the_schema_and_run(path):
    schema = json.loads(_core.schema())
    sc = load_scenario_file(path)
    jsonschema.validate(sc, schema)
    r = accelbrake.simulate(sc)
    assert r.summary["utilization"] > 0.2


def test_schema_rejects_what_the_core_rejects():
    schema = json.loads(_core.schema())
    sc = load_scenario_file(ROOT / "examples" / "mixed-schemes.json")
    bad = json.loads(json.dumps(sc))
    bad["flows"][1]["params"] = {"cwnd_gian": 2.0}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)
    with pytest.raises(accelbrake.SimulationError) as e:
        accelbrake.simulate(bad)
    assert e.value.key == "flows[1].params.cwnd_gian" and "did you mean 'cwnd_gain'" in str(e.value)
    bad = json.loads(json.dumps(sc))
    bad["hops"][0]["queue"]["eta"] = 0.9
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)


def _lab(colour: str) -> tuple[float, float, float]:
    """CIE L*a*b* (D65) of an sRGB colour, for the perceptual distance ΔE*76."""
    from matplotlib.colors import to_rgb

    def lin(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (lin(c) for c in to_rgb(colour))
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116

    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def test_every_scheme_and_pairing_has_a_colour_of_its_own():
    """Bar charts and CDFs tell schemes apart by colour: no two registry schemes (nor the plotted
    scheme+AQM pairings) share one, and no two are closer than ΔE*76 = 10 (a difference seen at a
    glance; 2.3 is the just-noticeable one)."""
    import itertools
    import math

    from accelbrake import catalog
    from accelbrake.experiments.figures import _PAIR_STYLES

    colours = {s.name: s.color.lower() for s in catalog.schemes()}
    colours.update({name: st[0].lower() for name, st in _PAIR_STYLES.items()})
    by_colour: dict[str, list[str]] = {}
    for name, c in colours.items():
        by_colour.setdefault(c, []).append(name)
    assert not {c: n for c, n in by_colour.items() if len(n) > 1}
    for (a, ca), (b, cb) in itertools.combinations(colours.items(), 2):
        assert math.dist(_lab(ca), _lab(cb)) >= 10, (a, ca, b, cb)
