// The address other nodes of a job reach this process at, which it publishes
// for them (the cpu plugin's Gloo connections, any plugin's transport):
//
//   BERTH_NODE_ADDRESS     an IP address, taken as given (IPv4, or IPv6 with
//                          or without brackets)
//   BERTH_NODE_INTERFACE   an interface name: its first IPv4 address, else its
//                          first global IPv6 one (Gloo's and NCCL's
//                          *_SOCKET_IFNAME, for hosts with several networks)
//   neither                the local address of the route to the coordinator:
//                          the interface this host reaches the job through
//
// A host name is never used: hosts of one cluster (or network namespaces of
// one machine) often share one, and it may resolve to loopback.
#ifndef BERTH_HOST_DISTRIBUTED_NODE_ADDRESS_HPP_
#define BERTH_HOST_DISTRIBUTED_NODE_ADDRESS_HPP_

#include <string>
#include <string_view>

#include "berth/status.hpp"
#include "common/env.hpp"

namespace berth::distributed {

inline constexpr char kEnvNodeAddress[] = "BERTH_NODE_ADDRESS";
inline constexpr char kEnvNodeInterface[] = "BERTH_NODE_INTERFACE";

// This node's address, as above; `coordinator` is the job's HOST:PORT
// ("[v6]:PORT" for IPv6). Errors name the variable or the coordinator and
// what to set.
Result<std::string> ResolveNodeAddress(const common::EnvReader& env, std::string_view coordinator);

// The local address a connection to `host_port` would leave from (no packet
// is sent: a UDP socket is connected and asked its name).
Result<std::string> LocalAddressTowards(std::string_view host_port);

// The address of interface `name` (first IPv4, else first non-link-local
// IPv6); NOT_FOUND listing the interfaces that have an address.
Result<std::string> InterfaceAddress(std::string_view name);

}  // namespace berth::distributed

#endif  // BERTH_HOST_DISTRIBUTED_NODE_ADDRESS_HPP_
