// How the program instances of an interpreter.run_parallel share one
// device: which instances meet at each collective (the StableHLO library's
// process groups), the kernels of a meeting, and the order - fixed at plan
// time - in which the instances' steps and meetings run.
#ifndef BERTH_PLUGINS_CUDA_PARALLEL_SCHEDULE_HPP_
#define BERTH_PLUGINS_CUDA_PARALLEL_SCHEDULE_HPP_

#include <functional>
#include <string>
#include <vector>

#include "berth/stablehlo/process_groups.hpp"
#include "cuda_plan.hpp"

namespace berth::cuda {

// Who an instance meets at collective `op`: the members of its process
// group (logical ids, in group order) and the member whose value it takes
// (`source`, a position in `members`; -1: zeros): collective_permute's
// source pair, collective_broadcast's first member (or -1 for an instance in
// no group, then a group of its own). Unused by the other collectives.
struct Membership {
  std::vector<int64_t> members;
  int64_t source = 0;
};

// The membership of the instance at `at` in collective `op` (checked with
// CheckCollective for the group's size); INVALID_ARGUMENT or UNIMPLEMENTED
// naming the op otherwise.
Result<Membership> MembershipOf(const stablehlo::Operation& op, const stablehlo::GridPosition& at);

// The kernels of a collective as its members meet it: `ops[m]` is the op
// member m runs (the first one's attributes are used), `sources[m]` its
// Membership::source. One kFused step per data operand, its inputs that
// operand of each member (then each member's root operand, for a dynamic
// root) and its outputs that result of each member; each named by
// `next_name`. Their `instances` are left empty.
std::vector<PlanStep> MeetingSteps(const std::vector<const stablehlo::Operation*>& ops,
                                   const std::vector<int64_t>& sources,
                                   const std::function<std::string()>& next_name);

// The kernels carrying what `send` sent to `recv` (one copy per value,
// `recv` the root of each; their `instances` left empty); INVALID_ARGUMENT
// when the values do not match recv's results.
Result<std::vector<PlanStep>> TransferSteps(const stablehlo::Operation& send,
                                            const stablehlo::Operation& recv,
                                            const std::function<std::string()>& next_name);

// Fills `step` (a kParallel step whose `regions` hold the instances'
// bodies, planned for `positions`) with its schedule: each instance runs
// its steps until its next collective - a send queues its values on its
// channel and goes on; a recv takes the oldest values sent on its channel
// (TransferSteps join `meetings`), or waits for them - and the instances
// go on in turn while any can; once every instance waits or
// is done, the first group whose every member waits at the same collective
// (op name, channel, and the count of such collectives the instance met
// before, as the cpu plugin keys its meetings) meets - its kernels join
// `meetings` - and its members go on. INVALID_ARGUMENT naming the waiting
// collectives when no group can meet (on the cpu plugin, a deadlock that
// times out).
Status ScheduleInstances(PlanStep& step, const std::vector<stablehlo::GridPosition>& positions,
                         const std::function<std::string()>& next_name);

}  // namespace berth::cuda

#endif  // BERTH_PLUGINS_CUDA_PARALLEL_SCHEDULE_HPP_
