#include "cpu/distributed/ring_all_gather.hpp"

#include <gloo/context.h>
#include <gloo/transport/unbound_buffer.h>
#include <gloo/types.h>

#include <cstring>
#include <memory>

namespace berth::cpu {
namespace {

// Slot prefix of these messages (ring_all_reduce.cc uses 0x42, Gloo's own
// algorithms 0x01..0x08).
constexpr uint8_t kAllGatherSlotPrefix = 0x44;

}  // namespace

Status RingAllGather(gloo::Context& context, const RingAllGatherArgs& args) {
  const int size = context.size, rank = context.rank;
  if (args.sizes.size() != static_cast<size_t>(size)) {
    return InternalError("ring all-gather: " + std::to_string(args.sizes.size()) + " sizes for " +
                         std::to_string(size) + " ranks");
  }
  std::vector<size_t> offsets(args.sizes.size() + 1, 0);
  for (size_t r = 0; r < args.sizes.size(); ++r) offsets[r + 1] = offsets[r] + args.sizes[r];
  auto* out = static_cast<std::byte*>(args.out);
  const size_t own = offsets[static_cast<size_t>(rank)];
  if (args.sizes[static_cast<size_t>(rank)] > 0 && out + own != args.mine) {
    std::memcpy(out + own, args.mine, args.sizes[static_cast<size_t>(rank)]);
  }
  if (size == 1 || offsets.back() == 0) return OkStatus();
  std::unique_ptr<gloo::transport::UnboundBuffer> buffer =
      context.createUnboundBuffer(out, offsets.back());
  WaitAborter::Scope scope(args.aborter, {buffer.get()});
  BERTH_RETURN_IF_ERROR(scope.status());
  const uint64_t slot = gloo::Slot::build(kAllGatherSlotPrefix, args.tag);
  const int right = (rank + 1) % size, left = (rank + size - 1) % size;
  auto aborted = [&] {
    if (args.aborter != nullptr && !args.aborter->reason().ok()) return args.aborter->reason();
    return InternalError("ring all-gather: a wait was aborted");
  };
  for (int s = 0; s + 1 < size; ++s) {
    const size_t send = static_cast<size_t>((rank - s + size) % size);
    const size_t recv = static_cast<size_t>((rank - s - 1 + 2 * size) % size);
    const bool sending = args.sizes[send] > 0, receiving = args.sizes[recv] > 0;
    if (receiving) buffer->recv(left, slot, offsets[recv], args.sizes[recv]);
    if (sending) buffer->send(right, slot, offsets[send], args.sizes[send]);
    if (receiving && !buffer->waitRecv(args.timeout)) return aborted();
    if (sending && !buffer->waitSend(args.timeout)) return aborted();
  }
  return OkStatus();
}

}  // namespace berth::cpu
