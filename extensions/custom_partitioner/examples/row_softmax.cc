// An example module with a partitioned custom call: example.row_softmax,
// the softmax of each row (the last dimension) of an f32 tensor.
//
// One library, two extension modules (two manifests name it):
// - an FFI module (BERTH_Ffi_GetModule): the handler computing the softmax
//   of whatever rows it is given;
// - a custom_partitioner module (BERTH_CustomPartitioner_GetModule): the
//   rule saying rows are independent, so a sharded program keeps any cut of
//   the leading dimensions and runs the same custom call on each device's
//   rows, with no communication. Only a cut of the last dimension has to go
//   (the rule asks for that dimension whole, replicated over its devices).
//
// It is written against the SDK's C headers and its sharding library
// (berth/spmd), which a rule can use to read and write GSPMD strings.
#include <cmath>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "berth/ext/custom_partitioner.h"
#include "berth/ext/ffi.h"
#include "berth/spmd/gspmd.hpp"

#define EXAMPLE_EXPORT extern "C" __attribute__((visibility("default")))

namespace {

namespace spmd = berth::spmd;

constexpr const char* kTarget = "example.row_softmax";

// ------------------------------------------------------------ the handler

BERTH_Error_Code FfiFail(BERTH_Ffi_CallFrame* frame, const std::string& message) {
  frame->report_error(frame->error_context, message.data(), message.size());
  return BERTH_Error_Code_INVALID_ARGUMENT;
}

BERTH_Error_Code RowSoftmax(BERTH_Ffi_CallFrame* frame) {
  if (frame->num_operands != 1 || frame->num_results != 1) {
    return FfiFail(frame, "example.row_softmax takes one operand and gives one result");
  }
  const BERTH_Ffi_Buffer& in = frame->operands[0];
  const BERTH_Ffi_Buffer& out = frame->results[0];
  if (in.element_type != BERTH_Buffer_Type_F32 || out.element_type != BERTH_Buffer_Type_F32 || in.num_dims == 0 ||
      in.num_dims != out.num_dims || std::memcmp(in.dims, out.dims, in.num_dims * sizeof(int64_t)) != 0) {
    return FfiFail(frame, "example.row_softmax takes an f32 tensor of rank >= 1 and returns one of the same shape");
  }
  if (frame->stage == BERTH_Ffi_Stage_Prepare) return BERTH_Error_Code_OK;
  const int64_t row = in.dims[in.num_dims - 1];
  const size_t count = in.size_in_bytes / sizeof(float);
  const auto* x = static_cast<const float*>(in.data);
  auto* y = static_cast<float*>(out.data);
  for (size_t start = 0; row > 0 && start < count; start += static_cast<size_t>(row)) {
    float max = x[start];
    for (int64_t i = 1; i < row; ++i) max = std::fmax(max, x[start + i]);
    double sum = 0;
    for (int64_t i = 0; i < row; ++i) sum += std::exp(static_cast<double>(x[start + i] - max));
    for (int64_t i = 0; i < row; ++i) {
      y[start + i] = static_cast<float>(std::exp(static_cast<double>(x[start + i] - max)) / sum);
    }
  }
  return BERTH_Error_Code_OK;
}

// --------------------------------------------------------------- the rule

BERTH_Error_Code RuleFail(BERTH_CustomPartitioner_Call* call, const std::string& message) {
  call->report_error(call->error_context, message.data(), message.size());
  return BERTH_Error_Code_INVALID_ARGUMENT;
}

// `text` (a GSPMD sharding of a rank-`rank` value) with the last dimension
// whole: its tiles along it become a replicated subgroup, so every device
// keeps the rows it had. Empty text (no sharding) is replicated.
berth::Result<spmd::Sharding> RowsOnly(std::string_view text, size_t rank) {
  if (text.empty()) return spmd::Sharding::Replicated();
  BERTH_ASSIGN_OR_RETURN(spmd::Sharding sharding, spmd::ParseGspmdSharding(text));
  sharding = sharding.Canonical();
  if (!sharding.IsTiled()) return sharding;
  if (sharding.tensor_rank() != static_cast<int64_t>(rank)) {
    return berth::InvalidArgumentError("a sharding of rank " + std::to_string(sharding.tensor_rank()) +
                                       " for a value of rank " + std::to_string(rank));
  }
  if (sharding.SubgroupSize(spmd::SubgroupKind::kManual) > 1) {
    return berth::InvalidArgumentError("manual subgroups are not taken");
  }
  // Row-major, [d0 .. d(r-2), last, subgroups...] and [d0 .. d(r-2), 1,
  // last * subgroups] list the devices in the same order.
  std::vector<int64_t> dims(sharding.tile_dims().begin(), sharding.tile_dims().begin() + static_cast<long>(rank));
  int64_t replicated = dims.back() * sharding.SubgroupSize(spmd::SubgroupKind::kReplicated);
  dims.back() = 1;
  dims.push_back(replicated);
  BERTH_ASSIGN_OR_RETURN(spmd::Sharding rows,
                         spmd::Sharding::Tiled(dims, sharding.devices(), {spmd::SubgroupKind::kReplicated}));
  return rows.Canonical();
}

// The dims of "tensor<4x8xf32>".
std::vector<int64_t> DimsOf(std::string_view type) {
  std::vector<int64_t> dims;
  std::string_view body = type.substr(type.find('<') + 1);
  size_t x;
  while ((x = body.find('x')) != std::string_view::npos && x > 0 && body[0] >= '0' && body[0] <= '9') {
    dims.push_back(std::stoll(std::string(body.substr(0, x))));
    body = body.substr(x + 1);
  }
  return dims;
}

std::string View(const char* text, size_t size) { return text == nullptr ? std::string() : std::string(text, size); }

void Answer(BERTH_CustomPartitioner_Call* call, BERTH_CustomPartitioner_Slot slot, size_t index,
            const std::string& text) {
  call->set_answer(call->answer_context, slot, index, text.data(), text.size());
}

BERTH_Error_Code CheckSite(BERTH_CustomPartitioner_Call* call) {
  if (call->num_operands != 1 || call->num_results != 1) {
    return RuleFail(call, "example.row_softmax takes one operand and gives one result");
  }
  return BERTH_Error_Code_OK;
}

// Answers the result's sharding: the operand's layout (or, following the
// user, the result's), when it has one, with the last dimension whole.
BERTH_Error_Code AnswerRowsOf(BERTH_CustomPartitioner_Call* call, bool of_result) {
  if (CheckSite(call) != BERTH_Error_Code_OK) return BERTH_Error_Code_INVALID_ARGUMENT;
  const BERTH_CustomPartitioner_Value& value = of_result ? call->results[0] : call->operands[0];
  const std::string sharding = View(value.sharding, value.sharding_size);
  if (sharding.empty()) return BERTH_Error_Code_OK;
  berth::Result<spmd::Sharding> rows = RowsOnly(sharding, DimsOf(View(value.type, value.type_size)).size());
  if (!rows.ok()) return RuleFail(call, std::string(rows.status().message()));
  Answer(call, BERTH_CustomPartitioner_Slot_ResultSharding, 0, spmd::PrintGspmdSharding(*rows));
  return BERTH_Error_Code_OK;
}

// Forwards: the result keeps the operand's rows.
BERTH_Error_Code InferResult(BERTH_CustomPartitioner_Call* call) { return AnswerRowsOf(call, false); }

// Backwards: the rows the user wants.
BERTH_Error_Code PropagateUser(BERTH_CustomPartitioner_Call* call) { return AnswerRowsOf(call, true); }

// Each device runs the same custom call on its rows.
BERTH_Error_Code Partition(BERTH_CustomPartitioner_Call* call) {
  if (CheckSite(call) != BERTH_Error_Code_OK) return BERTH_Error_Code_INVALID_ARGUMENT;
  const std::string type = View(call->results[0].type, call->results[0].type_size);
  const std::vector<int64_t> dims = DimsOf(type);
  // Operand and result on the result's chosen rows (the last dimension whole).
  berth::Result<spmd::Sharding> rows = RowsOnly(View(call->results[0].sharding, call->results[0].sharding_size),
                                                dims.size());
  if (!rows.ok()) return RuleFail(call, std::string(rows.status().message()));
  berth::Result<std::vector<int64_t>> shard = rows->ShardShape(dims);
  if (!shard.ok()) return RuleFail(call, std::string(shard.status().message()));
  std::string local = "tensor<";
  for (int64_t d : *shard) local += std::to_string(d) + "x";
  local += "f32>";
  const std::string text = spmd::PrintGspmdSharding(*rows);
  Answer(call, BERTH_CustomPartitioner_Slot_OperandSharding, 0, text);
  Answer(call, BERTH_CustomPartitioner_Slot_ResultSharding, 0, text);
  Answer(call, BERTH_CustomPartitioner_Slot_Computation, 0,
         "func.func @main(%x: " + local + ") -> " + local + " {\n" +
             "  %y = stablehlo.custom_call @example.row_softmax(%x) : (" + local + ") -> " + local + "\n" +
             "  return %y : " + local + "\n}\n");
  return BERTH_Error_Code_OK;
}

}  // namespace

EXAMPLE_EXPORT const BERTH_Ffi_Module* BERTH_Ffi_GetModule(void) {
  static const BERTH_Ffi_ModuleHandler handlers[] = {{kTarget, RowSoftmax, nullptr}};
  static const BERTH_Ffi_Module module = {BERTH_Ffi_Module_STRUCT_SIZE, BERTH_FFI_EXTENSION_VERSION, handlers, 1};
  return &module;
}

EXAMPLE_EXPORT const BERTH_CustomPartitioner_Module* BERTH_CustomPartitioner_GetModule(void) {
  static const BERTH_CustomPartitioner_Rule rules[] = {{BERTH_CustomPartitioner_Rule_STRUCT_SIZE, kTarget,
                                                        std::strlen(kTarget), InferResult, PropagateUser, Partition,
                                                        nullptr}};
  static const BERTH_CustomPartitioner_Module module = {BERTH_CustomPartitioner_Module_STRUCT_SIZE,
                                                        BERTH_CUSTOM_PARTITIONER_EXTENSION_VERSION, rules, 1};
  return &module;
}
