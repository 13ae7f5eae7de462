// The cpu plugin's compiler, in the phases the phase_compile extension runs
// one at a time (berth/ext/phase_compile.h):
//
//   verify     stablehlo             -> stablehlo              parse and verify (quantized types lowered,
//                                                              berth/stablehlo/quantization.hpp); printed
//   partition  stablehlo             -> stablehlo-partitioned  the SDK's SPMD partitioner: each device's
//                                                              program, its layouts on the first line
//   plan       stablehlo-partitioned -> cpu-plan               binary: the compile settings and the
//                                                              per-device module as stablehlo bytecode
//
// A one-shot compile runs the same functions without writing the
// intermediates. Loading a cpu-plan reads the bytecode (no parsing, no
// verifying, no partitioning) and binds kernels (ProgramPlan::Build: kernel
// addresses are per process); serialized executables are cpu-plans.
#ifndef BERTH_PLUGINS_CPU_CPU_COMPILER_HPP_
#define BERTH_PLUGINS_CPU_CPU_COMPILER_HPP_

#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "berth/plugin/client.hpp"
#include "berth/stablehlo/ir.hpp"

namespace berth::cpu {

class CpuClient;

inline constexpr std::string_view kStablehloFormat = "stablehlo";
inline constexpr std::string_view kPartitionedFormat = "stablehlo-partitioned";
inline constexpr std::string_view kPlanFormat = "cpu-plan";

// The phases in order.
std::span<const plugin::CompilePhase> CpuCompilePhases();

// A program after the partition phase: each device's module, and for a
// program the partitioner cut, the layouts of its parameters and outputs and
// the custom partitioning rules it used (target -> identity).
struct PartitionedModule {
  std::unique_ptr<stablehlo::Module> module;
  std::vector<plugin::ValueSharding> parameter_shardings;
  std::vector<plugin::ValueSharding> output_shardings;
  std::map<std::string, std::string> rule_identities;
};

// A program ready to load: the partitioned module and the options it was
// compiled with.
// The job's slices a program was compiled in (the multi_slice extension):
// the count and each device's slice, in the client's device order.
struct SliceRecord {
  int32_t num_slices = 1;
  std::vector<int32_t> device_slices;
  bool operator==(const SliceRecord&) const = default;
  std::string ToString() const;  // "2 slices [0, 0, 1, 1]"
};
SliceRecord SlicesOf(const CpuClient& client);

struct LoweredProgram {
  PartitionedModule partitioned;
  plugin::CompileOptions options;
  std::string source_name;  // for diagnostics
  bool fuse_elementwise = true;
  SliceRecord slices;
};

// Runs the phases from `program`'s format to the end (a cpu-plan is only
// read), as a one-shot compile does.
Result<LoweredProgram> Lower(CpuClient& client, const plugin::Program& program,
                             const plugin::CompileOptions& options);

// One phase, for the phase_compile extension (the SDK has checked the name
// and the input's format).
Result<std::string> RunCpuPhase(CpuClient& client, const plugin::CompilePhase& phase, const plugin::Program& input,
                                const plugin::CompileOptions& options);

// A cpu-plan's bytes (phase `plan`, and Executable::Serialize), and reading
// them back: INVALID_ARGUMENT for bytes that are not a whole cpu-plan.
// `options` given to Decode are checked against those recorded: a count,
// assignment or entry that differs is INVALID_ARGUMENT; defaults take the
// recorded ones. A plan records the slices of the job it was compiled in;
// `client`'s job must have the same (FAILED_PRECONDITION naming both; plans
// written before slices were recorded load anywhere).
std::string EncodePlan(const LoweredProgram& program);
Result<LoweredProgram> DecodePlan(std::string_view bytes, const plugin::CompileOptions& options,
                                  const CpuClient& client);

}  // namespace berth::cpu

#endif  // BERTH_PLUGINS_CPU_CPU_COMPILER_HPP_
