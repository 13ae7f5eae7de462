#include "cpu/distributed/ring_all_reduce.hpp"

#include <gloo/context.h>
#include <gloo/transport/unbound_buffer.h>
#include <gloo/types.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace berth::cpu {
namespace {

// Slot prefix of these messages; Gloo's own algorithms use 0x01..0x08.
constexpr uint8_t kRingSlotPrefix = 0x42;

// Element range [begin, end) of chunk `c` of `count` elements split `parts` ways.
struct Range {
  size_t begin;
  size_t end;
};
Range Chunk(size_t count, int parts, int c) {
  auto at = [&](int k) { return count * static_cast<size_t>(k) / static_cast<size_t>(parts); };
  return {at(c), at(c + 1)};
}

class Ring {
 public:
  Ring(gloo::Context& context, const RingAllReduceArgs& args)
      : args_(args),
        size_(context.size),
        rank_(context.rank),
        right_((context.rank + 1) % context.size),
        left_((context.rank + context.size - 1) % context.size),
        bytes_(args.count * args.element_size),
        in_(static_cast<std::byte*>(const_cast<void*>(args.in))),
        out_(static_cast<std::byte*>(args.out)),
        slot_(gloo::Slot::build(kRingSlotPrefix, args.tag)) {
    const size_t elements = std::max<size_t>(1, args.segment_bytes / args.element_size);
    segment_bytes_ = elements * args.element_size;
    out_buffer_ = context.createUnboundBuffer(out_, bytes_);
    if (in_ != out_) {
      in_buffer_ = context.createUnboundBuffer(in_, bytes_);
    } else {
      // In place, what arrives cannot land on the input it is reduced with.
      size_t largest = 0;
      for (int c = 0; c < size_; ++c) {
        Range r = Chunk(args.count, size_, c);
        largest = std::max(largest, (r.end - r.begin) * args.element_size);
      }
      scratch_.resize(largest);
      scratch_buffer_ = context.createUnboundBuffer(scratch_.data(), scratch_.size());
    }
  }

  Status Run() {
    WaitAborter::Scope scope(args_.aborter,
                             {out_buffer_.get(), in_buffer_.get(), scratch_buffer_.get()});
    BERTH_RETURN_IF_ERROR(scope.status());
    // Reduce-scatter: at step s, send chunk r-s (the input at first, then
    // what was reduced at step s-1) and reduce chunk r-s-1. Afterwards this
    // rank holds chunk r+1 fully reduced.
    for (int s = 0; s + 1 < size_ && args_.phases != RingPhases::kAllGather; ++s) {
      const int send = Mod(rank_ - s), recv = Mod(rank_ - s - 1);
      gloo::transport::UnboundBuffer& source = s == 0 && in_buffer_ ? *in_buffer_ : *out_buffer_;
      BERTH_RETURN_IF_ERROR(Step(source, send, recv, /*reduce=*/true));
    }
    // All-gather: pass the reduced chunks around the ring.
    for (int s = 0; s + 1 < size_ && args_.phases != RingPhases::kReduceScatter; ++s) {
      BERTH_RETURN_IF_ERROR(Step(*out_buffer_, Mod(rank_ + 1 - s), Mod(rank_ - s), false));
    }
    return OkStatus();
  }

 private:
  int Mod(int k) const { return ((k % size_) + size_) % size_; }

  // Segments of chunk `c`: byte offset and length of each.
  std::vector<Range> Segments(int c) const {
    Range chunk = Chunk(args_.count, size_, c);
    std::vector<Range> out;
    const size_t end = chunk.end * args_.element_size;
    for (size_t at = chunk.begin * args_.element_size; at < end; at += segment_bytes_) {
      out.push_back({at, std::min(end, at + segment_bytes_)});
    }
    return out;
  }

  Status Step(gloo::transport::UnboundBuffer& source, int send_chunk, int recv_chunk,
              bool reduce) {
    const std::vector<Range> sends = Segments(send_chunk);
    const std::vector<Range> recvs = Segments(recv_chunk);
    // Received bytes land where they are needed: in the output, or in the
    // scratch (at the segment's place within the chunk) when reducing in place.
    const bool via_scratch = reduce && scratch_buffer_ != nullptr;
    gloo::transport::UnboundBuffer& target = via_scratch ? *scratch_buffer_ : *out_buffer_;
    const size_t chunk_start = recvs.empty() ? 0 : recvs.front().begin;
    auto target_offset = [&](const Range& r) { return via_scratch ? r.begin - chunk_start : r.begin; };
    for (const Range& r : recvs) target.recv(left_, slot_, target_offset(r), r.end - r.begin);
    for (const Range& r : sends) source.send(right_, slot_, r.begin, r.end - r.begin);
    for (const Range& r : recvs) {
      if (!target.waitRecv(args_.timeout)) return Aborted("receive");
      if (!reduce) continue;
      const size_t n = (r.end - r.begin) / args_.element_size;
      const std::byte* arrived = via_scratch ? scratch_.data() + target_offset(r) : out_ + r.begin;
      args_.reduce(out_ + r.begin, in_ + r.begin, arrived, n);
    }
    for (size_t i = 0; i < sends.size(); ++i) {
      if (!source.waitSend(args_.timeout)) return Aborted("send");
    }
    return OkStatus();
  }

  Status Aborted(const char* what) const {
    if (args_.aborter != nullptr && !args_.aborter->reason().ok()) return args_.aborter->reason();
    return InternalError(std::string("ring all-reduce: a ") + what + " was aborted");
  }

  const RingAllReduceArgs& args_;
  const int size_, rank_, right_, left_;
  const size_t bytes_;
  std::byte* const in_;
  std::byte* const out_;
  const uint64_t slot_;
  size_t segment_bytes_ = 0;
  std::unique_ptr<gloo::transport::UnboundBuffer> out_buffer_, in_buffer_, scratch_buffer_;
  std::vector<std::byte> scratch_;
};

}  // namespace

RingRange RingShare(size_t count, int size, int rank) {
  Range chunk = Chunk(count, size, (rank + 1) % size);
  return {chunk.begin, chunk.end};
}

Status RingAllReduce(gloo::Context& context, const RingAllReduceArgs& args) {
  if (args.element_size == 0) return InvalidArgumentError("ring all-reduce: element size 0");
  const size_t bytes = args.count * args.element_size;
  if (context.size == 1 || bytes == 0) {
    if (args.in != args.out && bytes > 0) std::memcpy(args.out, args.in, bytes);
    return OkStatus();
  }
  return Ring(context, args).Run();
}

}  // namespace berth::cpu
