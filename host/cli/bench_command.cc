// berth bench collectives [--op all_reduce] [--sizes 1K,1M,16M] [--dtype f32]
//                         [--algorithm auto|flat|hierarchical] [--iters N] [--warmup N]
//                         [--devices N] [--plugin NAME] [--json]
// Scenarios of `berth bench`; `collectives` is the first (collectives_bench.hpp).
#include <cstdio>
#include <iostream>

#include "cli/collectives_bench.hpp"
#include "cli/command.hpp"
#include "cli/session.hpp"

namespace berth::cli {

namespace po = boost::program_options;

namespace {

std::string Fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

void PrintTable(std::ostream& out, const std::vector<CollectiveBenchResult>& results,
                int64_t devices, int nodes, int slices) {
  out << "# " << devices << " devices on " << nodes << (nodes == 1 ? " node" : " nodes")
      << (slices > 1 ? " in " + std::to_string(slices) + " slices" : std::string())
      << "; time: mean of one execution on node 0; GB/s = 1e9 B/s\n";
  out << "#        size  op              dtype  algorithm   time (us)  algbw (GB/s)  "
         "busbw (GB/s)  correct\n";
  for (const CollectiveBenchResult& r : results) {
    char line[256];
    std::snprintf(line, sizeof line, "%14lld  %-14s  %-5s  %-9s  %10s  %12s  %12s  %s\n",
                  static_cast<long long>(r.size), r.op.c_str(), r.dtype.c_str(),
                  r.algorithm.c_str(), Fixed(r.time_us, 1).c_str(), Fixed(r.algbw, 3).c_str(),
                  Fixed(r.busbw, 3).c_str(), r.correct ? "yes" : "NO");
    out << line;
  }
}

nlohmann::json ResultsJson(const std::vector<CollectiveBenchResult>& results, int64_t devices,
                           int nodes) {
  nlohmann::json list = nlohmann::json::array();
  for (const CollectiveBenchResult& r : results) {
    list.push_back({{"op", r.op},
                    {"dtype", r.dtype},
                    {"size", r.size},
                    {"algorithm", r.algorithm},
                    {"time_us", r.time_us},
                    {"algbw", r.algbw},
                    {"busbw", r.busbw},
                    {"correct", r.correct}});
  }
  return {{"results", list}, {"devices", devices}, {"nodes", nodes}};
}

int RunCollectivesScenario(const std::vector<std::string>& args, Context& context) {
  po::options_description options("options");
  std::string op = "all_reduce", sizes = "1K,1M,16M", dtype = "f32", plugin;
  CollectiveBenchOptions bench;
  int64_t devices = 0;
  // clang-format off
  options.add_options()
      ("op", po::value<std::string>(&op),
       "all_reduce (default), all_gather, reduce_scatter or all_to_all")
      ("sizes", po::value<std::string>(&sizes),
       "bytes per size, comma-separated, K/M/G = 2^10/2^20/2^30 (default 1K,1M,16M)")
      ("dtype", po::value<std::string>(&dtype), "f32 (default), f64, f16, bf16, i32 or i64")
      ("algorithm", po::value<std::string>(&bench.algorithm),
       "auto (default: the plugin's choice), flat (one ring over every node) or hierarchical "
       "(within slices first; berth launch --slices)")
      ("iters", po::value<int>(&bench.iterations), "timed executions per size (default 20)")
      ("warmup", po::value<int>(&bench.warmup), "untimed executions first (default 5)")
      ("devices", po::value<int64_t>(&devices),
       "outside a job: a client of this many devices (plugins with virtual devices)")
      ("plugin", po::value<std::string>(&plugin), "plugin to run on (default: highest priority)")
      ("json", "print {\"results\": [...]} (on node 0)");
  // clang-format on
  po::variables_map vm;
  int exit_code = kExitOk;
  if (!ParseArgs("bench collectives",
                 "[--op OP] [--sizes 1K,1M,16M] [--dtype f32] [--algorithm auto] [--iters 20] "
                 "[--warmup 5] [--devices N] [--plugin NAME] [--json]",
                 options, nullptr, args, vm, context, exit_code)) {
    return exit_code;
  }
  Result<CollectiveOp> parsed_op = ParseCollectiveOp(op);
  Result<std::vector<int64_t>> parsed_sizes = ParseByteSizes(sizes);
  std::optional<ElementType> type = ParseElementType(dtype);
  Status usage = !parsed_op.ok()      ? parsed_op.status()
                 : !parsed_sizes.ok() ? parsed_sizes.status()
                 : !type              ? InvalidArgumentError("unknown --dtype '" + dtype + "'")
                                      : OkStatus();
  if (!usage.ok()) {
    context.err << "berth bench collectives: " << usage.message() << "\n";
    return kExitUsage;
  }
  bench.op = *parsed_op;
  bench.sizes = *parsed_sizes;
  bench.type = *type;

  // flat or hierarchical is the plugin's client option collective_algorithm
  // (a plugin without it refuses it by name); auto leaves the plugin's default.
  NamedValueMap client_options;
  if (bench.algorithm == "flat" || bench.algorithm == "hierarchical") {
    client_options["collective_algorithm"] = bench.algorithm;
  }
  Result<Session> session = Session::Open(plugin, /*join_job=*/true, {}, client_options);
  Status status = session.status();
  if (status.ok() && devices > 0) {
    status = session->job()
                 ? InvalidArgumentError("--devices applies outside a job (a job's devices are its "
                                        "nodes', BERTH_DEVICES_PER_NODE each)")
                 : session->EnsureDeviceCount(devices);
  }
  Result<std::vector<CollectiveBenchResult>> results =
      status.ok() ? RunCollectivesBench(*session, bench)
                  : Result<std::vector<CollectiveBenchResult>>(status);
  Job* job = session.ok() ? session->job() : nullptr;
  if (!results.ok()) {
    if (job) FailJob(*job, results.status());
    context.err << "berth bench collectives: " << results.status().ToString() << "\n";
    return results.status().code() == StatusCode::kInvalidArgument ? kExitUsage : kExitFailure;
  }
  const auto device_count = static_cast<int64_t>(session->client().devices().size());
  Result<SliceLayout> layout = session->client().slice_layout();
  const int slices = layout.ok() ? layout->num_slices : 1;
  const int nodes = job ? job->num_nodes() : 1;
  if (!job || job->node_id() == 0) {
    if (vm.count("json")) {
      nlohmann::json report = ResultsJson(*results, device_count, nodes);
      report["slices"] = slices;
      PrintJson(context.out, report);
    } else {
      PrintTable(context.out, *results, device_count, nodes, slices);
    }
  }
  context.out.flush();
  if (job) {
    if (Status left = job->Shutdown(); !left.ok()) {
      context.err << "berth bench collectives: leaving the job: " << left.ToString() << "\n";
      return kExitFailure;
    }
  }
  for (const CollectiveBenchResult& r : *results) {
    if (!r.correct) {
      context.err << "berth bench collectives: " << r.op << " of " << r.size
                  << " B gave wrong results\n";
      return kExitFailure;
    }
  }
  return kExitOk;
}

}  // namespace

int RunBench(const std::vector<std::string>& args, Context& context) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    (args.empty() ? context.err : context.out)
        << "usage: berth bench SCENARIO [options]\n"
           "scenarios:\n"
           "  collectives   time a collective over every device of the job, check its results\n"
           "                (berth bench collectives --help)\n";
    return args.empty() ? kExitUsage : kExitOk;
  }
  if (args[0] == "collectives") {
    return RunCollectivesScenario({args.begin() + 1, args.end()}, context);
  }
  context.err << "berth bench: unknown scenario '" << args[0] << "' (collectives)\n";
  return kExitUsage;
}

}  // namespace berth::cli
