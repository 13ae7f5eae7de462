// iota and dynamic_iota: output[i0, ..., id, ..., iR-1] = id along
// iota_dimension d, converted to the element type as stablehlo.convert does
// (integers wrap, floats round to nearest even, i1 is id != 0).
#include <algorithm>

#include "interpreter/elementwise_blocks.hpp"
#include "interpreter/parallel.hpp"
#include "interpreter/tensor_util.hpp"

namespace berth::cpu {
namespace {

Status FillIota(KernelCall& call, std::vector<int64_t> dims) {
  stablehlo::ElementType type = call.op.result(0)->type().element_type();
  std::optional<int64_t> dimension = call.op.GetInt("iota_dimension");
  const int64_t rank = static_cast<int64_t>(dims.size());
  if (!dimension || *dimension < 0 || *dimension >= rank) {
    return InvalidArgumentError("iota_dimension must be in [0, " + std::to_string(rank) + ")");
  }
  const size_t d = static_cast<size_t>(*dimension);
  int64_t inner = 1;
  for (size_t i = d + 1; i < dims.size(); ++i) inner *= dims[i];
  const int64_t count = dims[d];
  // Narrow types count in i64 (or f64) and are converted after: integers
  // wrap, floats round.
  const ElementType fill_type = !IsNarrowType(type)        ? type
                                : stablehlo::IsFloat(type) ? ElementType::kF64
                                                           : ElementType::kSI64;
  BERTH_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(fill_type, std::move(dims)));
  const int64_t total = out.num_elements();
  if (total == 0) {
    BERTH_ASSIGN_OR_RETURN(Tensor empty, ConvertTensor(out, type, call.ctx.pool()));
    call.results.push_back(std::move(empty));
    return OkStatus();
  }
  const int64_t outer = total / (count * inner);
  BERTH_RETURN_IF_ERROR(
      DispatchElementTypeOrComplex(fill_type, "iota", [&]<typename T>() -> Status {
        T* o = out.data<T>();
        // Rows of `inner` equal values; row r (of outer * count) holds r % count.
        ParallelFor(call.ctx.pool(), outer * count, std::max<int64_t>(1, (1 << 16) / inner),
                    [&](int64_t begin, int64_t end) {
                      for (int64_t row = begin; row < end; ++row) {
                        T value;
                        if constexpr (kIsComplex<T>) {
                          value = T(elementwise::ConvertValue<typename T::value_type>(row % count));
                        } else {
                          value = elementwise::ConvertValue<T>(row % count);
                        }
                        std::fill_n(o + row * inner, inner, value);
                      }
                    });
        return OkStatus();
      }));
  BERTH_ASSIGN_OR_RETURN(Tensor result, ConvertTensor(out, type, call.ctx.pool()));
  call.results.push_back(std::move(result));
  return OkStatus();
}

Status Iota(KernelCall& call) {
  stablehlo::Type type = call.op.result(0)->type();
  if (!type.HasStaticShape()) {
    return InvalidArgumentError("iota needs a static result shape, has " + type.ToString());
  }
  return FillIota(call, std::vector<int64_t>(type.shape().begin(), type.shape().end()));
}

// The result's dims come from the 1-D integer operand at run time.
Status DynamicIota(KernelCall& call) {
  const Tensor& shape = call.operands[0];
  stablehlo::Type type = call.op.result(0)->type();
  if (shape.rank() != 1 || shape.num_elements() != type.rank()) {
    return InvalidArgumentError("output_shape " + shape.TypeString() + " must hold one size per " +
                                "dimension of " + type.ToString());
  }
  std::vector<int64_t> dims(static_cast<size_t>(type.rank()));
  BERTH_RETURN_IF_ERROR(
      DispatchElementType(shape.type(), "output_shape", [&]<typename T>() -> Status {
        if constexpr (!kIsInteger<T>) {
          return InvalidArgumentError("output_shape must be a tensor of integers, is " +
                                      shape.TypeString());
        } else {
          for (size_t i = 0; i < dims.size(); ++i) {
            T size = shape.data<T>()[i];
            int64_t static_size = type.dim(static_cast<int64_t>(i));
            if (size < 0 || (static_size != stablehlo::kDynamic &&
                             static_cast<uint64_t>(size) != static_cast<uint64_t>(static_size))) {
              return InvalidArgumentError("output_shape[" + std::to_string(i) +
                                          "] = " + std::to_string(size) + " does not fit " +
                                          type.ToString());
            }
            dims[i] = static_cast<int64_t>(size);
          }
          return OkStatus();
        }
      }));
  return FillIota(call, std::move(dims));
}

}  // namespace

void RegisterIotaKernels(KernelRegistry& registry) {
  registry.Register(
      {{stablehlo::OpKind::kIota, Iota}, {stablehlo::OpKind::kDynamicIota, DynamicIota}});
}

}  // namespace berth::cpu
