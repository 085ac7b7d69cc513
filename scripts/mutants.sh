#!/usr/bin/env bash
# Mutation testing of the simulator core with cargo-mutants (docs/testing.md).
#
#   scripts/mutants.sh                  every core file below (make mutants; hours on 2 cores)
#   scripts/mutants.sh FILE...          those files (paths under crates/accelbrake-sim/src/)
#   scripts/mutants.sh --in-diff [BASE] only mutants on core lines changed since the merge base
#                                       with BASE (make mutants-diff; see below for the default)
#
# Settings are in .cargo/mutants.toml (lib unit tests, `mutants` profile). Environment:
#   MUTANTS_JOBS      parallel build/test jobs (default 1)
#   MUTANTS_TIMEOUT   per-mutant test timeout in seconds (default 120)
#   MUTANTS_BUDGET    wall-clock limit of the whole cargo-mutants run in seconds (default: none;
#                     the diff mode's default is 1200); over it the run stops and says so
#   MUTANTS_ALL_TESTS=1  also run the integration tests (slower; catches a few more)
#   MUTANTS_OUT       output directory (default target/mutants-out)
#   MUTANTS_FILTER    run only the lib tests whose names contain this (e.g. `receiver::`): much
#                     faster per mutant, and a lower bound on what the whole suite catches
#                     (recheck the survivors without it, with `MUTANTS_ITERATE=1`)
#   MUTANTS_ITERATE=1 skip the mutants an earlier run into the same MUTANTS_OUT caught (--iterate)
#   MUTANTS_SURVIVORS=1  run only the mutants the last run into the same MUTANTS_OUT missed (its
#                     mutants.out/missed.txt; not its timeouts, which --iterate reruns): the check
#                     after adding tests. cargo-mutants 27.1 applies no name filter to its "delete
#                     field" mutants, so those of the files given run too.
# Exit status: cargo-mutants' own (0 all caught, 2 some missed, 3 timeouts, 4 baseline failed);
# the diff mode exits 0 with a message when the change touches no core source line.
set -euo pipefail
cd "$(dirname "$0")/.."

SRC=crates/accelbrake-sim/src
# The core's algorithm and transport code: queues/AQMs, controllers, the transport,
# links, the event queue and the percentile sketch (not: scenario parsing, catalog, engine, output).
CORE=()
for f in "$SRC"/queue/*.rs "$SRC"/cc/*.rs "$SRC"/sender/*.rs; do CORE+=("${f#"$SRC/"}"); done
CORE+=(codel_law.rs receiver.rs link.rs wifi.rs sched.rs search.rs measure/sketch.rs)
VERSION=27.1.0
JOBS=${MUTANTS_JOBS:-1}
OUT=${MUTANTS_OUT:-target/mutants-out}

# Installed only when there is something to mutate (the diff mode decides first).
ensure_cargo_mutants() {
    if ! cargo mutants --version >/dev/null 2>&1; then
        echo "mutants: installing cargo-mutants $VERSION from crates.io"
        cargo install cargo-mutants --locked --version "$VERSION"
    fi
}

args=(-j "$JOBS" --timeout "${MUTANTS_TIMEOUT:-120}" -o "$OUT")
if [[ -n "${MUTANTS_ALL_TESTS:-}" ]]; then
    # .cargo/mutants.toml without its `--lib`.
    args+=(--no-config --test-tool cargo --test-package accelbrake-sim --copy-target true --profile mutants)
fi
if [[ -n "${MUTANTS_FILTER:-}" ]]; then
    args+=(--cargo-test-arg "$MUTANTS_FILTER")
fi
if [[ -n "${MUTANTS_ITERATE:-}" ]]; then
    args+=(--iterate)
fi
budget=${MUTANTS_BUDGET:-}
if [[ -n "${MUTANTS_SURVIVORS:-}" ]]; then
    missed="$OUT/mutants.out/missed.txt"
    if [[ ! -s "$missed" ]]; then
        echo "mutants: no survivors listed in $missed (run without MUTANTS_SURVIVORS first)"
        exit 0
    fi
    n=0
    while IFS= read -r line; do
        [[ -n "$line" ]] || continue
        # The mutant's full name as a regex matching only itself.
        args+=(--re "^$(printf '%s' "$line" | sed -e 's/[][\.*^$(){}+?|\/]/\\&/g')\$")
        n=$((n + 1))
    done <"$missed"
    echo "mutants: rerunning the $n survivor(s) listed in $missed"
fi

if [[ "${1:-}" == "--in-diff" ]]; then
    base=${2:-${MUTANTS_BASE:-}}
    if [[ -z "$base" ]]; then
        branch=$(git rev-parse --abbrev-ref HEAD)
        if [[ "$branch" != main ]] && git rev-parse -q --verify main >/dev/null; then
            base=main
        elif git rev-parse -q --verify HEAD^1 >/dev/null; then
            base=HEAD^1 # on main itself: the last change that landed (a merge's first parent)
        else
            echo "mutants-diff: no base to compare with; nothing to do"
            exit 0
        fi
    fi
    mb=$(git merge-base HEAD "$base")
    mkdir -p "$OUT"
    diff="$OUT/core.diff"
    paths=()
    for f in "${CORE[@]}"; do paths+=("$SRC/$f"); done
    git diff "$mb" -- "${paths[@]}" >"$diff"
    if [[ ! -s "$diff" ]]; then
        echo "mutants-diff: no core source line changed since $(git rev-parse --short "$mb") ($base); nothing to mutate"
        exit 0
    fi
    echo "mutants-diff: mutating the core lines changed since $(git rev-parse --short "$mb") ($base):"
    git diff --stat "$mb" -- "${paths[@]}" | sed 's/^/  /'
    args+=(--in-diff "$diff")
    budget=${budget:-1200}
    for f in "${CORE[@]}"; do args+=(-f "$SRC/$f"); done
elif [[ $# -gt 0 ]]; then
    for f in "$@"; do args+=(-f "$SRC/${f#"$SRC/"}"); done
else
    for f in "${CORE[@]}"; do args+=(-f "$SRC/$f"); done
fi

ensure_cargo_mutants
status=0
if [[ -n "$budget" ]]; then
    timeout --signal=INT --kill-after=300 "$budget" cargo mutants "${args[@]}" || status=$?
    # 124: stopped by SIGINT at the budget; 137: it did not finish within 300 s of that and was
    # killed (its temporary copy of the tree may be left in $TMPDIR as cargo-mutants-*.tmp).
    if [[ $status -eq 137 ]]; then status=124; fi
    if [[ $status -eq 124 ]]; then
        echo "mutants: stopped at the time budget of ${budget}s (MUTANTS_BUDGET); the mutants tested so far:"
    fi
else
    cargo mutants "${args[@]}" || status=$?
fi
if [[ -f "$OUT/mutants.out/outcomes.json" ]]; then
    python3 scripts/mutants_table.py "$OUT/mutants.out/outcomes.json" --missed
fi
if [[ $status -eq 124 ]]; then
    # Out of time: a partial run fails only on what it found (a missed mutant), not on the budget.
    missed="$OUT/mutants.out/missed.txt"
    if [[ -s "$missed" ]]; then
        echo "mutants: $(wc -l <"$missed") missed mutant(s) among those tested before the budget ran out"
        exit 2
    fi
    echo "mutants: no missed mutant among those tested before the budget ran out (the rest untested)"
    exit 0
fi
exit "$status"
