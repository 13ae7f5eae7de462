// The custom_call kernel: dispatch on call_target_name. Built-in targets are
// the check.* calls that JAX-generated tests use, GSPMD's @Sharding
// annotation, jax's placement annotations and jax.export's @shape_assertion.
#include <cstring>
#include <string>
#include <vector>

#include "interpreter/check.hpp"
#include "interpreter/custom_call.hpp"
#include "interpreter/element_types.hpp"
#include "interpreter/plan.hpp"

namespace berth::cpu {
namespace {

using Handler = Status (*)(KernelCall& call);

Status CompareTwo(KernelCall& call, CheckSpec spec) {
  if (call.operands.size() != 2) {
    return InvalidArgumentError(spec.name + " takes 2 operands, got " +
                                std::to_string(call.operands.size()));
  }
  const Tensor& a = call.operands[0];
  const Tensor& b = call.operands[1];
  if (a.type() != b.type() || a.dims() != b.dims()) {
    return InvalidArgumentError(spec.name + " compares " + a.TypeString() + " with " + b.TypeString());
  }
  return CheckTensors(a, b.bytes(), spec);
}

Status ExpectEq(KernelCall& call) {
  CheckSpec spec;
  spec.name = "check.expect_eq";
  return CompareTwo(call, spec);
}

Status ExpectAlmostEq(KernelCall& call) {
  CheckSpec spec;
  spec.name = "check.expect_almost_eq";
  spec.kind = CheckSpec::kAlmostEqual;
  spec.tolerance = call.op.GetFloat("tolerance").value_or(stablehlo::kCustomCallCheckTolerance);
  return CompareTwo(call, spec);
}

Status ExpectClose(KernelCall& call) {
  CheckSpec spec;
  spec.name = "check.expect_close";
  spec.kind = CheckSpec::kClose;
  spec.min_ulps = call.op.GetInt("min_ulp_difference").value_or(0);
  spec.max_ulps = call.op.GetInt("max_ulp_difference").value_or(stablehlo::kDefaultCheckMaxUlps);
  return CompareTwo(call, spec);
}

// check.eq returns tensor<i1>: whether the two operands are equal.
Status Eq(KernelCall& call) {
  CheckSpec spec;
  spec.name = "check.eq";
  Status status = CompareTwo(call, spec);
  if (!status.ok() && status.code() != StatusCode::kFailedPrecondition) return status;
  BERTH_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(ElementType::kI1, {}));
  *out.data<bool>() = status.ok();
  call.results.push_back(std::move(out));
  return OkStatus();
}

// @Sharding: GSPMD's annotation of a value's layout (jax.lax.with_sharding_constraint),
// and @local_xla.sdy.FuncResultSharding, XLA's round-trip form's mark of a
// result's: on one device, and in a program the SPMD partitioner wrote, the
// values themselves.
Status ShardingAnnotation(KernelCall& call) {
  call.results.assign(call.operands.begin(), call.operands.end());
  return OkStatus();
}

// Placement annotations (jax's memory kinds: @annotate_device_placement,
// @MoveToHost, @MoveToDevice): the cpu plugin's devices have one memory,
// so the values themselves.
Status Placement(KernelCall& call) {
  call.results.assign(call.operands.begin(), call.operands.end());
  return OkStatus();
}

// @shape_assertion (jax.export's check of shape-polymorphic dimensions):
// operand 0 a tensor<i1> that must be true, the others integer scalars that
// error_message's {0}, {1} ... stand for. A false assertion fails the
// execution with INVALID_ARGUMENT and the message filled in.
Status ShapeAssertion(KernelCall& call) {
  if (call.operands.empty() || call.operands[0].type() != ElementType::kI1 ||
      call.operands[0].num_elements() != 1) {
    return InvalidArgumentError("shape_assertion's first operand must be a tensor<i1> scalar");
  }
  if (*call.operands[0].data<bool>()) return OkStatus();
  std::vector<std::string> values;
  for (size_t i = 1; i < call.operands.size(); ++i) {
    const Tensor& t = call.operands[i];
    std::string text = "?";
    if (t.num_elements() == 1 && stablehlo::IsInteger(t.type())) {
      (void)DispatchElementType(t.type(), "shape_assertion", [&]<typename T>() -> Status {
        if constexpr (std::is_integral_v<T>) text = std::to_string(*t.data<T>());
        return OkStatus();
      });
    }
    values.push_back(std::move(text));
  }
  std::string message;
  const std::string_view format = call.op.GetString("error_message");
  for (size_t i = 0; i < format.size(); ++i) {
    const size_t close = format[i] == '{' ? format.find('}', i) : std::string_view::npos;
    size_t index = 0;
    bool placeholder = close != std::string_view::npos && close > i + 1;
    for (size_t k = i + 1; placeholder && k < close; ++k) {
      placeholder = format[k] >= '0' && format[k] <= '9';
      index = index * 10 + static_cast<size_t>(format[k] - '0');
    }
    if (placeholder && index < values.size()) {
      message += values[index];
      i = close;
    } else {
      message += format[i];
    }
  }
  return InvalidArgumentError("shape assertion failed: " + message);
}

struct Target {
  std::string_view name;
  Handler handler;
};

constexpr Target kTargets[] = {
    {"check.expect_eq", ExpectEq},
    {"check.expect_almost_eq", ExpectAlmostEq},
    {"check.expect_close", ExpectClose},
    {"check.eq", Eq},
    {"Sharding", ShardingAnnotation},
    {"local_xla.sdy.FuncResultSharding", ShardingAnnotation},
    {"xla.sdy.FuncResultSharding", ShardingAnnotation},
    {"annotate_device_placement", Placement},
    {"MoveToHost", Placement},
    {"MoveToDevice", Placement},
    {"shape_assertion", ShapeAssertion},
};

Handler FindHandler(std::string_view target) {
  for (const Target& t : kTargets) {
    if (t.name == target) return t.handler;
  }
  return nullptr;
}

Status CustomCall(KernelCall& call) {
  if (Handler handler = FindHandler(call.op.call_target_name())) return handler(call);
  if (const FfiCallSite* site = call.ctx.plan().FindFfiCall(&call.op)) return site->Execute(call);
  return ValidateCustomCall(call.op);
}

}  // namespace

bool IsBuiltinCustomCall(std::string_view target) { return FindHandler(target) != nullptr; }

Status ValidateCustomCall(const stablehlo::Operation& op) {
  if (FindHandler(op.call_target_name()) != nullptr) return OkStatus();
  return UnimplementedError(op.location().ToString() + ": error: custom call target '" +
                            std::string(op.call_target_name()) +
                            "' is not registered with the cpu plugin");
}

void RegisterCustomCallKernels(KernelRegistry& registry) {
  registry.Register(stablehlo::OpKind::kCustomCall, CustomCall);
}

}  // namespace berth::cpu
