// A small application embedding the Berth host: discover plugins, make a
// client of the cpu plugin, compile a StableHLO program, run it, print it.
//
//   berth_embed [PLUGIN]     (default: cpu)
//
// Exit 0 when the result is right, 1 otherwise.
#include <berth/berth.hpp>

#include <cmath>
#include <iostream>
#include <string>
#include <vector>

namespace {

constexpr char kProgram[] = R"(
func.func @main(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<f32> {
  %p = stablehlo.multiply %x, %y : tensor<4xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %dot = stablehlo.reduce(%p init: %zero) applies stablehlo.add across dimensions = [0]
      : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  return %dot : tensor<f32>
}
)";

int Fail(const std::string& what, const berth::Status& status) {
  std::cerr << "berth_embed: " << what << ": " << status.ToString() << "\n";
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string plugin = argc > 1 ? argv[1] : "cpu";
  berth::Result<berth::Host> host = berth::Host::Create();
  if (!host.ok()) return Fail("discovering plugins", host.status());
  berth::Result<berth::Client> client = host->CreateClient(plugin);
  if (!client.ok()) return Fail("creating a client of '" + plugin + "'", client.status());
  std::cout << "plugin " << client->plugin_name() << " (platform " << client->platform_name()
            << ", ABI " << client->negotiated_version() << "), "
            << client->addressable_devices().size() << " device(s)\n";

  berth::Result<berth::Executable> executable = client->Compile(kProgram);
  if (!executable.ok()) return Fail("compiling", executable.status());

  const std::vector<float> x{1, 2, 3, 4}, y{0.5f, -1, 2, 0.25f};
  const std::vector<int64_t> dims{4};
  const berth::Device& device = client->addressable_devices().front();
  berth::Result<berth::Buffer> bx = client->BufferFromHost(x.data(), berth::ElementType::kF32,
                                                           dims, device);
  berth::Result<berth::Buffer> by = client->BufferFromHost(y.data(), berth::ElementType::kF32,
                                                           dims, device);
  if (!bx.ok() || !by.ok()) return Fail("copying arguments", bx.ok() ? by.status() : bx.status());
  berth::Result<berth::ExecuteResult> result = executable->Execute({{&*bx, &*by}});
  if (!result.ok()) return Fail("starting the program", result.status());
  if (berth::Status done = result->completion[0].Await(); !done.ok()) {
    return Fail("running the program", done);
  }
  float dot = 0;
  if (berth::Status copied = result->outputs[0][0].ToHost(&dot, sizeof(dot)); !copied.ok()) {
    return Fail("reading the result", copied);
  }
  std::cout << "dot([1, 2, 3, 4], [0.5, -1, 2, 0.25]) = " << dot << "\n";
  const float expected = 0.5f - 2 + 6 + 1;
  return std::fabs(dot - expected) < 1e-6f ? 0 : 1;
}
