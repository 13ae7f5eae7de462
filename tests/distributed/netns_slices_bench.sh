#!/usr/bin/env bash
# `berth bench collectives` on two "slices" of two hosts each: hosts 1 and 2
# on one bridge (10.231.2.1-2), hosts 3 and 4 on another (10.231.2.3-4), the
# bridges joined by one link limited to RATE each way (tc tbf), a node per
# host. Node 0 prints the bench's table; the script checks that every size was
# right on every node and took at least what the slow link allows: the whole
# buffer must cross it once each way, so SIZE bytes cannot take less than
# SIZE / RATE (the flat ring sends 1.5 x SIZE across it each way).
#
# Usage: netns_slices_bench.sh BERTH PLUGIN_PATH [RATE_MBIT [SIZES [OP]]]
#   (defaults: 200 Mbit/s, 256K,4M, all_reduce; the measurement in
#   bench/README.md used 1000 and 1M,16M,64M). Skipped (77) where namespaces
#   cannot be made.
set -uo pipefail
berth=$1 plugin_path=$2 rate_mbit=${3:-200} sizes=${4:-256K,4M} op=${5:-all_reduce}
here=$(dirname "$0")
source "$here/netns_lib.sh"
netns_setup
work=$(mktemp -d)
trap 'netns_cleanup; rm -rf "$work"' EXIT
netns_slow_link br1 "${rate_mbit}mbit"
for h in 1 2; do netns_host "$h" "10.231.2.$h/24" br0 || { echo "FAIL: making host $h"; exit 1; }; done
for h in 3 4; do netns_host "$h" "10.231.2.$h/24" br1 || { echo "FAIL: making host $h"; exit 1; }; done
netns_node_timeout=600
status=0

netns_coordinator 1 10.231.2.1 "$work/coordinator.out" --nodes 4 || exit 1
pids=()
for id in 0 1 2 3; do
  netns_node_command $((id + 1)) "$id" 4 "$work/node$id" -- \
    bench collectives --op "$op" --sizes "$sizes" --iters 5 --warmup 1 --json &
  pids+=($!)
done
for id in 0 1 2 3; do
  wait "${pids[$id]}" || { echo "FAIL: node $id exited non-zero"; cat "$work/node$id.err"; status=1; }
done
kill "$coordinator_pid" 2>/dev/null; wait "$coordinator_pid" 2>/dev/null
[ $status -eq 0 ] || exit 1

python3 - "$work/node0.out" "$rate_mbit" <<'PY' || status=1
import json, sys
report = json.load(open(sys.argv[1]))
rate = float(sys.argv[2]) * 1e6 / 8  # bytes per second each way
ok = True
print(f"# {report['nodes']} nodes on 2 slices x 2 hosts, one {sys.argv[2]} Mbit/s link between the slices")
print("#        size  op              algorithm   time (us)  algbw (GB/s)  busbw (GB/s)  bound (us)  correct")
for r in report["results"]:
    bound_us = r["size"] / rate * 1e6
    print(f"{r['size']:14d}  {r['op']:<14s}  {r['algorithm']:<9s}  {r['time_us']:10.1f}  "
          f"{r['algbw']:12.3f}  {r['busbw']:12.3f}  {bound_us:10.1f}  {'yes' if r['correct'] else 'NO'}")
    if not r["correct"]:
        print(f"FAIL: {r['op']} of {r['size']} B gave wrong results"); ok = False
    # tbf lets a burst of 256 KiB through at once.
    if r["time_us"] < (r["size"] - 262144) / rate * 1e6 * 0.95:
        print(f"FAIL: {r['size']} B in {r['time_us']:.0f} us is faster than the link allows"); ok = False
sys.exit(0 if ok else 1)
PY
[ $status -eq 0 ] && echo "PASS: $op right on every node, no faster than the ${rate_mbit} Mbit/s link allows"
exit $status
