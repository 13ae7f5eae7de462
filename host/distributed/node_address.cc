#include "distributed/node_address.hpp"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <memory>
#include <set>

namespace berth::distributed {
namespace {

// The numeric text of a socket address (no port).
std::string AddressText(const sockaddr* address) {
  char text[INET6_ADDRSTRLEN] = {};
  if (address->sa_family == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(address)->sin_addr, text, sizeof(text));
  } else if (address->sa_family == AF_INET6) {
    inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(address)->sin6_addr, text, sizeof(text));
  }
  return text;
}

// "host:port", "[v6]:port" -> host and port.
Status SplitHostPort(std::string_view host_port, std::string& host, std::string& port) {
  const size_t colon = host_port.rfind(':');
  if (colon == std::string_view::npos || colon + 1 == host_port.size()) {
    return InvalidArgumentError("'" + std::string(host_port) + "' is not HOST:PORT");
  }
  host = std::string(host_port.substr(0, colon));
  port = std::string(host_port.substr(colon + 1));
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  if (host.empty()) return InvalidArgumentError("'" + std::string(host_port) + "' names no host");
  return OkStatus();
}

bool IsIpAddress(const std::string& text) {
  in_addr v4;
  in6_addr v6;
  return inet_pton(AF_INET, text.c_str(), &v4) == 1 || inet_pton(AF_INET6, text.c_str(), &v6) == 1;
}

}  // namespace

Result<std::string> LocalAddressTowards(std::string_view host_port) {
  std::string host, port;
  BERTH_RETURN_IF_ERROR(SplitHostPort(host_port, host, port));
  addrinfo hints{};
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* found = nullptr;
  if (int rc = getaddrinfo(host.c_str(), port.c_str(), &hints, &found); rc != 0) {
    return UnavailableError("cannot resolve the coordinator '" + std::string(host_port) + "': " + gai_strerror(rc));
  }
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> owned(found, freeaddrinfo);
  std::string last_error;
  for (const addrinfo* a = found; a != nullptr; a = a->ai_next) {
    int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    sockaddr_storage local{};
    socklen_t size = sizeof(local);
    const bool ok = connect(fd, a->ai_addr, a->ai_addrlen) == 0 &&
                    getsockname(fd, reinterpret_cast<sockaddr*>(&local), &size) == 0;
    if (!ok) last_error = std::strerror(errno);
    close(fd);
    if (ok) return AddressText(reinterpret_cast<const sockaddr*>(&local));
  }
  return UnavailableError("no route from this host to the coordinator '" + std::string(host_port) + "'" +
                          (last_error.empty() ? std::string() : ": " + last_error) + "; set " + kEnvNodeAddress +
                          " or " + kEnvNodeInterface);
}

Result<std::string> InterfaceAddress(std::string_view name) {
  ifaddrs* list = nullptr;
  if (getifaddrs(&list) != 0) return UnavailableError(std::string("getifaddrs: ") + std::strerror(errno));
  std::unique_ptr<ifaddrs, decltype(&freeifaddrs)> owned(list, freeifaddrs);
  std::string v6;
  std::set<std::string> names;
  for (const ifaddrs* i = list; i != nullptr; i = i->ifa_next) {
    if (i->ifa_addr == nullptr || i->ifa_name == nullptr) continue;
    const int family = i->ifa_addr->sa_family;
    if (family != AF_INET && family != AF_INET6) continue;
    names.insert(i->ifa_name);
    if (name != i->ifa_name) continue;
    if (family == AF_INET) return AddressText(i->ifa_addr);
    const auto* a6 = reinterpret_cast<const sockaddr_in6*>(i->ifa_addr);
    if (v6.empty() && !IN6_IS_ADDR_LINKLOCAL(&a6->sin6_addr)) v6 = AddressText(i->ifa_addr);
  }
  if (!v6.empty()) return v6;
  std::string known;
  for (const std::string& n : names) known += (known.empty() ? "" : ", ") + n;
  return NotFoundError(std::string(kEnvNodeInterface) + "=" + std::string(name) +
                       ": no such interface with an IP address (interfaces with one: " +
                       (known.empty() ? std::string("none") : known) + ")");
}

Result<std::string> ResolveNodeAddress(const common::EnvReader& env, std::string_view coordinator) {
  if (std::optional<std::string> address = env(kEnvNodeAddress); address && !address->empty()) {
    std::string text = *address;
    if (text.size() >= 2 && text.front() == '[' && text.back() == ']') text = text.substr(1, text.size() - 2);
    if (!IsIpAddress(text)) {
      return InvalidArgumentError(std::string(kEnvNodeAddress) + "=" + *address +
                                  " is not an IP address (IPv4 such as 10.0.0.2, or IPv6)");
    }
    return text;
  }
  if (std::optional<std::string> name = env(kEnvNodeInterface); name && !name->empty()) {
    return InterfaceAddress(*name);
  }
  return LocalAddressTowards(coordinator);
}

}  // namespace berth::distributed
