#include "codegen/nvrtc_compiler.hpp"

#include <nvrtc.h>

#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "cuda_status.hpp"

namespace berth::cuda {
namespace {

struct Cache {
  std::mutex mutex;
  std::map<std::pair<std::string, int>, std::shared_ptr<const CompiledKernel>, std::less<>> entries;
  NvrtcCacheStats stats;
};

Cache& TheCache() {
  static Cache* cache = new Cache();  // lives until exit; kernels may be looked up from any thread
  return *cache;
}

// Owns one nvrtcProgram.
class Program {
 public:
  ~Program() {
    if (program_ != nullptr) nvrtcDestroyProgram(&program_);
  }
  nvrtcProgram* out() { return &program_; }
  nvrtcProgram get() const { return program_; }

 private:
  nvrtcProgram program_ = nullptr;
};

std::string Log(nvrtcProgram program) {
  size_t size = 0;
  if (nvrtcGetProgramLogSize(program, &size) != NVRTC_SUCCESS || size <= 1) return "";
  std::string log(size, '\0');
  if (nvrtcGetProgramLog(program, log.data()) != NVRTC_SUCCESS) return "";
  log.resize(size - 1);  // the terminating NUL
  return log;
}

Result<CompiledKernel> Compile(const std::string& source, int major, int minor) {
  Program program;
  BERTH_RETURN_IF_ERROR(NvrtcStatus(
      nvrtcCreateProgram(program.out(), source.c_str(), "berth_generated.cu", 0, nullptr, nullptr),
      "nvrtcCreateProgram"));
  const std::string arch = "--gpu-architecture=sm_" + std::to_string(major) + std::to_string(minor);
  const char* options[] = {arch.c_str(),      "--std=c++17",      "--fmad=false",   "--ftz=false",
                           "--prec-div=true", "--prec-sqrt=true", "-default-device"};
  const nvrtcResult compiled =
      nvrtcCompileProgram(program.get(), static_cast<int>(std::size(options)), options);
  CompiledKernel kernel;
  kernel.log = Log(program.get());
  if (compiled != NVRTC_SUCCESS) {
    return InternalError("NVRTC could not compile a generated kernel for sm_" +
                         std::to_string(major) + std::to_string(minor) + " (" +
                         nvrtcGetErrorString(compiled) + "):\n" + kernel.log);
  }
  size_t size = 0;
  BERTH_RETURN_IF_ERROR(NvrtcStatus(nvrtcGetCUBINSize(program.get(), &size), "nvrtcGetCUBINSize"));
  kernel.cubin.resize(size);
  BERTH_RETURN_IF_ERROR(
      NvrtcStatus(nvrtcGetCUBIN(program.get(), kernel.cubin.data()), "nvrtcGetCUBIN"));
  return kernel;
}

}  // namespace

Result<std::shared_ptr<const CompiledKernel>> CompileCudaSource(std::string_view source, int major,
                                                                int minor) {
  if (major < 5 || major > 20 || minor < 0 || minor > 9) {
    return InvalidArgumentError("no CUDA architecture sm_" + std::to_string(major) +
                                std::to_string(minor));
  }
  Cache& cache = TheCache();
  const int arch = major * 10 + minor;
  std::pair<std::string, int> key(std::string(source), arch);
  {
    std::lock_guard lock(cache.mutex);
    auto it = cache.entries.find(key);
    if (it != cache.entries.end()) {
      ++cache.stats.hits;
      return it->second;
    }
  }
  // Compiled outside the lock: two threads may compile the same source once
  // each; the first result stays.
  BERTH_ASSIGN_OR_RETURN(CompiledKernel kernel, Compile(key.first, major, minor));
  auto compiled = std::make_shared<const CompiledKernel>(std::move(kernel));
  std::lock_guard lock(cache.mutex);
  ++cache.stats.misses;
  return cache.entries.emplace(std::move(key), std::move(compiled)).first->second;
}

NvrtcCacheStats NvrtcCacheCounters() {
  std::lock_guard lock(TheCache().mutex);
  return TheCache().stats;
}

std::string NvrtcVersion() {
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return "unknown";
  return std::to_string(major) + "." + std::to_string(minor);
}

}  // namespace berth::cuda
