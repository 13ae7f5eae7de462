// Compile and execute: elementwise ops with two outputs on every device, a
// reduction, the outputs the plugin hands back against what the executable
// reports, refusals with the codes docs/abi.md gives them, concurrent
// executions. Every plugin runs these: one that does not compile StableHLO,
// or an op of a program, answers UNIMPLEMENTED naming it and the check is
// *unsupported* (CompileRefused), not skipped on the word of an attribute.
#include <atomic>
#include <thread>
#include <vector>

#include "berth/shape.hpp"
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

// The buffers Execute hands back are of the types and dims the executable
// reports (docs/abi.md): hosts adopt them without asking each one, so the
// plugin's own answers are read here through the C table.
void OutputsAsReported(Context& c, const Emit& emit, const Executable& executable) {
  const std::string name = "execute.outputs_as_reported";
  auto* type_fn = c.Function(&BERTH_Api::BERTH_Buffer_ElementType);
  auto* dims_fn = c.Function(&BERTH_Api::BERTH_Buffer_Dimensions);
  if (type_fn == nullptr || dims_fn == nullptr) {
    return emit(Skip(name, "BERTH_Buffer_ElementType or _Dimensions is not in the table"));
  }
  const Device& device = c.client->addressable_devices()[0];
  Result<Buffer> x = F32(*c.client, device, {1, 2, 3, 4}, {4});
  if (!x.ok()) return emit(Fail(name, x.status().ToString()));
  Result<ExecuteResult> result = executable.ExecuteOn(device, {&*x, &*x});
  if (!result.ok()) return emit(Fail(name, result.status().ToString()));
  if (Status status = result->completion[0].Await(); !status.ok()) {
    return emit(Fail(name, status.ToString()));
  }
  const std::vector<Buffer>& outputs = result->outputs[0];
  if (outputs.size() != executable.output_types().size()) {
    return emit(Fail(name, std::to_string(outputs.size()) + " outputs; the executable reports " +
                               std::to_string(executable.output_types().size())));
  }
  for (size_t o = 0; o < outputs.size(); ++o) {
    BERTH_Buffer_ElementType_Args type{};
    type.struct_size = BERTH_Buffer_ElementType_Args_STRUCT_SIZE;
    type.buffer = outputs[o].c_buffer();
    BERTH_Buffer_Dimensions_Args dims{};
    dims.struct_size = BERTH_Buffer_Dimensions_Args_STRUCT_SIZE;
    dims.buffer = outputs[o].c_buffer();
    Status status = c.Take(type_fn(&type), "BERTH_Buffer_ElementType");
    if (status.ok()) status = c.Take(dims_fn(&dims), "BERTH_Buffer_Dimensions");
    if (!status.ok()) return emit(Fail(name, "output " + std::to_string(o) + ": " + status.ToString()));
    std::vector<int64_t> got(dims.dims, dims.dims + dims.num_dims);
    if (type.type != static_cast<BERTH_Buffer_Type>(executable.output_types()[o]) ||
        got != executable.output_dims()[o]) {
      return emit(Fail(name, "output " + std::to_string(o) + " is " +
                                 std::string(ElementTypeName(static_cast<ElementType>(type.type))) +
                                 DimsString(got) + "; the executable reports " +
                                 std::string(ElementTypeName(executable.output_types()[o])) +
                                 DimsString(executable.output_dims()[o])));
    }
  }
  emit(Pass(name));
}

void Reduce(Context& c, const Emit& emit) {
  const std::string name = "execute.reduce";
  Result<Executable> executable = c.Compile(kSum, "conformance/program.mlir");
  if (!executable.ok()) {
    return emit(CompileRefused(c, name, executable.status(),
                               {"stablehlo.reduce", "stablehlo.constant", "stablehlo.add", "f32"}));
  }
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

// `status` is INVALID_ARGUMENT with a message, as docs/abi.md asks of a
// refusal of bad input; `what` says what was given.
CheckResult ExpectInvalidArgument(std::string name, const Status& status, const std::string& what) {
  if (status.code() == StatusCode::kInvalidArgument && !status.message().empty()) {
    return Pass(std::move(name));
  }
  return Fail(std::move(name), what + " gave " + (status.ok() ? "OK" : status.ToString()) +
                                   ", not INVALID_ARGUMENT with a message");
}

// The status of running `executable` on `device` with `args`: refused at
// once, or failed when awaited.
Status RunStatus(const Executable& executable, const Device& device,
                 const std::vector<const Buffer*>& args) {
  Result<ExecuteResult> result = executable.ExecuteOn(device, args);
  if (!result.ok()) return result.status();
  return result->completion.empty() ? OkStatus() : result->completion[0].Await();
}

void BadInputRefused(Context& c, const Emit& emit, const Executable& executable) {
  Result<Executable> bad = c.Compile("func.func @main(%x: tensor<4xf32>) -> {",
                                     "conformance/program.mlir");
  emit(ExpectInvalidArgument("compile.malformed_program_refused", bad.status(),
                             "a program that does not parse"));

  CompileOptions unknown;
  unknown.options["berth_conformance_no_such_option"] = int64_t{1};
  Result<Executable> with_unknown = c.client->Compile(kAddMultiply, unknown);
  CheckResult option = ExpectInvalidArgument("compile.unknown_option_refused",
                                             with_unknown.status(),
                                             "compile option 'berth_conformance_no_such_option'");
  if (option.outcome == Outcome::kPass &&
      with_unknown.status().message().find("berth_conformance_no_such_option") ==
          std::string_view::npos) {
    option = Fail(option.name, "the refusal does not name the option: " +
                                   with_unknown.status().ToString());
  }
  emit(option);

  const Device& device = c.client->addressable_devices()[0];
  Result<Buffer> x = F32(*c.client, device, {1, 2, 3, 4}, {4});
  if (!x.ok()) return emit(Fail("execute.wrong_argument_count_refused", x.status().ToString()));
  emit(ExpectInvalidArgument("execute.wrong_argument_count_refused",
                             RunStatus(executable, device, {&*x}),
                             "a two-argument program run with one argument"));

  const int32_t ints[4] = {1, 2, 3, 4};
  const int64_t four[1] = {4};
  Result<Buffer> i32 = c.client->BufferFromHost(ints, ElementType::kS32, four, device);
  if (!i32.ok()) {
    emit(Skip("execute.wrong_argument_type_refused",
              "the plugin takes no i32 buffer: " + i32.status().ToString()));
  } else {
    emit(ExpectInvalidArgument("execute.wrong_argument_type_refused",
                               RunStatus(executable, device, {&*i32, &*x}),
                               "an i32 buffer for a tensor<4xf32> parameter"));
  }
  Result<Buffer> longer = F32(*c.client, device, {1, 2, 3, 4, 5, 6}, {6});
  if (!longer.ok()) return emit(Fail("execute.wrong_argument_shape_refused", longer.status().ToString()));
  emit(ExpectInvalidArgument("execute.wrong_argument_shape_refused",
                             RunStatus(executable, device, {&*longer, &*x}),
                             "a tensor<6xf32> buffer for a tensor<4xf32> parameter"));
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

// What the checks that need the add/multiply program report when it did not
// compile: the same verdict, once each, so a report lists every check.
void RefusedProgram(const Emit& emit, const CheckResult& compile) {
  for (const char* name : {"execute.elementwise_two_outputs_every_device",
                           "execute.outputs_as_reported", "compile.unknown_option_refused",
                           "execute.wrong_argument_count_refused",
                           "execute.wrong_argument_type_refused",
                           "execute.wrong_argument_shape_refused", "execute.concurrent"}) {
    emit({name, compile.outcome == Outcome::kFail ? Outcome::kSkip : compile.outcome,
          "the add/multiply program did not compile (compile.stablehlo)"});
  }
}

}  // namespace

void ExecuteChecks(Context& context, const Emit& emit) {
  const std::string compile = "compile.stablehlo";
  Result<Executable> executable = context.Compile(kAddMultiply, "conformance/program.mlir");
  if (!executable.ok()) {
    CheckResult refused = CompileRefused(context, compile, executable.status(),
                                         {"stablehlo.add", "stablehlo.multiply", "f32"});
    emit(refused);
    RefusedProgram(emit, refused);
  } else {
    emit(Pass(compile));
    Elementwise(context, emit, *executable);
    OutputsAsReported(context, emit, *executable);
    BadInputRefused(context, emit, *executable);
    Concurrent(context, emit, *executable);
  }
  Reduce(context, emit);
}

}  // namespace berth::conformance
