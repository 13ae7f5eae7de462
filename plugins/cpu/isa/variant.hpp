// What each ISA variant's object defines (the sources compiled once per
// variant, plugins/cpu/meson.build); only those sources include this. The
// core reaches them through the variant's Kernels table (isa.hpp).
#ifndef BERTH_PLUGINS_CPU_ISA_VARIANT_HPP_
#define BERTH_PLUGINS_CPU_ISA_VARIANT_HPP_

#include "isa/isa.hpp"

namespace berth::cpu::isa {

Status GemmF32(const GemmProblem<float>& problem, ThreadPool* pool);   // gemm.cc
Status GemmF64(const GemmProblem<double>& problem, ThreadPool* pool);  // gemm.cc
void FmaRowsF32(const float* a, const float* b, float* c, int64_t k, int64_t m,
                int64_t n);  // gemm.cc
void FmaRowsF64(const double* a, const double* b, double* c, int64_t k, int64_t m,
                int64_t n);  // gemm.cc
Status Reduce(const ReduceLoop& loop, ThreadPool* pool);              // reduce_loops.cc

}  // namespace berth::cpu::isa

namespace berth::cpu::elementwise {

// The themed file that computes `op` elementwise says how (variant.cc).
MakeBlockFn FindMaker(const stablehlo::Operation& op);
// stablehlo.convert's block function from -> to (kernels_convert.cc).
BlockFn ConvertFn(stablehlo::ElementType from, stablehlo::ElementType to);

}  // namespace berth::cpu::elementwise

#endif  // BERTH_PLUGINS_CPU_ISA_VARIANT_HPP_
