// Every operation of a communicator (berth/communicator.hpp) on every element
// type the plugin lists, checked bit for bit against a reference computed
// here. Inputs are seeded and depend on (operation, type, rank, element)
// only, so every process of a job knows every rank's input and checks its
// own ranks' outputs. Values are small integers (exact in every type, so
// that any order of summing gives the same bits), wrapped to the type's
// width as the plugin's integer arithmetic does. Element counts straddle
// vector widths (1, 3, 17, 69 per rank). Used by collectives_test (one
// process) and collectives_node (each process of a job).
#ifndef BERTH_TESTS_SUPPORT_COLLECTIVE_CHECKS_HPP_
#define BERTH_TESTS_SUPPORT_COLLECTIVE_CHECKS_HPP_

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "berth/berth.hpp"

namespace berth::testing {

struct CollectiveCheckResult {
  int checked = 0;                    // outputs compared
  std::vector<std::string> failures;  // one line each
};

namespace collective_checks {

inline uint64_t SplitMix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

inline bool IsUnsigned(ElementType t) {
  return t == ElementType::kU8 || t == ElementType::kU16 || t == ElementType::kU32 ||
         t == ElementType::kU64;
}

// Input value of `rank` at `element` for operation `op` on `type`.
inline int64_t Value(uint64_t seed, int op, ElementType type, int64_t rank, int64_t element,
                     ReduceOp reduce) {
  const uint64_t h = SplitMix(
      seed ^ SplitMix((static_cast<uint64_t>(op) << 48) ^ (static_cast<uint64_t>(type) << 40) ^
                      (static_cast<uint64_t>(rank) << 24) ^ static_cast<uint64_t>(element)));
  if (type == ElementType::kPred) return (h % 4) != 0 ? 1 : 0;
  if (reduce == ReduceOp::kProduct) {
    static constexpr int64_t kSigned[] = {-2, -1, 1, 2};
    return IsUnsigned(type) ? 1 + static_cast<int64_t>(h % 2) : kSigned[h % 4];
  }
  return IsUnsigned(type) ? static_cast<int64_t>(h % 9) : static_cast<int64_t>(h % 9) - 4;
}

inline int64_t Reduce(ElementType type, ReduceOp op, int64_t a, int64_t b) {
  if (type == ElementType::kPred) {
    return (op == ReduceOp::kSum || op == ReduceOp::kMax) ? (a | b) : (a & b);
  }
  switch (op) {
    case ReduceOp::kSum: return a + b;
    case ReduceOp::kProduct: return a * b;
    case ReduceOp::kMin: return std::min(a, b);
    case ReduceOp::kMax: return std::max(a, b);
  }
  return 0;
}

// f16 bits of an integer of magnitude at most 2048 (exact).
inline uint16_t HalfBits(int64_t v) {
  if (v == 0) return 0;
  const uint16_t sign = v < 0 ? 0x8000 : 0;
  const uint64_t m = static_cast<uint64_t>(v < 0 ? -v : v);
  const int e = 63 - std::countl_zero(m);
  const uint16_t mantissa = static_cast<uint16_t>(((m << 10) >> e) & 0x3ff);
  return static_cast<uint16_t>(sign | ((e + 15) << 10) | mantissa);
}

// Appends the bytes of `v` as one element of `type` (integers wrapped).
inline void Encode(ElementType type, int64_t v, std::vector<std::byte>& out) {
  auto put = [&](const void* p, size_t n) {
    const auto* b = static_cast<const std::byte*>(p);
    out.insert(out.end(), b, b + n);
  };
  switch (type) {
    case ElementType::kPred: {
      uint8_t x = v != 0;
      put(&x, 1);
      break;
    }
    case ElementType::kF32: {
      float x = static_cast<float>(v);
      put(&x, 4);
      break;
    }
    case ElementType::kF64: {
      double x = static_cast<double>(v);
      put(&x, 8);
      break;
    }
    case ElementType::kBF16: {
      float f = static_cast<float>(v);
      uint32_t bits;
      std::memcpy(&bits, &f, 4);
      uint16_t x = static_cast<uint16_t>(bits >> 16);
      put(&x, 2);
      break;
    }
    case ElementType::kF16: {
      uint16_t x = HalfBits(v);
      put(&x, 2);
      break;
    }
    default: {
      const uint64_t u = static_cast<uint64_t>(v);
      put(&u, ElementTypeByteSize(type));  // little-endian: the low bytes
    }
  }
}

inline std::vector<std::byte> Encode(ElementType type, const std::vector<int64_t>& values) {
  std::vector<std::byte> out;
  for (int64_t v : values) Encode(type, v, out);
  return out;
}

}  // namespace collective_checks

// Runs every operation of `comm` (all of its ranks call them) on every type
// the plugin lists, for the ranks this process holds.
inline CollectiveCheckResult CheckEveryCollective(const Client& client, const Communicator& comm,
                                                  uint64_t seed) {
  namespace cc = collective_checks;
  CollectiveCheckResult result;
  const int64_t n = comm.size();
  Result<std::vector<ElementType>> types = client.CollectiveElementTypes();
  if (!types.ok()) {
    result.failures.push_back("element types: " + types.status().ToString());
    return result;
  }
  auto fail = [&](const std::string& what, const Status& status) {
    result.failures.push_back(what + ": " + status.ToString());
  };
  // Every rank's input of operation `op` (`count` elements per rank).
  auto input = [&](int op, ElementType type, int64_t rank, int64_t count, ReduceOp reduce) {
    std::vector<int64_t> values(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i)
      values[static_cast<size_t>(i)] = cc::Value(seed, op, type, rank, i, reduce);
    return values;
  };
  static constexpr int64_t kCounts[] = {1, 3, 17, 69};
  int op = 0;
  for (ElementType type : *types) {
    const std::string type_name(ElementTypeName(type));
    // One output of one rank: compared with `expected` (values).
    auto check = [&](const std::string& what, int64_t rank, Result<CollectiveOutput> out,
                     const std::vector<int64_t>& expected, const std::vector<int64_t>& dims) {
      const std::string label = what + " " + type_name + " rank " + std::to_string(rank);
      if (!out.ok()) return fail(label, out.status());
      if (Status s = out->done.Await(); !s.ok()) return fail(label, s);
      Result<std::vector<std::byte>> bytes = out->output.ToHostBytes();
      if (!bytes.ok()) return fail(label, bytes.status());
      ++result.checked;
      if (out->output.element_type() != type || out->output.dims() != dims) {
        result.failures.push_back(label + ": output of another type or dims");
      } else if (*bytes != cc::Encode(type, expected)) {
        result.failures.push_back(label + ": output differs from the reference");
      }
    };
    // Makes each local rank's input buffer.
    auto buffers = [&](int op_id, int64_t count, ReduceOp reduce, std::vector<int64_t> dims) {
      std::vector<std::optional<Buffer>> made(static_cast<size_t>(n));
      for (int64_t r : comm.local_ranks()) {
        std::vector<std::byte> bytes = cc::Encode(type, input(op_id, type, r, count, reduce));
        Result<Device> device = client.LookupDevice(comm.device_ids()[static_cast<size_t>(r)]);
        if (!device.ok()) {
          fail("device", device.status());
          continue;
        }
        Result<Buffer> buffer = client.BufferFromHost(bytes.data(), type, dims, *device);
        if (!buffer.ok()) {
          fail("buffer", buffer.status());
          continue;
        }
        made[static_cast<size_t>(r)] = std::move(buffer).value();
      }
      return made;
    };
    // all_reduce and reduce_scatter, each reduction.
    for (ReduceOp reduce : {ReduceOp::kSum, ReduceOp::kProduct, ReduceOp::kMin, ReduceOp::kMax}) {
      const int64_t k = kCounts[static_cast<size_t>(op) % 4];
      const int id = ++op;
      auto in = buffers(id, k, reduce, {k});
      std::vector<Result<CollectiveOutput>> outs;
      for (int64_t r : comm.local_ranks()) {
        if (in[static_cast<size_t>(r)])
          outs.push_back(comm.AllReduce(r, *in[static_cast<size_t>(r)], reduce));
      }
      std::vector<int64_t> expected = input(id, type, 0, k, reduce);
      for (int64_t r = 1; r < n; ++r) {
        std::vector<int64_t> v = input(id, type, r, k, reduce);
        for (size_t i = 0; i < expected.size(); ++i)
          expected[i] = cc::Reduce(type, reduce, expected[i], v[i]);
      }
      size_t at = 0;
      for (int64_t r : comm.local_ranks()) {
        if (at < outs.size()) check("all_reduce", r, std::move(outs[at++]), expected, {k});
      }
      // reduce_scatter over n blocks of 2 x k elements (rows of 2).
      const int rs = ++op;
      auto rs_in = buffers(rs, n * k * 2, reduce, {n * k, 2});
      std::vector<Result<CollectiveOutput>> rs_outs;
      for (int64_t r : comm.local_ranks()) {
        if (rs_in[static_cast<size_t>(r)])
          rs_outs.push_back(comm.ReduceScatter(r, *rs_in[static_cast<size_t>(r)], reduce));
      }
      std::vector<int64_t> total = input(rs, type, 0, n * k * 2, reduce);
      for (int64_t r = 1; r < n; ++r) {
        std::vector<int64_t> v = input(rs, type, r, n * k * 2, reduce);
        for (size_t i = 0; i < total.size(); ++i)
          total[i] = cc::Reduce(type, reduce, total[i], v[i]);
      }
      at = 0;
      for (int64_t r : comm.local_ranks()) {
        std::vector<int64_t> block(total.begin() + r * k * 2, total.begin() + (r + 1) * k * 2);
        if (at < rs_outs.size())
          check("reduce_scatter", r, std::move(rs_outs[at++]), block, {k, 2});
      }
    }
    const int64_t k = kCounts[static_cast<size_t>(op) % 4];
    // all_gather of [k, 2] per rank.
    {
      const int id = ++op;
      auto in = buffers(id, k * 2, ReduceOp::kSum, {k, 2});
      std::vector<Result<CollectiveOutput>> outs;
      for (int64_t r : comm.local_ranks()) {
        if (in[static_cast<size_t>(r)])
          outs.push_back(comm.AllGather(r, *in[static_cast<size_t>(r)]));
      }
      std::vector<int64_t> expected;
      for (int64_t r = 0; r < n; ++r) {
        std::vector<int64_t> v = input(id, type, r, k * 2, ReduceOp::kSum);
        expected.insert(expected.end(), v.begin(), v.end());
      }
      size_t at = 0;
      for (int64_t r : comm.local_ranks()) {
        if (at < outs.size()) check("all_gather", r, std::move(outs[at++]), expected, {n * k, 2});
      }
    }
    // all_to_all of n blocks of k.
    {
      const int id = ++op;
      auto in = buffers(id, n * k, ReduceOp::kSum, {n * k});
      std::vector<Result<CollectiveOutput>> outs;
      for (int64_t r : comm.local_ranks()) {
        if (in[static_cast<size_t>(r)])
          outs.push_back(comm.AllToAll(r, *in[static_cast<size_t>(r)]));
      }
      size_t at = 0;
      for (int64_t r : comm.local_ranks()) {
        std::vector<int64_t> expected;
        for (int64_t j = 0; j < n; ++j) {
          std::vector<int64_t> v = input(id, type, j, n * k, ReduceOp::kSum);
          expected.insert(expected.end(), v.begin() + r * k, v.begin() + (r + 1) * k);
        }
        if (at < outs.size()) check("all_to_all", r, std::move(outs[at++]), expected, {n * k});
      }
    }
    // broadcast from the last rank; collective_permute r -> r + 1 (rank 0 gets zeros).
    {
      const int id = ++op;
      auto in = buffers(id, k, ReduceOp::kSum, {k});
      std::vector<std::pair<int64_t, int64_t>> pairs;
      for (int64_t r = 0; r + 1 < n; ++r) pairs.emplace_back(r, r + 1);
      std::vector<Result<CollectiveOutput>> casts, permutes;
      for (int64_t r : comm.local_ranks()) {
        if (!in[static_cast<size_t>(r)]) continue;
        casts.push_back(comm.Broadcast(r, *in[static_cast<size_t>(r)], n - 1));
        permutes.push_back(comm.CollectivePermute(r, *in[static_cast<size_t>(r)], pairs));
      }
      size_t at = 0;
      for (int64_t r : comm.local_ranks()) {
        if (at >= casts.size()) break;
        check("broadcast", r, std::move(casts[at]), input(id, type, n - 1, k, ReduceOp::kSum), {k});
        check("collective_permute", r, std::move(permutes[at++]),
              r == 0 ? std::vector<int64_t>(static_cast<size_t>(k), 0)
                     : input(id, type, r - 1, k, ReduceOp::kSum),
              {k});
      }
    }
    // send to the next rank, recv from the one before (the sends first).
    {
      const int id = ++op;
      auto in = buffers(id, k, ReduceOp::kSum, {k});
      std::vector<Result<Event>> sends;
      std::vector<Result<CollectiveOutput>> recvs;
      const std::vector<int64_t> dims = {k};
      for (int64_t r : comm.local_ranks()) {
        if (in[static_cast<size_t>(r)])
          sends.push_back(comm.Send(r, *in[static_cast<size_t>(r)], (r + 1) % n));
      }
      for (int64_t r : comm.local_ranks())
        recvs.push_back(comm.Recv(r, (r + n - 1) % n, type, dims));
      for (Result<Event>& send : sends) {
        Status status = send.ok() ? send->Await() : send.status();
        if (!status.ok()) fail("send " + type_name, status);
      }
      size_t at = 0;
      for (int64_t r : comm.local_ranks()) {
        check("recv", r, std::move(recvs[at++]),
              input(id, type, (r + n - 1) % n, k, ReduceOp::kSum), dims);
      }
    }
  }
  return result;
}

}  // namespace berth::testing

#endif  // BERTH_TESTS_SUPPORT_COLLECTIVE_CHECKS_HPP_
