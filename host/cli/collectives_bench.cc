#include "cli/collectives_bench.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "berth/stablehlo/types.hpp"

namespace berth::cli {
namespace {

constexpr int64_t kMaxBenchBytes = int64_t{1} << 34;  // 16 GiB per size

// The input element `i` of replica `r`: a small integer, so that sums over
// any number of replicas a check meets are exact in every type and order.
int64_t InputValue(int64_t r, int64_t i) { return (r * 7 + i * 3) % 11 - 5; }

// The element types the check can write and read back exactly.
bool Checkable(ElementType type) {
  switch (type) {
    case ElementType::kS32:
    case ElementType::kS64:
    case ElementType::kF16:
    case ElementType::kBF16:
    case ElementType::kF32:
    case ElementType::kF64: return true;
    default: return false;
  }
}

stablehlo::ElementType ProgramFloatType(ElementType type) {
  return type == ElementType::kF16 ? stablehlo::ElementType::kF16 : stablehlo::ElementType::kBF16;
}

template <typename T>
void Put(std::byte* out, T value) {
  std::memcpy(out, &value, sizeof value);
}

template <typename T>
T Get(const std::byte* in) {
  T value;
  std::memcpy(&value, in, sizeof value);
  return value;
}

void StoreValue(ElementType type, int64_t value, std::byte* out) {
  switch (type) {
    case ElementType::kS32: return Put(out, static_cast<int32_t>(value));
    case ElementType::kS64: return Put(out, value);
    case ElementType::kF32: return Put(out, static_cast<float>(value));
    case ElementType::kF64: return Put(out, static_cast<double>(value));
    default:  // f16, bf16
      return Put(out, static_cast<uint16_t>(stablehlo::EncodeFloat(ProgramFloatType(type),
                                                                   static_cast<double>(value))));
  }
}

double LoadValue(ElementType type, const std::byte* in) {
  switch (type) {
    case ElementType::kS32: return Get<int32_t>(in);
    case ElementType::kS64: return static_cast<double>(Get<int64_t>(in));
    case ElementType::kF32: return Get<float>(in);
    case ElementType::kF64: return Get<double>(in);
    default: return stablehlo::DecodeFloat(ProgramFloatType(type), Get<uint16_t>(in));
  }
}

// Elements each device sends and receives for `count` (see CollectiveProgram).
struct Shapes {
  int64_t in = 0;
  int64_t out = 0;
};

Shapes ShapesOf(CollectiveOp op, int64_t count, int64_t devices) {
  switch (op) {
    case CollectiveOp::kAllGather: return {count / devices, count};
    case CollectiveOp::kReduceScatter: return {count, count / devices};
    default: return {count, count};
  }
}

// Output element `j` of replica `r` over `devices` replicas.
int64_t Expected(CollectiveOp op, int64_t count, int64_t devices, int64_t r, int64_t j) {
  const int64_t chunk = count / devices;
  int64_t sum = 0;
  switch (op) {
    case CollectiveOp::kAllReduce:
      for (int64_t q = 0; q < devices; ++q) sum += InputValue(q, j);
      return sum;
    case CollectiveOp::kAllGather: return InputValue(j / chunk, j % chunk);
    case CollectiveOp::kReduceScatter:
      for (int64_t q = 0; q < devices; ++q) sum += InputValue(q, r * chunk + j);
      return sum;
    case CollectiveOp::kAllToAll: return InputValue(j / chunk, r * chunk + j % chunk);
  }
  return 0;
}

std::string ReplicaGroup(int64_t devices) {
  std::string ids;
  for (int64_t i = 0; i < devices; ++i) ids += (i ? ", " : "") + std::to_string(i);
  return "replica_groups = dense<[[" + ids + "]]> : tensor<1x" + std::to_string(devices) + "xi64>";
}

std::string Tensor(int64_t count, std::string_view element) {
  return "tensor<" + (count >= 0 ? std::to_string(count) + "x" : std::string()) +
         std::string(element) + ">";
}

std::string AddRegion(std::string_view element) {
  const std::string scalar = Tensor(-1, element);
  return "({\n    ^bb0(%a: " + scalar + ", %b: " + scalar +
         "):\n      %s = stablehlo.add %a, %b : " + scalar +
         "\n      stablehlo.return %s : " + scalar + "\n  }) ";
}

std::string Module(int64_t devices, const std::string& in, const std::string& out,
                   const std::string& body) {
  return "module @bench attributes {mhlo.num_replicas = " + std::to_string(devices) +
         " : i32, mhlo.num_partitions = 1 : i32} {\n"
         "func.func public @main(%x: " +
         in + ") -> " + out + " {\n  %r = " + body + " : (" + in + ") -> " + out +
         "\n  return %r : " + out + "\n}\n}\n";
}

// Per device: its buffers and its replica in the program.
struct DeviceInputs {
  std::vector<Buffer> buffers;
  std::vector<std::vector<const Buffer*>> lists;
  std::vector<int64_t> replicas;
};

// The addressable devices' inputs: replica r gets InputValue(r, i).
Result<DeviceInputs> MakeInputs(Client& client, const Executable& executable,
                                const std::vector<int64_t>& assignment, ElementType type,
                                int64_t elements) {
  DeviceInputs inputs;
  const size_t width = ElementTypeByteSize(type);
  std::vector<std::byte> host(static_cast<size_t>(elements) * width);
  const std::vector<int64_t> dims = {elements};
  for (const Device& device : executable.addressable_devices()) {
    auto at = std::find(assignment.begin(), assignment.end(), device.id());
    if (at == assignment.end()) {
      return InternalError("device " + std::to_string(device.id()) + " is not in the assignment");
    }
    const int64_t replica = at - assignment.begin();
    for (int64_t i = 0; i < elements; ++i) {
      StoreValue(type, InputValue(replica, i), host.data() + static_cast<size_t>(i) * width);
    }
    BERTH_ASSIGN_OR_RETURN(Buffer buffer, client.BufferFromHost(host.data(), type, dims, device));
    inputs.buffers.push_back(std::move(buffer));
    inputs.replicas.push_back(replica);
  }
  for (const Buffer& buffer : inputs.buffers) inputs.lists.push_back({&buffer});
  return inputs;
}

// Runs once on every addressable device and waits for all of them.
Result<ExecuteResult> RunOnce(const Executable& executable, const DeviceInputs& inputs) {
  BERTH_ASSIGN_OR_RETURN(ExecuteResult result, executable.Execute(inputs.lists));
  for (Event& done : result.completion) BERTH_RETURN_IF_ERROR(done.Await());
  return result;
}

// Elements of this node's outputs that differ from the reference.
Result<int64_t> CountMismatches(CollectiveOp op, ElementType type, int64_t count, int64_t devices,
                                const DeviceInputs& inputs, const ExecuteResult& result) {
  const size_t width = ElementTypeByteSize(type);
  const int64_t out = ShapesOf(op, count, devices).out;
  int64_t mismatches = 0;
  for (size_t d = 0; d < result.outputs.size(); ++d) {
    if (result.outputs[d].size() != 1) return InternalError("the program has one output");
    BERTH_ASSIGN_OR_RETURN(std::vector<std::byte> bytes, result.outputs[d][0].ToHostBytes());
    if (bytes.size() != static_cast<size_t>(out) * width) {
      return InternalError("device output of " + std::to_string(bytes.size()) + " bytes, not " +
                           std::to_string(out * static_cast<int64_t>(width)));
    }
    for (int64_t j = 0; j < out; ++j) {
      const double got = LoadValue(type, bytes.data() + static_cast<size_t>(j) * width);
      if (got != static_cast<double>(Expected(op, count, devices, inputs.replicas[d], j))) {
        ++mismatches;
      }
    }
  }
  return mismatches;
}

// Every node learns the job's total of mismatches: an all_reduce of each
// device's count (this node's total on its first device, 0 on the others).
class MismatchTotal {
 public:
  static Result<MismatchTotal> Compile(Session& session, const std::vector<int64_t>& assignment) {
    const int64_t devices = static_cast<int64_t>(assignment.size());
    const std::string scalar = Tensor(-1, "i32");
    std::string program = Module(devices, scalar, scalar,
                                 "\"stablehlo.all_reduce\"(%x) " + AddRegion("i32") + "{" +
                                     ReplicaGroup(devices) + "}");
    BERTH_ASSIGN_OR_RETURN(Executable executable,
                           session.Compile(program, "mismatch total", "", assignment));
    return MismatchTotal(std::move(executable));
  }

  Result<int64_t> Sum(Client& client, int64_t local) const {
    std::vector<Buffer> buffers;
    std::vector<std::vector<const Buffer*>> lists;
    for (const Device& device : executable_.addressable_devices()) {
      int32_t value = buffers.empty() ? static_cast<int32_t>(std::min<int64_t>(local, 1 << 30)) : 0;
      BERTH_ASSIGN_OR_RETURN(Buffer buffer,
                             client.BufferFromHost(&value, ElementType::kS32, {}, device));
      buffers.push_back(std::move(buffer));
    }
    for (const Buffer& buffer : buffers) lists.push_back({&buffer});
    BERTH_ASSIGN_OR_RETURN(ExecuteResult result, executable_.Execute(lists));
    for (Event& done : result.completion) BERTH_RETURN_IF_ERROR(done.Await());
    if (result.outputs.empty()) return local;
    int32_t total = 0;
    BERTH_RETURN_IF_ERROR(result.outputs[0][0].ToHost(&total, sizeof total));
    return total;
  }

 private:
  explicit MismatchTotal(Executable executable) : executable_(std::move(executable)) {}
  Executable executable_;
};

}  // namespace

Result<CollectiveOp> ParseCollectiveOp(std::string_view name) {
  for (CollectiveOp op : {CollectiveOp::kAllReduce, CollectiveOp::kAllGather,
                          CollectiveOp::kReduceScatter, CollectiveOp::kAllToAll}) {
    if (CollectiveOpName(op) == name) return op;
  }
  return InvalidArgumentError("unknown collective '" + std::string(name) +
                              "' (all_reduce, all_gather, reduce_scatter, all_to_all)");
}

std::string_view CollectiveOpName(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::kAllReduce: return "all_reduce";
    case CollectiveOp::kAllGather: return "all_gather";
    case CollectiveOp::kReduceScatter: return "reduce_scatter";
    case CollectiveOp::kAllToAll: return "all_to_all";
  }
  return "?";
}

double BusBandwidthFactor(CollectiveOp op, int64_t devices) {
  const double n = static_cast<double>(devices);
  const double once = (n - 1) / n;
  return op == CollectiveOp::kAllReduce ? 2 * once : once;
}

Result<std::vector<int64_t>> ParseByteSizes(std::string_view list) {
  std::vector<int64_t> sizes;
  size_t start = 0;
  while (start <= list.size()) {
    size_t comma = list.find(',', start);
    std::string_view entry = list.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    int64_t unit = 1;
    std::string_view digits = entry;
    if (!digits.empty()) {
      switch (digits.back()) {
        case 'K':
        case 'k': unit = int64_t{1} << 10; break;
        case 'M':
        case 'm': unit = int64_t{1} << 20; break;
        case 'G':
        case 'g': unit = int64_t{1} << 30; break;
        default: break;
      }
      if (unit != 1) digits.remove_suffix(1);
    }
    int64_t value = 0;
    bool ok = !digits.empty() && digits.size() <= 12;
    for (char c : digits) {
      if (c < '0' || c > '9') ok = false;
      value = value * 10 + (c - '0');
    }
    if (!ok || value <= 0 || value > kMaxBenchBytes / unit) {
      return InvalidArgumentError("size '" + std::string(entry) +
                                  "' is not a positive byte count such as 4096, 1K, 16M or 1G "
                                  "(at most 16G)");
    }
    sizes.push_back(value * unit);
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return sizes;
}

std::string CollectiveProgram(CollectiveOp op, ElementType type, int64_t count, int64_t devices) {
  const std::string_view element = ElementTypeName(type);
  const Shapes shapes = ShapesOf(op, count, devices);
  const std::string in = Tensor(shapes.in, element);
  const std::string out = Tensor(shapes.out, element);
  const std::string groups = ReplicaGroup(devices);
  std::string body;
  switch (op) {
    case CollectiveOp::kAllReduce:
      body = "\"stablehlo.all_reduce\"(%x) " + AddRegion(element) + "{" + groups + "}";
      break;
    case CollectiveOp::kAllGather:
      body = "\"stablehlo.all_gather\"(%x) {all_gather_dim = 0 : i64, " + groups + "}";
      break;
    case CollectiveOp::kReduceScatter:
      body = "\"stablehlo.reduce_scatter\"(%x) " + AddRegion(element) +
             "{scatter_dimension = 0 : i64, " + groups + "}";
      break;
    case CollectiveOp::kAllToAll:
      body = "\"stablehlo.all_to_all\"(%x) {split_dimension = 0 : i64, concat_dimension = 0 : i64, "
             "split_count = " +
             std::to_string(devices) + " : i64, " + groups + "}";
      break;
  }
  return Module(devices, in, out, body);
}

Result<std::vector<CollectiveBenchResult>> RunCollectivesBench(
    Session& session, const CollectiveBenchOptions& options) {
  if (options.algorithm != "flat" && options.algorithm != "hierarchical" &&
      options.algorithm != "auto") {
    return InvalidArgumentError("unknown --algorithm '" + options.algorithm +
                                "' (flat, hierarchical, auto)");
  }
  if (!Checkable(options.type)) {
    return InvalidArgumentError("--dtype " + std::string(ElementTypeName(options.type)) +
                                " is not one the check reads back exactly (f32, f64, f16, bf16, "
                                "i32, i64)");
  }
  if (options.warmup < 0 || options.iterations < 1) {
    return InvalidArgumentError("at least one timed iteration and no negative warm-up");
  }
  Client& client = session.client();
  std::vector<int64_t> assignment;
  for (const Device& device : client.devices()) assignment.push_back(device.id());
  const auto devices = static_cast<int64_t>(assignment.size());
  const auto width = static_cast<int64_t>(ElementTypeByteSize(options.type));
  BERTH_ASSIGN_OR_RETURN(MismatchTotal total, MismatchTotal::Compile(session, assignment));

  std::vector<CollectiveBenchResult> results;
  for (int64_t requested : options.sizes) {
    const int64_t count = requested / (devices * width) * devices;
    if (count == 0) {
      return InvalidArgumentError("size " + std::to_string(requested) + " B holds less than one " +
                                  std::string(ElementTypeName(options.type)) + " per device (" +
                                  std::to_string(devices) + " devices)");
    }
    const std::string program = CollectiveProgram(options.op, options.type, count, devices);
    const std::string name =
        std::string(CollectiveOpName(options.op)) + " of " + std::to_string(count * width) + " B";
    BERTH_ASSIGN_OR_RETURN(Executable executable, session.Compile(program, name, "", assignment));
    BERTH_ASSIGN_OR_RETURN(DeviceInputs inputs,
                           MakeInputs(client, executable, assignment, options.type,
                                      ShapesOf(options.op, count, devices).in));
    for (int i = 0; i < options.warmup; ++i) {
      BERTH_RETURN_IF_ERROR(RunOnce(executable, inputs).status().WithContext(name));
    }
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < options.iterations; ++i) {
      BERTH_RETURN_IF_ERROR(RunOnce(executable, inputs).status().WithContext(name));
    }
    const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;
    BERTH_ASSIGN_OR_RETURN(ExecuteResult checked, RunOnce(executable, inputs));
    BERTH_ASSIGN_OR_RETURN(
        int64_t local, CountMismatches(options.op, options.type, count, devices, inputs, checked));
    BERTH_ASSIGN_OR_RETURN(int64_t mismatches, total.Sum(client, local));

    CollectiveBenchResult result;
    result.op = CollectiveOpName(options.op);
    result.dtype = ElementTypeName(options.type);
    result.size = count * width;
    result.algorithm = options.algorithm;
    const double seconds = elapsed.count() / options.iterations;
    result.time_us = seconds * 1e6;
    result.algbw = static_cast<double>(result.size) / seconds / 1e9;
    result.busbw = result.algbw * BusBandwidthFactor(options.op, devices);
    result.correct = mismatches == 0;
    results.push_back(result);
  }
  return results;
}

}  // namespace berth::cli
