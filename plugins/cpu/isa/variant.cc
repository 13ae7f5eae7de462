// One ISA variant's table: meson.build compiles this (with the variant's
// sources) once per variant, defining BERTH_CPU_ISA_ENTRY (the table's
// function, the one global symbol the variant's object keeps),
// BERTH_CPU_ISA_LEVEL and BERTH_CPU_ISA_NAME.
#include "interpreter/elementwise_blocks.hpp"
#include "isa/variant.hpp"

namespace berth::cpu::elementwise {

MakeBlockFn FindMaker(const stablehlo::Operation& op) {
  stablehlo::OpKind kind = op.kind();
  if (MakeBlockFn make = FindComplexBlock(op)) return make;
  if (MakeBlockFn make = FindArithmeticBlock(kind)) return make;
  if (MakeBlockFn make = FindMathBlock(kind)) return make;
  if (MakeBlockFn make = FindBitsBlock(kind)) return make;
  if (MakeBlockFn make = FindCompareBlock(kind)) return make;
  if (MakeBlockFn make = FindSpecialBlock(kind)) return make;
  return FindConvertBlock(op);
}

}  // namespace berth::cpu::elementwise

extern "C" const berth::cpu::isa::Kernels* BERTH_CPU_ISA_ENTRY() {
  using namespace berth::cpu;
  static const isa::Kernels kernels{
      isa::Level::BERTH_CPU_ISA_LEVEL, BERTH_CPU_ISA_NAME, elementwise::FindMaker,
      elementwise::ConvertFn,          isa::GemmF32,       isa::GemmF64,
      isa::FmaRowsF32,                 isa::FmaRowsF64,    isa::Reduce,
  };
  return &kernels;
}
