// Conversions as block functions: convert (every pair of supported types,
// see ConvertValue; complex numbers below), reduce_precision, and
// bitcast_convert between types of the same bit width (a copy, fusible). Compiled once per ISA variant
// (isa/isa.hpp); bitcast_convert between widths is a kernel of its own
// (kernels_bitcast_convert.cc).
#include "interpreter/elementwise_blocks.hpp"
#include "isa/variant.hpp"

namespace berth::cpu {
namespace elementwise {
namespace {

using stablehlo::OpKind;
using stablehlo::Operation;

// convert with complex numbers: a real value becomes the real part (the
// imaginary part +0); a complex number becomes a real type through its real
// part (the imaginary part is dropped, as XLA does); between complex types
// each part converts as a float does.
template <typename To, typename From>
To ConvertWithComplex(From value) {
  if constexpr (kIsComplex<To> && kIsComplex<From>) {
    using R = typename To::value_type;
    return To(static_cast<R>(value.real()), static_cast<R>(value.imag()));
  } else if constexpr (kIsComplex<To>) {
    using R = typename To::value_type;
    return To(ConvertValue<R, From>(value), R(0));
  } else if constexpr (kIsComplex<From>) {
    return ConvertValue<To, typename From::value_type>(value.real());
  } else {
    return ConvertValue<To, From>(value);
  }
}

template <typename From, typename To>
struct ConvertBlock {
  static void Run(const ElementwiseNode&, const void* const* args, void* out, int64_t n) {
    MapUnary<From, To>(args, out, n, ConvertWithComplex<To, From>);
  }
};

Status MakeConvert(const Operation&, std::string_view what, ElementwiseNode& node) {
  stablehlo::ElementType from = node.compute_arg[0];
  node.fn = ConvertFn(from, node.compute_out);
  if (node.fn == nullptr) {
    return UnsupportedElementType(IsSupportedElementType(from) ? node.compute_out : from, what);
  }
  return OkStatus();
}

// Rounds to `mantissa_bits` (int_param1) bits of fraction, ties to even, then
// to the exponent range of `exponent_bits` (int_param0): above it +-inf,
// below its smallest normal +-0. NaN stays NaN (the operand itself; with no
// mantissa bits there is no NaN, so +-inf).
template <typename T>
struct ReducePrecisionBlock {
  static void Run(const ElementwiseNode& node, const void* const* args, void* out, int64_t n) {
    using U = FloatBits<T>;
    constexpr int kMantissa = MantissaBits<T>();
    constexpr int kExponent = ExponentBits<T>();
    constexpr U kSign = static_cast<U>(U(1) << (sizeof(T) * 8 - 1));
    constexpr U kInf = static_cast<U>(((U(1) << kExponent) - 1) << kMantissa);
    const int64_t exponent_bits = node.int_param0;
    const int64_t mantissa_bits = node.int_param1;
    const bool round = mantissa_bits < kMantissa;
    const int shift = round ? kMantissa - static_cast<int>(mantissa_bits) : 1;
    const U half_minus_one = static_cast<U>((U(1) << (shift - 1)) - 1);
    const U keep_mask = static_cast<U>(~((U(1) << shift) - 1));
    const bool clip = exponent_bits < kExponent;
    constexpr int64_t kSourceBias = (int64_t{1} << (kExponent - 1)) - 1;
    const int64_t target_bias = clip ? (int64_t{1} << (exponent_bits - 1)) - 1 : 0;
    const int64_t max_exponent = kSourceBias + target_bias;
    const int64_t min_exponent = kSourceBias - target_bias;
    MapUnary<T, T>(args, out, n, [&](T x) {
      U bits = ToBits(x);
      U sign = bits & kSign;
      if ((bits & ~kSign) > kInf) return mantissa_bits > 0 ? x : FromBits<T>(sign | kInf);
      U result = bits;
      if (round) {
        U last_kept = static_cast<U>((bits >> shift) & 1);
        // A carry out of the mantissa moves to the next exponent, as it should.
        result = static_cast<U>((bits + half_minus_one + last_kept) & keep_mask);
      }
      if (clip) {
        int64_t exponent = static_cast<int64_t>((result & ~kSign) >> kMantissa);
        if (exponent > max_exponent) result = sign | kInf;
        else if (exponent <= min_exponent) result = sign;
      }
      return FromBits<T>(result);
    });
  }
};

Status MakeReducePrecision(const Operation& op, std::string_view what, ElementwiseNode& node) {
  std::optional<int64_t> exponent_bits = op.GetInt("exponent_bits");
  std::optional<int64_t> mantissa_bits = op.GetInt("mantissa_bits");
  if (!exponent_bits || !mantissa_bits || *exponent_bits < 1 || *mantissa_bits < 0) {
    return InvalidArgumentError(std::string(what) +
                                " needs exponent_bits >= 1 and mantissa_bits >= 0");
  }
  // Beyond the widest format nothing changes; keeps the shifts in range.
  node.int_param0 = std::min<int64_t>(*exponent_bits, 64);
  node.int_param1 = std::min<int64_t>(*mantissa_bits, 64);
  return SetBlock<ReducePrecisionBlock, kFloatOk>(node, node.compute_arg[0], what);
}

template <size_t kBytes>
struct CopyBlock {
  static void Run(const ElementwiseNode&, const void* const* args, void* out, int64_t n) {
    std::memcpy(out, args[0], static_cast<size_t>(n) * kBytes);
  }
};

bool SameBitWidth(const Operation& op) {
  return stablehlo::BitWidth(op.operand(0)->type().element_type()) ==
         stablehlo::BitWidth(op.result(0)->type().element_type());
}

Status MakeBitcast(const Operation&, std::string_view what, ElementwiseNode& node) {
  switch (stablehlo::StorageBytes(node.out_type)) {
    case 1: node.fn = &CopyBlock<1>::Run; break;
    case 2: node.fn = &CopyBlock<2>::Run; break;
    case 4: node.fn = &CopyBlock<4>::Run; break;
    case 8: node.fn = &CopyBlock<8>::Run; break;
    case 16: node.fn = &CopyBlock<16>::Run; break;
    default: return UnsupportedElementType(node.out_type, what);
  }
  return OkStatus();
}

}  // namespace

BlockFn ConvertFn(stablehlo::ElementType from, stablehlo::ElementType to) {
  ElementwiseNode node;
  node.out_type = to;
  Status status = DispatchElementTypeOrComplex(from, "convert", [&]<typename From>() -> Status {
    return DispatchElementTypeOrComplex(to, "convert", [&]<typename To>() -> Status {
      node.fn = &ConvertBlock<From, To>::Run;
      return OkStatus();
    });
  });
  return status.ok() ? node.fn : nullptr;
}

MakeBlockFn FindConvertBlock(const Operation& op) {
  switch (op.kind()) {
    case OpKind::kConvert: return MakeConvert;
    case OpKind::kReducePrecision: return MakeReducePrecision;
    case OpKind::kBitcastConvert: return SameBitWidth(op) ? MakeBitcast : nullptr;
    default: return nullptr;
  }
}

}  // namespace elementwise
}  // namespace berth::cpu
