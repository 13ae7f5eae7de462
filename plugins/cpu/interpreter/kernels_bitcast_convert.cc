// bitcast_convert between element types of different bit widths: it
// reshapes by one trailing dimension and shares the operand's bytes, except
// with i1, whose elements are one byte each here but one bit in the bitcast:
// those pack or unpack bits, least significant first, bytes little-endian.
// (Between equal widths it is a fusible copy, kernels_convert.cc.)
#include <algorithm>
#include <cstring>

#include "interpreter/elementwise_blocks.hpp"
#include "interpreter/parallel.hpp"

namespace berth::cpu {

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
  if ((IsNarrowType(in_type) || IsNarrowType(out_type)) && in_bits != out_bits) {
    // Sub-byte elements are one per byte here; packing them is not done.
    return UnimplementedError(
        "bitcast_convert between " + std::string(stablehlo::ElementTypeName(in_type)) + " and " +
        std::string(stablehlo::ElementTypeName(out_type)) +
        " (narrow types of different widths) is not supported by the cpu plugin");
  }
  if (IsNarrowInteger(out_type)) {
    // The same bits, re-extended as the result type stores them.
    BERTH_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(out_type, operand.dims()));
    if (operand.byte_size() > 0) std::memcpy(out.bytes(), operand.bytes(), operand.byte_size());
    NormalizeNarrowIntegers(out_type, reinterpret_cast<uint8_t*>(out.bytes()), out.num_elements());
    call.results.push_back(std::move(out));
    return OkStatus();
  }
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
