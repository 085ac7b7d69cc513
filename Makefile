# accelbrake — the two commands that matter: `make demo` and `make test`.
# Needs only Python >= 3.10 and a Rust toolchain; everything else is installed into .venv.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
OUT    ?= results/reproduce

.PHONY: demo test install test-rs test-py lint bench bench-ns3 results clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

# (Re)build the Rust extension and install the package (editable) with its test tools and Ray
# (the Ray executor is tested against the process pool).
install: $(BIN)/python
	$(BIN)/pip install -q -e '.[test,ray]'

# The main job on bundled data: the ABC paper's headline table (ABC vs Cubic, Cubic+CoDel, Copa, BBR,
# XCP; PCC, Sprout, Verus listed as not implemented) on the bundled Verizon LTE traces in the paper's
# cellular setup, printed beside the published numbers; results, plots and report.html in
# $(OUT)/abc-table-quick/.
demo: install
	$(BIN)/accelbrake reproduce abc-table --quick --out $(OUT)
	@echo "demo results and report: $(OUT)/abc-table-quick/ (open $(OUT)/abc-table-quick/report.html)"

# Every test and check: Rust unit + integration tests, clippy, rustfmt, ruff, pytest.
test: install lint test-rs test-py

test-rs:
	cargo test --release --workspace --exclude accelbrake-py

test-py:
	$(BIN)/python -m pytest -q

lint:
	cargo fmt --all -- --check
	cargo clippy --release --workspace --all-targets -- -D warnings
	RUSTDOCFLAGS="-D warnings" cargo doc --release --no-deps -p accelbrake-sim
	$(BIN)/ruff check python tests
	$(BIN)/ruff format --check python tests

# The measured tables of README.md and docs/*.md: run their datasets (resumable, kept in
# results/docs/), write docs/data/*.csv and docs/figures/abe.*, rewrite every
# <!-- results:NAME --> region. tests/test_docs_results.py fails when a region is stale.
results: install
	$(BIN)/python -m accelbrake.experiments.docs --out results/docs

# Benchmarks, not part of `make test`: whole runs (docs/bench/results.md), criterion micro-benchmarks,
# and the side-by-side with ns-3 (needs `pip install ns3`; ~30 min, most of it ns-3 at 1 Gbit/s).
bench:
	$(PYTHON) scripts/bench.py --long
	cargo bench -p accelbrake-sim --bench core

bench-ns3: install
	$(BIN)/python scripts/ns3_compare.py

clean:
	rm -rf target $(VENV) results
