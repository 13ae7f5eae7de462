#!/usr/bin/env bash
# `berth bench collectives` on two slices of two hosts each: hosts 1 and 2 on
# one bridge (10.231.2.1-2, slice 0), hosts 3 and 4 on another (10.231.2.3-4,
# slice 1), the bridges joined by one link limited to RATE each way (tc tbf),
# a node per host (BERTH_NUM_SLICES=2, BERTH_SLICE_ID). The job runs twice,
# with the flat ring and hierarchically; the script prints both tables and
# checks that every size was right on every node and took at least what the
# slow link allows: the whole buffer must cross it once each way, so SIZE
# bytes cannot take less than SIZE / RATE (the flat ring sends 1.5 x SIZE
# across it each way, the hierarchical all-reduce 1.0 x).
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

# run ALGORITHM: the job on the four hosts, node 0's report in $work/ALGORITHM.json.
run() {
  local algorithm=$1 pids=() id
  netns_coordinator 1 10.231.2.1 "$work/coordinator.out" --nodes 4 || return 1
  for id in 0 1 2 3; do
    netns_node_command $((id + 1)) "$id" 4 "$work/node$id" BERTH_NUM_SLICES=2 BERTH_SLICE_ID=$((id / 2)) -- \
      bench collectives --op "$op" --sizes "$sizes" --iters 5 --warmup 1 --algorithm "$algorithm" --json &
    pids+=($!)
  done
  for id in 0 1 2 3; do
    wait "${pids[$id]}" || { echo "FAIL ($algorithm): node $id exited non-zero"; cat "$work/node$id.err"; status=1; }
  done
  kill "$coordinator_pid" 2>/dev/null; wait "$coordinator_pid" 2>/dev/null
  cp "$work/node0.out" "$work/$algorithm.json"
}
for algorithm in flat hierarchical; do run "$algorithm" || exit 1; done
[ $status -eq 0 ] || exit 1

python3 - "$work" "$rate_mbit" <<'PY' || status=1
import json, sys
work, mbit = sys.argv[1], sys.argv[2]
rate = float(mbit) * 1e6 / 8  # bytes per second each way
ok = True
print(f"# 4 nodes on 2 slices x 2 hosts, one {mbit} Mbit/s link between the slices")
print("#        size  op              algorithm      time (us)  algbw (GB/s)  busbw (GB/s)  floor (us)  correct")
for algorithm in ("flat", "hierarchical"):
    report = json.load(open(f"{work}/{algorithm}.json"))
    if report.get("slices") != 2:
        print(f"FAIL: the {algorithm} job saw {report.get('slices')} slices, not 2"); ok = False
    for r in report["results"]:
        floor_us = r["size"] / rate * 1e6
        print(f"{r['size']:14d}  {r['op']:<14s}  {r['algorithm']:<12s}  {r['time_us']:10.1f}  "
              f"{r['algbw']:12.3f}  {r['busbw']:12.3f}  {floor_us:10.1f}  {'yes' if r['correct'] else 'NO'}")
        if not r["correct"]:
            print(f"FAIL: {algorithm} {r['op']} of {r['size']} B gave wrong results"); ok = False
        # tbf lets a burst of 256 KiB through at once.
        if r["time_us"] < (r["size"] - 262144) / rate * 1e6 * 0.95:
            print(f"FAIL: {r['size']} B in {r['time_us']:.0f} us is faster than the link allows"); ok = False
sys.exit(0 if ok else 1)
PY
[ $status -eq 0 ] && echo "PASS: $op right on every node, flat and hierarchical, no faster than the ${rate_mbit} Mbit/s link allows"
exit $status
