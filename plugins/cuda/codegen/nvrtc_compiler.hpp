// Generated CUDA C to device code with NVRTC, which needs no GPU: the cubin
// for one real architecture (sm_90 for an H100/H200). Compiled with
// -fmad=false, so a multiply and an add stay two roundings as StableHLO's
// ops are (the cpu plugin builds with -ffp-contract=off for the same reason).
//
// Compiles are cached for the life of the process by (source, architecture),
// so programs that generate the same kernel compile it once.
#ifndef BERTH_PLUGINS_CUDA_CODEGEN_NVRTC_COMPILER_HPP_
#define BERTH_PLUGINS_CUDA_CODEGEN_NVRTC_COMPILER_HPP_

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "berth/status.hpp"

namespace berth::cuda {

struct CompiledKernel {
  std::string cubin;  // an ELF image for cudaLibraryLoadData
  std::string log;    // NVRTC's log (warnings), may be empty
};

struct NvrtcCacheStats {
  int64_t hits = 0;
  int64_t misses = 0;
};

// The cubin of `source` for compute capability `major`.`minor` (e.g. 9, 0).
// A source NVRTC refuses is INTERNAL with NVRTC's log: generated code that
// does not compile is a defect of the code generator, not of the program.
Result<std::shared_ptr<const CompiledKernel>> CompileCudaSource(std::string_view source, int major,
                                                                int minor);

// The process-wide cache's counters (for tests).
NvrtcCacheStats NvrtcCacheCounters();

// NVRTC's version, e.g. "13.0".
std::string NvrtcVersion();

}  // namespace berth::cuda

#endif  // BERTH_PLUGINS_CUDA_CODEGEN_NVRTC_COMPILER_HPP_
