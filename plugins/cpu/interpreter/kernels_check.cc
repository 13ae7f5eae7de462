// The test harness dialect the StableHLO interpreter tests use:
// check.expect_* (and their custom-call spellings check.*), interpreter.probe
// and interpreter.run_parallel. A check that does not hold fails the
// execution with FAILED_PRECONDITION and a message starting "check failed:",
// which `berth check` reports as a failed (not an erroring) case.
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <sstream>
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
namespace {

using stablehlo::OpKind;

// "[1, 2]" for flat index 5 of a 3x3 tensor.
std::string IndexString(int64_t flat, const std::vector<int64_t>& dims) {
  std::vector<int64_t> index(dims.size());
  for (size_t d = dims.size(); d-- > 0;) {
    if (dims[d] > 0) {
      index[d] = flat % dims[d];
      flat /= dims[d];
    }
  }
  std::string out = "[";
  for (size_t d = 0; d < index.size(); ++d) out += (d ? ", " : "") + std::to_string(index[d]);
  return out + "]";
}

template <typename T>
std::string ValueString(T value) {
  std::ostringstream out;
  if constexpr (kIsComplex<T>)
    out << '(' << value.real() << ", " << value.imag() << ')';
  else if constexpr (std::is_same_v<T, bool>)
    out << (value ? "true" : "false");
  else if constexpr (kIsFloat<T>) out << static_cast<double>(value);
  else if constexpr (std::is_signed_v<T>) out << static_cast<int64_t>(value);
  else out << static_cast<uint64_t>(value);
  return out.str();
}

// Bits of a float as an integer ordered like the floats (for ULP distance).
template <typename T>
int64_t OrderedBits(T value) {
  if constexpr (std::is_same_v<T, double>) {
    int64_t bits = std::bit_cast<int64_t>(value);
    return bits < 0 ? std::numeric_limits<int64_t>::min() - bits : bits;
  } else if constexpr (std::is_same_v<T, float>) {
    int32_t bits = std::bit_cast<int32_t>(value);
    return bits < 0 ? int64_t{std::numeric_limits<int32_t>::min()} - bits : bits;
  } else {
    uint16_t raw;
    std::memcpy(&raw, &value, sizeof(raw));
    int16_t bits = static_cast<int16_t>(raw);
    return bits < 0 ? int64_t{std::numeric_limits<int16_t>::min()} - bits : bits;
  }
}

}  // namespace

Status CheckTensors(const Tensor& actual, const void* expected, const CheckSpec& spec) {
  if (!actual.is_tensor()) return InvalidArgumentError("check of a non-tensor value");
  if (IsNarrowType(actual.type())) {
    // As the values they stand for (floats exactly in f32, integers as bytes).
    const ElementType wide = WideComputeType(actual.type());
    BERTH_ASSIGN_OR_RETURN(Tensor expected_tensor, Tensor::Allocate(actual.type(), actual.dims()));
    if (actual.byte_size() > 0) std::memcpy(expected_tensor.bytes(), expected, actual.byte_size());
    BERTH_ASSIGN_OR_RETURN(Tensor a, ConvertTensor(actual, wide, nullptr));
    BERTH_ASSIGN_OR_RETURN(Tensor e, ConvertTensor(expected_tensor, wide, nullptr));
    return CheckTensors(a, e.bytes(), spec);
  }
  if (stablehlo::IsComplex(actual.type())) {
    // Each part is checked as a float; element [i, j] part k is [i, j, k].
    std::vector<int64_t> dims = actual.dims();
    dims.push_back(2);
    return CheckTensors(
        Tensor::Wrap(stablehlo::ComplexComponentType(actual.type()), dims, actual.storage()),
        expected, spec);
  }
  return DispatchElementType(actual.type(), "check", [&]<typename T>() -> Status {
    const T* a = actual.data<T>();
    const T* e = static_cast<const T*>(expected);
    int64_t mismatches = 0;
    std::string first;
    for (int64_t i = 0; i < actual.num_elements(); ++i) {
      bool ok;
      std::string detail;
      if constexpr (kIsFloat<T>) {
        double x = static_cast<double>(a[i]), y = static_cast<double>(e[i]);
        if (std::isnan(x) || std::isnan(y)) {
          ok = std::isnan(x) && std::isnan(y);
        } else if (spec.kind == CheckSpec::kAlmostEqual) {
          ok = x == y || std::fabs(x - y) <= spec.tolerance;
          if (!ok) detail = " (difference " + ValueString(std::fabs(x - y)) + " > tolerance " + ValueString(spec.tolerance) + ")";
        } else if (spec.kind == CheckSpec::kClose) {
          int64_t ulps = x == y ? 0 : OrderedBits(a[i]) - OrderedBits(e[i]);
          ulps = ulps < 0 ? -ulps : ulps;
          ok = ulps >= spec.min_ulps && ulps <= spec.max_ulps;
          if (!ok) detail = " (" + std::to_string(ulps) + " ULPs apart, allowed " + std::to_string(spec.min_ulps) + ".." + std::to_string(spec.max_ulps) + ")";
        } else {
          ok = x == y;
        }
      } else {
        ok = a[i] == e[i];
      }
      if (!ok && mismatches++ == 0) {
        first = "element " + IndexString(i, actual.dims()) + " is " + ValueString(a[i]) +
                ", expected " + ValueString(e[i]) + detail;
      }
    }
    if (mismatches == 0) return OkStatus();
    return FailedPreconditionError("check failed: " + spec.name + ": " + first + " (" +
                                   std::to_string(mismatches) + " of " +
                                   std::to_string(actual.num_elements()) + " elements differ)");
  });
}

namespace {

CheckSpec SpecOf(const stablehlo::Operation& op) {
  CheckSpec spec;
  switch (op.kind()) {
    case OpKind::kCheckExpectAlmostEq:
    case OpKind::kCheckExpectAlmostEqConst:
      spec.kind = CheckSpec::kAlmostEqual;
      spec.tolerance = op.GetFloat("tolerance").value_or(kDefaultTolerance);
      break;
    case OpKind::kCheckExpectClose:
      spec.kind = CheckSpec::kClose;
      spec.min_ulps = op.GetInt("min_ulp_difference").value_or(0);
      spec.max_ulps = op.GetInt("max_ulp_difference").value_or(kDefaultMaxUlps);
      break;
    default:
      spec.kind = CheckSpec::kEqual;
      break;
  }
  spec.name = std::string(op.name());
  return spec;
}

// check.expect_eq, expect_almost_eq, expect_close: two operands.
Status ExpectTwo(KernelCall& call) {
  const Tensor& expected = call.operands[1];
  if (expected.type() != call.operands[0].type() || expected.dims() != call.operands[0].dims()) {
    return InvalidArgumentError("check compares " + call.operands[0].TypeString() + " with " +
                                expected.TypeString());
  }
  return CheckTensors(call.operands[0], expected.bytes(), SpecOf(call.op));
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
  return CheckTensors(actual, expected.data(), SpecOf(call.op));
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
  std::string text = "%" + std::string(name.empty() ? "value" : name) + " = ";
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
