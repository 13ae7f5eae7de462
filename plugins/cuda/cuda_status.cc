#include "cuda_status.hpp"

namespace berth::cuda {

std::string CudaErrorText(cudaError_t error) {
  return std::string(cudaGetErrorName(error)) + " (" + cudaGetErrorString(error) + ")";
}

Status CudaStatus(cudaError_t error, std::string_view what, StatusCode code) {
  if (error == cudaSuccess) return OkStatus();
  if (error == cudaErrorMemoryAllocation) code = StatusCode::kResourceExhausted;
  return Status(code, std::string(what) + ": " + CudaErrorText(error));
}

Status NvrtcStatus(nvrtcResult result, std::string_view what) {
  if (result == NVRTC_SUCCESS) return OkStatus();
  return InternalError(std::string(what) + ": " + nvrtcGetErrorString(result));
}

}  // namespace berth::cuda
