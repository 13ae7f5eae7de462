// Compile and execute, when the plugin supports StableHLO (its
// "stablehlo_support" attribute): elementwise ops, a reduction, several
// outputs, every addressable device, refused input, concurrent executions.
#include <atomic>
#include <thread>
#include <vector>

#include "conformance/suite_context.hpp"

namespace berth::conformance {
namespace {

constexpr char kAddMultiply[] = R"(
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %s = stablehlo.add %x, %y : tensor<4xf32>
  %p = stablehlo.multiply %x, %y : tensor<4xf32>
  return %s, %p : tensor<4xf32>, tensor<4xf32>
}
)";

constexpr char kSum[] = R"(
func.func @main(%x: tensor<2x3xf32>) -> tensor<3xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0]
      : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}
)";

Result<Buffer> F32(const Client& client, const Device& device, const std::vector<float>& values,
                   std::vector<int64_t> dims) {
  return client.BufferFromHost(values.data(), ElementType::kF32, dims, device);
}

Result<std::vector<float>> Read(const Buffer& buffer) {
  std::vector<float> out(buffer.host_size() / sizeof(float));
  BERTH_RETURN_IF_ERROR(buffer.ToHost(out.data(), out.size() * sizeof(float)));
  return out;
}

// Runs `executable` on `device` and reads every output back.
Result<std::vector<std::vector<float>>> RunOn(const Executable& executable, const Device& device,
                                              const std::vector<const Buffer*>& args) {
  BERTH_ASSIGN_OR_RETURN(ExecuteResult result, executable.ExecuteOn(device, args));
  BERTH_RETURN_IF_ERROR(result.completion[0].Await());
  std::vector<std::vector<float>> outputs;
  for (const Buffer& output : result.outputs[0]) {
    BERTH_ASSIGN_OR_RETURN(std::vector<float> values, Read(output));
    outputs.push_back(std::move(values));
  }
  return outputs;
}

// Checks add/multiply of (x, y) on `device`; an error names what differs.
Status CheckAddMultiply(const Client& client, const Executable& executable, const Device& device,
                        float base) {
  std::vector<float> x{base, base + 1, -2, 0.5f}, y{1, -3, 4, 8};
  BERTH_ASSIGN_OR_RETURN(Buffer bx, F32(client, device, x, {4}));
  BERTH_ASSIGN_OR_RETURN(Buffer by, F32(client, device, y, {4}));
  BERTH_ASSIGN_OR_RETURN(auto outputs, RunOn(executable, device, {&bx, &by}));
  if (outputs.size() != 2) {
    return InternalError(std::to_string(outputs.size()) + " outputs, expected 2");
  }
  for (size_t i = 0; i < 4; ++i) {
    if (outputs[0][i] != x[i] + y[i] || outputs[1][i] != x[i] * y[i]) {
      return InternalError("device " + std::to_string(device.id()) + ": element " +
                           std::to_string(i) + " is (" + std::to_string(outputs[0][i]) + ", " +
                           std::to_string(outputs[1][i]) + "), expected (" +
                           std::to_string(x[i] + y[i]) + ", " + std::to_string(x[i] * y[i]) + ")");
    }
  }
  return OkStatus();
}

void Elementwise(Context& c, const Emit& emit, const Executable& executable) {
  const std::string name = "execute.elementwise_two_outputs_every_device";
  for (const Device& device : c.client->addressable_devices()) {
    if (Status status = CheckAddMultiply(*c.client, executable, device, 1.5f); !status.ok()) {
      return emit(Fail(name, status.ToString()));
    }
  }
  emit(Pass(name));
}

void Reduce(Context& c, const Emit& emit) {
  const std::string name = "execute.reduce";
  Result<Executable> executable = c.client->Compile(kSum);
  if (!executable.ok()) return emit(Fail(name, "compiling: " + executable.status().ToString()));
  const Device& device = c.client->addressable_devices()[0];
  Result<Buffer> x = F32(*c.client, device, {1, 2, 3, 10, 20, 30}, {2, 3});
  if (!x.ok()) return emit(Fail(name, x.status().ToString()));
  Result<std::vector<std::vector<float>>> out = RunOn(*executable, device, {&*x});
  if (!out.ok()) return emit(Fail(name, out.status().ToString()));
  if (out->size() != 1 || (*out)[0] != std::vector<float>{11, 22, 33}) {
    return emit(Fail(name, "the column sums of [[1,2,3],[10,20,30]] are not [11, 22, 33]"));
  }
  emit(Pass(name));
}

void BadInputRefused(Context& c, const Emit& emit, const Executable& executable) {
  const std::string compile = "compile.malformed_program_refused";
  Result<Executable> bad = c.client->Compile("func.func @main(%x: tensor<4xf32>) -> {");
  emit(!bad.ok() && !bad.status().message().empty()
           ? Pass(compile)
           : Fail(compile, bad.ok() ? "a malformed program compiled" : "no message"));

  const std::string arity = "execute.wrong_argument_count_refused";
  const Device& device = c.client->addressable_devices()[0];
  Result<Buffer> x = F32(*c.client, device, {1, 2, 3, 4}, {4});
  if (!x.ok()) return emit(Fail(arity, x.status().ToString()));
  Result<ExecuteResult> result = executable.ExecuteOn(device, {&*x});
  Status status = result.ok() ? result->completion[0].Await() : result.status();
  emit(!status.ok() ? Pass(arity)
                    : Fail(arity, "running a two-argument program with one argument succeeded"));
}

void Concurrent(Context& c, const Emit& emit, const Executable& executable) {
  const std::string name = "execute.concurrent";
  constexpr int kThreads = 4;
  constexpr int kRuns = 10;
  std::atomic<int> failures{0};
  std::string first_failure;
  std::atomic<bool> recorded{false};
  std::vector<std::thread> threads;
  const std::vector<Device>& devices = c.client->addressable_devices();
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kRuns; ++i) {
        const Device& device = devices[static_cast<size_t>(t + i) % devices.size()];
        Status status = CheckAddMultiply(*c.client, executable, device, float(t * 100 + i));
        if (!status.ok()) {
          failures++;
          if (!recorded.exchange(true)) first_failure = status.ToString();
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  emit(failures == 0 ? Pass(name)
                     : Fail(name, std::to_string(failures.load()) + " of " +
                                      std::to_string(kThreads * kRuns) +
                                      " concurrent executions failed; first: " + first_failure));
}

}  // namespace

void ExecuteChecks(Context& context, const Emit& emit) {
  if (!context.stablehlo) {
    emit(Skip("execute", "the plugin does not report \"stablehlo_support\": true"));
    return;
  }
  const std::string compile = "compile.stablehlo";
  Result<Executable> executable = context.client->Compile(kAddMultiply);
  if (!executable.ok()) return emit(Fail(compile, executable.status().ToString()));
  emit(Pass(compile));
  Elementwise(context, emit, *executable);
  Reduce(context, emit);
  BadInputRefused(context, emit, *executable);
  Concurrent(context, emit, *executable);
}

}  // namespace berth::conformance
