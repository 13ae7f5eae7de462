#include "interpreter/tensor_util.hpp"

#include <cstring>

#include "interpreter/parallel.hpp"

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
