"""Example Python controllers (importable, so sweeps on the process pool can use them)."""
