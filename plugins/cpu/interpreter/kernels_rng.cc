// Random numbers: stablehlo.rng_bit_generator and stablehlo.rng.
//
// rng_bit_generator gives the bits XLA's CPU compiler gives (its
// RngBitGeneratorExpander over the generators of its prng library; the
// algorithms are Salmon et al., "Parallel random numbers: as easy as 1, 2,
// 3", SC 2011), written here from that description:
//
// - The state is 64-bit words: a ui64/i64 tensor, or a ui32/i32 tensor
//   read as little-endian pairs (JAX's u32[4] key is u64[2] this way).
//   Word 0 is the key, split into two 32-bit halves (low first).
// - THREE_FRY (2 words; word 1 is a 64-bit counter): Threefry-2x32 with 20
//   rounds of the counter c gives two 32-bit words. 64-bit outputs take
//   counters c..c+N-1, element e being out0 | out1 << 32 of counter c+e.
//   Narrower outputs split the shape in two along its first even dimension
//   (else its largest): element i along that dimension comes from half
//   index i/2, output word i%2, and the half shape's row-major index is
//   added to c; 8- and 16-bit outputs keep the low bits. The new state is
//   [key, c + counters used].
// - PHILOX (2 or 3 words): Philox-4x32 with 10 rounds of a 128-bit
//   counter (low, high) = (word 1, word 2), or (word 1, word 0) for 2
//   words. Counter c+v gives four 32-bit words, elements 4v..4v+3 (64-bit
//   outputs: two words each, elements 2v and 2v+1). The new state is [key,
//   low'] or [key, low', high'], with the counter advanced by the number of
//   128-bit blocks used.
// - DEFAULT is PHILOX, as on XLA's CPU and GPU backends.
// Outputs of other types of the same width (i32, f32, bf16...) hold the
// same bits as the unsigned ones.
//
// stablehlo.rng leaves its bits to the implementation. Here the n-th rng op
// an execution runs (n = 0, 1, ... in execution order, loop iterations
// included; each replica counts alone) takes the bits rng_bit_generator
// PHILOX gives for the state [kRngKey, 0, n] and an unsigned output of 32
// bits per element (64 for f64, i64, ui64): every execution of a program
// gives the same numbers, and every rng op in it different ones. UNIFORM
// floats are (bits >> (width - p)) * 2^-p with p the type's fraction bits,
// scaled to [a, b) (a value that rounds up to b becomes the float below
// b); UNIFORM integers are a + bits mod (b - a) (a when b <= a); NORMAL
// is the Box-Muller transform of pairs of such uniforms u0, u1 (u0 at
// least 1e-7): sqrt(-2 ln u0) sin(2 pi u1) and ... cos(2 pi u1), times b
// plus a, in float (double for f64).
#include <array>
#include <cmath>
#include <cstring>

#include "interpreter/data_movement.hpp"
#include "interpreter/element_types.hpp"
#include "interpreter/elementwise_blocks.hpp"
#include "interpreter/parallel.hpp"

namespace berth::cpu {
namespace {

using stablehlo::OpKind;
using stablehlo::RngAlgorithm;
using stablehlo::RngDistribution;

using Words2 = std::array<uint32_t, 2>;
using Words4 = std::array<uint32_t, 4>;

// stablehlo.rng's key: "BERTHRNG".
constexpr uint64_t kRngKey = 0x424552544852'4E47ull;

// Elements generated per parallel task.
constexpr int64_t kMinTaskElements = 1 << 14;

constexpr uint32_t RotateLeft(uint32_t v, int distance) {
  return (v << distance) | (v >> (32 - distance));
}

// Threefry-2x32, 20 rounds: four rounds of mix (x0 += x1; x1 = rotl(x1, r)
// ^ x0) between key injections; the key schedule is k0, k1 and k0 ^ k1 ^
// 0x1BD11BDA, and injection s adds ks[s % 3] and ks[(s + 1) % 3] + s.
Words2 Threefry2x32(uint64_t key, uint64_t counter) {
  constexpr int kRotations[8] = {13, 15, 26, 6, 17, 29, 16, 24};
  const uint32_t ks[3] = {static_cast<uint32_t>(key), static_cast<uint32_t>(key >> 32),
                          static_cast<uint32_t>(key) ^ static_cast<uint32_t>(key >> 32) ^ 0x1BD11BDAu};
  uint32_t x0 = static_cast<uint32_t>(counter) + ks[0];
  uint32_t x1 = static_cast<uint32_t>(counter >> 32) + ks[1];
  for (int s = 1; s <= 5; ++s) {
    const int* rotations = kRotations + ((s - 1) % 2) * 4;
    for (int r = 0; r < 4; ++r) {
      x0 += x1;
      x1 = RotateLeft(x1, rotations[r]) ^ x0;
    }
    x0 += ks[s % 3];
    x1 += ks[(s + 1) % 3] + static_cast<uint32_t>(s);
  }
  return {x0, x1};
}

// Philox-4x32, 10 rounds: each multiplies words 0 and 2 by the Philox
// constants, swaps in the high halves xored with the other words and the
// key, then bumps the key by the Weyl constants.
Words4 Philox4x32(uint64_t key, uint64_t counter_low, uint64_t counter_high) {
  uint32_t k0 = static_cast<uint32_t>(key), k1 = static_cast<uint32_t>(key >> 32);
  Words4 x = {static_cast<uint32_t>(counter_low), static_cast<uint32_t>(counter_low >> 32),
              static_cast<uint32_t>(counter_high), static_cast<uint32_t>(counter_high >> 32)};
  for (int round = 0; round < 10; ++round) {
    uint64_t p0 = uint64_t{0xD2511F53u} * x[0];
    uint64_t p1 = uint64_t{0xCD9E8D57u} * x[2];
    x = {static_cast<uint32_t>(p1 >> 32) ^ x[1] ^ k0, static_cast<uint32_t>(p1),
         static_cast<uint32_t>(p0 >> 32) ^ x[3] ^ k1, static_cast<uint32_t>(p0)};
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return x;
}

// A 128-bit counter advanced by `delta`.
struct Counter128 {
  uint64_t low = 0;
  uint64_t high = 0;
  Counter128 Plus(uint64_t delta) const {
    uint64_t sum = low + delta;
    return {sum, high + (sum < low ? 1u : 0u)};
  }
};

// Unsigned storage of a `bits`-wide element.
template <int kBits>
using UBits = std::conditional_t<kBits == 8, uint8_t,
              std::conditional_t<kBits == 16, uint16_t,
              std::conditional_t<kBits == 32, uint32_t, uint64_t>>>;

// THREE_FRY bits of elements 32 bits wide or narrower (U keeps the low
// bits) with `dims`; returns the counters used.
template <typename U>
uint64_t ThreeFryNarrow(uint64_t key, uint64_t counter, std::vector<int64_t> dims, U* out,
                        ThreadPool* pool) {
  if (dims.empty()) dims = {1};
  size_t split = dims.size();
  for (size_t i = 0; i < dims.size() && split == dims.size(); ++i) {
    if (dims[i] % 2 == 0) split = i;
  }
  if (split == dims.size()) {
    split = 0;
    for (size_t i = 1; i < dims.size(); ++i) {
      if (dims[i] > dims[split]) split = i;
    }
  }
  int64_t outer = 1, inner = 1;
  for (size_t i = 0; i < split; ++i) outer *= dims[i];
  for (size_t i = split + 1; i < dims.size(); ++i) inner *= dims[i];
  const int64_t size = dims[split];
  const int64_t half = (size + 1) / 2;
  const int64_t used = outer * half * inner;
  ParallelFor(pool, used, kMinTaskElements, [&](int64_t begin, int64_t end) {
    for (int64_t h = begin; h < end; ++h) {
      int64_t t = h % inner;
      int64_t rest = h / inner;
      int64_t j = rest % half;
      int64_t o = rest / half;
      Words2 bits = Threefry2x32(key, counter + static_cast<uint64_t>(h));
      int64_t base = (o * size + 2 * j) * inner + t;
      out[base] = static_cast<U>(bits[0]);
      if (2 * j + 1 < size) out[base + inner] = static_cast<U>(bits[1]);
    }
  });
  return static_cast<uint64_t>(used);
}

uint64_t ThreeFry64(uint64_t key, uint64_t counter, int64_t n, uint64_t* out, ThreadPool* pool) {
  ParallelFor(pool, n, kMinTaskElements, [&](int64_t begin, int64_t end) {
    for (int64_t e = begin; e < end; ++e) {
      Words2 bits = Threefry2x32(key, counter + static_cast<uint64_t>(e));
      out[e] = uint64_t{bits[0]} | uint64_t{bits[1]} << 32;
    }
  });
  return static_cast<uint64_t>(n);
}

// PHILOX bits of `n` elements of type U: four elements per 128-bit block
// when U is 32 bits wide or narrower (one word each), else two (64 bits
// each, low word first); returns the blocks used.
template <typename U>
uint64_t Philox(uint64_t key, Counter128 counter, int64_t n, U* out, ThreadPool* pool) {
  constexpr int64_t kPerBlock = sizeof(U) == 8 ? 2 : 4;
  const int64_t blocks = (n + kPerBlock - 1) / kPerBlock;
  ParallelFor(pool, blocks, kMinTaskElements / kPerBlock, [&](int64_t begin, int64_t end) {
    for (int64_t v = begin; v < end; ++v) {
      Counter128 c = counter.Plus(static_cast<uint64_t>(v));
      Words4 bits = Philox4x32(key, c.low, c.high);
      for (int64_t w = 0; w < kPerBlock && kPerBlock * v + w < n; ++w) {
        if constexpr (kPerBlock == 2) {
          out[2 * v + w] = uint64_t{bits[2 * w]} | uint64_t{bits[2 * w + 1]} << 32;
        } else {
          out[4 * v + w] = static_cast<U>(bits[w]);
        }
      }
    }
  });
  return static_cast<uint64_t>(blocks);
}

// Fills `out` (storage of `bits`-wide elements with `dims`) from `state`
// (key first); updates the counter words of `state`.
Status GenerateBits(RngAlgorithm algorithm, std::vector<uint64_t>& state, int bits,
                    const std::vector<int64_t>& dims, std::byte* out, ThreadPool* pool) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  const uint64_t key = state[0];
  if (algorithm == RngAlgorithm::kThreeFry) {
    if (state.size() != 2) {
      return InvalidArgumentError("THREE_FRY takes a state of 2 64-bit words, this one has " +
                                  std::to_string(state.size()));
    }
    uint64_t used;
    switch (bits) {
      case 8: used = ThreeFryNarrow(key, state[1], dims, reinterpret_cast<uint8_t*>(out), pool); break;
      case 16: used = ThreeFryNarrow(key, state[1], dims, reinterpret_cast<uint16_t*>(out), pool); break;
      case 32: used = ThreeFryNarrow(key, state[1], dims, reinterpret_cast<uint32_t*>(out), pool); break;
      default: used = ThreeFry64(key, state[1], n, reinterpret_cast<uint64_t*>(out), pool); break;
    }
    state[1] += used;
    return OkStatus();
  }
  if (state.size() != 2 && state.size() != 3) {
    return InvalidArgumentError("PHILOX takes a state of 2 or 3 64-bit words, this one has " +
                                std::to_string(state.size()));
  }
  Counter128 counter = state.size() == 3 ? Counter128{state[1], state[2]} : Counter128{state[1], state[0]};
  uint64_t used;
  switch (bits) {
    case 8: used = Philox(key, counter, n, reinterpret_cast<uint8_t*>(out), pool); break;
    case 16: used = Philox(key, counter, n, reinterpret_cast<uint16_t*>(out), pool); break;
    case 32: used = Philox(key, counter, n, reinterpret_cast<uint32_t*>(out), pool); break;
    default: used = Philox(key, counter, n, reinterpret_cast<uint64_t*>(out), pool); break;
  }
  Counter128 next = counter.Plus(used);
  state[1] = next.low;
  if (state.size() == 3) state[2] = next.high;
  return OkStatus();
}

// The state tensor as 64-bit words (32-bit elements pair up, low first).
Result<std::vector<uint64_t>> ReadState(const Tensor& state) {
  int width = stablehlo::BitWidth(state.type());
  if (!state.is_tensor() || !stablehlo::IsInteger(state.type()) || (width != 32 && width != 64)) {
    return InvalidArgumentError("initial_state must hold 32- or 64-bit integers, is " +
                                state.TypeString());
  }
  if (width == 64) {
    std::vector<uint64_t> words(static_cast<size_t>(state.num_elements()));
    std::memcpy(words.data(), state.bytes(), words.size() * sizeof(uint64_t));
    return words;
  }
  if (state.num_elements() % 2 != 0) {
    return InvalidArgumentError("a 32-bit initial_state needs an even number of elements, " +
                                state.TypeString() + " has not");
  }
  std::vector<uint64_t> words(static_cast<size_t>(state.num_elements() / 2));
  const uint32_t* halves = state.data<uint32_t>();
  for (size_t w = 0; w < words.size(); ++w) {
    words[w] = uint64_t{halves[2 * w]} | uint64_t{halves[2 * w + 1]} << 32;
  }
  return words;
}

Status RngBitGenerator(KernelCall& call) {
  const Tensor& initial = call.operands[0];
  std::optional<RngAlgorithm> algorithm = call.op.rng_algorithm();
  if (!algorithm) return InvalidArgumentError("no rng_algorithm");
  if (*algorithm == RngAlgorithm::kDefault) algorithm = RngAlgorithm::kPhilox;
  BERTH_ASSIGN_OR_RETURN(std::vector<uint64_t> state, ReadState(initial));
  stablehlo::Type out_type = call.op.result(1)->type();
  BERTH_RETURN_IF_ERROR(CheckSupported(out_type.element_type(), "stablehlo.rng_bit_generator"));
  const int bits = stablehlo::BitWidth(out_type.element_type());
  if (bits != 8 && bits != 16 && bits != 32 && bits != 64) {
    return InvalidArgumentError("rng_bit_generator makes 8-, 16-, 32- or 64-bit elements, not " +
                                out_type.ToString());
  }
  std::vector<int64_t> dims(out_type.shape().begin(), out_type.shape().end());
  BERTH_ASSIGN_OR_RETURN(Tensor out, AllocateResult(call, 1, dims));
  BERTH_RETURN_IF_ERROR(GenerateBits(*algorithm, state, bits, dims, out.bytes(), call.ctx.pool()));
  BERTH_ASSIGN_OR_RETURN(Tensor new_state, AllocateResult(call, 0, initial.dims()));
  if (stablehlo::BitWidth(initial.type()) == 64) {
    std::memcpy(new_state.bytes(), state.data(), state.size() * sizeof(uint64_t));
  } else {
    uint32_t* halves = new_state.data<uint32_t>();
    for (size_t w = 0; w < state.size(); ++w) {
      halves[2 * w] = static_cast<uint32_t>(state[w]);
      halves[2 * w + 1] = static_cast<uint32_t>(state[w] >> 32);
    }
  }
  call.results.push_back(std::move(new_state));
  call.results.push_back(std::move(out));
  return OkStatus();
}

// ---------------------------------------------------------------- rng

// A uniform value in [0, 1) from the top `p` bits of a `width`-bit word.
template <typename F>
F UnitInterval(uint64_t bits, int width, int p) {
  return static_cast<F>(bits >> (width - p)) * std::ldexp(F(1), -p);
}

// The largest T below a finite x.
template <typename T>
T PreviousValue(T x) {
  using Bits = elementwise::FloatBits<T>;
  Bits bits = elementwise::ToBits(x);
  elementwise::Calc<T> v = static_cast<elementwise::Calc<T>>(x);
  if (v > 0) return elementwise::FromBits<T>(static_cast<Bits>(bits - 1));
  if (v < 0) return elementwise::FromBits<T>(static_cast<Bits>(bits + 1));
  return elementwise::FromBits<T>(static_cast<Bits>(Bits(1) << (sizeof(T) * 8 - 1) | 1));
}

template <typename T>
Status FillRng(KernelCall& call, RngDistribution distribution, const std::vector<uint64_t>& raw,
               int width, Tensor& out) {
  using elementwise::Calc;
  const T a = call.operands[0].data<T>()[0];
  const T b = call.operands[1].data<T>()[0];
  T* o = out.data<T>();
  const int64_t n = out.num_elements();
  if constexpr (kIsFloat<T>) {
    using C = Calc<T>;
    constexpr int p = elementwise::MantissaBits<T>();
    const C lo = static_cast<C>(a), hi = static_cast<C>(b);
    if (distribution == RngDistribution::kUniform) {
      const T below = PreviousValue(b);
      for (int64_t i = 0; i < n; ++i) {
        C u = UnitInterval<C>(raw[static_cast<size_t>(i)], width, p);
        T v = elementwise::Store<T>(u * (hi - lo) + lo);
        o[i] = lo < hi && !(static_cast<C>(v) < hi) ? below : v;
      }
      return OkStatus();
    }
    const C two_pi = static_cast<C>(6.283185307179586476925286766559L);
    for (int64_t i = 0; i < n; i += 2) {
      C u0 = std::fmax(UnitInterval<C>(raw[static_cast<size_t>(i)], width, p), C(1e-7));
      C u1 = i + 1 < n ? UnitInterval<C>(raw[static_cast<size_t>(i + 1)], width, p) : C(0);
      C radius = std::sqrt(C(-2) * std::log(u0));
      C angle = two_pi * u1;
      o[i] = elementwise::Store<T>(std::sin(angle) * radius * hi + lo);
      if (i + 1 < n) o[i + 1] = elementwise::Store<T>(std::cos(angle) * radius * hi + lo);
    }
    return OkStatus();
  } else {
    if (distribution != RngDistribution::kUniform) {
      return InvalidArgumentError("NORMAL needs a floating-point result, not " + out.TypeString());
    }
    if constexpr (kIsBool<T>) {
      std::fill(o, o + n, a);
    } else {
      using U = std::conditional_t<sizeof(T) == 8, uint64_t, uint32_t>;
      // b - a in the unsigned type: the count of values in [a, b).
      const U range = a < b ? static_cast<U>(static_cast<U>(b) - static_cast<U>(a)) : U(0);
      for (int64_t i = 0; i < n; ++i) {
        U draw = static_cast<U>(raw[static_cast<size_t>(i)]);
        o[i] = range == 0 ? a : static_cast<T>(static_cast<U>(static_cast<U>(a) + draw % range));
      }
    }
    return OkStatus();
  }
}

Status Rng(KernelCall& call) {
  std::optional<RngDistribution> distribution = call.op.rng_distribution();
  if (!distribution) return InvalidArgumentError("no rng_distribution");
  const Tensor& a = call.operands[0];
  const Tensor& b = call.operands[1];
  if (a.num_elements() != 1 || b.num_elements() != 1 || a.type() != b.type()) {
    return InvalidArgumentError("a and b must be scalars of one type, are " + a.TypeString() +
                                " and " + b.TypeString());
  }
  BERTH_ASSIGN_OR_RETURN(std::vector<int64_t> dims, ReadIndices(call.operands[2], "shape"));
  BERTH_ASSIGN_OR_RETURN(Tensor out, AllocateResult(call, 0, dims));
  if (out.type() != a.type()) {
    return InvalidArgumentError("the result " + out.TypeString() + " must have the type of a, " +
                                a.TypeString());
  }
  BERTH_RETURN_IF_ERROR(CheckSupported(out.type(), "stablehlo.rng"));
  const int width = stablehlo::BitWidth(out.type()) == 64 ? 64 : 32;
  std::vector<uint64_t> state = {kRngKey, 0, call.ctx.NextRngStream()};
  std::vector<uint64_t> raw(static_cast<size_t>(out.num_elements()));
  if (width == 64) {
    BERTH_RETURN_IF_ERROR(GenerateBits(RngAlgorithm::kPhilox, state, 64, dims,
                                       reinterpret_cast<std::byte*>(raw.data()), call.ctx.pool()));
  } else {
    std::vector<uint32_t> words(raw.size());
    BERTH_RETURN_IF_ERROR(GenerateBits(RngAlgorithm::kPhilox, state, 32, dims,
                                       reinterpret_cast<std::byte*>(words.data()), call.ctx.pool()));
    std::copy(words.begin(), words.end(), raw.begin());
  }
  Status status = DispatchElementType(out.type(), "stablehlo.rng", [&]<typename T>() -> Status {
    return FillRng<T>(call, *distribution, raw, width, out);
  });
  BERTH_RETURN_IF_ERROR(status);
  call.results.push_back(std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterRngKernels(KernelRegistry& registry) {
  registry.Register({{OpKind::kRngBitGenerator, RngBitGenerator}, {OpKind::kRng, Rng}});
}

}  // namespace berth::cpu
