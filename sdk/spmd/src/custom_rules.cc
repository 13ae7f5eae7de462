// RuleFromC: a custom-call rule served by the C callbacks of the
// custom_partitioner extension.
#include "berth/spmd/custom_rules.hpp"

#include <deque>
#include <utility>

#include "berth/spmd/gspmd.hpp"
#include "berth/stablehlo/custom_call_attributes.hpp"

namespace berth::spmd {
namespace {

// What one callback answered, and the error it reported.
struct Answers {
  std::vector<std::optional<std::string>> results;
  std::vector<std::optional<std::string>> operands;
  std::optional<std::string> computation;
  std::string error;
};

void SetAnswer(void* context, BERTH_CustomPartitioner_Slot slot, size_t index, const char* text, size_t size) {
  auto* answers = static_cast<Answers*>(context);
  std::string value = text == nullptr ? std::string() : std::string(text, size);
  switch (slot) {
    case BERTH_CustomPartitioner_Slot_ResultSharding:
      if (index < answers->results.size()) answers->results[index] = std::move(value);
      break;
    case BERTH_CustomPartitioner_Slot_OperandSharding:
      if (index < answers->operands.size()) answers->operands[index] = std::move(value);
      break;
    case BERTH_CustomPartitioner_Slot_Computation:
      if (index == 0) answers->computation = std::move(value);
      break;
    default: break;  // a slot newer than this SDK
  }
}

void ReportError(void* context, const char* message, size_t size) {
  static_cast<Answers*>(context)->error = message == nullptr ? std::string() : std::string(message, size);
}

class CRule final : public CustomCallRule {
 public:
  CRule(const BERTH_CustomPartitioner_Rule& rule, std::shared_ptr<const void> owner)
      : rule_(rule), owner_(std::move(owner)) {}

  Result<std::vector<std::optional<Sharding>>> InferResultShardings(const CustomCallSite& site) const override {
    if (rule_.infer_result_shardings == nullptr) return std::vector<std::optional<Sharding>>(site.result_types.size());
    BERTH_ASSIGN_OR_RETURN(Answers answers, Ask(rule_.infer_result_shardings, "infer_result_shardings", site));
    return Shardings(answers.results, "infer_result_shardings", "result");
  }

  bool FollowsUsers() const override { return rule_.propagate_user_sharding != nullptr; }

  Result<std::vector<std::optional<Sharding>>> PropagateUserSharding(const CustomCallSite& site) const override {
    if (rule_.propagate_user_sharding == nullptr) return std::vector<std::optional<Sharding>>(site.result_types.size());
    BERTH_ASSIGN_OR_RETURN(Answers answers, Ask(rule_.propagate_user_sharding, "propagate_user_sharding", site));
    return Shardings(answers.results, "propagate_user_sharding", "result");
  }

  Result<CustomPartitioning> Partition(const CustomCallSite& site) const override {
    BERTH_ASSIGN_OR_RETURN(Answers answers, Ask(rule_.partition, "partition", site));
    if (!answers.computation || answers.computation->empty()) {
      return InvalidArgumentError("partition gave no computation (slot BERTH_CustomPartitioner_Slot_Computation)");
    }
    CustomPartitioning out;
    out.computation = std::move(*answers.computation);
    BERTH_ASSIGN_OR_RETURN(out.operand_shardings, Shardings(answers.operands, "partition", "operand"));
    BERTH_ASSIGN_OR_RETURN(out.result_shardings, Shardings(answers.results, "partition", "result"));
    return out;
  }

 private:
  Result<Answers> Ask(BERTH_CustomPartitioner_Callback* callback, std::string_view step,
                      const CustomCallSite& site) const {
    std::deque<std::string> texts;  // the shardings, printed (a deque keeps their addresses)
    auto describe = [&](const std::string& type, const std::optional<Sharding>& sharding) {
      BERTH_CustomPartitioner_Value value{};
      value.type = type.data();
      value.type_size = type.size();
      const std::string& text = texts.emplace_back(sharding ? PrintGspmdSharding(*sharding) : std::string());
      value.sharding = text.data();
      value.sharding_size = text.size();
      return value;
    };
    std::vector<BERTH_CustomPartitioner_Value> operands, results;
    for (size_t i = 0; i < site.operand_types.size(); ++i) {
      operands.push_back(describe(site.operand_types[i], site.operand_shardings.at(i)));
    }
    for (size_t i = 0; i < site.result_types.size(); ++i) {
      results.push_back(describe(site.result_types[i],
                                 i < site.result_shardings.size() ? site.result_shardings[i] : std::nullopt));
    }
    const stablehlo::CustomCallAttributes attributes(*site.op);
    Answers answers;
    answers.results.resize(results.size());
    answers.operands.resize(operands.size());
    BERTH_CustomPartitioner_Call call{};
    call.struct_size = BERTH_CustomPartitioner_Call_STRUCT_SIZE;
    const std::string_view target = site.op->call_target_name();
    call.target = target.data();
    call.target_size = target.size();
    call.attributes = attributes.values().data();
    call.num_attributes = attributes.values().size();
    call.operands = operands.data();
    call.num_operands = operands.size();
    call.results = results.data();
    call.num_results = results.size();
    call.num_partitions = site.num_partitions;
    call.rule_data = rule_.rule_data;
    call.set_answer = SetAnswer;
    call.answer_context = &answers;
    call.report_error = ReportError;
    call.error_context = &answers;
    const BERTH_Error_Code code = callback(&call);
    if (code != BERTH_Error_Code_OK) {
      const bool known = code > BERTH_Error_Code_OK && code <= BERTH_Error_Code_UNAUTHENTICATED;
      const StatusCode status = known ? static_cast<StatusCode>(code) : StatusCode::kUnknown;
      return Status(status, std::string(step) + " failed" +
                                (answers.error.empty() ? " (code " + std::to_string(code) + ", no message)"
                                                       : ": " + answers.error));
    }
    return answers;
  }

  static Result<std::vector<std::optional<Sharding>>> Shardings(const std::vector<std::optional<std::string>>& texts,
                                                                std::string_view step, std::string_view what) {
    std::vector<std::optional<Sharding>> out;
    for (size_t i = 0; i < texts.size(); ++i) {
      if (!texts[i]) {
        out.emplace_back();
        continue;
      }
      Result<Sharding> parsed = ParseGspmdSharding(*texts[i]);
      if (!parsed.ok()) {
        return InvalidArgumentError(std::string(step) + " gave " + std::string(what) + " " + std::to_string(i) +
                                    " the sharding '" + *texts[i] + "': " + parsed.status().message());
      }
      out.push_back(std::move(*parsed));
    }
    return out;
  }

  BERTH_CustomPartitioner_Rule rule_;
  std::shared_ptr<const void> owner_;
};

}  // namespace

std::shared_ptr<const CustomCallRule> RuleFromC(const BERTH_CustomPartitioner_Rule& rule,
                                                std::shared_ptr<const void> owner) {
  return std::make_shared<CRule>(rule, std::move(owner));
}

}  // namespace berth::spmd
