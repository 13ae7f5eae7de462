#!/usr/bin/env bash
# A 2-node job across two network "hosts" (namespaces on one bridge,
# 10.231.0.1 and 10.231.0.2, sharing this machine's host name as containers
# and some clusters do). The coordinator runs on the first; each node runs
# `berth run allreduce.mlir` on its own host, finding its address by the route
# to the coordinator (node 0) or by BERTH_NODE_INTERFACE (node 1). Both must
# print the all-reduce's result; with host names published, as before C API
# 1.3, the nodes connected to 127.0.0.1 and failed. Then node 1 is lost while
# node 0 waits for it in an all-reduce — SIGKILLed, then its link cut — and
# node 0 must fail within the heartbeat timeout + 5 s naming it and its
# address, and nothing may stay running. Last, the first job again over
# IPv6. Skipped (77) where namespaces cannot be made.
#
# Usage: netns_job_test.sh BERTH PLUGIN_PATH ALLREDUCE_MLIR
set -uo pipefail
berth=$1 plugin_path=$2 program=$3
source "$(dirname "$0")/netns_lib.sh"
netns_setup
work=$(mktemp -d)
trap 'netns_cleanup; rm -rf "$work"' EXIT
netns_host 1 10.231.0.1/24 && netns_host 2 10.231.0.2/24 || { echo "FAIL: making the hosts"; exit 1; }
status=0

netns_coordinator 1 10.231.0.1 "$work/coordinator.out" --nodes 2 || exit 1
netns_node 1 0 2 "$program" "$work/node0" &
node0=$!
netns_node 2 1 2 "$program" "$work/node1" BERTH_NODE_INTERFACE=eth0 &
node1=$!
wait "$node0"; rc0=$?
wait "$node1"; rc1=$?
for id in 0 1; do
  rc=rc$id
  if [ "${!rc}" -ne 0 ] || ! python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); sys.exit(0 if r["results"][0]["data"] == [1] else 1)' "$work/node$id.out"; then
    echo "FAIL: node $id (exit ${!rc}):"; cat "$work/node$id.out" "$work/node$id.err"; status=1
  fi
done
# Each node is reached at its own host's address, not loopback.
grep -q "node 0 is reached at 10.231.0.1" "$work/node0.err" || { echo "FAIL: node 0's address"; cat "$work/node0.err"; status=1; }
grep -q "node 1 is reached at 10.231.0.2" "$work/node1.err" || { echo "FAIL: node 1's address"; cat "$work/node1.err"; status=1; }
[ $status -eq 0 ] && echo "PASS: 2 nodes on 10.231.0.1 and 10.231.0.2 all-reduced (node 0 by route, node 1 by interface)"

# Replica 1 counts to 10^8 before the all-reduce, replica 0 goes straight
# there; the coordinator has a 2 s heartbeat timeout.
cat > "$work/wait.mlir" <<'MLIR'
module @wait attributes {mhlo.num_replicas = 2 : i32, mhlo.num_partitions = 1 : i32} {
  func.func public @main() -> tensor<ui32> {
    %id = stablehlo.replica_id : tensor<ui32>
    %big = stablehlo.constant dense<100000000> : tensor<ui32>
    %n = stablehlo.multiply %id, %big : tensor<ui32>
    %zero = stablehlo.constant dense<0> : tensor<ui32>
    %one = stablehlo.constant dense<1> : tensor<ui32>
    %r:2 = stablehlo.while(%i = %zero, %lim = %n) : tensor<ui32>, tensor<ui32>
     cond {
      %lt = stablehlo.compare LT, %i, %lim, UNSIGNED : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %next = stablehlo.add %i, %one : tensor<ui32>
      stablehlo.return %next, %lim : tensor<ui32>, tensor<ui32>
    }
    %sum = "stablehlo.all_reduce"(%r#0) ({
      ^bb0(%a: tensor<ui32>, %b: tensor<ui32>):
        %s = stablehlo.add %a, %b : tensor<ui32>
        stablehlo.return %s : tensor<ui32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<ui32>) -> tensor<ui32>
    return %sum : tensor<ui32>
  }
}
MLIR
lose_node() {  # HOW: kill | link
  local how=$1
  kill "$coordinator_pid" 2>/dev/null; wait "$coordinator_pid" 2>/dev/null
  ip -n "${netns_tag}h2" link set eth0 up
  netns_coordinator 1 10.231.0.1 "$work/coordinator.out" --nodes 2 --heartbeat-timeout 2 || { status=1; return; }
  netns_node 1 0 2 "$work/wait.mlir" "$work/node0" &
  local n0=$!
  netns_node 2 1 2 "$work/wait.mlir" "$work/node1" &
  local n1=$!
  # Both registered (node 0 then waits in the all-reduce, node 1 counts).
  for _ in $(seq 300); do
    grep -q "registered with the coordination service" "$work/node0.err" 2>/dev/null &&
      grep -q "registered with the coordination service" "$work/node1.err" 2>/dev/null && break
    sleep 0.1
  done
  sleep 1
  local start=$SECONDS
  if [ "$how" = kill ]; then
    ip netns pids "${netns_tag}h2" | xargs -r kill -9
  else
    ip -n "${netns_tag}h2" link set eth0 down
  fi
  wait "$n0"; local r0=$?
  local took=$((SECONDS - start))
  if [ "$r0" -eq 0 ] || ! grep -q "node 1 at 10.231.0.2" "$work/node0.err" || [ "$took" -gt 7 ]; then
    echo "FAIL ($how): node 0 exited $r0 after ${took}s:"; cat "$work/node0.err"; status=1
  else
    echo "PASS ($how): node 0 failed after ${took}s: $(grep -o 'node 1 at 10.231.0.2[^;]*' "$work/node0.err" | head -1)"
  fi
  # Node 1 is gone (killed) or gives up (cut off): none is left running.
  local waited=0
  while kill -0 "$n1" 2>/dev/null && [ $waited -lt 40 ]; do sleep 0.5; waited=$((waited + 1)); done
  if kill -0 "$n1" 2>/dev/null; then
    echo "FAIL ($how): node 1 still runs 20 s later"; status=1
  fi
}
lose_node kill 2>/dev/null
lose_node link

# The same job over IPv6: the coordinator at [fd00:231::1], each node's
# address from the route to it.
kill "$coordinator_pid" 2>/dev/null; wait "$coordinator_pid" 2>/dev/null
ip -n "${netns_tag}h2" link set eth0 up
ip -n "${netns_tag}h1" addr add fd00:231::1/64 dev eth0 nodad
ip -n "${netns_tag}h2" addr add fd00:231::2/64 dev eth0 nodad
netns_coordinator 1 "[fd00:231::1]" "$work/coordinator.out" --nodes 2 || exit 1
netns_node 1 0 2 "$program" "$work/node0" &
node0=$!
netns_node 2 1 2 "$program" "$work/node1" &
node1=$!
wait "$node0"; rc0=$?
wait "$node1"; rc1=$?
v6=0
for id in 0 1; do
  rc=rc$id
  if [ "${!rc}" -ne 0 ] || ! python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); sys.exit(0 if r["results"][0]["data"] == [1] else 1)' "$work/node$id.out" ||
     ! grep -q "node $id is reached at fd00:231::$((id + 1))" "$work/node$id.err"; then
    echo "FAIL (IPv6): node $id (exit ${!rc}):"; cat "$work/node$id.out" "$work/node$id.err"; status=1; v6=1
  fi
done
[ $v6 -eq 0 ] && echo "PASS (IPv6): 2 nodes on fd00:231::1 and fd00:231::2 all-reduced"
exit $status
