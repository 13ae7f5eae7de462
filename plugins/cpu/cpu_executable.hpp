// A StableHLO program compiled for the CPU backend: the verified module, its
// execution plan, and the device assignment of its replica x partition grid.
#ifndef BERTH_PLUGINS_CPU_CPU_EXECUTABLE_HPP_
#define BERTH_PLUGINS_CPU_CPU_EXECUTABLE_HPP_

#include <atomic>
#include <map>
#include <memory>
#include <vector>

#include "berth/plugin/executable.hpp"
#include "berth/stablehlo/ir.hpp"
#include "cpu_compiler.hpp"
#include "interpreter/plan.hpp"

namespace berth::cpu {

class CpuClient;

class CpuExecutable final : public plugin::LoadedExecutable {
 public:
  static Result<std::unique_ptr<CpuExecutable>> Compile(CpuClient& client,
                                                        const plugin::Program& program,
                                                        const plugin::CompileOptions& options);

  // Binds a lowered program to the client's devices and kernels.
  static Result<std::unique_ptr<CpuExecutable>> Load(CpuClient& client, LoweredProgram lowered);

  // Reads a payload made by Serialize: a cpu-plan (cpu executable ABI 1.1),
  // or the program's source and options as JSON (1.0), compiled again.
  static Result<std::unique_ptr<CpuExecutable>> Deserialize(CpuClient& client, std::string_view payload,
                                                            plugin::AbiVersion version);

  // A cpu-plan (cpu_compiler.hpp).
  Result<plugin::SerializedExecutable> Serialize() const override;

  Result<plugin::ExecuteResult> Execute(std::span<const std::vector<plugin::Buffer*>> argument_lists,
                                        const plugin::ExecuteOptions& options,
                                        plugin::Device* execute_device) override;

  const stablehlo::Module& module() const { return *program_->lowered.partitioned.module; }
  const ProgramPlan& plan() const { return *program_->plan; }

 private:
  // What executions need: shared with running executions, so destroying the
  // executable while they run is safe.
  struct Program {
    // The module and what Serialize writes with it.
    LoweredProgram lowered;
    std::unique_ptr<ProgramPlan> plan;
    const stablehlo::Function* entry = nullptr;
  };

  // One program instance this process runs: its device and grid position.
  struct Instance {
    plugin::Device* device;
    int64_t replica;
    int64_t partition;
  };

  CpuExecutable(std::shared_ptr<const plugin::ExecutableMetadata> metadata,
                std::vector<plugin::Device*> devices, CpuClient& client);

  Status CheckArguments(const std::vector<plugin::Buffer*>& arguments, size_t instance) const;

  CpuClient& client_;
  std::shared_ptr<const Program> program_;
  const stablehlo::Function* entry_ = nullptr;
  std::vector<int64_t> device_assignment_;
  std::vector<Instance> instances_;
};

}  // namespace berth::cpu

#endif  // BERTH_PLUGINS_CPU_CPU_EXECUTABLE_HPP_
