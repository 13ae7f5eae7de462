// stablehlo.rng_bit_generator as a generated kernel giving the cpu plugin's
// bits (plugins/cpu/interpreter/kernels_rng.cc describes the layout: XLA's
// THREE_FRY and PHILOX counter schemes). Each thread runs the generator for
// one counter - THREE_FRY one 2x32 block, PHILOX one 4x32 block - and
// writes the elements that block gives; thread 0 also writes the new state.
// The state is read from device memory by every thread: nothing is read on
// the host.
#include <algorithm>

#include "codegen/kernel_emitters.hpp"

namespace berth::cuda {

using namespace codegen;  // kernel_emitters.hpp

namespace {

// The generators, written from the cpu plugin's description of them.
// (Guarded: a translation unit holding several kernels defines them once.)
constexpr std::string_view kGenerators = R"cuda(
#ifndef BERTH_RANDOM_GENERATORS
#define BERTH_RANDOM_GENERATORS
// Threefry-2x32, 20 rounds, of a 64-bit counter under a 64-bit key.
__device__ __forceinline__ void berth_threefry2x32(berth_u64 key, berth_u64 counter, berth_u32* out) {
  const berth_u32 ks[3] = {(berth_u32)key, (berth_u32)(key >> 32),
                           (berth_u32)key ^ (berth_u32)(key >> 32) ^ 0x1BD11BDAu};
  const int rotations[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  berth_u32 x0 = (berth_u32)counter + ks[0], x1 = (berth_u32)(counter >> 32) + ks[1];
  for (int s = 1; s <= 5; ++s) {
    for (int r = 0; r < 4; ++r) {
      const int d = rotations[((s - 1) % 2) * 4 + r];
      x0 += x1;
      x1 = ((x1 << d) | (x1 >> (32 - d))) ^ x0;
    }
    x0 += ks[s % 3];
    x1 += ks[(s + 1) % 3] + (berth_u32)s;
  }
  out[0] = x0;
  out[1] = x1;
}
// Philox-4x32, 10 rounds, of a 128-bit counter (low, high) under a 64-bit key.
__device__ __forceinline__ void berth_philox4x32(berth_u64 key, berth_u64 low, berth_u64 high, berth_u32* x) {
  berth_u32 k0 = (berth_u32)key, k1 = (berth_u32)(key >> 32);
  x[0] = (berth_u32)low; x[1] = (berth_u32)(low >> 32); x[2] = (berth_u32)high; x[3] = (berth_u32)(high >> 32);
  for (int round = 0; round < 10; ++round) {
    const berth_u64 p0 = (berth_u64)0xD2511F53u * x[0], p1 = (berth_u64)0xCD9E8D57u * x[2];
    const berth_u32 y0 = (berth_u32)(p1 >> 32) ^ x[1] ^ k0, y2 = (berth_u32)(p0 >> 32) ^ x[3] ^ k1;
    x[0] = y0; x[1] = (berth_u32)p1; x[2] = y2; x[3] = (berth_u32)p0;
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
}
#endif
)cuda";

// The algorithm rng_bit_generator runs (DEFAULT is PHILOX, as on the cpu
// plugin and XLA's backends).
stablehlo::RngAlgorithm AlgorithmOf(const Operation& op) {
  const stablehlo::RngAlgorithm algorithm =
      op.rng_algorithm().value_or(stablehlo::RngAlgorithm::kDefault);
  return algorithm == stablehlo::RngAlgorithm::kDefault ? stablehlo::RngAlgorithm::kPhilox
                                                        : algorithm;
}

// 64-bit words of the state.
int64_t StateWords(const Operation& op) {
  const stablehlo::Type state = op.operand(0)->type();
  return state.NumElements() * stablehlo::BitWidth(state.element_type()) / 64;
}

int OutputBits(const Operation& op) {
  return stablehlo::BitWidth(op.result(1)->type().element_type());
}

// THREE_FRY with elements of 32 bits or fewer: the output's dimensions split
// in two along the first even one (else the largest), [outer, size, inner].
struct ThreeFrySplit {
  int64_t outer = 1, size = 1, inner = 1;
  int64_t counters() const { return outer * ((size + 1) / 2) * inner; }
};

ThreeFrySplit SplitOf(std::span<const int64_t> shape) {
  std::vector<int64_t> dims(shape.begin(), shape.end());
  if (dims.empty()) dims = {1};
  size_t split = dims.size();
  for (size_t d = 0; d < dims.size() && split == dims.size(); ++d) {
    if (dims[d] % 2 == 0) split = d;
  }
  if (split == dims.size()) split = std::max_element(dims.begin(), dims.end()) - dims.begin();
  ThreeFrySplit result;
  for (size_t d = 0; d < split; ++d) result.outer *= dims[d];
  for (size_t d = split + 1; d < dims.size(); ++d) result.inner *= dims[d];
  result.size = dims[split];
  return result;
}

// Generator blocks (counters) the op uses: the count the state advances by.
int64_t CountersUsed(const Operation& op) {
  const stablehlo::Type out = op.result(1)->type();
  const int64_t n = out.NumElements();
  if (AlgorithmOf(op) == stablehlo::RngAlgorithm::kThreeFry) {
    return OutputBits(op) == 64 ? n : SplitOf(out.shape()).counters();
  }
  const int64_t per_block = OutputBits(op) == 64 ? 2 : 4;
  return (n + per_block - 1) / per_block;
}

std::string Hex(uint64_t v) {
  static const char* const kDigits = "0123456789abcdef";
  std::string text;
  do {
    text.insert(text.begin(), kDigits[v % 16]);
    v /= 16;
  } while (v != 0);
  return "0x" + text + "ULL";
}

}  // namespace

Status CheckRandomBits(const Operation& op) {
  if (op.kind() != OpKind::kRngBitGenerator || op.num_operands() != 1 || op.num_results() != 2) {
    return Unsupported(op, "not a stablehlo.rng_bit_generator of one state and two results");
  }
  for (const stablehlo::Value* value : {op.operand(0), op.result(0), op.result(1)}) {
    BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, value->type()));
  }
  const stablehlo::Type state = op.operand(0)->type();
  const int width = stablehlo::BitWidth(state.element_type());
  if (state.rank() != 1 || !stablehlo::IsInteger(state.element_type()) ||
      (width != 32 && width != 64) || op.result(0)->type() != state) {
    return InvalidArgumentError(Where(op) +
                                ": initial_state must be a rank-1 tensor of 32- or "
                                "64-bit integers returned as it is typed, is " +
                                state.ToString());
  }
  if (width == 32 && state.NumElements() % 2 != 0) {
    return InvalidArgumentError(Where(op) +
                                ": a 32-bit initial_state needs an even number of "
                                "elements, " +
                                state.ToString() + " has not");
  }
  const int64_t words = StateWords(op);
  if (AlgorithmOf(op) == stablehlo::RngAlgorithm::kThreeFry ? words != 2
                                                            : words != 2 && words != 3) {
    return InvalidArgumentError(Where(op) + ": " +
                                (AlgorithmOf(op) == stablehlo::RngAlgorithm::kThreeFry
                                     ? "THREE_FRY takes a state of 2"
                                     : "PHILOX takes a state of 2 or 3") +
                                " 64-bit words, this one has " + std::to_string(words));
  }
  const int bits = OutputBits(op);
  if (bits != 8 && bits != 16 && bits != 32 && bits != 64) {
    return InvalidArgumentError(Where(op) +
                                ": rng_bit_generator makes 8-, 16-, 32- or 64-bit "
                                "elements, not " +
                                op.result(1)->type().ToString());
  }
  return OkStatus();
}

int64_t RandomBitsThreads(const Operation& op) { return std::max<int64_t>(1, CountersUsed(op)); }

namespace codegen {

Result<std::string> EmitRandomBitsKernel(const FusedKernel& kernel) {
  const Operation& op = *kernel.root;
  BERTH_RETURN_IF_ERROR(CheckRandomBits(op));
  const stablehlo::Type state = op.operand(0)->type(), out = op.result(1)->type();
  const ElementType state_type = state.element_type();
  const bool narrow_state = stablehlo::BitWidth(state_type) == 32;
  const int64_t words = StateWords(op), used = CountersUsed(op);
  const int bits = OutputBits(op);
  const std::string u = "berth_u" + std::to_string(bits);
  std::string params = KernelParams(kernel), body;

  // The state's 64-bit words w0.. (32-bit elements pair up, low first).
  int reads = 0;
  const std::string element_type = ComputeType(state_type);
  for (int64_t e = 0; e < state.NumElements(); ++e) {
    const std::string local = "s" + std::to_string(e);
    body += "    " + element_type + " " + local + ";\n";
    BERTH_RETURN_IF_ERROR(EmitElementLoad(kernel, op.operand(0), {std::to_string(e) + "LL"}, local,
                                          state_type, "    ", reads, body));
  }
  for (int64_t w = 0; w < words; ++w) {
    const std::string k = std::to_string(narrow_state ? 2 * w : w);
    body += "    const berth_u64 w" + std::to_string(w) + " = " +
            (narrow_state ? "(berth_u64)(berth_u32)s" + k + " | (berth_u64)(berth_u32)s" +
                                std::to_string(2 * w + 1) + " << 32"
                          : "(berth_u64)s" + k) +
            ";\n";
  }
  const bool three_fry = AlgorithmOf(op) == stablehlo::RngAlgorithm::kThreeFry;
  // The counter: THREE_FRY's word 1; PHILOX's (word 1, word 2), or (word
  // 1, word 0) for a state of two words. The new state advances it by `used`.
  const std::string high = three_fry ? "0" : words == 3 ? "w2" : "w0";
  body += "    const berth_u64 used = " + Hex(static_cast<uint64_t>(used)) + ";\n";
  body += "    if (i == 0) {\n";
  body +=
      "      berth_u64 next[3] = {w0, w1 + used, " + std::string(words == 3 ? "w2" : "0") + "};\n";
  if (!three_fry && words == 3) body += "      if (next[1] < w1) next[2] += 1;\n";
  const std::string storage = StorageType(state_type);
  for (int64_t w = 0; w < words; ++w) {
    const std::string word = "next[" + std::to_string(w) + "]";
    if (narrow_state) {
      body +=
          "      out0[" + std::to_string(2 * w) + "] = (" + storage + ")(berth_u32)" + word + ";\n";
      body += "      out0[" + std::to_string(2 * w + 1) + "] = (" + storage + ")(berth_u32)(" +
              word + " >> 32);\n";
    } else {
      body += "      out0[" + std::to_string(w) + "] = (" + storage + ")" + word + ";\n";
    }
  }
  body += "    }\n";
  body += "    if (i >= (berth_s64)used) continue;\n";
  body += "    " + u + "* const bits = (" + u + "*)out1;\n";
  if (three_fry) {
    body += "    berth_u32 x[2];\n";
    body += "    berth_threefry2x32(w0, w1 + (berth_u64)i, x);\n";
    if (bits == 64) {
      body += "    bits[i] = (berth_u64)x[0] | (berth_u64)x[1] << 32;\n";
    } else {
      const ThreeFrySplit split = SplitOf(out.shape());
      const std::string inner = std::to_string(split.inner) + "LL",
                        half = std::to_string((split.size + 1) / 2) + "LL",
                        size = std::to_string(split.size) + "LL";
      body += "    const berth_s64 t = i % " + inner + ", rest = i / " + inner + ";\n";
      body += "    const berth_s64 j = rest % " + half + ", o = rest / " + half + ";\n";
      body += "    const berth_s64 base = (o * " + size + " + 2 * j) * " + inner + " + t;\n";
      body += "    bits[base] = (" + u + ")x[0];\n";
      body += "    if (2 * j + 1 < " + size + ") bits[base + " + inner + "] = (" + u + ")x[1];\n";
    }
  } else {
    const std::string n = std::to_string(out.NumElements()) + "LL";
    body += "    berth_u64 low = w1 + (berth_u64)i, high = " + high + ";\n";
    body += "    if (low < w1) high += 1;\n";
    body += "    berth_u32 x[4];\n";
    body += "    berth_philox4x32(w0, low, high, x);\n";
    if (bits == 64) {
      body += "    for (int w = 0; w < 2 && 2 * i + w < " + n + "; ++w)\n";
      body += "      bits[2 * i + w] = (berth_u64)x[2 * w] | (berth_u64)x[2 * w + 1] << 32;\n";
    } else {
      body += "    for (int w = 0; w < 4 && 4 * i + w < " + n + "; ++w) bits[4 * i + w] = (" + u +
              ")x[w];\n";
    }
  }
  return WrapKernel(kernel.name, params, body, kGenerators);
}

}  // namespace codegen

}  // namespace berth::cuda
