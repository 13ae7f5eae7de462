# Test hosts as network namespaces (sourced by the netns_*_test.sh scripts):
# a "switch" namespace holding a bridge, and hosts each in a namespace of its
# own with eth0 on that bridge and its own address. Every namespace's name
# starts with $netns_tag; netns_cleanup kills what runs in them and removes
# them. Needs root (CAP_SYS_ADMIN) and iproute2: netns_setup exits 77 (a
# skip) where namespaces cannot be made.

netns_tag="berth$$"
netns_switch="${netns_tag}sw"

netns_skip() { echo "SKIP: $*"; exit 77; }

netns_setup() {
  command -v ip >/dev/null || netns_skip "no 'ip' command (Debian iproute2)"
  ip netns add "$netns_switch" 2>/dev/null || netns_skip "cannot create network namespaces here (needs root / CAP_SYS_ADMIN)"
  ip -n "$netns_switch" link add br0 type bridge
  ip -n "$netns_switch" link set br0 up
}

# netns_host INDEX ADDRESS/PREFIX [BRIDGE]: namespace ${netns_tag}hINDEX,
# eth0 on the bridge (br0 unless named).
netns_host() {
  local ns="${netns_tag}h$1" outer="${netns_tag}p$1" inner="${netns_tag}q$1" bridge=${3:-br0}
  ip netns add "$ns" || return 1
  ip link add "$inner" type veth peer name "$outer" || return 1
  ip link set "$inner" netns "$ns"
  ip -n "$ns" link set "$inner" name eth0
  ip link set "$outer" netns "$netns_switch"
  ip -n "$netns_switch" link set "$outer" master "$bridge" up
  ip -n "$ns" addr add "$2" dev eth0
  ip -n "$ns" link set eth0 up
  ip -n "$ns" link set lo up
}

# netns_slow_link BRIDGE RATE: a second bridge (the hosts of another "slice"
# attach to it) joined to br0 by one link limited to RATE (tc's units, e.g.
# 1gbit) each way: a token bucket on both ends of a veth pair. The kernel here
# has tbf but not netem, so the link is slow, not distant.
netns_slow_link() {
  local bridge=$1 rate=$2 end
  command -v tc >/dev/null || netns_skip "no 'tc' command (Debian iproute2)"
  ip -n "$netns_switch" link add "$bridge" type bridge
  ip -n "$netns_switch" link set "$bridge" up
  ip -n "$netns_switch" link add slowa type veth peer name slowb
  ip -n "$netns_switch" link set slowa master br0 up
  ip -n "$netns_switch" link set slowb master "$bridge" up
  for end in slowa slowb; do
    tc -n "$netns_switch" qdisc add dev "$end" root tbf rate "$rate" burst 256kb latency 100ms ||
      netns_skip "no tbf queueing discipline in this kernel"
  done
}

netns_cleanup() {
  local ns
  for ns in $(ip netns list 2>/dev/null | grep -o "^${netns_tag}[a-z0-9]*"); do
    ip netns pids "$ns" 2>/dev/null | xargs -r kill -9 2>/dev/null
  done
  for ns in $(ip netns list 2>/dev/null | grep -o "^${netns_tag}[a-z0-9]*"); do
    ip netns del "$ns" 2>/dev/null
  done
}

# netns_coordinator HOST_INDEX ADDRESS OUT_FILE [ARGS...]: `berth coordinator`
# on that host; sets coordinator_pid and coordinator_address (HOST:PORT).
netns_coordinator() {
  local host=$1 listen=$2 out=$3
  shift 3
  ip netns exec "${netns_tag}h$host" "$berth" coordinator --listen "$listen:0" "$@" > "$out" 2>&1 &
  coordinator_pid=$!
  coordinator_address=""
  for _ in $(seq 100); do
    coordinator_address=$(sed -n 's/.*listening on \([^ ]*\).*/\1/p' "$out" | head -1)
    [ -n "$coordinator_address" ] && return 0
    sleep 0.1
  done
  echo "FAIL: the coordinator did not start:"; cat "$out"
  return 1
}

# netns_node HOST_INDEX NODE_ID NUM_NODES PROGRAM OUT_PREFIX [VAR=VALUE...]:
# `berth run PROGRAM --json` as that node on that host (stdout to
# OUT_PREFIX.out, stderr to OUT_PREFIX.err, debug log on).
netns_node() {
  local host=$1 id=$2 count=$3 program=$4 out=$5
  shift 5
  netns_node_command "$host" "$id" "$count" "$out" "$@" -- run "$program" --json
}

# netns_node_command HOST_INDEX NODE_ID NUM_NODES OUT_PREFIX [VAR=VALUE...] --
# BERTH_ARGS...: `berth BERTH_ARGS...` as that node on that host, stopped
# after $netns_node_timeout seconds (60 unless set). With $netns_program set,
# that program runs instead of berth.
netns_node_command() {
  local host=$1 id=$2 count=$3 out=$4 vars=()
  shift 4
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do vars+=("$1"); shift; done
  shift
  ip netns exec "${netns_tag}h$host" env BERTH_PLUGIN_PATH="$plugin_path" BERTH_COORDINATOR="$coordinator_address" \
    BERTH_NODE_ID="$id" BERTH_NUM_NODES="$count" BERTH_LOG=debug "${vars[@]}" \
    timeout "${netns_node_timeout:-60}" "${netns_program:-$berth}" "$@" > "$out.out" 2> "$out.err"
}
