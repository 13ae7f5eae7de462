// The kernels of kernel_families.hpp, generated at build time by
// generate_host_kernels and compiled as host C++ (kernel_host_shim.hpp).
#ifndef BERTH_TESTS_CUDA_HOST_KERNELS_HPP_
#define BERTH_TESTS_CUDA_HOST_KERNELS_HPP_

#include <cstddef>

// The order the emulated threads of a kernel run in: first to last (false,
// the default) or last to first (kernel_host_shim.hpp).
extern bool berth_host_threads_reversed;

namespace berth::cuda::testing {

struct HostKernel {
  const char* family;
  const char* kernel;  // its name in the plan (FusedKernel::name)
  // args: each input's data, each output's data, then the address of the
  // element count (a long long).
  void (*invoke)(void* const* args);
};

extern const HostKernel kHostKernels[];
extern const size_t kNumHostKernels;

// The generated code's functions of complex numbers that stand for the C
// library's (cexp, csin, ...), compiled as the kernels are.
enum class HostComplexFunction { kExp, kSin, kCos, kTan, kSinh, kCosh, kTanh, kSqrt, kLog };
void HostComplexFunctionF32(HostComplexFunction function, float re, float im, float* out_re,
                            float* out_im);
void HostComplexFunctionF64(HostComplexFunction function, double re, double im, double* out_re,
                            double* out_im);

}  // namespace berth::cuda::testing

#endif  // BERTH_TESTS_CUDA_HOST_KERNELS_HPP_
