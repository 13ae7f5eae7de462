// The cuda plugin's client options, typed and validated before any CUDA call
// (so a wrong option is INVALID_ARGUMENT on a machine without a GPU too).
//
//   visible_devices  int64 list  indices into the GPUs the CUDA runtime shows
//                                (CUDA_VISIBLE_DEVICES already applied);
//                                empty (default): all of them
//   preallocate      bool        reserve memory_fraction of each GPU's memory
//                                when the client is made (default true; the
//                                `default` allocator only)
//   memory_fraction  float64     share of a GPU's memory the client may use,
//                                in (0, 1] (default 0.75)
//   allocator        string      default | cuda_async | platform
//
// The names and defaults are those of JAX's GPU plugin
// (XLA_PYTHON_CLIENT_PREALLOCATE, _MEM_FRACTION, _ALLOCATOR).
#ifndef BERTH_PLUGINS_CUDA_CUDA_CLIENT_OPTIONS_HPP_
#define BERTH_PLUGINS_CUDA_CUDA_CLIENT_OPTIONS_HPP_

#include <cstdint>
#include <string_view>
#include <vector>

#include "berth/named_value.hpp"
#include "berth/status.hpp"

namespace berth::cuda {

enum class AllocatorKind {
  kDefault,    // a best-fit pool over memory reserved from the device
  kCudaAsync,  // cudaMallocAsync on the device's stream-ordered pool
  kPlatform,   // cudaMalloc / cudaFree per buffer
};

std::string_view AllocatorName(AllocatorKind kind);

struct CudaClientOptions {
  std::vector<int64_t> visible_devices;  // empty: all
  bool preallocate = true;
  double memory_fraction = 0.75;
  AllocatorKind allocator = AllocatorKind::kDefault;
  int64_t node_id = 0;
  int64_t num_nodes = 1;
};

// Reads and checks `options` (unknown names, types, ranges, combinations):
// INVALID_ARGUMENT naming the option and what it must be.
Result<CudaClientOptions> ParseCudaClientOptions(const NamedValueMap& options);

// Checks `visible_devices` against the `device_count` GPUs the runtime
// shows: each in range, none twice. Returns the ordinals to use, in order.
Result<std::vector<int>> SelectVisibleDevices(const CudaClientOptions& options, int device_count);

}  // namespace berth::cuda

#endif  // BERTH_PLUGINS_CUDA_CUDA_CLIENT_OPTIONS_HPP_
