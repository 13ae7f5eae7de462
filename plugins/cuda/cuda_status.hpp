// CUDA runtime and NVRTC results as Berth statuses: the error's name and
// CUDA's own description, after what was being done.
#ifndef BERTH_PLUGINS_CUDA_CUDA_STATUS_HPP_
#define BERTH_PLUGINS_CUDA_CUDA_STATUS_HPP_

#include <cuda_runtime_api.h>
#include <nvrtc.h>

#include <string>
#include <string_view>

#include "berth/status.hpp"

namespace berth::cuda {

// "cudaErrorNoDevice (no CUDA-capable device is detected)".
std::string CudaErrorText(cudaError_t error);

// OK for cudaSuccess; otherwise `code` with "<what>: <CudaErrorText>".
// Out-of-memory errors are RESOURCE_EXHAUSTED whatever `code` says.
Status CudaStatus(cudaError_t error, std::string_view what,
                  StatusCode code = StatusCode::kInternal);

// OK for NVRTC_SUCCESS; otherwise INTERNAL "<what>: <nvrtcGetErrorString>".
Status NvrtcStatus(nvrtcResult result, std::string_view what);

}  // namespace berth::cuda

#endif  // BERTH_PLUGINS_CUDA_CUDA_STATUS_HPP_
