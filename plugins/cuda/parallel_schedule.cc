#include "parallel_schedule.hpp"

#include <algorithm>
#include <deque>
#include <map>
#include <optional>

namespace berth::cuda {
namespace {

using stablehlo::Operation;
using stablehlo::OpKind;

std::string Where(const Operation& op) {
  return std::string(op.name()) + " at " + op.location().ToString();
}

std::string PositionName(const stablehlo::GridPosition& at) {
  return "(" + std::to_string(at.replica) + ", " + std::to_string(at.partition) + ")";
}

// Where each instance stands in the simulation: the step it runs next and,
// when that is a collective, whom it waits for.
// A step of a kCollective kernel of `root` for its value `operand` (inputs
// and outputs, and what differs between collectives, for the caller).
PlanStep CollectiveKernelStep(const Operation& root, size_t operand, std::string name) {
  PlanStep step;
  step.kind = PlanStep::Kind::kFused;
  step.op = &root;
  step.fused.family = FusedKernel::Family::kCollective;
  step.fused.root = &root;
  step.fused.collective_operand = operand;
  step.fused.name = std::move(name);
  return step;
}

struct Cursor {
  size_t next = 0;
  std::map<std::string, int64_t> met;  // collectives met, by "op#channel"
  std::string key;                     // of the collective it waits at
  Membership membership;
};

}  // namespace

Result<Membership> MembershipOf(const Operation& op, const stablehlo::GridPosition& at) {
  Membership membership;
  if (op.kind() == OpKind::kCollectivePermute) {
    membership.members = stablehlo::PermuteSetOf(op, at);
    membership.source = stablehlo::PermuteSourceOf(op, at);
  } else {
    Result<std::vector<int64_t>> members = stablehlo::ProcessGroupOf(op, at);
    if (!members.ok() && members.status().code() == StatusCode::kNotFound &&
        op.kind() == OpKind::kCollectiveBroadcast) {
      // In no group: zeros, met alone.
      membership.members = {at.Logical()};
      membership.source = -1;
    } else if (!members.ok()) {
      return InvalidArgumentError(Where(op) + " in the instance at " + PositionName(at) + ": " +
                                  members.status().message());
    } else {
      membership.members = std::move(members).value();
    }
  }
  if (std::find(membership.members.begin(), membership.members.end(), at.Logical()) ==
      membership.members.end()) {
    return InvalidArgumentError(Where(op) + ": the instance at " + PositionName(at) +
                                " is not in its own process group");
  }
  BERTH_RETURN_IF_ERROR(CheckCollective(op, static_cast<int64_t>(membership.members.size())));
  return membership;
}

std::vector<PlanStep> MeetingSteps(const std::vector<const Operation*>& ops,
                                   const std::vector<int64_t>& sources,
                                   const std::function<std::string()>& next_name) {
  const Operation& root = *ops.front();
  const size_t data = CollectiveDataOperands(root);
  std::vector<PlanStep> steps;
  for (size_t k = 0; k < data; ++k) {
    PlanStep step = CollectiveKernelStep(root, k, next_name());
    FusedKernel& kernel = step.fused;
    kernel.members = static_cast<int64_t>(ops.size());
    kernel.member_sources = sources;
    kernel.num_elements = kernel.members * root.result(k)->type().NumElements();
    for (const Operation* op : ops) kernel.inputs.push_back(op->operand(k));
    if (data < root.num_operands()) {
      for (const Operation* op : ops) kernel.inputs.push_back(op->operand(data));
    }
    for (const Operation* op : ops) kernel.outputs.push_back(op->result(k));
    steps.push_back(std::move(step));
  }
  return steps;
}

Result<std::vector<PlanStep>> TransferSteps(const Operation& send, const Operation& recv,
                                            const std::function<std::string()>& next_name) {
  const size_t values = send.num_operands() - 1;
  if (recv.num_results() - 1 != values) {
    return InvalidArgumentError(Where(recv) + " expects " + std::to_string(recv.num_results() - 1) +
                                " values from " + Where(send) + ", which sends " +
                                std::to_string(values));
  }
  std::vector<PlanStep> steps;
  for (size_t d = 0; d < values; ++d) {
    if (send.operand(d)->type() != recv.result(d)->type()) {
      return InvalidArgumentError(Where(recv) + ": result #" + std::to_string(d) + " is " +
                                  recv.result(d)->type().ToString() + ", " + Where(send) +
                                  " sends " + send.operand(d)->type().ToString());
    }
    PlanStep step = CollectiveKernelStep(recv, d, next_name());
    FusedKernel& kernel = step.fused;
    kernel.member_sources = {0};
    kernel.num_elements = recv.result(d)->type().NumElements();
    kernel.inputs = {send.operand(d)};
    kernel.outputs = {recv.result(d)};
    steps.push_back(std::move(step));
  }
  return steps;
}

Status ScheduleInstances(PlanStep& step, const std::vector<stablehlo::GridPosition>& positions,
                         const std::function<std::string()>& next_name) {
  const size_t count = step.regions.size();
  std::vector<Cursor> cursors(count);
  // The instance of logical id `id`.
  std::map<int64_t, size_t> instance_of;
  for (size_t i = 0; i < count; ++i) instance_of[positions[i].Logical()] = i;
  auto waiting_op = [&](size_t i) -> const Operation* {
    const std::vector<PlanStep>& steps = step.regions[i].steps;
    return cursors[i].next < steps.size() ? steps[cursors[i].next].op : nullptr;
  };
  // Values sent and not yet received, by channel, oldest first.
  std::map<int64_t, std::deque<std::pair<size_t, const Operation*>>> channels;
  while (true) {
    // Every instance runs up to its next collective, or a recv with nothing
    // sent on its channel, until none can go on.
    for (bool progress = true; progress;) {
      progress = false;
      for (size_t i = 0; i < count; ++i) {
        const std::vector<PlanStep>& steps = step.regions[i].steps;
        Cursor& cursor = cursors[i];
        while (cursor.next < steps.size()) {
          const PlanStep& next = steps[cursor.next];
          if (next.kind != PlanStep::Kind::kCollective) {
            step.schedule.push_back({false, i, cursor.next++});
          } else if (next.op->kind() == OpKind::kSend) {
            channels[next.op->channel_handle()->handle].emplace_back(i, next.op);
            ++cursor.next;
          } else if (next.op->kind() == OpKind::kRecv) {
            auto& sent = channels[next.op->channel_handle()->handle];
            if (sent.empty()) break;
            const auto [from, send] = sent.front();
            sent.pop_front();
            BERTH_ASSIGN_OR_RETURN(std::vector<PlanStep> copies,
                                   TransferSteps(*send, *next.op, next_name));
            for (PlanStep& copy : copies) {
              copy.instances = {from, i};
              step.schedule.push_back({true, 0, step.meetings.size()});
              step.meetings.push_back(std::move(copy));
            }
            ++cursor.next;
          } else {
            break;
          }
          progress = true;
        }
      }
    }
    bool any_waits = false;
    for (size_t i = 0; i < count; ++i) {
      const std::vector<PlanStep>& steps = step.regions[i].steps;
      Cursor& cursor = cursors[i];
      if (cursor.next == steps.size()) continue;
      any_waits = true;
      const Operation& op = *steps[cursor.next].op;
      if (op.kind() == OpKind::kRecv) continue;  // waits for a send
      const std::string kind =
          std::string(op.name()) + "#" + std::to_string(stablehlo::CollectiveChannelId(op));
      cursor.key = kind + "#" + std::to_string(cursor.met[kind]);
      BERTH_ASSIGN_OR_RETURN(cursor.membership, MembershipOf(op, positions[i]));
    }
    if (!any_waits) return OkStatus();
    // The first group whose members all wait at the same collective meets.
    std::optional<size_t> ready;
    for (size_t i = 0; i < count && !ready; ++i) {
      if (waiting_op(i) == nullptr || waiting_op(i)->kind() == OpKind::kRecv) continue;
      bool all = true;
      for (int64_t id : cursors[i].membership.members) {
        auto it = instance_of.find(id);
        if (it == instance_of.end() || waiting_op(it->second) == nullptr ||
            waiting_op(it->second)->kind() == OpKind::kRecv ||
            cursors[it->second].key != cursors[i].key ||
            cursors[it->second].membership.members != cursors[i].membership.members) {
          all = false;
          break;
        }
      }
      if (all) ready = i;
    }
    if (!ready) {
      std::string waits;
      for (size_t i = 0; i < count; ++i) {
        if (const Operation* op = waiting_op(i))
          waits += "; the instance at " + PositionName(positions[i]) + " waits at " + Where(*op);
      }
      return InvalidArgumentError("interpreter.run_parallel at " + step.op->location().ToString() +
                                  ": no process group can meet (every member of a group must " +
                                  "reach the same collective; a recv needs a send on its "
                                  "channel)" +
                                  waits);
    }
    std::vector<const Operation*> ops;
    std::vector<int64_t> sources;
    std::vector<size_t> members;
    for (int64_t id : cursors[*ready].membership.members) {
      const size_t i = instance_of.at(id);
      members.push_back(i);
      ops.push_back(waiting_op(i));
      sources.push_back(cursors[i].membership.source);
    }
    for (const Operation* op : ops) {
      if (op->kind() != ops.front()->kind() || op->num_operands() != ops.front()->num_operands()) {
        return InvalidArgumentError(Where(*op) + " meets " + Where(*ops.front()) +
                                    ": the members of a group run different collectives");
      }
      for (size_t j = 0; j < op->num_operands(); ++j) {
        if (op->operand(j)->type() != ops.front()->operand(j)->type()) {
          return InvalidArgumentError(Where(*op) + " meets " + Where(*ops.front()) +
                                      " with operands of other types");
        }
      }
    }
    for (PlanStep& kernel : MeetingSteps(ops, sources, next_name)) {
      // Parameters: the members' operands (and roots), then their results.
      const size_t groups = kernel.fused.inputs.size() / members.size();
      for (size_t r = 0; r < groups; ++r)
        kernel.instances.insert(kernel.instances.end(), members.begin(), members.end());
      kernel.instances.insert(kernel.instances.end(), members.begin(), members.end());
      step.schedule.push_back({true, 0, step.meetings.size()});
      step.meetings.push_back(std::move(kernel));
    }
    for (size_t i : members) {
      const Operation& op = *waiting_op(i);
      ++cursors[i]
            .met[std::string(op.name()) + "#" + std::to_string(stablehlo::CollectiveChannelId(op))];
      ++cursors[i].next;
    }
  }
}

}  // namespace berth::cuda
