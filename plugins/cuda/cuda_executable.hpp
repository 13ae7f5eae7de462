// A compiled program on the cuda plugin: its plan, each fused kernel loaded
// (cudaLibraryLoadData of the NVRTC cubin for the device's architecture) and
// each constant in device memory, per device. Execute enqueues everything on
// the device's stream and returns at once; the outputs' ready events and the
// completion event are set by the device's completion queue (with the first
// failed check of the program, if any: its values are copied to the host
// and compared there once the work is done).
#ifndef BERTH_PLUGINS_CUDA_CUDA_EXECUTABLE_HPP_
#define BERTH_PLUGINS_CUDA_CUDA_EXECUTABLE_HPP_

#include <cuda_runtime_api.h>

#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

#include "berth/plugin/executable.hpp"
#include "berth/stablehlo/ir.hpp"
#include "cuda_device.hpp"
#include "cuda_plan.hpp"

namespace berth::cuda {

class CudaExecutable final : public plugin::LoadedExecutable {
 public:
  // Loads `plan` (of `module`) on `devices`: compiles each kernel for each
  // architecture among them and uploads the constants.
  static Result<std::unique_ptr<CudaExecutable>> Load(std::unique_ptr<stablehlo::Module> module,
                                                      CudaPlan plan,
                                                      std::vector<CudaDevice*> devices);
  ~CudaExecutable() override;

  Result<plugin::ExecuteResult> Execute(
      std::span<const std::vector<plugin::Buffer*>> argument_lists,
      const plugin::ExecuteOptions& options, plugin::Device* execute_device) override;

 private:
  // What one device holds of the program.
  struct OnDevice {
    CudaDevice* device = nullptr;
    std::unordered_map<const PlanStep*, cudaKernel_t> kernels;  // of the kFused steps
    // Of the kConstant steps: each bound to its value when its step runs.
    std::unordered_map<const PlanStep*, std::shared_ptr<DeviceMemory>> constants;
  };

  // A check step's values on their way to the host, compared when the
  // execution's work is done.
  struct PendingCheck {
    stablehlo::CheckSpec spec;
    stablehlo::ElementType type = stablehlo::ElementType::kF32;
    std::vector<int64_t> dims;
    std::shared_ptr<PinnedHostMemory> actual;
    std::shared_ptr<PinnedHostMemory> other;               // check.expect_eq and the like
    std::shared_ptr<const std::vector<uint8_t>> expected;  // the _const forms
    // check.expect_serialized_eq: the probed value compared with (in
    // `other`), or why it fails whatever the values (none was probed; of
    // another type).
    std::string failure;
  };
  // A value interpreter.probe copied to the host.
  struct ProbedValue {
    stablehlo::Type type;
    std::shared_ptr<PinnedHostMemory> host;
  };
  // What one device's execution gave: its outputs, and its checks in order.
  struct Enqueued {
    std::vector<std::unique_ptr<plugin::Buffer>> outputs;
    std::vector<PendingCheck> checks;
    // By probe scope and id, in the order they were probed.
    std::map<std::string, std::vector<ProbedValue>> probes;
    // interpreter.print's values, in program order.
    std::vector<std::pair<const stablehlo::Operation*, std::shared_ptr<PinnedHostMemory>>> prints;
  };
  // The first check that does not hold; OK when all do.
  static Status CompareChecks(const std::vector<PendingCheck>& checks);
  // The device memory of the values one block of an execution has (its
  // arguments, its constants and what its steps computed); enclosing
  // blocks' through `parent`.
  struct Frame {
    std::unordered_map<const stablehlo::Value*, std::shared_ptr<DeviceMemory>> values;
    const Frame* parent = nullptr;
  };
  static Result<std::shared_ptr<DeviceMemory>> MemoryOf(const Frame& frame,
                                                        const stablehlo::Value* value);
  // Enqueues `steps` on the device's stream, their values joining `frame`.
  static Status RunSteps(OnDevice& on, const std::vector<PlanStep>& steps, Frame& frame,
                         Enqueued& enqueued);
  static Status RunStep(OnDevice& on, const PlanStep& step, Frame& frame, Enqueued& enqueued);
  // Launches kFused `step`: its parameters' values in `frames[0]`, or - a
  // meeting of run_parallel's instances - in the frame of the instance each
  // names (PlanStep::instances); its outputs join the same frames.
  static Status LaunchKernel(OnDevice& on, const PlanStep& step, const std::vector<Frame*>& frames);
  // interpreter.run_parallel: a frame per instance, its arguments the op's
  // operands in grid order; the schedule's steps and meetings in order; the
  // instances' returned values the op's results.
  static Status RunParallel(OnDevice& on, const PlanStep& step, Frame& frame, Enqueued& enqueued);
  // A while, if or case: reads its predicate or index on the host - waiting
  // for the stream, on the thread that executes - and runs the region it
  // names; a func.call runs the callee's body. The op's results join
  // `frame`.
  static Status RunControlFlow(OnDevice& on, const PlanStep& step, Frame& frame,
                               Enqueued& enqueued);
  // The rank-0 integer or i1 `value`, copied to the host once the stream
  // has computed it.
  static Result<int64_t> ReadScalar(OnDevice& on, const Frame& frame,
                                    const stablehlo::Value* value);
  // Uploads the constants of `steps` (and their regions) and loads their
  // kernels for `on`'s device, each (kernel, architecture) once.
  static Status LoadSteps(const std::vector<PlanStep>& steps, OnDevice& on,
                          std::map<std::pair<const PlanStep*, int>, cudaKernel_t>& loaded,
                          std::vector<cudaLibrary_t>& libraries);

  CudaExecutable(std::shared_ptr<const plugin::ExecutableMetadata> metadata,
                 std::vector<plugin::Device*> devices, std::unique_ptr<stablehlo::Module> module,
                 CudaPlan plan);
  Result<Enqueued> Enqueue(OnDevice& on, const std::vector<plugin::Buffer*>& args,
                           plugin::Event done);

  std::unique_ptr<stablehlo::Module> module_;
  CudaPlan plan_;
  std::vector<cudaLibrary_t> libraries_;
  std::vector<OnDevice> on_devices_;
};

}  // namespace berth::cuda

#endif  // BERTH_PLUGINS_CUDA_CUDA_EXECUTABLE_HPP_
