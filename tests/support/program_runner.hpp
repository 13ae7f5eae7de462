// Running StableHLO snippets on the CPU plugin from tests: one host and one
// cpu client (8 devices) per test process, typed host arrays in and out.
//
//   auto out = testing::CpuRunner::Get().Run(R"(func.func @main(%a: tensor<2xf32>) ...)",
//                                            {testing::Literal::Of<float>({1, 2}, {2})});
//   EXPECT_EQ(out->at(0).Values<float>(), (std::vector<float>{...}));
#ifndef BERTH_TESTS_SUPPORT_PROGRAM_RUNNER_HPP_
#define BERTH_TESTS_SUPPORT_PROGRAM_RUNNER_HPP_

#include <complex>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "berth/berth.hpp"
#include "test_util.hpp"

namespace berth::testing {

template <typename T>
constexpr ElementType ElementTypeOf() {
  if constexpr (std::is_same_v<T, bool>) return ElementType::kPred;
  else if constexpr (std::is_same_v<T, int8_t>) return ElementType::kS8;
  else if constexpr (std::is_same_v<T, int16_t>) return ElementType::kS16;
  else if constexpr (std::is_same_v<T, int32_t>) return ElementType::kS32;
  else if constexpr (std::is_same_v<T, int64_t>) return ElementType::kS64;
  else if constexpr (std::is_same_v<T, uint8_t>) return ElementType::kU8;
  else if constexpr (std::is_same_v<T, uint16_t>) return ElementType::kU16;
  else if constexpr (std::is_same_v<T, uint32_t>) return ElementType::kU32;
  else if constexpr (std::is_same_v<T, uint64_t>) return ElementType::kU64;
  else if constexpr (std::is_same_v<T, float>) return ElementType::kF32;
  else if constexpr (std::is_same_v<T, double>) return ElementType::kF64;
  else if constexpr (std::is_same_v<T, std::complex<float>>)
    return ElementType::kC64;
  else if constexpr (std::is_same_v<T, std::complex<double>>)
    return ElementType::kC128;
  else static_assert(sizeof(T) == 0, "no element type for T");
}

// A dense host array with its element type and dims.
struct Literal {
  ElementType type = ElementType::kInvalid;
  std::vector<int64_t> dims;
  std::vector<std::byte> bytes;

  template <typename T>
  static Literal Of(const std::vector<T>& values, std::vector<int64_t> dims) {
    Literal literal;
    literal.type = ElementTypeOf<T>();
    literal.dims = std::move(dims);
    literal.bytes.resize(values.size() * sizeof(T));
    if constexpr (std::is_same_v<T, bool>) {
      for (size_t i = 0; i < values.size(); ++i) literal.bytes[i] = static_cast<std::byte>(values[i] ? 1 : 0);
    } else if (!values.empty()) {
      std::memcpy(literal.bytes.data(), values.data(), literal.bytes.size());
    }
    return literal;
  }
  // Raw storage, e.g. f16/bf16 bit patterns as uint16_t.
  template <typename T>
  static Literal Raw(ElementType type, const std::vector<T>& values, std::vector<int64_t> dims) {
    Literal literal;
    literal.type = type;
    literal.dims = std::move(dims);
    literal.bytes.resize(values.size() * sizeof(T));
    if (!values.empty()) std::memcpy(literal.bytes.data(), values.data(), literal.bytes.size());
    return literal;
  }

  template <typename T>
  std::vector<T> Values() const {
    std::vector<T> out(bytes.size() / sizeof(T));
    if constexpr (std::is_same_v<T, bool>) {
      for (size_t i = 0; i < out.size(); ++i) out[i] = bytes[i] != std::byte{0};
    } else if (!out.empty()) {
      std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
    }
    return out;
  }
};

// Compiles `program` on `client`, gives each device of the executable its
// arguments (`args_per_device[d]`, or the only list for every device), runs
// it once and returns the outputs per device.
inline Result<std::vector<std::vector<Literal>>> RunOnClient(
    Client& client, const std::string& program,
    const std::vector<std::vector<Literal>>& args_per_device, const CompileOptions& options = {}) {
  BERTH_ASSIGN_OR_RETURN(Executable executable, client.Compile(program, options));
  const std::vector<Device>& devices = executable.addressable_devices();
  std::vector<std::vector<Buffer>> buffers(devices.size());
  std::vector<std::vector<const Buffer*>> lists(devices.size());
  for (size_t d = 0; d < devices.size(); ++d) {
    const std::vector<Literal>& args =
        args_per_device.size() == 1 ? args_per_device[0] : args_per_device.at(d);
    for (const Literal& arg : args) {
      BERTH_ASSIGN_OR_RETURN(
          Buffer buffer, client.BufferFromHost(arg.bytes.data(), arg.type, arg.dims, devices[d]));
      buffers[d].push_back(std::move(buffer));
    }
    for (const Buffer& buffer : buffers[d]) lists[d].push_back(&buffer);
  }
  BERTH_ASSIGN_OR_RETURN(ExecuteResult result, executable.Execute(lists));
  std::vector<std::vector<Literal>> out(devices.size());
  for (size_t d = 0; d < devices.size(); ++d) {
    BERTH_RETURN_IF_ERROR(result.completion[d].Await());
    for (const Buffer& buffer : result.outputs[d]) {
      Literal literal;
      literal.type = buffer.element_type();
      literal.dims = buffer.dims();
      BERTH_ASSIGN_OR_RETURN(literal.bytes, buffer.ToHostBytes());
      out[d].push_back(std::move(literal));
    }
  }
  return out;
}

class CpuRunner {
 public:
  static CpuRunner& Get() {
    static CpuRunner* runner = new CpuRunner();
    return *runner;
  }

  // A runner whose host also finds `extra_manifests` (file name -> JSON
  // text), e.g. an extension module; Get() is the one without.
  explicit CpuRunner(const std::vector<std::pair<std::string, std::string>>& extra_manifests) {
    for (const auto& [file, text] : extra_manifests) dir_.Write(file, text);
    Start();
  }

  Client& client() { return *client_; }

  // Compiles `program` and runs it once on device 0 (or on every device of
  // a replicated program, `args` being given to each), returning the outputs
  // of the first device.
  Result<std::vector<Literal>> Run(const std::string& program, const std::vector<Literal>& args,
                                   const CompileOptions& options = {}) {
    BERTH_ASSIGN_OR_RETURN(std::vector<std::vector<Literal>> all, RunAll(program, {args}, options));
    return all.front();
  }

  // Runs on every device of the program; `args_per_device[d]` (or the only
  // list, for every device). Returns the outputs per device.
  Result<std::vector<std::vector<Literal>>> RunAll(
      const std::string& program, const std::vector<std::vector<Literal>>& args_per_device,
      const CompileOptions& options = {}) {
    return RunOnClient(*client_, program, args_per_device, options);
  }

 private:
  CpuRunner() { Start(); }

  void Start() {
    dir_.Write("cpu.json", PluginManifest("cpu", BERTH_CPU_PLUGIN));
    // Its own folder, plus what the test's environment adds (extension
    // modules a test binary runs with, tests/extensions/meson.build).
    std::string search = dir_.path().string();
    if (const char* added = ::getenv("BERTH_ADD_PLUGIN_PATH"); added != nullptr && *added != '\0') {
      search += std::string(":") + added;
    }
    ScopedEnv path("BERTH_PLUGIN_PATH", search);
    Result<Host> host = Host::Create();
    if (!host.ok()) std::abort();
    host_.emplace(std::move(host).value());
    Result<Client> client = host_->CreateClient("cpu", {{{"device_count", int64_t{8}}}});
    if (!client.ok() && client.status().code() == StatusCode::kFailedPrecondition &&
        ::getenv("BERTH_CPU_ISA") != nullptr) {
      // A kernel test run for an ISA variant this CPU cannot execute
      // (tests/cpu/meson.build): skipped, as Meson reads exit code 77.
      std::fprintf(stderr, "CpuRunner: skipped: %s\n", client.status().ToString().c_str());
      std::_Exit(77);
    }
    if (!client.ok()) {
      std::fprintf(stderr, "CpuRunner: %s\n", client.status().ToString().c_str());
      std::abort();
    }
    client_.emplace(std::move(client).value());
  }

  TempDir dir_;
  std::optional<Host> host_;
  std::optional<Client> client_;
};

}  // namespace berth::testing

#endif  // BERTH_TESTS_SUPPORT_PROGRAM_RUNNER_HPP_
