"""Train PPO (Stable-Baselines3) on the Aurora-style environment, then compare it with the
rule agent. Not run in CI: needs `pip install stable-baselines3` (and torch).

    python examples/gym/train_ppo.py [--timesteps 200000] [--envs 4]
"""

from __future__ import annotations

import argparse

import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timesteps", type=int, default=200_000)
    ap.add_argument("--envs", type=int, default=4)
    ap.add_argument("--preset", default="aurora")
    a = ap.parse_args()
    from accelbrake.gym import CongestionEnv
    from stable_baselines3 import PPO
    from stable_baselines3.common.env_util import make_vec_env

    kw = dict(
        preset=a.preset,
        trace="const:12",
        delay_ms=50,
        episode_s=10,
        randomize={"mbps": (6, 24), "delay_ms": (10, 60), "buffer_packets": (20, 300)},
    )
    venv = make_vec_env(CongestionEnv, n_envs=a.envs, seed=0, env_kwargs=kw)
    model = PPO("MlpPolicy", venv, n_steps=512, batch_size=256, gamma=0.99, seed=0, verbose=1)
    model.learn(total_timesteps=a.timesteps)
    model.save(f"ppo-{a.preset}")
    env = CongestionEnv(**{**kw, "randomize": None})
    obs, _ = env.reset(seed=123)
    total, done = 0.0, False
    while not done:
        action, _ = model.predict(obs, deterministic=True)
        obs, r, term, trunc, _ = env.step(np.asarray(action, dtype=np.float32))
        total += r
        done = term or trunc
    print(f"PPO return on 12 Mbit/s, 100 ms: {total:.1f}")
    print(env.result().summary_table())


if __name__ == "__main__":
    main()
