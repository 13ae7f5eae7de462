#!/usr/bin/env bash
# Four nodes across network "hosts" (namespaces on one bridge, 10.231.1.x):
# four hosts with a node each, then two hosts with two nodes each. Every node
# runs testdata/four_replica_collectives.mlir (all-reduce, all-gather,
# all-to-all, collective-permute over the four replicas) and its results are
# checked against what each op must give replica r. Then, with a node on each
# host, collectives_node checks every operation of the collectives extension
# on every element type (a communicator over the four hosts' devices).
# Skipped (77) where namespaces cannot be made.
#
# Usage: netns_four_hosts_test.sh BERTH PLUGIN_PATH COLLECTIVES_NODE
set -uo pipefail
berth=$1 plugin_path=$2 collectives_node=$3
here=$(dirname "$0")
program="$here/testdata/four_replica_collectives.mlir"
source "$here/netns_lib.sh"
netns_setup
work=$(mktemp -d)
trap 'netns_cleanup; rm -rf "$work"' EXIT
for h in 1 2 3 4; do netns_host "$h" "10.231.1.$h/24" || { echo "FAIL: making host $h"; exit 1; }; done
status=0

check() {  # LABEL NODE: its results are what replica NODE must get
  python3 - "$work/node$2.out" "$2" <<'PY' || { echo "FAIL ($1): node $2:"; cat "$work/node$2.out" "$work/node$2.err"; status=1; }
import json, sys
r = int(sys.argv[2])
got = [x["data"] for x in json.load(open(sys.argv[1]))["results"]]
want = [[6], [0, 1, 2, 3], [r, 10 + r, 20 + r, 30 + r], [(r + 3) % 4]]
sys.exit(0 if got == want else print("got", got, "want", want) or 1)
PY
}

run_job() {  # LABEL HOST_OF_NODE0 ... HOST_OF_NODE3
  local label=$1
  shift
  local hosts=("$@") pids=() id
  netns_coordinator 1 10.231.1.1 "$work/coordinator.out" --nodes 4 || { status=1; return; }
  for id in 0 1 2 3; do
    netns_node "${hosts[$id]}" "$id" 4 "$program" "$work/node$id" &
    pids+=($!)
  done
  for id in 0 1 2 3; do
    wait "${pids[$id]}" || { echo "FAIL ($label): node $id exited non-zero"; cat "$work/node$id.err"; status=1; }
    check "$label" "$id"
    grep -q "node $id is reached at 10.231.1.${hosts[$id]}" "$work/node$id.err" ||
      { echo "FAIL ($label): node $id's address"; status=1; }
  done
  kill "$coordinator_pid" 2>/dev/null; wait "$coordinator_pid" 2>/dev/null
  [ $status -eq 0 ] && echo "PASS ($label): all-reduce, all-gather, all-to-all and collective-permute right on every node"
}
run_job "4 hosts x 1 node" 1 2 3 4
run_job "2 hosts x 2 nodes" 1 1 2 2

# The collectives extension across the four hosts.
netns_coordinator 1 10.231.1.1 "$work/coordinator.out" --nodes 4 || exit 1
pids=()
for id in 0 1 2 3; do
  netns_program=$collectives_node netns_node_command "$((id + 1))" "$id" 4 "$work/comm$id" -- every &
  pids+=($!)
done
for id in 0 1 2 3; do
  wait "${pids[$id]}" || { echo "FAIL (communicator): node $id exited non-zero"; cat "$work/comm$id.err"; status=1; }
  python3 - "$work/comm$id.out" <<'PY' || { echo "FAIL (communicator): node $id:"; cat "$work/comm$id.out"; status=1; }
import json, sys
report = json.loads(open(sys.argv[1]).read().strip().splitlines()[-1])
sys.exit(0 if report["checked"] == 169 and report["failures"] == [] and report["ranks"] == 4 else 1)
PY
done
kill "$coordinator_pid" 2>/dev/null; wait "$coordinator_pid" 2>/dev/null
[ $status -eq 0 ] && echo "PASS (communicator, 4 hosts): every operation on every type right on every node"
exit $status
