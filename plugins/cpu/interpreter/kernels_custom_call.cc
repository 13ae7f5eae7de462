// The custom_call kernel: dispatch on call_target_name. Built-in targets are
// the check.* calls that JAX-generated tests use and GSPMD's @Sharding
// annotation.
#include <cstring>

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
  spec.tolerance = call.op.GetFloat("tolerance").value_or(kCustomCallTolerance);
  return CompareTwo(call, spec);
}

Status ExpectClose(KernelCall& call) {
  CheckSpec spec;
  spec.name = "check.expect_close";
  spec.kind = CheckSpec::kClose;
  spec.min_ulps = call.op.GetInt("min_ulp_difference").value_or(0);
  spec.max_ulps = call.op.GetInt("max_ulp_difference").value_or(kDefaultMaxUlps);
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
