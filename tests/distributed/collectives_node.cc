// One node of a job using the collectives extension (distributed_job_test):
// it joins the job from the environment (berth launch), makes a
// communicator over every device of the job, and prints one JSON line.
//   collectives_node every    a program's all-reduce over every device (its
//                             collectives and the communicator's share the
//                             job), then every operation on every type,
//                             checked against the reference
//                             (collective_checks.hpp)
//   collectives_node missing  the last node never calls the first
//                             all-reduce; the others report its error
//   collectives_node abort    node 0 aborts while the others wait in an
//                             all-gather it never calls
// With a second argument `warm`, every rank first runs one all-reduce, so
// that the wait is in Gloo's transport rather than in connecting to it.
#include <chrono>
#include <iostream>
#include <memory>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "berth/berth.hpp"
#include "berth/job.hpp"
#include "collective_checks.hpp"
#include "job_node.hpp"
#include "replica_programs.hpp"

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

int Fail(const std::string& what, const berth::Status& status) {
  std::cerr << "collectives_node: " << what << ": " << status.ToString() << "\n";
  return 1;
}

// Waits for every output of this node's ranks: the first error's code and
// message, and how long it took.
nlohmann::json AwaitAll(std::vector<berth::Result<berth::CollectiveOutput>>& outs,
                        Clock::time_point begin) {
  nlohmann::json report = {{"code", "OK"}, {"message", ""}};
  for (auto& out : outs) {
    berth::Status status = out.ok() ? out->done.Await() : out.status();
    if (!status.ok() && report["code"] == "OK") {
      report["code"] = std::string(berth::StatusCodeName(status.code()));
      report["message"] = std::string(status.message());
    }
  }
  report["seconds"] = std::chrono::duration<double>(Clock::now() - begin).count();
  return report;
}

// A scalar s32 `value` on the device of each of this process's ranks.
berth::Result<std::vector<berth::Buffer>> ScalarInputs(const berth::Client& client,
                                                       const berth::Communicator& comm,
                                                       int32_t value) {
  std::vector<berth::Buffer> inputs;
  for (int64_t r : comm.local_ranks()) {
    BERTH_ASSIGN_OR_RETURN(berth::Device device,
                           client.LookupDevice(comm.device_ids()[static_cast<size_t>(r)]));
    BERTH_ASSIGN_OR_RETURN(berth::Buffer in,
                           client.BufferFromHost(&value, berth::ElementType::kS32, {}, device));
    inputs.push_back(std::move(in));
  }
  return inputs;
}

// The sum of the replica ids over a program of one replica per device of the
// job, as this node's first device sees it.
berth::Result<int64_t> ProgramAllReduce(const berth::Client& client) {
  const int n = static_cast<int>(client.devices().size());
  const std::string program =
      berth::testing::ReplicaProgram(berth::testing::SumOverReplicas("sum", "id", n), "sum", n);
  BERTH_ASSIGN_OR_RETURN(berth::Executable executable, client.Compile(program));
  std::vector<std::vector<const berth::Buffer*>> no_arguments(client.addressable_devices().size());
  BERTH_ASSIGN_OR_RETURN(berth::ExecuteResult result, executable.Execute(no_arguments));
  for (const berth::Event& done : result.completion) BERTH_RETURN_IF_ERROR(done.Await());
  uint32_t sum = 0;
  BERTH_RETURN_IF_ERROR(result.outputs.at(0).at(0).ToHost(&sum, sizeof(sum)));
  return static_cast<int64_t>(sum);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "every";
  const bool warm = argc > 2 && std::string(argv[2]) == "warm";
  berth::Result<berth::testing::JobNode> joined = berth::testing::JoinJobNode(BERTH_CPU_MANIFEST);
  if (!joined.ok()) return Fail("join", joined.status());
  const berth::Client& client = *joined->client;
  std::vector<int64_t> ids;
  for (const berth::Device& device : client.devices()) ids.push_back(device.id());
  const auto timeout =
      mode == "every" ? std::chrono::milliseconds(0) : std::chrono::milliseconds(1500);
  berth::Result<berth::Communicator> comm = client.CreateCommunicator(ids, timeout);
  if (!comm.ok()) return Fail("communicator", comm.status());
  berth::Result<std::vector<berth::Buffer>> inputs = ScalarInputs(client, *comm, 1);
  if (!inputs.ok()) return Fail("inputs", inputs.status());
  const std::vector<int64_t>& ranks = comm->local_ranks();
  const int node = client.process_index();
  nlohmann::json report = {{"node", node}, {"ranks", comm->size()}, {"local_ranks", ranks}};

  if (warm) {
    std::vector<berth::Result<berth::CollectiveOutput>> warmup;
    for (size_t i = 0; i < ranks.size(); ++i)
      warmup.push_back(comm->AllReduce(ranks[i], (*inputs)[i]));
    nlohmann::json done = AwaitAll(warmup, Clock::now());
    if (done["code"] != "OK") return Fail("warm-up", berth::InternalError(done.dump()));
  }
  if (mode == "every") {
    berth::Result<int64_t> program_sum = ProgramAllReduce(client);
    if (!program_sum.ok()) return Fail("program all-reduce", program_sum.status());
    const int64_t n = static_cast<int64_t>(ids.size());
    report["program_sum_ok"] = *program_sum == n * (n - 1) / 2;
    berth::testing::CollectiveCheckResult result =
        berth::testing::CheckEveryCollective(client, *comm, 2026);
    report["checked"] = result.checked;
    report["failures"] = result.failures;
  } else {
    const bool last = node + 1 == joined->job->num_nodes();
    std::vector<berth::Result<berth::CollectiveOutput>> outs;
    const Clock::time_point begin = Clock::now();
    if (mode == "missing") {
      if (!last) {
        for (size_t i = 0; i < ranks.size(); ++i)
          outs.push_back(comm->AllReduce(ranks[i], (*inputs)[i]));
      } else {
        std::this_thread::sleep_for(3s);  // past the others' timeout, then leave
      }
    } else if (mode == "abort") {
      if (node == 0) {
        std::this_thread::sleep_for(500ms);
        if (berth::Status status = comm->Abort("node 0 stops the job"); !status.ok()) {
          return Fail("abort", status);
        }
      } else {
        for (size_t i = 0; i < ranks.size(); ++i)
          outs.push_back(comm->AllGather(ranks[i], (*inputs)[i], 60s));
      }
    } else {
      return Fail("mode", berth::InvalidArgumentError("unknown mode '" + mode + "'"));
    }
    report.update(AwaitAll(outs, begin));
  }
  std::cout << report.dump() << std::endl;
  return 0;
}
