// ISA variants of the cpu plugin's hot kernels, chosen once per process.
//
// The elementwise block functions, conversions, reduction loops and matrix
// products are compiled once per x86-64 ISA level this build holds
// (x86-64-v2: SSE4.2; x86-64-v3: AVX2 and FMA; x86-64-v4: AVX-512; or one
// `native` variant with -Dnative=true), each into an object of its own whose
// symbols are all made local but its entry function (plugins/cpu/meson.build,
// isa/localize_variant.py), so no inline function or template compiled for
// one level can stand in for another's at link time. Everything else in the
// plugin is built for the compiler's baseline.
//
// Every variant computes the same bits: the kernels fix their order of
// operations (GEMM: one fma chain over k per element, emulated exactly on
// x86-64-v2; float reductions: eight partial results whatever the vector
// width), and the plugin builds with -ffp-contract=off.
#ifndef BERTH_PLUGINS_CPU_ISA_ISA_HPP_
#define BERTH_PLUGINS_CPU_ISA_ISA_HPP_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "berth/stablehlo/ir.hpp"
#include "berth/status.hpp"
#include "interpreter/elementwise.hpp"
#include "isa/gemm.hpp"
#include "isa/reduce_loops.hpp"

namespace berth::cpu::isa {

enum class Level : uint8_t { kV2, kV3, kV4, kNative };

// What one variant computes with.
struct Kernels {
  Level level;
  const char* name;  // "x86-64-v2", "x86-64-v3", "x86-64-v4", "native"
  // How to make the block function of an elementwise `op` (the themed
  // kernels_elementwise_*.cc files and kernels_convert.cc); NULL when `op`
  // is not computed elementwise.
  elementwise::MakeBlockFn (*find_elementwise)(const stablehlo::Operation& op);
  // The block function converting `from` to `to` as stablehlo.convert does;
  // NULL when either type is not supported.
  BlockFn (*convert)(stablehlo::ElementType from, stablehlo::ElementType to);
  GemmF32Fn gemm_f32;
  GemmF64Fn gemm_f64;
  FmaRowsF32Fn fma_rows_f32;
  FmaRowsF64Fn fma_rows_f64;
  ReduceFn reduce;
};

// "v2", "v3", "v4", "native": the names BERTH_CPU_ISA takes.
std::string_view ShortName(Level level);

// The variants this build holds, lowest level first.
std::span<const Kernels* const> Built();

// Whether this CPU (and its operating system) runs code of `level`.
bool CpuRuns(Level level);

// The variant this process computes with, chosen at the first call:
// BERTH_CPU_ISA (v2, v3, v4, native) when set, else the highest built level
// the CPU runs. FAILED_PRECONDITION when BERTH_CPU_ISA names a variant that
// is not built or that this CPU cannot run, or when the CPU runs none of
// them (one older than x86-64-v2); the cpu client is not created then.
Result<const Kernels*> Selected();

// The selected variant. Kernels call this: they run only in clients, which
// exist only when Selected() succeeded (code that links the plugin's core
// directly gets the lowest built variant when selection failed).
const Kernels& Active();

}  // namespace berth::cpu::isa

#endif  // BERTH_PLUGINS_CPU_ISA_ISA_HPP_
