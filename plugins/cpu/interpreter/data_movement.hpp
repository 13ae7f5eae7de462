// Shared pieces of the data-movement kernels (kernels_shape.cc,
// kernels_slice.cc, kernels_gather.cc, kernels_scatter.cc, kernels_sort.cc):
// result allocation checked against the op's type, reading index tensors of
// any integer type, and the per-file registration functions.
#ifndef BERTH_PLUGINS_CPU_INTERPRETER_DATA_MOVEMENT_HPP_
#define BERTH_PLUGINS_CPU_INTERPRETER_DATA_MOVEMENT_HPP_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "interpreter/kernel.hpp"
#include "interpreter/tensor.hpp"
#include "interpreter/tensor_util.hpp"

namespace berth::cpu {

// Bytes of one element in a tensor's storage.
size_t ElementBytes(ElementType type);

// "[2, 3, 4]".
std::string DimsString(std::span<const int64_t> dims);

// UNIMPLEMENTED (UnsupportedElementType) unless the cpu plugin computes
// with `type`.
Status CheckSupported(ElementType type, std::string_view what);

// Allocates result `index` of the op with `dims`, which must agree with the
// op's declared result type (dynamic dimensions take any size).
Result<Tensor> AllocateResult(const KernelCall& call, size_t index, std::vector<int64_t> dims);
// As AllocateResult, for a tensor computed some other way (a reshape).
Status CheckResultDims(const KernelCall& call, size_t index, std::span<const int64_t> dims);

// The values of an integer tensor as int64, in row-major order. Unsigned
// values above INT64_MAX become INT64_MAX (every such index is out of range
// anyway). INVALID_ARGUMENT for a non-integer tensor.
Result<std::vector<int64_t>> ReadIndices(const Tensor& tensor, std::string_view what);
// Element `i` of an integer tensor as int64 (same saturation).
int64_t IndexAt(const Tensor& tensor, int64_t i);

// Each of `dims` lies in [0, rank), none twice and none already in `taken`
// (whose entries are marked as they are checked); `what` names them in the
// error (gather and scatter dimension numbers).
Status CheckDims(std::span<const int64_t> dims, int64_t rank, std::vector<bool>& taken,
                 std::string_view what);

// Registration of each file's kernels (called by RegisterDataMovementKernels).
void RegisterShapeKernels(KernelRegistry& registry);
void RegisterSliceKernels(KernelRegistry& registry);
void RegisterGatherKernels(KernelRegistry& registry);
void RegisterScatterKernels(KernelRegistry& registry);
void RegisterSortKernels(KernelRegistry& registry);

}  // namespace berth::cpu

#endif  // BERTH_PLUGINS_CPU_INTERPRETER_DATA_MOVEMENT_HPP_
