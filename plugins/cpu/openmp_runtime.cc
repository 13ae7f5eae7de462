#include "openmp_runtime.hpp"

#ifdef _OPENMP
#include <dlfcn.h>
#include <omp.h>
#endif

namespace berth::cpu {

void PinOpenMpRuntime() {
#ifdef _OPENMP
  // Find the runtime by one of its symbols, whatever its file name, and mark
  // the already loaded library RTLD_NODELETE. The handle is never closed.
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&omp_get_max_threads), &info) != 0 &&
      info.dli_fname != nullptr) {
    (void)dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
  }
#endif
}

}  // namespace berth::cpu
