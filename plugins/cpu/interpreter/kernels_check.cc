// The test harness dialect the StableHLO interpreter tests use:
// check.expect_* (and their custom-call spellings check.*), interpreter.probe
// and interpreter.run_parallel. A check that does not hold fails the
// execution with FAILED_PRECONDITION and a message starting "check failed:",
// which `berth check` reports as a failed (not an erroring) case.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>

#include "berth/plugin/plugin.hpp"
#include "berth/stablehlo/interpreter_output.hpp"
#include "interpreter/check.hpp"
#include "interpreter/collective_group.hpp"
#include "interpreter/element_types.hpp"
#include "interpreter/kernel.hpp"
#include "interpreter/narrow_types.hpp"
#include "interpreter/plan.hpp"
#include "interpreter/tensor_util.hpp"

namespace berth::cpu {

Status CheckTensors(const Tensor& actual, const void* expected, const CheckSpec& spec) {
  if (!actual.is_tensor()) return InvalidArgumentError("check of a non-tensor value");
  if (!IsSupportedElementType(actual.type()))
    return UnsupportedElementType(actual.type(), spec.name);
  return stablehlo::CompareForCheck(actual.type(), actual.dims(), actual.bytes(), expected, spec);
}

namespace {

// check.expect_eq, expect_almost_eq, expect_close: two operands.
Status ExpectTwo(KernelCall& call) {
  const Tensor& expected = call.operands[1];
  if (expected.type() != call.operands[0].type() || expected.dims() != call.operands[0].dims()) {
    return InvalidArgumentError("check compares " + call.operands[0].TypeString() + " with " +
                                expected.TypeString());
  }
  return CheckTensors(call.operands[0], expected.bytes(), stablehlo::CheckSpecOf(call.op));
}

// check.expect_eq_const, expect_almost_eq_const: an operand and a literal.
Status ExpectConst(KernelCall& call) {
  const stablehlo::DenseElementsAttr* value = call.op.GetDense("value");
  if (value == nullptr) return InvalidArgumentError("no dense 'value' to compare with");
  const Tensor& actual = call.operands[0];
  if (!IsSupportedElementType(actual.type())) {
    return UnsupportedElementType(actual.type(), std::string(call.op.name()));
  }
  std::vector<uint8_t> expected = value->ExpandedData();
  if (expected.size() != actual.byte_size()) {
    return InvalidArgumentError("the expected literal has " + value->type().ToString() +
                                ", the value " + actual.TypeString());
  }
  return CheckTensors(actual, expected.data(), stablehlo::CheckSpecOf(call.op));
}

// check.expect_serialized_eq: the operand equals (as check.expect_eq: NaN
// matches NaN) the `iter`-th value interpreter.probe recorded under `probe_id` in
// this instance. The reference interpreter compares with the probe's file;
// the cpu plugin keeps probes in memory and writes no files.
Status SerializedEq(KernelCall& call) {
  std::string id(call.op.GetString("probe_id"));
  int64_t iter = call.op.GetInt("iter").value_or(0);
  const Tensor* probed = call.ctx.FindProbe(id, iter);
  if (probed == nullptr) {
    return FailedPreconditionError("check failed: check.expect_serialized_eq: no value was probed as '" +
                                   id + "' at iteration " + std::to_string(iter));
  }
  const Tensor& actual = call.operands[0];
  if (probed->type() != actual.type() || probed->dims() != actual.dims()) {
    return FailedPreconditionError("check failed: check.expect_serialized_eq: '" + id + "' was " +
                                   probed->TypeString() + ", the value is " + actual.TypeString());
  }
  if (!IsSupportedElementType(actual.type())) {
    return UnsupportedElementType(actual.type(), "check.expect_serialized_eq");
  }
  CheckSpec spec;
  spec.kind = CheckSpec::kEqual;
  spec.name = "check.expect_serialized_eq '" + id + "'";
  return CheckTensors(actual, probed->bytes(), spec);
}

// interpreter.probe: records its operand (see SerializedEq) and passes it on.
Status Probe(KernelCall& call) {
  call.ctx.RecordProbe(std::string(call.op.GetString("probe_id")), call.operands[0]);
  call.results.assign(call.operands.begin(), call.operands.end());
  return OkStatus();
}

// Element i of `t` as the reference interpreter spells it.
std::string InterpreterElementText(const Tensor& t, int64_t i) {
  std::string text;
  (void)DispatchElementTypeOrComplex(t.type(), "interpreter.print", [&]<typename T>() -> Status {
    const T value = t.data<T>()[i];
    if constexpr (kIsComplex<T>) {
      text = "[" + stablehlo::InterpreterFloatText(value.real()) + ", " +
             stablehlo::InterpreterFloatText(value.imag()) + "]";
    } else if constexpr (std::is_same_v<T, bool>) {
      text = value ? "true" : "false";
    } else if constexpr (kIsFloat<T>) {
      text = stablehlo::InterpreterFloatText(static_cast<double>(value));
    } else {
      text = std::is_signed_v<T> ? std::to_string(static_cast<int64_t>(value))
                                 : std::to_string(static_cast<uint64_t>(value));
    }
    return OkStatus();
  });
  return text;
}

// interpreter.print: writes its operand to the process's standard output
// as the reference interpreter does ("%0 = tensor<2xi32> {\n  [0, 1]\n}",
// berth/stablehlo/interpreter_output.hpp), each print whole (instances of
// run_parallel print concurrently without mixing lines).
Status Print(KernelCall& call) {
  const Tensor& value = call.operands[0];
  const std::string_view name = call.op.operand(0)->name();
  std::string text = "%";
  text += name.empty() ? std::string_view("value") : name;
  text += " = ";
  if (value.is_tensor()) {
    if (!IsSupportedElementType(value.type())) {
      return UnsupportedElementType(value.type(), "interpreter.print");
    }
    // Narrow types print as the values they stand for.
    BERTH_ASSIGN_OR_RETURN(Tensor shown,
                           ConvertTensor(value, WideComputeType(value.type()), nullptr));
    text += stablehlo::FormatInterpreterValue(value.TypeString(), value.dims(), [&](int64_t i) {
      return InterpreterElementText(shown, i);
    });
  } else {
    text += value.TypeString();
  }
  text += '\n';
  static std::mutex stdout_mutex;
  std::lock_guard<std::mutex> lock(stdout_mutex);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
  return OkStatus();
}

// interpreter.run_parallel: runs a replicas x partitions grid of functions
// concurrently (each with its own collectives rendezvous) and returns their
// results in grid order; operands are handed out in the same order. The
// `infeed` functions (none: no operands) give the values infeed takes, one
// call each, in order (kernels_transfer.cc).
Status RunParallel(KernelCall& call) {
  const auto* programs = call.op.attr_as<stablehlo::ArrayAttr>("programs");
  if (programs == nullptr || programs->size() == 0) {
    return InvalidArgumentError("no 'programs' grid");
  }
  const int64_t replicas = static_cast<int64_t>(programs->size());
  int64_t partitions = -1;
  std::vector<std::string> names;
  for (const stablehlo::Attribute* row : programs->elements()) {
    const auto* cells = row->dyn_cast<stablehlo::ArrayAttr>();
    if (cells == nullptr) return InvalidArgumentError("'programs' rows must be arrays");
    if (partitions >= 0 && static_cast<int64_t>(cells->size()) != partitions) {
      return InvalidArgumentError("'programs' rows differ in length");
    }
    partitions = static_cast<int64_t>(cells->size());
    for (const stablehlo::Attribute* cell : cells->elements()) {
      const auto* symbol = cell->dyn_cast<stablehlo::SymbolRefAttr>();
      if (symbol == nullptr) return InvalidArgumentError("'programs' holds a non-symbol");
      names.emplace_back(symbol->name());
    }
  }
  const int64_t grid = replicas * partitions;
  std::vector<std::vector<Tensor>> args(static_cast<size_t>(grid));
  size_t next = 0;
  for (int64_t i = 0; i < grid; ++i) {
    const stablehlo::Function* function = call.ctx.plan().module().function(names[static_cast<size_t>(i)]);
    if (function == nullptr) return InvalidArgumentError("no function @" + names[static_cast<size_t>(i)]);
    for (size_t a = 0; a < function->num_arguments(); ++a) {
      if (next >= call.operands.size()) return InvalidArgumentError("too few operands for the grid");
      args[static_cast<size_t>(i)].push_back(call.operands[next++]);
    }
  }
  CollectiveGroup group(grid);
  // The host's queues: infeed's filled from the `infeed` functions, in order.
  group.EnableHostQueues();
  if (const auto* feeds = call.op.attr_as<stablehlo::ArrayAttr>("infeed")) {
    for (const stablehlo::Attribute* feed : feeds->elements()) {
      const auto* symbol = feed->dyn_cast<stablehlo::SymbolRefAttr>();
      if (symbol == nullptr) return InvalidArgumentError("'infeed' holds a non-symbol");
      BERTH_ASSIGN_OR_RETURN(std::vector<Tensor> values,
                             call.ctx.CallFunction(std::string(symbol->name()), {}));
      group.Put("infeed", Tensor::Tuple(std::move(values)));
    }
  }
  std::vector<Result<std::vector<Tensor>>> results(static_cast<size_t>(grid),
                                                   Result<std::vector<Tensor>>(CancelledError("not run")));
  std::vector<std::thread> threads;
  for (int64_t i = 0; i < grid; ++i) {
    threads.emplace_back([&, i] {
      DeviceContext device;
      device.replica_id = i / partitions;
      device.partition_id = i % partitions;
      device.num_replicas = replicas;
      device.num_partitions = partitions;
      device.device_id = i;
      device.collectives = &group;
      ExecContext ctx(call.ctx.plan(), call.ctx.pool(), device);
      group.Attach(i, &ctx);
      results[static_cast<size_t>(i)] =
          ctx.CallFunction(names[static_cast<size_t>(i)], args[static_cast<size_t>(i)]);
      if (!results[static_cast<size_t>(i)].ok()) group.Abort(results[static_cast<size_t>(i)].status());
      group.Detach(i);
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int64_t i = 0; i < grid; ++i) {
    Result<std::vector<Tensor>>& r = results[static_cast<size_t>(i)];
    if (!r.ok()) {
      return r.status().WithContext("program @" + names[static_cast<size_t>(i)] + " at (" +
                                    std::to_string(i / partitions) + ", " +
                                    std::to_string(i % partitions) + ")");
    }
    for (Tensor& t : *r) call.results.push_back(std::move(t));
  }
  return OkStatus();
}

}  // namespace

void RegisterCheckKernels(KernelRegistry& registry) {
  using stablehlo::OpKind;
  registry.Register({{OpKind::kCheckExpectEq, ExpectTwo},
                     {OpKind::kCheckExpectAlmostEq, ExpectTwo},
                     {OpKind::kCheckExpectClose, ExpectTwo},
                     {OpKind::kCheckExpectEqConst, ExpectConst},
                     {OpKind::kCheckExpectAlmostEqConst, ExpectConst},
                     {OpKind::kCheckExpectSerializedEq, SerializedEq},
                     {OpKind::kInterpreterProbe, Probe},
                     {OpKind::kInterpreterPrint, Print},
                     {OpKind::kInterpreterRunParallel, RunParallel}});
}

}  // namespace berth::cpu
