#include "interpreter/data_movement.hpp"

#include <cstring>
#include <limits>
#include <type_traits>

#include "interpreter/element_types.hpp"
#include "interpreter/narrow_types.hpp"

namespace berth::cpu {

size_t ElementBytes(ElementType type) { return stablehlo::StorageBytes(type); }

std::string DimsString(std::span<const int64_t> dims) {
  std::string out = "[";
  for (size_t i = 0; i < dims.size(); ++i) {
    if (i) out += ", ";
    out += dims[i] == stablehlo::kDynamic ? std::string("?") : std::to_string(dims[i]);
  }
  return out + "]";
}

Status CheckSupported(ElementType type, std::string_view what) {
  if (IsSupportedElementType(type)) return OkStatus();
  return UnsupportedElementType(type, what);
}

Status CheckResultDims(const KernelCall& call, size_t index, std::span<const int64_t> dims) {
  stablehlo::Type type = call.op.result(index)->type();
  std::span<const int64_t> declared = type.shape();
  bool same = declared.size() == dims.size();
  for (size_t i = 0; same && i < dims.size(); ++i) {
    same = declared[i] == stablehlo::kDynamic || declared[i] == dims[i];
  }
  if (!same) {
    return InvalidArgumentError("result #" + std::to_string(index) + " would have shape " +
                                DimsString(dims) + ", but its type is " + type.ToString());
  }
  return OkStatus();
}

Result<Tensor> AllocateResult(const KernelCall& call, size_t index, std::vector<int64_t> dims) {
  ElementType type = call.op.result(index)->type().element_type();
  BERTH_RETURN_IF_ERROR(CheckSupported(type, call.op.name()));
  BERTH_RETURN_IF_ERROR(CheckResultDims(call, index, dims));
  return Tensor::Allocate(type, std::move(dims));
}

namespace {

template <typename T>
int64_t ToIndex(T v) {
  if constexpr (std::is_unsigned_v<T>) {
    constexpr uint64_t kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
    return static_cast<uint64_t>(v) > kMax ? std::numeric_limits<int64_t>::max()
                                           : static_cast<int64_t>(v);
  } else {
    return static_cast<int64_t>(v);
  }
}

}  // namespace

Result<std::vector<int64_t>> ReadIndices(const Tensor& tensor, std::string_view what) {
  if (!tensor.is_tensor() || !stablehlo::IsInteger(tensor.type())) {
    return InvalidArgumentError(std::string(what) + " must be a tensor of integers, is " +
                                tensor.TypeString());
  }
  std::vector<int64_t> out(static_cast<size_t>(tensor.num_elements()));
  // A narrow integer's byte, read as int8/uint8, is its value.
  Status status =
      DispatchElementType(WideComputeType(tensor.type()), what, [&]<typename T>() -> Status {
        if constexpr (kIsInteger<T>) {
          const T* data = tensor.data<T>();
          for (size_t i = 0; i < out.size(); ++i) out[i] = ToIndex(data[i]);
        }
        return OkStatus();
      });
  BERTH_RETURN_IF_ERROR(status);
  return out;
}

int64_t IndexAt(const Tensor& tensor, int64_t i) {
  int64_t value = 0;
  (void)DispatchElementType(WideComputeType(tensor.type()), "index", [&]<typename T>() -> Status {
    if constexpr (kIsInteger<T>) value = ToIndex(tensor.data<T>()[i]);
    return OkStatus();
  });
  return value;
}

// Each of `dims` lies in [0, rank), none twice and none in `taken` (whose
// entries are marked as they are checked).
Status CheckDims(std::span<const int64_t> dims, int64_t rank, std::vector<bool>& taken,
                 std::string_view what) {
  for (int64_t d : dims) {
    if (d < 0 || d >= rank || taken[d]) {
      return InvalidArgumentError(std::string(what) + " " + DimsString(dims) +
                                  " must be distinct dimensions in [0, " + std::to_string(rank) +
                                  ")");
    }
    taken[d] = true;
  }
  return OkStatus();
}

void RegisterDataMovementKernels(KernelRegistry& registry) {
  RegisterShapeKernels(registry);
  RegisterSliceKernels(registry);
  RegisterGatherKernels(registry);
  RegisterScatterKernels(registry);
  RegisterSortKernels(registry);
}

}  // namespace berth::cpu
