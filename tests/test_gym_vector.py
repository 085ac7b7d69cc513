"""accelbrake.gym_vector: gymnasium.make_vec(..., vectorization_mode="vector_entry_point") for every
preset; the same episodes as N single environments; determinism per seed (and across thread
counts); Gymnasium's autoreset modes; clear errors."""

from __future__ import annotations

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

from accelbrake import gym as abgym  # noqa: E402
from accelbrake.errors import ScenarioError  # noqa: E402
from accelbrake.gym_vector import INFO_KEYS, CongestionVectorEnv  # noqa: E402

KW = {
    "aurora": dict(trace="const:12", delay_ms=20, episode_s=1.0, initial_rate_mbps=4.0),
    "orca": dict(trace="const:12", delay_ms=20, episode_s=1.0, competing=[("cubic", 1)]),
}


def _make(preset, n, **kw):
    return gymnasium.make_vec(
        abgym.ENV_IDS[preset], num_envs=n, vectorization_mode="vector_entry_point", **{**KW[preset], **kw}
    )


def _actions(n, steps, seed=0):
    return np.random.default_rng(seed).uniform(-1, 1, size=(steps, n, 1)).astype(np.float32)


@pytest.mark.parametrize("preset", list(abgym.PRESETS))
def test_make_vec_gives_the_batch_env_with_batched_spaces(preset):
    env = _make(preset, 3)
    assert isinstance(env, CongestionVectorEnv)
    single = abgym.CongestionEnv(preset, **KW[preset])
    assert env.single_observation_space == single.observation_space
    assert env.observation_space.shape == (3, *single.observation_space.shape)
    assert env.action_space.shape == (3, 1)
    obs, info = env.reset(seed=1)
    assert obs.shape == (3, single.observation_space.shape[0]) and obs.dtype == np.float32
    assert set(INFO_KEYS) <= set(info)
    obs, rew, term, trunc, info = env.step(env.action_space.sample())
    assert obs.shape == (3, single.observation_space.shape[0])
    assert rew.shape == term.shape == trunc.shape == (3,)
    assert env.observation_space.contains(obs)
    env.close()


@pytest.mark.parametrize("preset", list(abgym.PRESETS))
@pytest.mark.parametrize(
    "extra",
    [
        {},
        {
            "randomize": {"delay_ms": (10, 60), "buffer_packets": (20, 200)},
            "trace": "traces/Verizon-LTE-short.up",
        },
    ],
    ids=["fixed", "randomized-trace"],
)
def test_equals_n_single_envs_across_episodes(preset, extra):
    """Same observations and rewards as N CongestionEnv in SyncVectorEnv (same seeds, actions),
    through two episodes and the autoreset between them."""
    n, steps = 3, 45  # 1 s episodes of 50 ms MIs: 19 steps each, so two autoresets per env
    kw = {**KW[preset], **extra}
    vec = _make(preset, n, **extra)
    ref = gymnasium.vector.SyncVectorEnv([lambda: abgym.CongestionEnv(preset, **kw) for _ in range(n)])
    o1, _ = vec.reset(seed=11)
    o2, _ = ref.reset(seed=11)
    np.testing.assert_array_equal(o1, o2)
    ends = 0
    for a in _actions(n, steps):
        o1, r1, te1, tr1, _ = vec.step(a)
        o2, r2, te2, tr2, _ = ref.step(a)
        np.testing.assert_array_equal(o1, o2)
        np.testing.assert_array_equal(r1, r2)
        np.testing.assert_array_equal(tr1, tr2)
        np.testing.assert_array_equal(te1, te2)
        ends += int(tr1.sum())
    assert ends == 2 * n
    vec.close()
    ref.close()


def _rollout(env, seed, actions):
    obs, _ = env.reset(seed=seed)
    out, rews = [obs], []
    for a in actions:
        obs, r, _, _, _ = env.step(a)
        out.append(obs)
        rews.append(r)
    return np.stack(out), np.stack(rews)


@pytest.mark.parametrize("preset", list(abgym.PRESETS))
def test_deterministic_per_seed_and_independent_of_threads(preset):
    acts = _actions(4, 30, seed=3)
    a = _rollout(_make(preset, 4), 5, acts)
    b = _rollout(_make(preset, 4, threads=2), 5, acts)
    c = _rollout(_make(preset, 4), 6, acts)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert not np.array_equal(a[1], c[1])


def test_per_env_seeds_a_list_and_an_int_agree():
    acts = _actions(3, 10)
    a = _rollout(_make("aurora", 3, trace="traces/Verizon-LTE-short.up"), 20, acts)
    b = _rollout(_make("aurora", 3, trace="traces/Verizon-LTE-short.up"), [20, 21, 22], acts)
    np.testing.assert_array_equal(a[1], b[1])
    # Environments with different seeds run different episodes (trace offsets differ).
    assert not np.array_equal(a[1][:, 0], a[1][:, 1])


def test_next_step_autoreset_ignores_the_action_and_returns_the_first_observation():
    env = _make("aurora", 2, episode_s=0.5)  # 10 MIs: reset consumes one, 9 steps
    env.reset(seed=4)
    for _ in range(8):
        _, _, _, trunc, _ = env.step(np.zeros((2, 1)))
        assert not trunc.any()
    _, _, _, trunc, info = env.step(np.zeros((2, 1)))
    assert trunc.all()
    assert np.allclose(info["time_s"], 0.5)
    obs, rew, term, trunc, info = env.step(np.ones((2, 1)))  # the reset step: action ignored
    assert not trunc.any() and not term.any()
    np.testing.assert_array_equal(rew, 0.0)
    np.testing.assert_allclose(info["time_s"], 0.05)
    # The new episode's first observation is that of a fresh reset with the same generator state.
    single = abgym.CongestionEnv("aurora", **{**KW["aurora"], "episode_s": 0.5})
    single.reset(seed=4)
    for _ in range(9):
        single.step(np.zeros(1))
    first, _ = single.reset()
    np.testing.assert_array_equal(obs[0], first)


def test_same_step_autoreset_reports_the_final_observation():
    nxt = _make("aurora", 2, episode_s=0.5)
    same = _make("aurora", 2, episode_s=0.5, autoreset_mode="same_step")
    nxt.reset(seed=9)
    same.reset(seed=9)
    for _ in range(9):
        o_n, r_n, _, tr_n, _ = nxt.step(np.full((2, 1), 0.3))
        o_s, r_s, _, tr_s, info = same.step(np.full((2, 1), 0.3))
        np.testing.assert_array_equal(r_n, r_s)
    assert tr_s.all()
    np.testing.assert_array_equal(np.stack(info["final_obs"]), o_n)
    assert info["_final_obs"].all()
    o_n, _, _, _, _ = nxt.step(np.zeros((2, 1)))  # next_step's reset step
    np.testing.assert_array_equal(o_s, o_n)


def test_disabled_autoreset_needs_a_masked_reset():
    env = _make("aurora", 2, episode_s=0.5, autoreset_mode="disabled")
    env.reset(seed=1)
    for _ in range(9):
        env.step(np.zeros((2, 1)))
    with pytest.raises(gymnasium.error.ResetNeeded, match="environment 0"):
        env.step(np.zeros((2, 1)))
    obs, info = env.reset(options={"reset_mask": np.array([True, True])})
    assert info["_time_s"].all()
    env.step(np.zeros((2, 1)))


def test_result_of_one_env_is_its_episode():
    env = _make("aurora", 2)
    env.reset(seed=2)
    for _ in range(5):
        env.step(np.zeros((2, 1)))
    res = env.result(1)
    assert res.summary["flows"][0]["scheme"] == "agent"


def test_bad_input_names_what_is_wrong():
    env = _make("aurora", 2)
    with pytest.raises(gymnasium.error.ResetNeeded):
        env.step(np.zeros((2, 1)))
    env.reset(seed=0)
    with pytest.raises(ScenarioError, match=r"actions: expected shape \(2, 1\)"):
        env.step(np.zeros((3, 1)))
    with pytest.raises(ScenarioError, match=r"actions\[1\]: expected a finite number"):
        env.step(np.array([[0.0], [np.nan]]))
    with pytest.raises(ScenarioError, match="num_envs"):
        CongestionVectorEnv(0)
    with pytest.raises(ScenarioError, match="threads"):
        CongestionVectorEnv(2, threads=0)
    with pytest.raises(ScenarioError, match="autoreset_mode"):
        CongestionVectorEnv(2, autoreset_mode="sometimes")
    with pytest.raises(ScenarioError, match="reward: the vectorised environment"):
        CongestionVectorEnv(2, reward=lambda mi, env: 0.0)
    with pytest.raises(ScenarioError, match="delay_ms|trace"):
        CongestionVectorEnv(2, trace="no/such/file")


def test_python_competitor_runs_on_the_calling_thread():
    import accelbrake

    class Fixed(accelbrake.Controller):
        def on_start(self, now):
            self.cwnd = 10

    accelbrake.register_controller("fixed10-vec", Fixed)
    kw = dict(trace="const:12", delay_ms=20, episode_s=0.5, competing=[("fixed10-vec", 1)])
    env = CongestionVectorEnv(2, "aurora", threads=2, **kw)
    ref = gymnasium.vector.SyncVectorEnv([lambda: abgym.CongestionEnv("aurora", **kw) for _ in range(2)])
    acts = _actions(2, 8)
    a, b = _rollout(env, 1, acts), _rollout(ref, 1, acts)
    np.testing.assert_array_equal(a[1], b[1])


def test_cross_entropy_method_learns_a_rate_controller(repo):
    """Learning is possible: the numpy-only cross-entropy method of examples/gym/cem_rate.py,
    10 generations of 24 candidates × 2 episodes (3 s each, randomised constant links), must at
    least double the mean reward per step of its starting policy (all zeros: the rate stays at its
    initial 1 Mbit/s) on 8 held-out episodes, and gain at least 2000 per step (0.2 × 1000 packets/s
    in Aurora's reward units)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("cem_rate", repo / "examples" / "gym" / "cem_rate.py")
    cem = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(cem)
    kw = dict(cem.TRAIN, episode_s=3.0)
    params, history, steps = cem.train(10, 24, 2, kw=kw, seed=0, log=lambda _s: None)
    assert steps == 10 * 24 * 2 * 59
    held_out = list(range(10_000, 10_008))  # training draws its seeds below 2**31 from seed 0's generator
    start = cem.score(np.zeros(cem.N_PARAMS), kw, held_out)
    learned = cem.score(params, kw, held_out)
    assert learned >= 2 * start and learned - start >= 2000, (start, learned)
    # Deterministic: the same seed learns the same policy.
    again, _, _ = cem.train(2, 8, 1, kw=kw, seed=1, log=lambda _s: None)
    again2, _, _ = cem.train(2, 8, 1, kw=kw, seed=1, log=lambda _s: None)
    np.testing.assert_array_equal(again, again2)
