// Reductions whose body is one commutative binary op (interpreter/
// reduction.hpp: Reducer) as typed loops, compiled once per ISA variant
// (isa.hpp); kernels_reduce.cc calls them for stablehlo.reduce.
//
// Integers (and i1) fold in a plain loop, which any order computes exactly
// (wrapping); f32 and f64 rows of 16 or more fold into eight partial results
// held as a fixed-width GCC vector, combined in order at the end, so that the
// bits do not depend on the ISA's vector width; f16 and bf16 fold one element
// at a time, rounding after each step as the body would.
#ifndef BERTH_PLUGINS_CPU_ISA_REDUCE_LOOPS_HPP_
#define BERTH_PLUGINS_CPU_ISA_REDUCE_LOOPS_HPP_

#include <cstdint>
#include <span>

#include "berth/stablehlo/types.hpp"
#include "berth/status.hpp"
#include "interpreter/reduction.hpp"
#include "thread_pool.hpp"

namespace berth::cpu::isa {

// out[kept index] = fold of in over the reduced dims, starting from init.
struct ReduceLoop {
  Reducer reducer = Reducer::kNone;
  stablehlo::ElementType type = stablehlo::ElementType::kF32;
  const void* in = nullptr;         // row-major with dims `dims`
  void* out = nullptr;              // row-major over the kept dims
  const void* init = nullptr;       // one element
  std::span<const int64_t> dims;
  std::span<const char> reduced;    // per dim of `dims`: 1 when reduced
};

// INVALID_ARGUMENT for kNone or a type the loops do not compute.
using ReduceFn = Status (*)(const ReduceLoop& loop, ThreadPool* pool);

}  // namespace berth::cpu::isa

#endif  // BERTH_PLUGINS_CPU_ISA_REDUCE_LOOPS_HPP_
