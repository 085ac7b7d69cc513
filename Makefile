# accelbrake — the two commands that matter: `make demo` and `make test`.
# Needs only Python >= 3.10 and a Rust toolchain; everything else is installed into .venv.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
OUT    ?= results/demo

.PHONY: demo test install test-rs test-py lint bench bench-ns3 clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

# (Re)build the Rust extension and install the package (editable) with its test tools.
install: $(BIN)/python
	$(BIN)/pip install -q -e '.[test]'

# The main job on bundled data: ABC vs Cubic on the bundled Verizon LTE traces (ABC paper setup:
# 50 ms each way, 250-packet buffer, 140 s), a table on the terminal, figures and CSV/JSON in $(OUT).
demo: install
	$(BIN)/accelbrake compare --schemes abc,cubic \
	    --traces traces/Verizon-LTE-short.up,traces/Verizon-LTE-short.down \
	    --delay 50 --buffer 250 --duration 140 --out $(OUT)
	$(BIN)/accelbrake run --scheme abc --trace traces/Verizon-LTE-short.up --delay 50 --buffer 250 \
	    --duration 140 --plot $(OUT)/abc-verizon-up.png --out $(OUT)/abc-verizon-up
	$(BIN)/accelbrake run --scheme cubic --trace traces/Verizon-LTE-short.up --delay 50 --buffer 250 \
	    --duration 140 --plot $(OUT)/cubic-verizon-up.png --out $(OUT)/cubic-verizon-up
	@echo "demo results are in $(OUT)/"

# Every test and check: Rust unit + integration tests, clippy, rustfmt, ruff, pytest.
test: install lint test-rs test-py

test-rs:
	cargo test --release --workspace --exclude accelbrake-py

test-py:
	$(BIN)/python -m pytest -q

lint:
	cargo fmt --all -- --check
	cargo clippy --release --workspace --all-targets -- -D warnings
	$(BIN)/ruff check python tests
	$(BIN)/ruff format --check python tests

# Benchmarks, not part of `make test`: whole runs (docs/bench/results.md), criterion micro-benchmarks,
# and the side-by-side with ns-3 (needs `pip install ns3`; ~30 min, most of it ns-3 at 1 Gbit/s).
bench:
	$(PYTHON) scripts/bench.py --long
	cargo bench -p accelbrake-sim --bench core

bench-ns3: install
	$(BIN)/python scripts/ns3_compare.py

clean:
	rm -rf target $(VENV) results
