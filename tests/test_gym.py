"""accelbrake.gym: Gymnasium's env checker for every preset, reproducible episodes, competing
flows of any scheme (incl. Python ones), vectorised stepping, and clear errors."""

from __future__ import annotations

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

import accelbrake  # noqa: E402
from accelbrake import gym as abgym  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402


@pytest.mark.parametrize("preset", list(abgym.PRESETS))
def test_check_env_passes(preset):
    env = gymnasium.make(abgym.ENV_IDS[preset], episode_s=2.0).unwrapped
    check_env(env)


def _episode(env, seed, actions):
    obs, _ = env.reset(seed=seed)
    out = [obs]
    rewards = []
    for a in actions:
        obs, r, term, trunc, info = env.step(np.array([a], dtype=np.float32))
        out.append(obs)
        rewards.append(r)
        if term or trunc:
            break
    return np.stack(out), np.array(rewards)


@pytest.mark.parametrize("preset", list(abgym.PRESETS))
def test_same_seed_same_episode(preset):
    kw = dict(
        trace="traces/Verizon-LTE-short.up",
        episode_s=3.0,
        competing=[("cubic", 1)],
        randomize={"delay_ms": (10, 60), "buffer_packets": (20, 200)},
    )
    rng = np.random.default_rng(0)
    actions = rng.uniform(-1, 1, size=80)
    a1 = _episode(abgym.CongestionEnv(preset, **kw), 7, actions)
    a2 = _episode(abgym.CongestionEnv(preset, **kw), 7, actions)
    b = _episode(abgym.CongestionEnv(preset, **kw), 8, actions)
    assert np.array_equal(a1[0], a2[0]) and np.array_equal(a1[1], a2[1])
    assert len(a1[1]) == 59  # 3 s of 50 ms MIs, the first one consumed by reset
    assert not np.array_equal(a1[1], b[1])  # another seed: another delay/buffer/trace offset


def test_rate_agent_controls_the_rate_and_episode_tables():
    env = abgym.CongestionEnv("aurora", trace="const:12", delay_ms=50, episode_s=2.0, initial_rate_mbps=4.0)
    env.reset(seed=0)
    infos = []
    for _ in range(39):
        _, _, _, trunc, info = env.step(np.array([0.0], dtype=np.float32))
        infos.append(info)
    assert trunc
    # a zero action keeps the rate: 4 Mbit/s sent, and (no loss at 1/3 of the link) delivered
    assert infos[-1]["pacing_mbps"] == pytest.approx(4.0)
    assert np.mean([i["send_mbps"] for i in infos[10:]]) == pytest.approx(4.0, rel=0.05)
    assert np.mean([i["throughput_mbps"] for i in infos[10:]]) == pytest.approx(4.0, rel=0.05)
    assert min(i["latency_ms"] for i in infos[10:]) >= 100.0
    res = env.result()
    assert list(res.flows_ts["flow"].unique()) == [0]
    assert res.summary["flows"][0]["throughput_mbps"] == pytest.approx(4.0, rel=0.1)


def test_orca_scales_cubic_and_python_competitor():
    from accelbrake.examples.newreno import PyNewReno

    accelbrake.register_controller("py-newreno", PyNewReno)
    try:
        env = abgym.CongestionEnv(
            "orca", trace="const:24", delay_ms=20, episode_s=2.0, competing=[("py-newreno", 2)]
        )
        env.reset(seed=3)
        for _ in range(10):
            _, _, _, _, info = env.step(np.array([0.5], dtype=np.float32))
        assert info["value"] == pytest.approx(2.0)  # 2^(2·0.5)
        r = env.result()
        assert len(r.summary["flows"]) == 3
        assert {f["scheme"] for f in r.summary["flows"]} == {"agent", "py-newreno"}
    finally:
        accelbrake.unregister_controller("py-newreno")


def test_vector_env_steps_all():
    venv = abgym.make_vec(3, preset="aurora", episode_s=1.0)
    obs, _ = venv.reset(seed=1)
    assert obs.shape == (3, 30)
    obs, r, term, trunc, _ = venv.step(np.zeros((3, 1), dtype=np.float32))
    assert r.shape == (3,) and obs.shape == (3, 30)
    venv.close()


def test_bad_arguments_name_the_parameter():
    with pytest.raises(accelbrake.ScenarioError, match="preset"):
        abgym.CongestionEnv("nope")
    with pytest.raises(accelbrake.ScenarioError, match="features: unknown 'x'"):
        abgym.CongestionEnv(features=["x"])
    with pytest.raises(accelbrake.ScenarioError, match="mi_ms"):
        abgym.CongestionEnv(mi_ms=0)
    with pytest.raises(accelbrake.ScenarioError, match="randomize: unknown key"):
        abgym.CongestionEnv(randomize={"rtt": (1, 2)})
    with pytest.raises(accelbrake.ScenarioError, match="delay_ms"):
        abgym.CongestionEnv(delay_ms=-5)
    env = abgym.CongestionEnv(episode_s=0.1)
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.step(np.zeros(1, dtype=np.float32))


def test_examples_rule_agent_beats_random_agent(repo):
    import importlib.util

    def load(name):
        spec = importlib.util.spec_from_file_location(name, repo / "examples" / "gym" / f"{name}.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod

    rule = load("rule_agent").main(["--seconds", "4"])
    rand = load("random_agent").main(["--seconds", "4"])
    assert rule > rand


def test_gymnasium_is_imported_only_by_accelbrake_gym():
    import subprocess
    import sys

    code = (
        "import sys, accelbrake, accelbrake.controllers, accelbrake.scenarios, accelbrake.cli;"
        "accelbrake.simulate(accelbrake.build_scenario('cubic', trace='const:12', duration_s=0.5));"
        "assert 'gymnasium' not in sys.modules, 'gymnasium imported'"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr


def test_rate_stays_within_bounds():
    env = abgym.CongestionEnv("aurora", episode_s=1.0, initial_rate_mbps=2.0, rate_bounds_mbps=(1.0, 3.0))
    env.reset(seed=0)
    for a in [1.0] * 8 + [-1.0] * 10:
        _, _, _, _, info = env.step(np.array([a], dtype=np.float32))
        assert 1.0 - 1e-9 <= info["pacing_mbps"] <= 3.0 + 1e-9
    assert info["pacing_mbps"] == pytest.approx(1.0)
    with pytest.raises(accelbrake.ScenarioError, match="rate_bounds_mbps"):
        abgym.CongestionEnv(rate_bounds_mbps=(5.0, 10.0))  # initial rate 1 Mbit/s outside


def test_orca_reward_paper_and_code_forms_by_hand():
    """Orca's reward on hand-worked MIs: ζ = 5 and β = 1.25 as in the released code
    (rl-module/params.json ``delay_margin_coef``); the paper's form drops the delay factor to
    d_min/d above β·d_min, the code's to β·d_min/d (continuous)."""
    from types import SimpleNamespace

    from accelbrake.gym import MSS, MonitorInterval, orca_reward

    def mi(acked, lost, latency):
        raw = {
            "start": 0.0,
            "end": 0.1,
            "sent": acked + lost,
            "acked": acked,
            "lost": lost,
            "rtt_count": 1,
            "rtt_sum": latency,
            "min_rtt": latency,
            "rtt_first": latency,
            "rtt_last": latency,
        }
        return MonitorInterval(raw, 1.0, 10.0, None)

    def env(**params):
        return SimpleNamespace(
            reward_params=params, _min_latency=0.1, _max_throughput=200 * MSS / 0.1, _last_latency=0.1
        )

    # 100 segments acked, 2 lost in 0.1 s: (thr − 5·loss)/thr_max = (100 − 10)/200 = 0.45.
    assert orca_reward(mi(100, 2, 0.12), env()) == pytest.approx(0.45)  # d ≤ β·d_min: factor 1
    assert orca_reward(mi(100, 2, 0.12), env(form="code")) == pytest.approx(0.45)
    assert orca_reward(mi(100, 2, 0.2), env()) == pytest.approx(0.45 * 0.1 / 0.2)
    assert orca_reward(mi(100, 2, 0.2), env(form="code")) == pytest.approx(0.45 * 0.125 / 0.2)
    assert orca_reward(mi(100, 2, 0.2), env(zeta=0.0, beta=2.5)) == pytest.approx(0.5)


def test_reward_params_are_checked():
    with pytest.raises(accelbrake.ScenarioError, match="'zetta' is not a constant of the orca reward"):
        abgym.CongestionEnv("orca", reward_params={"zetta": 5})
    with pytest.raises(accelbrake.ScenarioError, match="reward_params.form: expected one of paper, code"):
        abgym.CongestionEnv("orca", reward_params={"form": "kernel"})
    with pytest.raises(
        accelbrake.ScenarioError, match=r"reward_params.beta: expected a number in \[1, inf\]"
    ):
        abgym.CongestionEnv("orca", reward_params={"beta": 0.5})
    with pytest.raises(accelbrake.ScenarioError, match="takes: none"):
        abgym.CongestionEnv("aurora", reward_params={"zeta": 5})
    abgym.CongestionEnv("orca", reward_params={"zeta": 4, "beta": 1.5, "form": "code"})


def test_gym_speed_script_counts_the_packets_it_times():
    """scripts/gym_speed.py's measurement of ours (also the side-by-side run with PCC-RL):
    with the zero action the rate stays at 6 Mbit/s, so each 50 ms MI sends 6e6 / 8 · 0.05 /
    1500 = 25 packets; bounded random actions never send more than 12 Mbit/s allows (50 a MI)."""
    import argparse
    import importlib.util
    import pathlib

    path = pathlib.Path(__file__).parent.parent / "scripts" / "gym_speed.py"
    spec = importlib.util.spec_from_file_location("gym_speed", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    a = argparse.Namespace(preset="aurora", steps=60, vec=2, competing="")
    rate, pkts = mod.ours_single(a, "zero")
    assert rate > 0
    assert pkts == pytest.approx(25.0, abs=0.5)
    _, pkts = mod.ours_single(a, mod.BOUNDED)
    assert 0 < pkts <= 51
    assert mod.ours_vec(a, "zero") > 0
