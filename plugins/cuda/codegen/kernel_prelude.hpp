// The CUDA C every generated kernel starts with: fixed-width types, f16 and
// bf16 held as their bits and computed in float (rounded to nearest even after
// every op, as the cpu plugin does), and the StableHLO semantics CUDA's
// operators do not have (integer division by zero, shifts past the width,
// NaN-propagating maximum, saturating float-to-integer convert, total order).
// It needs no header, so NVRTC compiles it without a CUDA include path.
#ifndef BERTH_PLUGINS_CUDA_CODEGEN_KERNEL_PRELUDE_HPP_
#define BERTH_PLUGINS_CUDA_CODEGEN_KERNEL_PRELUDE_HPP_

#include <string_view>

namespace berth::cuda {

std::string_view KernelPrelude();

// CHLO's special functions as the cpu plugin computes them (erf_inv,
// digamma, polygamma, zeta, bessel_i1e; next_after on a format's bits), in
// double: special_functions_prelude.cc.
std::string_view KernelSpecialFunctions();

// What every generated kernel starts with: the prelude, then the special
// functions.
std::string_view KernelHeader();

}  // namespace berth::cuda

#endif  // BERTH_PLUGINS_CUDA_CODEGEN_KERNEL_PRELUDE_HPP_
