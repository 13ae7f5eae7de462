#!/usr/bin/env bash
# A 2-node job across two network "hosts": network namespaces joined by a
# veth pair, 10.231.0.1 and 10.231.0.2, sharing this machine's host name (as
# containers and some clusters do). The coordinator runs on the first; each
# node runs `berth run allreduce.mlir` in its own namespace, finding its
# address by the route to the coordinator (node 0) or by BERTH_NODE_INTERFACE
# (node 1). Both must print the all-reduce's result; with the host names
# published, as before C API 1.3, the nodes connected to 127.0.0.1 and failed.
# Skipped (exit 77) where namespaces cannot be made (not root, no ip).
#
# Usage: netns_job_test.sh BERTH PLUGIN_PATH ALLREDUCE_MLIR
set -uo pipefail
berth=$1 plugin_path=$2 program=$3
tag="berth$$"
a="${tag}a" b="${tag}b"

skip() { echo "SKIP: $*"; exit 77; }
command -v ip >/dev/null || skip "no 'ip' command (Debian iproute2)"
ip netns add "$a" 2>/dev/null || skip "cannot create network namespaces here (needs root / CAP_SYS_ADMIN)"
work=$(mktemp -d)
cleanup() {
  [ -n "${coordinator:-}" ] && kill "$coordinator" 2>/dev/null
  ip netns pids "$a" 2>/dev/null | xargs -r kill -9 2>/dev/null
  ip netns pids "$b" 2>/dev/null | xargs -r kill -9 2>/dev/null
  ip netns del "$a" 2>/dev/null
  ip netns del "$b" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
ip netns add "$b" || { echo "FAIL: ip netns add $b"; exit 1; }
ip link add "${tag}x" type veth peer name "${tag}y" || { echo "FAIL: veth"; exit 1; }
ip link set "${tag}x" netns "$a"
ip link set "${tag}y" netns "$b"
ip -n "$a" addr add 10.231.0.1/24 dev "${tag}x"
ip -n "$b" addr add 10.231.0.2/24 dev "${tag}y"
for ns in "$a" "$b"; do
  ip -n "$ns" link set lo up
done
ip -n "$a" link set "${tag}x" up
ip -n "$b" link set "${tag}y" up

# The coordinator on host a; its port from its first line.
ip netns exec "$a" "$berth" coordinator --listen 10.231.0.1:0 --nodes 2 > "$work/coordinator.out" 2>&1 &
coordinator=$!
for _ in $(seq 100); do
  grep -q "listening on" "$work/coordinator.out" && break
  sleep 0.1
done
address=$(sed -n 's/.*listening on \([^ ]*\).*/\1/p' "$work/coordinator.out" | head -1)
[ -n "$address" ] || { echo "FAIL: the coordinator did not start:"; cat "$work/coordinator.out"; exit 1; }
echo "coordinator at $address"

run_node() {  # NS ID EXTRA_ENV...
  local ns=$1 id=$2
  shift 2
  ip netns exec "$ns" env BERTH_PLUGIN_PATH="$plugin_path" BERTH_COORDINATOR="$address" BERTH_NODE_ID="$id" \
    BERTH_NUM_NODES=2 BERTH_LOG=debug "$@" timeout 60 "$berth" run "$program" --json > "$work/node$id.out" 2> "$work/node$id.err"
}
run_node "$a" 0 &
node0=$!
run_node "$b" 1 BERTH_NODE_INTERFACE="${tag}y" &
node1=$!
wait "$node0"; rc0=$?
wait "$node1"; rc1=$?

status=0
for id in 0 1; do
  rc=rc$id
  if [ "${!rc}" -ne 0 ] || ! python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); sys.exit(0 if r["results"][0]["data"] == [1] else 1)' "$work/node$id.out"; then
    echo "FAIL: node $id (exit ${!rc}):"; cat "$work/node$id.out" "$work/node$id.err"; status=1
  fi
done
# Each node is reached at its own namespace's address, not loopback.
grep -q "node 0 is reached at 10.231.0.1" "$work/node0.err" || { echo "FAIL: node 0's address"; cat "$work/node0.err"; status=1; }
grep -q "node 1 is reached at 10.231.0.2" "$work/node1.err" || { echo "FAIL: node 1's address"; cat "$work/node1.err"; status=1; }
[ $status -eq 0 ] && echo "PASS: 2 nodes on 10.231.0.1 and 10.231.0.2 all-reduced (node 0 by route, node 1 by interface)"

# A node lost while the other waits for it in a collective: killed (SIGKILL),
# then its link cut. Replica 1 counts to 10^8 before the all-reduce, replica
# 0 goes straight there; the coordinator (2 s heartbeat timeout) must declare
# node 1 dead and node 0 fail naming it and its address, within the timeout
# + 5 s; with the link cut, node 1 must give up too. Nothing stays running.
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
  kill "$coordinator" 2>/dev/null; wait "$coordinator" 2>/dev/null
  ip -n "$b" link set "${tag}y" up
  ip netns exec "$a" "$berth" coordinator --listen 10.231.0.1:0 --nodes 2 --heartbeat-timeout 2 > "$work/coordinator.out" 2>&1 &
  coordinator=$!
  address=""
  for _ in $(seq 100); do
    address=$(sed -n 's/.*listening on \([^ ]*\).*/\1/p' "$work/coordinator.out" | head -1)
    [ -n "$address" ] && break
    sleep 0.1
  done
  program=$work/wait.mlir
  run_node "$a" 0 &
  local n0=$!
  run_node "$b" 1 &
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
    ip netns pids "$b" | xargs -r kill -9
  else
    ip -n "$b" link set "${tag}y" down
  fi
  wait "$n0"; local r0=$?
  local took=$((SECONDS - start))
  if [ "$r0" -eq 0 ] || ! grep -q "node 1 at 10.231.0.2" "$work/node0.err" || [ "$took" -gt 7 ]; then
    echo "FAIL ($how): node 0 exited $r0 after ${took}s:"; cat "$work/node0.err"; status=1
  else
    echo "PASS ($how): node 0 failed after ${took}s: $(grep -o 'node 1 at 10.231.0.2[^;]*' "$work/node0.err" | head -1)"
  fi
  # Node 1 is gone (killed) or gives up (cut off); none is left running.
  local waited=0
  while kill -0 "$n1" 2>/dev/null && [ $waited -lt 40 ]; do sleep 0.5; waited=$((waited + 1)); done
  if kill -0 "$n1" 2>/dev/null; then
    echo "FAIL ($how): node 1 still runs 20 s later"; status=1
  fi
}
lose_node kill
lose_node link
exit $status
