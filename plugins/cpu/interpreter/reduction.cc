#include "interpreter/reduction.hpp"

#include <cstring>

#include "interpreter/parallel.hpp"

namespace berth::cpu {

using stablehlo::OpKind;

void RegisterReductionKernels(KernelRegistry& registry) {
  RegisterReduceKernels(registry);
  RegisterWindowKernels(registry);
  RegisterControlKernels(registry);
  RegisterDotKernels(registry);
  RegisterTriangularSolveKernels(registry);
}

Reducer DetectReducer(const stablehlo::Region& region) {
  if (region.empty() || region.blocks().size() != 1) return Reducer::kNone;
  const stablehlo::Block& block = region.entry_block();
  std::span<stablehlo::Operation* const> ops = block.operations();
  if (block.num_arguments() != 2 || ops.size() != 2 || block.terminator() != ops[1]) {
    return Reducer::kNone;
  }
  const stablehlo::Operation& op = *ops[0];
  const stablehlo::Operation& ret = *ops[1];
  if (op.num_operands() != 2 || op.num_results() != 1 || ret.num_operands() != 1 ||
      ret.operand(0) != op.result(0)) {
    return Reducer::kNone;
  }
  stablehlo::Value* a = block.argument(0);
  stablehlo::Value* b = block.argument(1);
  bool args = (op.operand(0) == a && op.operand(1) == b) || (op.operand(0) == b && op.operand(1) == a);
  stablehlo::Type type = a->type();
  if (!args || !type.IsTensor() || type.rank() != 0 || b->type() != type ||
      op.result(0)->type() != type) {
    return Reducer::kNone;
  }
  bool is_float = stablehlo::IsFloat(type.element_type());
  switch (op.kind()) {
    case OpKind::kAdd: return Reducer::kAdd;
    case OpKind::kMultiply: return Reducer::kMultiply;
    case OpKind::kMaximum: return Reducer::kMaximum;
    case OpKind::kMinimum: return Reducer::kMinimum;
    case OpKind::kAnd: return is_float ? Reducer::kNone : Reducer::kAnd;
    case OpKind::kOr: return is_float ? Reducer::kNone : Reducer::kOr;
    case OpKind::kXor: return is_float ? Reducer::kNone : Reducer::kXor;
    default: return Reducer::kNone;
  }
}

Odometer::Odometer(std::vector<int64_t> sizes, std::vector<int64_t> strides)
    : sizes_(std::move(sizes)), strides_(std::move(strides)), index_(sizes_.size(), 0) {
  for (int64_t size : sizes_) count_ *= size;
}

void Odometer::Seek(int64_t linear) {
  offset_ = 0;
  for (size_t d = sizes_.size(); d-- > 0;) {
    int64_t size = sizes_[d];
    index_[d] = size > 0 ? linear % size : 0;
    linear = size > 0 ? linear / size : 0;
    offset_ += index_[d] * strides_[d];
  }
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

Result<Tensor> ConvertTensor(const Tensor& t, ElementType to, ThreadPool* pool) {
  if (t.type() == to) return t;
  BERTH_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(to, t.dims()));
  Status status = DispatchElementType(t.type(), "convert", [&]<typename From>() -> Status {
    return DispatchElementType(to, "convert", [&]<typename To>() -> Status {
      const From* in = t.data<From>();
      To* o = out.data<To>();
      ParallelFor(pool, t.num_elements(), 1 << 15, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) o[i] = ConvertElement<To, From>(in[i]);
      });
      return OkStatus();
    });
  });
  BERTH_RETURN_IF_ERROR(status);
  return out;
}

}  // namespace berth::cpu
