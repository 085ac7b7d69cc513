# accelbrake — the two commands that matter: `make demo` and `make test`.
# Needs only Python >= 3.10 and a Rust toolchain; everything else is installed into .venv.

PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
OUT    ?= results/reproduce

.PHONY: docs test-docs test-mutants emu-tools demo test install install-demo wheel chromium test-rs test-py lint bench bench-ns3 bench-cli results clean mutants mutants-diff emu emu-deps upstream upstream-deps upstream-tools

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

# (Re)build the Rust extension and install the package (editable) with its test tools and Ray
# (the Ray executor is tested against the process pool).
install: $(BIN)/python
	$(BIN)/pip install -q -e '.[test,ray]'

# What the demo needs and nothing more (no test tools, no Ray).
install-demo: $(BIN)/python
	$(BIN)/pip install -q -e .

# A manylinux wheel in dist/ (the extension, the Python package and the bundled traces), built without
# Docker: maturin links against an old glibc with zig (the ziglang package from PyPI). Installs with
# `pip install dist/accelbrake-*.whl` on any x86-64 Linux with Python >= 3.10, no Rust needed.
# tests/test_wheel.py installs it into a fresh venv and runs a reproduction from an empty directory.
# The real-time emulator goes in too (scripts/wheel_add_emu.py: pip installs it beside the
# `accelbrake` command), linked by zig for glibc 2.17 like the extension
# (scripts/zig-cc-glibc217.sh), with ABC's BPF objects embedded when clang and libbpf's headers
# are there (emu-tools installs them, best effort).
WHEEL_DIR ?= dist
wheel: $(BIN)/python emu-tools
	$(BIN)/pip install -q 'maturin>=1.5,<2' ziglang
	rm -f $(WHEEL_DIR)/accelbrake-*.whl
	PATH="$(CURDIR)/$(BIN):$$PATH" $(BIN)/maturin build --release --zig --compatibility manylinux2014 \
		--strip --interpreter $(BIN)/python --out $(WHEEL_DIR)
	ACCELBRAKE_PYTHON="$(CURDIR)/$(BIN)/python" \
		CARGO_TARGET_X86_64_UNKNOWN_LINUX_GNU_LINKER="$(CURDIR)/scripts/zig-cc-glibc217.sh" \
		cargo build --release -p accelbrake-emu
	$(BIN)/python scripts/wheel_add_emu.py $(WHEEL_DIR)/accelbrake-*.whl target/release/accelbrake-emu
	@ls -l $(WHEEL_DIR)/accelbrake-*.whl

# The main job on bundled data: the ABC paper's headline table (ABC vs XCP, Cubic, Cubic+CoDel, Copa,
# BBR, PCC-Vivace, Sprout, Verus) on the bundled Verizon LTE traces in the paper's
# cellular setup, printed beside the published numbers; results, plots and report.html in
# $(OUT)/abc-table-quick/.
demo: install-demo
	$(BIN)/accelbrake reproduce abc-table --quick --out $(OUT)
	@echo "demo results and report: $(OUT)/abc-table-quick/ (open $(OUT)/abc-table-quick/report.html)"

# Every test and check: Rust unit + integration tests, clippy, rustfmt, ruff, pytest (which builds the
# wheel with `make wheel` when dist/ has none newer than the sources, and renders the report in
# headless Chromium when there is one: `make chromium` installs it, best effort).
test: install chromium emu-tools upstream-tools lint test-rs test-docs test-py test-mutants
	@$(BIN)/python scripts/test_summary.py $(TEST_LOGS)

# The documentation site in site/ (MkDocs Material, strict: a broken link, a missing reference or a
# failing page generator stops it). The reference and per-paper pages are generated from the code
# and the committed datasets by docs/gen/pages.py at every build: about 10 s once installed (the
# first time, `make install` builds the extension, about a minute more).
docs: $(BIN)/python
	@$(BIN)/python -c "import accelbrake._core" 2>/dev/null || $(MAKE) --no-print-directory install
	@$(BIN)/python -c "import mkdocs_gen_files, mkdocstrings, material" 2>/dev/null || $(BIN)/pip install -q -e '.[docs]'
	NO_MKDOCS_2_WARNING=1 DISABLE_MKDOCS_2_WARNING=true $(BIN)/mkdocs build --strict --clean

test-docs: docs

# Headless Chromium for the report layout test (tests/test_report_layout.py), from Debian's `chromium`
# package when apt-get is available and we are root; otherwise that test is skipped with the reason.
chromium:
	@command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || \
	{ [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null; } ; } || \
	echo "make chromium: could not install chromium; the report layout test will be skipped"

# Each suite's output is kept in $(TEST_LOGS) for the closing summary of `make test`
# (scripts/test_summary.py: what ran, how many passed).
TEST_LOGS ?= target/test-logs

test-rs:
	@mkdir -p $(TEST_LOGS)
	bash -o pipefail -c 'cargo test --release --workspace --exclude accelbrake-py 2>&1 | tee $(TEST_LOGS)/rs.log'

test-py:
	@mkdir -p $(TEST_LOGS)
	bash -o pipefail -c '$(BIN)/python -m pytest -q 2>&1 | tee $(TEST_LOGS)/py.log'

lint:
	cargo fmt --all -- --check
	cargo clippy --release --workspace --all-targets -- -D warnings
	RUSTDOCFLAGS="-D warnings" cargo doc --release --no-deps -p accelbrake-sim -p accelbrake-emu
	$(BIN)/ruff check python tests examples scripts docs/gen
	$(BIN)/ruff format --check python tests examples scripts docs/gen

# The real-time emulator (`accelbrake shell`, `accelbrake emulate`; Linux, root): its binary, and
# the system tools it and its scripts use, installed with apt when missing (iproute2 for `ip`;
# iperf3 for trying `accelbrake shell` by hand; clang, libbpf-dev and linux-libc-dev to build ABC's
# BPF congestion control, crates/accelbrake-emu/bpf/abc.bpf.c, which `make emu` then embeds).
# Without root or namespaces the emulator's tests skip with the reason and `make test` still
# passes; without clang/libbpf the binary builds without ABC in eBPF and says so.
emu:
	cargo build --release -p accelbrake-emu

emu-deps:
	@missing=""; command -v ip >/dev/null || missing="$$missing iproute2"; \
	command -v iperf3 >/dev/null || missing="$$missing iperf3"; \
	command -v clang >/dev/null || missing="$$missing clang"; \
	[ -f /usr/include/bpf/bpf_helpers.h ] || missing="$$missing libbpf-dev"; \
	[ -f /usr/include/linux/types.h ] || missing="$$missing linux-libc-dev"; \
	if [ -n "$$missing" ]; then \
	  if command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing; \
	  else echo "emu-deps: please install:$$missing (needs apt-get and root)"; exit 1; fi; \
	else echo "emu-deps: iproute2, iperf3, clang, libbpf-dev and linux-libc-dev present"; fi

# The schemes' own programs (the authors' Copa, Sprout, Verus and PCC-Vivace) for
# `accelbrake emulate --upstream`, built from UPSTREAM_SRC (default ../shared/upstream when it
# exists; otherwise the script says which four tarballs to fetch from where) into
# ${XDG_DATA_HOME:-~/.local/share}/accelbrake/upstream (or $ACCELBRAKE_UPSTREAM_DIR), where the CLI
# finds them. Their Debian build dependencies are installed with apt-get when missing.
UPSTREAM_DEPS := g++ make patch autoconf automake libtool pkg-config protobuf-compiler libprotobuf-dev \
	libjemalloc-dev libboost-dev libboost-system-dev libboost-math-dev libasio-dev libssl-dev libncurses-dev
upstream-deps:
	@missing=""; for p in $(UPSTREAM_DEPS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if command -v apt-get >/dev/null && [ "$$(id -u)" = 0 ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing; \
	  else echo "upstream-deps: please install:$$missing (needs apt-get and root)"; exit 1; fi; \
	else echo "upstream-deps: build dependencies present"; fi

upstream: upstream-deps
	scripts/build-upstream.sh $(UPSTREAM_SRC)

# `make test`'s best-effort use of `make upstream` (once: skipped when the programs are built):
# where the sources, apt-get or root are missing, the upstream smoke tests (tests/test_upstream.py,
# 8 s of each program through the emulated link) skip with the reason.
upstream-tools:
	@[ -f "$${ACCELBRAKE_UPSTREAM_DIR:-$${XDG_DATA_HOME:-$$HOME/.local/share}/accelbrake/upstream}/BUILT" ] || \
	$(MAKE) --no-print-directory upstream || \
	echo "make upstream-tools: could not build the authors' programs; their smoke tests will be skipped"

# `make test`'s best-effort use of emu-deps (before anything builds the emulator, so that its build
# embeds ABC's BPF program): where apt-get or root is missing the emulator's BPF tests skip with the
# reason, as its other tests do without root.
emu-tools:
	@$(MAKE) --no-print-directory emu-deps || echo "make emu-tools: could not install the emulator's tools; its BPF tests will be skipped"

# The measured tables of README.md and docs/*.md: run their datasets (resumable, kept in
# results/docs/), write docs/data/*.csv and docs/figures/abe.*, rewrite every
# <!-- results:NAME --> region. tests/test_docs_results.py fails when a region is stale.
# Also the picture of README.md and the site's home page: the demo's trade-off plot, drawn from
# docs/data/demo-tradeoff.csv (tests/test_docs_demo.py fails when either is stale).
results: install
	$(BIN)/python -m accelbrake.papers.docs --out results/docs
	$(BIN)/accelbrake reproduce abc-table --quick --no-progress --out results/docs/demo
	$(BIN)/python -m accelbrake.papers.demo results/docs/demo/abc-table-quick

# Benchmarks, not part of `make test`: whole runs (docs/bench/results.md), CPU ns per data packet
# against flows and bandwidth (docs/bench/curve.md; BASELINE=path/to/older/run for before/after),
# criterion micro-benchmarks,
# and the side-by-side with ns-3 (needs `pip install ns3`; ~30 min, most of it ns-3 at 1 Gbit/s).
bench:
	$(PYTHON) scripts/bench.py --long
	$(PYTHON) scripts/bench_curve.py $(if $(BASELINE),--baseline $(BASELINE))
	cargo bench -p accelbrake-sim --bench core

# Mutation testing of the core with cargo-mutants (installed from crates.io on first use); the whole
# core is not part of `make test` (docs/testing.md): `mutants` runs every core file (hours on 2 cores; FILES="queue/abc.rs
# cc/abc.rs" for some), `mutants-diff` only the core lines changed since the merge base with BASE
# (default: main, or the last landed change when on main), stopped after MUTANTS_BUDGET s (1200).
mutants:
	scripts/mutants.sh $(FILES)

mutants-diff:
	scripts/mutants.sh --in-diff $(BASE)

# The CI step of mutation testing (part of `make test`): mutants on the core lines the change touches
# (since the merge base with main; on main, the last landed change), stopped after 480 s. Installs
# cargo-mutants (~6.5 min) only when such lines exist; fails on a missed mutant, not on the budget.
test-mutants:
	MUTANTS_BUDGET=$${MUTANTS_BUDGET:-480} scripts/mutants.sh --in-diff $(BASE)

bench-ns3: install
	$(BIN)/python scripts/ns3_compare.py

# What a user waits for (the core, simulate(), the whole `accelbrake run` process, reproduce
# abc-table) side by side with ns-3 on the 96 Mbit/s dumbbell: scripts/cli_speed.py.
bench-cli: install
	$(BIN)/python scripts/cli_speed.py --reproduce

clean:
	rm -rf target $(VENV) results
