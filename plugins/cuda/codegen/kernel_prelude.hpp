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

}  // namespace berth::cuda

#endif  // BERTH_PLUGINS_CUDA_CODEGEN_KERNEL_PRELUDE_HPP_
