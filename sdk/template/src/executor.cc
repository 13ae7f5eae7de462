#include "executor.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <unordered_map>

namespace template_backend {

using berth::Result;
using berth::Status;
using berth::stablehlo::ElementType;
using berth::stablehlo::Function;
using berth::stablehlo::Operation;
using berth::stablehlo::OpKind;
using berth::stablehlo::Type;
using berth::stablehlo::Value;

namespace {

bool IsF32Tensor(Type type) {
  return type.IsTensor() && type.HasStaticShape() && type.element_type() == ElementType::kF32;
}

Status Unsupported(const Operation& op, const std::string& why) {
  return berth::UnimplementedError(op.location().ToString() + ": error: '" +
                                   std::string(op.name()) + "' " + why +
                                   " (the template backend runs f32 elementwise ops and reduce)");
}

// The combiner of a reduce body `return op(%a, %b)`, or kCustomCall when the
// body is something else.
OpKind ReduceCombiner(const Operation& reduce) {
  if (reduce.num_regions() != 1 || reduce.region(0).empty()) return OpKind::kCustomCall;
  const auto& block = reduce.region(0).entry_block();
  if (block.operations().size() != 2) return OpKind::kCustomCall;
  const Operation& combine = *block.operations()[0];
  switch (combine.kind()) {
    case OpKind::kAdd:
    case OpKind::kMultiply:
    case OpKind::kMaximum:
    case OpKind::kMinimum:
      return combine.kind();
    default:
      return OpKind::kCustomCall;
  }
}

float Binary(OpKind kind, float a, float b) {
  switch (kind) {
    case OpKind::kAdd: return a + b;
    case OpKind::kSubtract: return a - b;
    case OpKind::kMultiply: return a * b;
    case OpKind::kDivide: return a / b;
    case OpKind::kMaximum: return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b);
    case OpKind::kMinimum: return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b);
    default: return NAN;
  }
}

float Unary(OpKind kind, float a) {
  switch (kind) {
    case OpKind::kNegate: return -a;
    case OpKind::kAbs: return std::fabs(a);
    case OpKind::kExponential: return std::exp(a);
    default: return NAN;
  }
}

Array Reduce(const Array& input, float init, const std::vector<int64_t>& reduced, OpKind combine,
             const std::vector<int64_t>& out_dims) {
  Array out{out_dims, {}};
  int64_t out_size = 1;
  for (int64_t d : out_dims) out_size *= d;
  out.values.assign(static_cast<size_t>(out_size), init);
  const size_t rank = input.dims.size();
  std::vector<int64_t> index(rank, 0);
  for (float value : input.values) {
    // The output position: the input index without the reduced dimensions.
    int64_t position = 0;
    for (size_t d = 0; d < rank; ++d) {
      if (std::find(reduced.begin(), reduced.end(), static_cast<int64_t>(d)) != reduced.end()) {
        continue;
      }
      position = position * input.dims[d] + index[d];
    }
    float& acc = out.values[static_cast<size_t>(position)];
    acc = Binary(combine, acc, value);
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < input.dims[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

}  // namespace

Status CheckSupported(const Function& function) {
  for (Type type : function.argument_types()) {
    if (!IsF32Tensor(type)) {
      return berth::UnimplementedError("@" + std::string(function.name()) + " takes " +
                                       type.ToString() + "; the template backend takes f32 tensors");
    }
  }
  for (const Operation* op : function.entry_block().operations()) {
    for (const Value* result : op->results()) {
      if (!IsF32Tensor(result->type())) return Unsupported(*op, "gives " + result->type().ToString());
    }
    switch (op->kind()) {
      case OpKind::kAdd: case OpKind::kSubtract: case OpKind::kMultiply: case OpKind::kDivide:
      case OpKind::kMaximum: case OpKind::kMinimum: case OpKind::kNegate: case OpKind::kAbs:
      case OpKind::kExponential: case OpKind::kFuncReturn:
        break;
      case OpKind::kConstant:
        if (op->GetDense("value") == nullptr) return Unsupported(*op, "has no dense value");
        break;
      case OpKind::kReduce:
        if (op->num_operands() != 2 || ReduceCombiner(*op) == OpKind::kCustomCall) {
          return Unsupported(*op, "is supported with one input and an add, multiply, maximum or "
                                  "minimum body only");
        }
        break;
      default:
        return Unsupported(*op, "is not supported");
    }
  }
  return berth::OkStatus();
}

Result<std::vector<Array>> Run(const Function& function, const std::vector<Array>& args) {
  std::unordered_map<const Value*, Array> values;
  const auto& block = function.entry_block();
  for (size_t i = 0; i < block.num_arguments(); ++i) values[block.argument(i)] = args[i];
  for (const Operation* op : block.operations()) {
    auto in = [&](size_t i) -> const Array& { return values.at(op->operand(i)); };
    const Value* result = op->num_results() > 0 ? op->result(0) : nullptr;
    std::vector<int64_t> dims;
    if (result != nullptr) dims.assign(result->type().shape().begin(), result->type().shape().end());
    switch (op->kind()) {
      case OpKind::kFuncReturn: {
        std::vector<Array> out;
        for (size_t i = 0; i < op->num_operands(); ++i) out.push_back(in(i));
        return out;
      }
      case OpKind::kConstant: {
        const auto* dense = op->GetDense("value");
        std::vector<uint8_t> bytes = dense->ExpandedData();
        Array array{dims, std::vector<float>(bytes.size() / sizeof(float))};
        std::memcpy(array.values.data(), bytes.data(), array.values.size() * sizeof(float));
        values[result] = std::move(array);
        break;
      }
      case OpKind::kNegate: case OpKind::kAbs: case OpKind::kExponential: {
        Array array = in(0);
        for (float& v : array.values) v = Unary(op->kind(), v);
        values[result] = std::move(array);
        break;
      }
      case OpKind::kReduce: {
        const Array& init = in(1);
        std::span<const int64_t> reduced = op->GetI64Array("dimensions");
        values[result] = Reduce(in(0), init.values.at(0),
                                std::vector<int64_t>(reduced.begin(), reduced.end()),
                                ReduceCombiner(*op), dims);
        break;
      }
      default: {  // binary elementwise; the verifier made the shapes equal
        Array array = in(0);
        const Array& rhs = in(1);
        for (size_t i = 0; i < array.values.size(); ++i) {
          array.values[i] = Binary(op->kind(), array.values[i], rhs.values[i]);
        }
        values[result] = std::move(array);
        break;
      }
    }
  }
  return berth::InternalError("@" + std::string(function.name()) + " has no return");
}

}  // namespace template_backend
