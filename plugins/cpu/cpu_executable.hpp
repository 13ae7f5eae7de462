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
#include "interpreter/plan.hpp"

namespace berth::cpu {

class CpuClient;

class CpuExecutable final : public plugin::LoadedExecutable {
 public:
  static Result<std::unique_ptr<CpuExecutable>> Compile(CpuClient& client,
                                                        const plugin::Program& program,
                                                        const plugin::CompileOptions& options);

  // Reads a payload made by Serialize (cpu executable ABI 1.x) and compiles
  // its program again with the options it was compiled with.
  static Result<std::unique_ptr<CpuExecutable>> Deserialize(CpuClient& client,
                                                            std::string_view payload);

  // A JSON object: the program's source and its compile options.
  Result<plugin::SerializedExecutable> Serialize() const override;

  Result<plugin::ExecuteResult> Execute(std::span<const std::vector<plugin::Buffer*>> argument_lists,
                                        const plugin::ExecuteOptions& options,
                                        plugin::Device* execute_device) override;

  const stablehlo::Module& module() const { return *program_->module; }
  const ProgramPlan& plan() const { return *program_->plan; }

 private:
  // What executions need: shared with running executions, so destroying the
  // executable while they run is safe.
  struct Program {
    std::string source;              // as given to Compile, for Serialize
    plugin::CompileOptions options;  // likewise
    // The identity of each custom partitioning rule that partitioned it, by
    // target (what a serialized executable checks when loaded again).
    std::map<std::string, std::string> rule_identities;
    std::unique_ptr<stablehlo::Module> module;
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
