#include "interpreter/reduction.hpp"

#include <cstring>

#include "interpreter/element_types.hpp"
#include "interpreter/narrow_types.hpp"
#include "interpreter/parallel.hpp"

namespace berth::cpu {

using stablehlo::OpKind;

void RegisterReductionKernels(KernelRegistry& registry) {
  RegisterReduceKernels(registry);
  RegisterWindowKernels(registry);
  RegisterControlKernels(registry);
  RegisterDotKernels(registry);
  RegisterTriangularSolveKernels(registry);
  RegisterConvolutionKernels(registry);
  RegisterBatchNormKernels(registry);
}

Status CombineArrays(std::string_view op, ElementType type, Reducer reducer, void* out,
                     const void* a, const void* b, size_t n) {
  return DispatchElementType(type, op, [&]<typename T>() {
    DispatchReducer(reducer, [&]<Reducer R>() {
      T* o = static_cast<T*>(out);
      const T* x = static_cast<const T*>(a);
      const T* y = static_cast<const T*>(b);
      for (size_t e = 0; e < n; ++e) o[e] = Combine<R, T>(x[e], y[e]);
    });
    return OkStatus();
  });
}

bool IsComplexAddition(const stablehlo::Region& region) {
  if (region.empty() || region.blocks().size() != 1) return false;
  const stablehlo::Block& block = region.entry_block();
  std::span<stablehlo::Operation* const> ops = block.operations();
  if (block.num_arguments() != 2 || ops.size() != 2 || ops[0]->kind() != OpKind::kAdd ||
      ops[1]->num_operands() != 1 || ops[1]->operand(0) != ops[0]->result(0)) {
    return false;
  }
  const stablehlo::Operation& add = *ops[0];
  stablehlo::Value* a = block.argument(0);
  stablehlo::Value* b = block.argument(1);
  stablehlo::Type type = a->type();
  return ((add.operand(0) == a && add.operand(1) == b) ||
          (add.operand(0) == b && add.operand(1) == a)) &&
         type.IsTensor() && type.rank() == 0 && stablehlo::IsComplex(type.element_type()) &&
         b->type() == type && add.result(0)->type() == type;
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
  bool args =
      (op.operand(0) == a && op.operand(1) == b) || (op.operand(0) == b && op.operand(1) == a);
  stablehlo::Type type = a->type();
  if (!args || !type.IsTensor() || type.rank() != 0 || b->type() != type ||
      op.result(0)->type() != type) {
    return Reducer::kNone;
  }
  // Complex numbers and narrow types run the body: the typed loops compute
  // the other types only (kernels_reduce.cc sums complex numbers by parts).
  if (stablehlo::IsComplex(type.element_type()) || IsNarrowType(type.element_type())) {
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

}  // namespace berth::cpu
