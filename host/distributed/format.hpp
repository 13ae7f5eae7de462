// Small text helpers shared by the coordination service, client and launcher
// so their messages read alike. Internal to host/distributed.
#ifndef BERTH_HOST_DISTRIBUTED_FORMAT_HPP_
#define BERTH_HOST_DISTRIBUTED_FORMAT_HPP_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "distributed/clock.hpp"

namespace berth::distributed {

// "10.0 s", "0.25 s", "0.001 s": seconds with one decimal, more below 1 s.
std::string FormatSeconds(Duration duration);

// "4.0 MiB", "512 bytes".
std::string FormatBytes(uint64_t bytes);

// "0x1f2e3d4c5b6a7988": how incarnation ids appear in messages.
std::string FormatIncarnation(uint64_t incarnation);

// A key or id in single quotes, control and non-ASCII bytes escaped as \xNN,
// cut after 80 bytes with the full length added, so messages stay short even
// for 4 KiB binary keys.
std::string Quote(std::string_view text);

// "node 3" or "nodes 1, 3" (sorted as given).
std::string FormatNodeList(const std::vector<int>& nodes);

// Whole milliseconds, rounded up, clamped to [0, ~292 years].
int64_t ToMillisCeil(Duration duration);

}  // namespace berth::distributed

#endif  // BERTH_HOST_DISTRIBUTED_FORMAT_HPP_
