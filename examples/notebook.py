"""accelbrake from Python, cell by cell as in a notebook (each ``# %%`` is a cell; Jupyter, VS Code
and Spyder run them as such). Run it as a script too: ``python examples/notebook.py [OUT_DIR]``.

A bundled trace is named by its file name from any directory; a Result shows its summary table in a
notebook (``_repr_html_``) and draws itself (``Result.plot()``)."""

# %%
import sys
from pathlib import Path

import accelbrake

out = Path(sys.argv[1] if len(sys.argv) > 1 else "notebook-out")

# %% One run: ABC on the Verizon LTE uplink in the ABC paper's cellular setup (30 s).
scenario = accelbrake.build_scenario("abc", trace="Verizon-LTE-short.up", duration_s=30)
result = accelbrake.simulate(scenario)
result  # noqa: B018 - a notebook shows the summary table here (Result._repr_html_)
print(result)
print(f"utilization {result.utilization:.3f}")

# %% The tables are pandas DataFrames when asked for.
print(result.summary_table()[["flow", "scheme", "throughput_mbps", "utilization", "per_packet_delay_p95_ms"]])

# %% Plots: the ABC paper's Fig. 1 layout, and the run as Mahimahi's graphs show it.
result.plot(out / "abc.png")
result.plot(out / "abc-mahimahi.png", view="mahimahi")

# %% Cubic on the same trace, for comparison; every table to Parquet.
cubic = accelbrake.simulate(accelbrake.build_scenario("cubic", trace="Verizon-LTE-short.up", duration_s=30))
cubic.to_dir(out / "cubic")
for r in (result, cubic):
    print(
        f"{r.scheme:>6}: utilization {r.utilization:.2f}, "
        f"p95 per-packet delay {r.summary['per_packet_delay_ms']['p95']:.0f} ms"
    )
