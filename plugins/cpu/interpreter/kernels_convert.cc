// Conversions: convert (every pair of supported types, see ConvertValue),
// reduce_precision, and bitcast_convert.
//
// bitcast_convert between types of the same bit width is a block function (a
// copy, fusible); between widths it reshapes by one trailing dimension and is
// a kernel that shares the operand's bytes, except with i1, whose elements
// are one byte each here but one bit in the bitcast: those pack or unpack
// bits, least significant first, bytes little-endian.
#include <algorithm>

#include "interpreter/elementwise_blocks.hpp"
#include "interpreter/parallel.hpp"

namespace berth::cpu {
namespace elementwise {
namespace {

using stablehlo::OpKind;
using stablehlo::Operation;

template <typename From, typename To>
struct ConvertBlock {
  static void Run(const ElementwiseNode&, const void* const* args, void* out, int64_t n) {
    MapUnary<From, To>(args, out, n, ConvertValue<To, From>);
  }
};

Status MakeConvert(const Operation& op, std::string_view what, ElementwiseNode& node) {
  stablehlo::ElementType from = op.operand(0)->type().element_type();
  return DispatchElementType(from, what, [&]<typename From>() -> Status {
    return DispatchElementType(node.out_type, what, [&]<typename To>() -> Status {
      node.fn = &ConvertBlock<From, To>::Run;
      return OkStatus();
    });
  });
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
  return SetBlock<ReducePrecisionBlock, kFloatOk>(node, op.operand(0)->type().element_type(),
                                                  what);
}

template <typename T>
struct CopyBlock {
  static void Run(const ElementwiseNode&, const void* const* args, void* out, int64_t n) {
    std::memcpy(out, args[0], static_cast<size_t>(n) * sizeof(T));
  }
};

bool SameBitWidth(const Operation& op) {
  return stablehlo::BitWidth(op.operand(0)->type().element_type()) ==
         stablehlo::BitWidth(op.result(0)->type().element_type());
}

Status MakeBitcast(const Operation&, std::string_view what, ElementwiseNode& node) {
  return SetBlock<CopyBlock, kAllOk>(node, node.out_type, what);
}

}  // namespace

MakeBlockFn FindConvertBlock(const Operation& op) {
  switch (op.kind()) {
    case OpKind::kConvert: return MakeConvert;
    case OpKind::kReducePrecision: return MakeReducePrecision;
    case OpKind::kBitcastConvert: return SameBitWidth(op) ? MakeBitcast : nullptr;
    default: return nullptr;
  }
}

}  // namespace elementwise

namespace {

// The result's dims: the op's type where static, else derived from the
// operand's dims and the two bit widths.
Result<std::vector<int64_t>> BitcastDims(const stablehlo::Operation& op, const Tensor& operand,
                                         int in_bits, int out_bits) {
  std::vector<int64_t> dims = operand.dims();
  if (out_bits < in_bits) {
    dims.push_back(in_bits / out_bits);
  } else if (out_bits > in_bits) {
    if (dims.empty() || dims.back() != out_bits / in_bits) {
      return InvalidArgumentError("operand " + operand.TypeString() + " must end in a dimension of " +
                                  std::to_string(out_bits / in_bits) + " to bitcast to " +
                                  std::string(stablehlo::ElementTypeName(op.result(0)->type().element_type())));
    }
    dims.pop_back();
  }
  return dims;
}

Status BitcastConvert(KernelCall& call) {
  const Tensor& operand = call.operands[0];
  stablehlo::ElementType in_type = operand.type();
  stablehlo::ElementType out_type = call.op.result(0)->type().element_type();
  if (!IsSupportedElementType(in_type)) return UnsupportedElementType(in_type, "operand");
  if (!IsSupportedElementType(out_type)) return UnsupportedElementType(out_type, "result");
  const int in_bits = stablehlo::BitWidth(in_type);
  const int out_bits = stablehlo::BitWidth(out_type);
  BERTH_ASSIGN_OR_RETURN(std::vector<int64_t> dims, BitcastDims(call.op, operand, in_bits, out_bits));
  if (in_bits != 1 && out_bits != 1) {
    // Same bytes, other type and dims.
    call.results.push_back(Tensor::Wrap(out_type, std::move(dims), operand.storage()));
    return OkStatus();
  }
  BERTH_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(out_type, std::move(dims)));
  const uint8_t* in = reinterpret_cast<const uint8_t*>(operand.bytes());
  uint8_t* o = reinterpret_cast<uint8_t*>(out.bytes());
  if (in_bits == 1 && out_bits == 1) {
    std::copy(in, in + operand.num_elements(), o);
  } else if (in_bits == 1) {
    // Eight i1 elements (one byte each) make one byte of the result.
    const int64_t bytes = static_cast<int64_t>(out.byte_size());
    ParallelFor(call.ctx.pool(), bytes, 1 << 16, [&](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b) {
        uint8_t value = 0;
        for (int bit = 0; bit < 8; ++bit) value = static_cast<uint8_t>(value | ((in[b * 8 + bit] & 1) << bit));
        o[b] = value;
      }
    });
  } else {
    const int64_t bytes = static_cast<int64_t>(operand.byte_size());
    ParallelFor(call.ctx.pool(), bytes, 1 << 16, [&](int64_t begin, int64_t end) {
      for (int64_t b = begin; b < end; ++b) {
        for (int bit = 0; bit < 8; ++bit) o[b * 8 + bit] = static_cast<uint8_t>((in[b] >> bit) & 1);
      }
    });
  }
  call.results.push_back(std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterBitcastConvertKernel(KernelRegistry& registry) {
  registry.Register(stablehlo::OpKind::kBitcastConvert, BitcastConvert);
}

}  // namespace berth::cpu
