#include "cuda_executable.hpp"

#include <algorithm>
#include <cstdio>

#include "codegen/nvrtc_compiler.hpp"
#include "cuda_buffer.hpp"
#include "cuda_status.hpp"

namespace berth::cuda {
namespace {

constexpr int kThreadsPerBlock = 256;

ElementType BufferTypeOf(stablehlo::Type type) {
  return stablehlo::ToBufferType(type.element_type());
}

std::string Describe(ElementType type, std::span<const int64_t> dims) {
  return std::string(ElementTypeName(type)) + DimsString(dims);
}

}  // namespace

CudaExecutable::CudaExecutable(std::shared_ptr<const plugin::ExecutableMetadata> metadata,
                               std::vector<plugin::Device*> devices,
                               std::unique_ptr<stablehlo::Module> module, CudaPlan plan)
    : plugin::LoadedExecutable(std::move(metadata), std::move(devices)),
      module_(std::move(module)),
      plan_(std::move(plan)) {}

CudaExecutable::~CudaExecutable() {
  for (OnDevice& on : on_devices_) {
    if (on.device->Activate().ok()) cudaStreamSynchronize(on.device->stream());
    on.constants.clear();
  }
  for (cudaLibrary_t library : libraries_) cudaLibraryUnload(library);
}

Result<std::unique_ptr<CudaExecutable>> CudaExecutable::Load(
    std::unique_ptr<stablehlo::Module> module, CudaPlan plan, std::vector<CudaDevice*> devices) {
  auto metadata = std::make_shared<plugin::ExecutableMetadata>();
  metadata->name = std::string(plan.entry->name());
  for (const stablehlo::Value* result : plan.entry->entry_block().terminator()->operands()) {
    const stablehlo::Type type = result->type();
    if (!type.IsTensor() || !type.HasStaticShape() || BufferTypeOf(type) == ElementType::kInvalid) {
      return UnimplementedError("the cuda plugin cannot return a value of type " + type.ToString() +
                                " yet");
    }
    metadata->output_types.push_back(BufferTypeOf(type));
    metadata->output_dims.emplace_back(type.shape().begin(), type.shape().end());
  }
  for (const stablehlo::Value* argument : plan.entry->entry_block().arguments()) {
    const stablehlo::Type type = argument->type();
    if (!type.IsTensor() || !type.HasStaticShape() || BufferTypeOf(type) == ElementType::kInvalid) {
      return UnimplementedError("the cuda plugin cannot take a parameter of type " +
                                type.ToString() + " yet");
    }
  }
  std::vector<plugin::Device*> plain(devices.begin(), devices.end());
  std::unique_ptr<CudaExecutable> executable(new CudaExecutable(
      std::move(metadata), std::move(plain), std::move(module), std::move(plan)));
  const CudaPlan& steps = executable->plan_;

  // One library per (kernel, architecture); each device takes its handles.
  std::map<std::pair<const PlanStep*, int>, cudaKernel_t> loaded;
  for (CudaDevice* device : devices) {
    BERTH_RETURN_IF_ERROR(device->Activate());
    OnDevice on;
    on.device = device;
    BERTH_RETURN_IF_ERROR(executable->LoadSteps(steps.steps, on, loaded, executable->libraries_));
    executable->on_devices_.push_back(std::move(on));
  }
  return executable;
}

Status CudaExecutable::LoadSteps(const std::vector<PlanStep>& steps, OnDevice& on,
                                 std::map<std::pair<const PlanStep*, int>, cudaKernel_t>& loaded,
                                 std::vector<cudaLibrary_t>& libraries) {
  CudaDevice& device = *on.device;
  const int arch = device.gpu().compute_major * 10 + device.gpu().compute_minor;
  for (const PlanStep& step : steps) {
    for (const BlockPlan& region : step.regions) {
      BERTH_RETURN_IF_ERROR(LoadSteps(region.steps, on, loaded, libraries));
    }
    BERTH_RETURN_IF_ERROR(LoadSteps(step.meetings, on, loaded, libraries));
    if (step.kind == PlanStep::Kind::kConstant) {
      const stablehlo::DenseElementsAttr* value = step.op->GetDense("value");
      if (value == nullptr && !step.literal)
        return UnimplementedError("a constant without dense elements");
      const std::vector<uint8_t> bytes = step.literal ? *step.literal : value->ExpandedData();
      BERTH_ASSIGN_OR_RETURN(std::shared_ptr<DeviceMemory> memory,
                             DeviceMemory::Allocate(device, bytes.size()));
      if (!bytes.empty()) {
        // On the device's stream (the memory is stream-ordered), waited
        // for here: loading is not on the execution path.
        BERTH_RETURN_IF_ERROR(CudaStatus(cudaMemcpyAsync(memory->data(), bytes.data(), bytes.size(),
                                                         cudaMemcpyHostToDevice, device.stream()),
                                         device.Name() + ": uploading a constant"));
        BERTH_RETURN_IF_ERROR(CudaStatus(cudaStreamSynchronize(device.stream()),
                                         device.Name() + ": uploading a constant"));
      }
      on.constants[&step] = std::move(memory);
      continue;
    }
    if (step.kind != PlanStep::Kind::kFused) continue;
    auto it = loaded.find({&step, arch});
    if (it == loaded.end()) {
      BERTH_ASSIGN_OR_RETURN(
          std::shared_ptr<const CompiledKernel> compiled,
          CompileCudaSource(step.source, device.gpu().compute_major, device.gpu().compute_minor));
      cudaLibrary_t library = nullptr;
      BERTH_RETURN_IF_ERROR(
          CudaStatus(cudaLibraryLoadData(&library, compiled->cubin.data(), nullptr, nullptr, 0,
                                         nullptr, nullptr, 0),
                     device.Name() + ": loading kernel " + step.fused.name));
      libraries.push_back(library);
      cudaKernel_t kernel = nullptr;
      BERTH_RETURN_IF_ERROR(
          CudaStatus(cudaLibraryGetKernel(&kernel, library, step.fused.name.c_str()),
                     device.Name() + ": finding kernel " + step.fused.name));
      it = loaded.emplace(std::make_pair(&step, arch), kernel).first;
    }
    on.kernels[&step] = it->second;
  }
  return OkStatus();
}

Status CudaExecutable::CompareChecks(const std::vector<PendingCheck>& checks) {
  for (const PendingCheck& check : checks) {
    if (!check.failure.empty()) return FailedPreconditionError(check.failure);
    const void* expected = check.expected ? check.expected->data() : check.other->data();
    BERTH_RETURN_IF_ERROR(stablehlo::CompareForCheck(check.type, check.dims, check.actual->data(),
                                                     expected, check.spec));
  }
  return OkStatus();
}

Result<CudaExecutable::Enqueued> CudaExecutable::Enqueue(OnDevice& on,
                                                         const std::vector<plugin::Buffer*>& args,
                                                         plugin::Event done) {
  CudaDevice& device = *on.device;
  const stablehlo::Block& block = plan_.entry->entry_block();
  if (args.size() != block.num_arguments()) {
    return InvalidArgumentError("the program takes " + std::to_string(block.num_arguments()) +
                                " arguments, not " + std::to_string(args.size()));
  }
  // The arguments; what the steps compute joins them (constants stay in `on`).
  Frame root;
  for (size_t i = 0; i < args.size(); ++i) {
    const stablehlo::Type type = block.argument(i)->type();
    auto* buffer = dynamic_cast<CudaBuffer*>(args[i]);
    if (buffer == nullptr || &buffer->cuda_device() != &device) {
      return InvalidArgumentError("argument " + std::to_string(i) + " is not a buffer on " +
                                  device.Name());
    }
    if (buffer->element_type() != BufferTypeOf(type) ||
        !std::equal(buffer->dims().begin(), buffer->dims().end(), type.shape().begin(),
                    type.shape().end())) {
      return InvalidArgumentError("argument " + std::to_string(i) + " is " +
                                  Describe(buffer->element_type(), buffer->dims()) +
                                  "; the program's parameter is " +
                                  Describe(BufferTypeOf(type), type.shape()));
    }
    if (buffer->ReadyEvent().IsReady() && !buffer->ReadyEvent().status().ok()) {
      return buffer->ReadyEvent().status().WithContext("argument " + std::to_string(i));
    }
    std::shared_ptr<DeviceMemory> data = buffer->data();
    if (data == nullptr)
      return FailedPreconditionError("argument " + std::to_string(i) + " was deleted");
    root.values[block.argument(i)] = std::move(data);
  }
  BERTH_RETURN_IF_ERROR(device.Activate());
  Enqueued enqueued;
  BERTH_RETURN_IF_ERROR(RunSteps(on, plan_.steps, root, enqueued));
  // Outputs own their memory: a value returned twice, or an argument's or a
  // constant's memory returned (also through a loop that ran no iteration),
  // is copied.
  std::vector<const DeviceMemory*> taken;
  for (const auto& [value, memory] : root.values) {
    if (value->IsBlockArgument()) taken.push_back(memory.get());
  }
  for (const auto& [step, memory] : on.constants) taken.push_back(memory.get());
  for (const stablehlo::Value* result : block.terminator()->operands()) {
    BERTH_ASSIGN_OR_RETURN(std::shared_ptr<DeviceMemory> memory, MemoryOf(root, result));
    if (std::find(taken.begin(), taken.end(), memory.get()) != taken.end()) {
      BERTH_ASSIGN_OR_RETURN(std::shared_ptr<DeviceMemory> copy,
                             DeviceMemory::Allocate(device, memory->size()));
      if (memory->size() > 0) {
        BERTH_RETURN_IF_ERROR(
            CudaStatus(cudaMemcpyAsync(copy->data(), memory->data(), memory->size(),
                                       cudaMemcpyDeviceToDevice, device.stream()),
                       device.Name() + ": copying an output"));
      }
      memory = std::move(copy);
    }
    taken.push_back(memory.get());
    const stablehlo::Type type = result->type();
    enqueued.outputs.push_back(std::make_unique<CudaBuffer>(
        BufferTypeOf(type), std::vector<int64_t>(type.shape().begin(), type.shape().end()), device,
        device.default_memory(), std::move(memory), done));
  }
  // Intermediates are given back now, stream-ordered, when `root` goes.
  return enqueued;
}

Result<std::shared_ptr<DeviceMemory>> CudaExecutable::MemoryOf(const Frame& frame,
                                                               const stablehlo::Value* value) {
  if (value->type().IsToken()) return std::shared_ptr<DeviceMemory>();  // tokens hold nothing
  for (const Frame* f = &frame; f != nullptr; f = f->parent) {
    if (auto it = f->values.find(value); it != f->values.end()) return it->second;
  }
  return InternalError("the cuda executable reads a value no step has made (of type " +
                       value->type().ToString() + ")");
}

Result<int64_t> CudaExecutable::ReadScalar(OnDevice& on, const Frame& frame,
                                           const stablehlo::Value* value) {
  CudaDevice& device = *on.device;
  BERTH_ASSIGN_OR_RETURN(std::shared_ptr<DeviceMemory> memory, MemoryOf(frame, value));
  BERTH_ASSIGN_OR_RETURN(
      std::shared_ptr<PinnedHostMemory> host,
      PinnedHostMemory::Allocate(memory->size(), device.Name() + ": a predicate"));
  BERTH_RETURN_IF_ERROR(CudaStatus(cudaMemcpyAsync(host->data(), memory->data(), memory->size(),
                                                   cudaMemcpyDeviceToHost, device.stream()),
                                   device.Name() + ": copying a predicate to the host"));
  BERTH_RETURN_IF_ERROR(CudaStatus(cudaStreamSynchronize(device.stream()),
                                   device.Name() + ": waiting for a predicate"));
  return ScalarIndex(value->type().element_type(), host->data());
}

Status CudaExecutable::RunControlFlow(OnDevice& on, const PlanStep& step, Frame& frame,
                                      Enqueued& enqueued) {
  const stablehlo::Operation& op = *step.op;
  // Runs region `r` with `args` bound to its block's arguments; what its
  // terminator returns.
  auto run_region = [&](size_t r, const std::vector<std::shared_ptr<DeviceMemory>>& args)
      -> Result<std::vector<std::shared_ptr<DeviceMemory>>> {
    const BlockPlan& region = step.regions[r];
    Frame inner;
    inner.parent = &frame;
    for (size_t a = 0; a < args.size(); ++a) inner.values[region.block->argument(a)] = args[a];
    BERTH_RETURN_IF_ERROR(RunSteps(on, region.steps, inner, enqueued));
    std::vector<std::shared_ptr<DeviceMemory>> returned;
    for (const stablehlo::Value* value : region.block->terminator()->operands()) {
      BERTH_ASSIGN_OR_RETURN(std::shared_ptr<DeviceMemory> memory, MemoryOf(inner, value));
      returned.push_back(std::move(memory));
    }
    if (op.kind() == stablehlo::OpKind::kWhile && r == 0) {
      // The condition: its predicate, read before `inner` goes.
      BERTH_ASSIGN_OR_RETURN(int64_t holds,
                             ReadScalar(on, inner, region.block->terminator()->operand(0)));
      returned.assign(holds != 0 ? 1 : 0, nullptr);
    }
    return returned;
  };
  std::vector<std::shared_ptr<DeviceMemory>> results;
  if (op.kind() == stablehlo::OpKind::kWhile) {
    for (const stablehlo::Value* operand : op.operands()) {
      BERTH_ASSIGN_OR_RETURN(std::shared_ptr<DeviceMemory> memory, MemoryOf(frame, operand));
      results.push_back(std::move(memory));
    }
    while (true) {
      BERTH_ASSIGN_OR_RETURN(std::vector<std::shared_ptr<DeviceMemory>> go, run_region(0, results));
      if (go.empty()) break;
      BERTH_ASSIGN_OR_RETURN(results, run_region(1, results));
    }
  } else if (op.kind() == stablehlo::OpKind::kFuncCall ||
             op.kind() == stablehlo::OpKind::kComposite) {
    std::vector<std::shared_ptr<DeviceMemory>> args;
    for (const stablehlo::Value* operand : op.operands()) {
      BERTH_ASSIGN_OR_RETURN(std::shared_ptr<DeviceMemory> memory, MemoryOf(frame, operand));
      args.push_back(std::move(memory));
    }
    BERTH_ASSIGN_OR_RETURN(results, run_region(0, args));
  } else {
    // if: the true branch is region 0; case: an index out of range takes
    // the last branch.
    BERTH_ASSIGN_OR_RETURN(int64_t selector, ReadScalar(on, frame, op.operand(0)));
    BERTH_ASSIGN_OR_RETURN(results, run_region(BranchOf(op, selector), {}));
  }
  for (size_t j = 0; j < op.num_results(); ++j) frame.values[op.result(j)] = results[j];
  return OkStatus();
}

Status CudaExecutable::RunSteps(OnDevice& on, const std::vector<PlanStep>& steps, Frame& frame,
                                Enqueued& enqueued) {
  for (const PlanStep& step : steps) BERTH_RETURN_IF_ERROR(RunStep(on, step, frame, enqueued));
  return OkStatus();
}

Status CudaExecutable::RunStep(OnDevice& on, const PlanStep& step, Frame& frame,
                               Enqueued& enqueued) {
  CudaDevice& device = *on.device;
  // A value copied to the host after the work enqueued so far.
  auto to_host = [&](const stablehlo::Value* value) -> Result<std::shared_ptr<PinnedHostMemory>> {
    BERTH_ASSIGN_OR_RETURN(std::shared_ptr<DeviceMemory> memory, MemoryOf(frame, value));
    BERTH_ASSIGN_OR_RETURN(
        std::shared_ptr<PinnedHostMemory> host,
        PinnedHostMemory::Allocate(memory->size(), device.Name() + ": a checked value"));
    if (memory->size() > 0) {
      BERTH_RETURN_IF_ERROR(CudaStatus(cudaMemcpyAsync(host->data(), memory->data(), memory->size(),
                                                       cudaMemcpyDeviceToHost, device.stream()),
                                       device.Name() + ": copying a checked value to the host"));
    }
    return host;
  };
  switch (step.kind) {
    case PlanStep::Kind::kConstant:
      frame.values[step.op->result(0)] = on.constants.at(&step);
      return OkStatus();
    case PlanStep::Kind::kControlFlow: return RunControlFlow(on, step, frame, enqueued);
    case PlanStep::Kind::kParallel: return RunParallel(on, step, frame, enqueued);
    case PlanStep::Kind::kFused: return LaunchKernel(on, step, {&frame});
    case PlanStep::Kind::kCollective:
      return InternalError("a collective step runs only as part of its group's meeting");
    case PlanStep::Kind::kPrint: {
      BERTH_ASSIGN_OR_RETURN(std::shared_ptr<PinnedHostMemory> host, to_host(step.op->operand(0)));
      enqueued.prints.emplace_back(step.op, std::move(host));
      return OkStatus();
    }
    case PlanStep::Kind::kProbe: {
      ProbedValue probed;
      probed.type = step.op->operand(0)->type();
      BERTH_ASSIGN_OR_RETURN(probed.host, to_host(step.op->operand(0)));
      enqueued.probes[step.probe_scope + step.probe_id].push_back(std::move(probed));
      return OkStatus();
    }
    case PlanStep::Kind::kCheck: {
      PendingCheck check;
      check.spec = step.check;
      const stablehlo::Type type = step.op->operand(0)->type();
      check.type = type.element_type();
      check.dims.assign(type.shape().begin(), type.shape().end());
      BERTH_ASSIGN_OR_RETURN(check.actual, to_host(step.op->operand(0)));
      if (step.op->kind() == stablehlo::OpKind::kCheckExpectSerializedEq) {
        // The value probed so far (as the cpu plugin, which looks when the
        // check runs).
        const ProbedValue* probed = nullptr;
        auto it = enqueued.probes.find(step.probe_scope + step.probe_id);
        if (it != enqueued.probes.end() && step.probe_iteration >= 0 &&
            static_cast<size_t>(step.probe_iteration) < it->second.size()) {
          probed = &it->second[static_cast<size_t>(step.probe_iteration)];
          check.other = probed->host;
        }
        check.failure = stablehlo::SerializedCheckFailure(step.probe_id, step.probe_iteration,
                                                          probed ? &probed->type : nullptr, type);
      } else if (step.expected) {
        check.expected = step.expected;
      } else {
        BERTH_ASSIGN_OR_RETURN(check.other, to_host(step.op->operand(1)));
      }
      enqueued.checks.push_back(std::move(check));
      return OkStatus();
    }
  }
  return OkStatus();
}

Status CudaExecutable::LaunchKernel(OnDevice& on, const PlanStep& step,
                                    const std::vector<Frame*>& frames) {
  CudaDevice& device = *on.device;
  const FusedKernel& kernel = step.fused;
  auto frame_of = [&](size_t parameter) -> Frame& {
    return step.instances.empty() ? *frames.front() : *frames.at(step.instances.at(parameter));
  };
  std::vector<void*> pointers;
  for (const stablehlo::Value* input : kernel.inputs) {
    BERTH_ASSIGN_OR_RETURN(std::shared_ptr<DeviceMemory> memory,
                           MemoryOf(frame_of(pointers.size()), input));
    pointers.push_back(memory->data());
  }
  for (const stablehlo::Value* output : kernel.outputs) {
    BERTH_ASSIGN_OR_RETURN(const size_t size,
                           DenseByteSize(BufferTypeOf(output->type()), output->type().shape()));
    BERTH_ASSIGN_OR_RETURN(std::shared_ptr<DeviceMemory> memory,
                           DeviceMemory::Allocate(device, size));
    Frame& frame = frame_of(pointers.size());
    pointers.push_back(memory->data());
    frame.values[output] = std::move(memory);
  }
  long long n = kernel.num_elements;
  if (n == 0) return OkStatus();
  // A kernel of several launches shares a scratch buffer among them (given
  // back stream-ordered after the last one).
  std::shared_ptr<DeviceMemory> scratch;
  long long pass = 0;
  if (!kernel.launches.empty()) {
    BERTH_ASSIGN_OR_RETURN(
        scratch, DeviceMemory::Allocate(
                     device, static_cast<uint64_t>(std::max<int64_t>(1, kernel.scratch_bytes))));
    pointers.push_back(scratch->data());
  }
  std::vector<void*> launch_args;
  for (void*& pointer : pointers) launch_args.push_back(&pointer);
  if (!kernel.launches.empty()) launch_args.push_back(&pass);
  launch_args.push_back(&n);
  const long long blocks =
      std::min<long long>((n + kThreadsPerBlock - 1) / kThreadsPerBlock,
                          static_cast<long long>(device.gpu().multiprocessors) * 32);
  const std::vector<int64_t> once = {0};
  for (const int64_t launch : kernel.launches.empty() ? once : kernel.launches) {
    pass = launch;
    BERTH_RETURN_IF_ERROR(
        CudaStatus(cudaLaunchKernel(reinterpret_cast<const void*>(on.kernels.at(&step)),
                                    dim3(static_cast<unsigned>(blocks)), dim3(kThreadsPerBlock),
                                    launch_args.data(), 0, device.stream()),
                   device.Name() + ": launching " + kernel.name));
  }
  return OkStatus();
}

Status CudaExecutable::RunParallel(OnDevice& on, const PlanStep& step, Frame& frame,
                                   Enqueued& enqueued) {
  const stablehlo::Operation& op = *step.op;
  std::vector<Frame> instances(step.regions.size());
  std::vector<Frame*> frames;
  size_t operand = 0;
  for (size_t i = 0; i < instances.size(); ++i) {
    for (const stablehlo::Value* argument : step.regions[i].block->arguments()) {
      BERTH_ASSIGN_OR_RETURN(instances[i].values[argument], MemoryOf(frame, op.operand(operand++)));
    }
    frames.push_back(&instances[i]);
  }
  for (const PlanStep::Scheduled& scheduled : step.schedule) {
    if (scheduled.meeting) {
      BERTH_RETURN_IF_ERROR(LaunchKernel(on, step.meetings.at(scheduled.step), frames));
    } else {
      BERTH_RETURN_IF_ERROR(RunStep(on,
                                    step.regions.at(scheduled.instance).steps.at(scheduled.step),
                                    instances[scheduled.instance], enqueued));
    }
  }
  size_t result = 0;
  for (size_t i = 0; i < instances.size(); ++i) {
    for (const stablehlo::Value* value : step.regions[i].block->terminator()->operands()) {
      BERTH_ASSIGN_OR_RETURN(frame.values[op.result(result++)], MemoryOf(instances[i], value));
    }
  }
  return OkStatus();
}

Result<plugin::ExecuteResult> CudaExecutable::Execute(
    std::span<const std::vector<plugin::Buffer*>> argument_lists,
    const plugin::ExecuteOptions& options, plugin::Device* execute_device) {
  (void)options;
  std::vector<OnDevice*> targets;
  if (execute_device != nullptr) {
    for (OnDevice& on : on_devices_) {
      if (on.device == execute_device) targets.push_back(&on);
    }
    if (targets.empty()) return InvalidArgumentError("the program was not loaded on that device");
  } else {
    for (OnDevice& on : on_devices_) targets.push_back(&on);
  }
  if (argument_lists.size() != targets.size()) {
    return InvalidArgumentError(std::to_string(argument_lists.size()) + " argument lists for " +
                                std::to_string(targets.size()) + " devices");
  }
  plugin::ExecuteResult result;
  for (size_t d = 0; d < targets.size(); ++d) {
    plugin::Event done;
    BERTH_ASSIGN_OR_RETURN(Enqueued enqueued, Enqueue(*targets[d], argument_lists[d], done));
    CudaDevice& device = *targets[d]->device;
    auto checks = std::make_shared<const std::vector<PendingCheck>>(std::move(enqueued.checks));
    auto prints = std::make_shared<const decltype(enqueued.prints)>(std::move(enqueued.prints));
    device.completions()
        .Enqueue(device.stream(),
                 [done, checks, prints](const Status& status) {
                   if (status.ok()) {
                     // Each print whole, as the cpu plugin writes them.
                     for (const auto& [op, host] : *prints) {
                       const std::string text = PrintText(*op, host->data());
                       std::fwrite(text.data(), 1, text.size(), stdout);
                     }
                     std::fflush(stdout);
                   }
                   done.Set(status.ok() ? CompareChecks(*checks) : status);
                 })
        .IgnoreError();
    result.outputs.push_back(std::move(enqueued.outputs));
    result.completion.push_back(done);
  }
  return result;
}

}  // namespace berth::cuda
