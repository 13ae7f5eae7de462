#include "interpreter/tensor_util.hpp"

#include <cstring>

#include "interpreter/data_movement.hpp"
#include "interpreter/element_types.hpp"
#include "interpreter/elementwise.hpp"
#include "interpreter/narrow_types.hpp"
#include "interpreter/parallel.hpp"
#include "interpreter/strided_copy.hpp"
#include "isa/isa.hpp"

namespace berth::cpu {

Result<Tensor> ScalarAt(const Tensor& t, int64_t offset) {
  BERTH_ASSIGN_OR_RETURN(Tensor scalar, Tensor::Allocate(t.type(), {}));
  size_t size = stablehlo::StorageBytes(t.type());
  std::memcpy(scalar.bytes(), t.bytes() + static_cast<size_t>(offset) * size, size);
  return scalar;
}

Status StoreScalar(const Tensor& scalar, Tensor& out, int64_t offset) {
  if (!scalar.is_tensor() || scalar.num_elements() != 1 || scalar.type() != out.type()) {
    return InternalError("the body returned " + scalar.TypeString() + " where a tensor<" +
                         std::string(stablehlo::ElementTypeName(out.type())) + "> was expected");
  }
  size_t size = stablehlo::StorageBytes(out.type());
  std::memcpy(out.bytes() + static_cast<size_t>(offset) * size, scalar.bytes(), size);
  return OkStatus();
}

namespace {

// ConvertTensor when `t` or `to` is narrow: decode, convert, encode.
Result<Tensor> ConvertNarrow(const Tensor& t, ElementType to, ThreadPool* pool) {
  Tensor wide = t;
  if (IsNarrowType(t.type())) {
    BERTH_ASSIGN_OR_RETURN(wide, Tensor::Allocate(WideComputeType(t.type()), t.dims()));
    DecodeNarrow(t.type(), reinterpret_cast<const uint8_t*>(t.bytes()), wide.type(), wide.bytes(),
                 t.num_elements());
  }
  if (!IsNarrowType(to)) return ConvertTensor(wide, to, pool);
  // Float formats from f64 (one rounding); integers wrap, or saturate from floats.
  const ElementType compute = IsNarrowInteger(to) ? WideComputeType(to) : ElementType::kF64;
  BERTH_ASSIGN_OR_RETURN(Tensor computed, ConvertTensor(wide, compute, pool));
  BERTH_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(to, t.dims()));
  EncodeNarrow(compute, computed.bytes(), to, reinterpret_cast<uint8_t*>(out.bytes()),
               t.num_elements(),
               stablehlo::IsFloat(t.type()) ? NarrowEncode::kSaturate : NarrowEncode::kWrap);
  return out;
}

}  // namespace

Result<Tensor> ConvertTensor(const Tensor& t, ElementType to, ThreadPool* pool) {
  if (t.type() == to) return t;
  if (IsNarrowType(t.type()) || IsNarrowType(to)) return ConvertNarrow(t, to, pool);
  // stablehlo.convert's block function, in the selected ISA variant.
  BlockFn convert = isa::Active().convert(t.type(), to);
  if (convert == nullptr) {
    return UnsupportedElementType(IsSupportedElementType(t.type()) ? to : t.type(), "convert");
  }
  BERTH_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(to, t.dims()));
  const size_t in_size = stablehlo::StorageBytes(t.type());
  const size_t out_size = stablehlo::StorageBytes(to);
  ElementwiseNode node;
  node.num_args = 1;
  node.out_type = to;
  ParallelFor(pool, t.num_elements(), 1 << 15, [&](int64_t begin, int64_t end) {
    const void* args[1] = {t.bytes() + static_cast<size_t>(begin) * in_size};
    convert(node, args, out.bytes() + static_cast<size_t>(begin) * out_size, end - begin);
  });
  return out;
}

bool IsIdentityPermutation(std::span<const int64_t> perm) {
  for (size_t i = 0; i < perm.size(); ++i) {
    if (perm[i] != static_cast<int64_t>(i)) return false;
  }
  return true;
}

Result<Tensor> PermuteDims(const Tensor& t, std::span<const int64_t> perm, ThreadPool* pool) {
  if (IsIdentityPermutation(perm)) return t;
  std::vector<int64_t> in_strides = RowMajorStrides(t.dims());
  std::vector<int64_t> sizes, src_strides;
  for (int64_t d : perm) {
    sizes.push_back(t.dims()[static_cast<size_t>(d)]);
    src_strides.push_back(in_strides[static_cast<size_t>(d)]);
  }
  BERTH_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(t.type(), sizes));
  StridedCopy copy(ElementBytes(t.type()), sizes, RowMajorStrides(sizes), src_strides);
  copy.RunParallel(pool, out.bytes(), t.bytes());
  return out;
}

}  // namespace berth::cpu
