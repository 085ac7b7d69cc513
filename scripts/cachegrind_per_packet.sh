#!/bin/sh
# Instructions, simulated L1d misses and simulated last-level misses per data packet sent, of the
# release `run` example on scenario files cut to a shorter duration (load-independent
# measures for a shared machine, where CPU times are noisy).
#
#   scripts/cachegrind_per_packet.sh BIN DURATION_MS SCENARIO.json...
#   e.g. scripts/cachegrind_per_packet.sh target/release/examples/run 30000 docs/bench/newreno1000-96mbps.json
#
# The last level is simulated as one core's 1 MiB, 16-way L2 (`--LL=1048576,16,64`): valgrind's own
# guess for this machine's LL is not its real size. Needs valgrind and python3.
set -eu
[ $# -ge 3 ] || { echo "usage: $0 BIN DURATION_MS SCENARIO.json..." >&2; exit 2; }
bin=$1; dur=$2; shift 2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for s in "$@"; do
  name=$(basename "$s" .json)
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["duration_ms"]=float(sys.argv[2]); json.dump(d,open(sys.argv[3],"w"))' \
    "$s" "$dur" "$tmp/$name.json"
  pkts=$("$bin" --bench "$tmp/$name.json" | python3 -c 'import json,sys; print(json.load(sys.stdin)["data_packets"])')
  out=$(valgrind --tool=cachegrind --cache-sim=yes --LL=1048576,16,64 --cachegrind-out-file=/dev/null \
    "$bin" --bench "$tmp/$name.json" 2>&1 >/dev/null)
  ir=$(echo "$out" | grep 'I *refs' | awk '{print $NF}' | tr -d ,)
  d1=$(echo "$out" | grep 'D1 *misses' | awk '{print $4}' | tr -d ,)
  ll=$(echo "$out" | grep 'LL misses' | awk '{print $4}' | tr -d ,)
  python3 -c 'import sys; n,i,d,l=map(float,sys.argv[2:]); print("%s data_packets=%d instr/pkt=%.0f L1d_miss/pkt=%.2f LL_miss/pkt=%.2f" % (sys.argv[1],n,i/n,d/n,l/n))' \
    "$name" "$pkts" "$ir" "$d1" "$ll"
done
