// One fixture plugin source, built into variants (BERTH_FIXTURE_VARIANT) that
// each break one rule of the ABI, so tests can pin the host's behaviour.
// The good variant is a small but real backend: host-memory buffers and an
// "identity" program format whose executable returns copies of its inputs.
// Tests read the SDK's count of live objects through the exported
// BERTH_Fixture_LiveObjects (even where a variant's table hides the
// live_objects extension) and expect zero at teardown.
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>

#include "berth/plugin/host_memory_buffer.hpp"
#include "berth/plugin/options.hpp"
#include "berth/plugin/plugin.hpp"

#define FIXTURE_GOOD 0
#define FIXTURE_OLDER_MINOR 1
#define FIXTURE_NEWER_MINOR 2
#define FIXTURE_OTHER_MAJOR 3
#define FIXTURE_NO_ENTRY 4
#define FIXTURE_NULL_TABLE 5
#define FIXTURE_INIT_FAILS 6
#define FIXTURE_DUPLICATE_EXTENSION 7
#define FIXTURE_THROWS 8
#define FIXTURE_LEAKS 9
#define FIXTURE_MISBEHAVES 10
#define FIXTURE_BAD_ATTRIBUTES 11
#define FIXTURE_CLAIMS_OPS 12
#define FIXTURE_REJECTS_RESERVED 13
#define FIXTURE_WRONG_OUTPUTS 14

#ifndef BERTH_FIXTURE_VARIANT
#error "define BERTH_FIXTURE_VARIANT"
#endif

namespace berth::fixture {
namespace {

#if BERTH_FIXTURE_VARIANT == FIXTURE_MISBEHAVES
// Aborts when BERTH_FIXTURE_MISBEHAVE is `abort_value`, sleeps forever when
// it is `hang_value`: what a broken plugin does where this is called.
void MisbehaveWhenAsked(const char* abort_value, const char* hang_value) {
  const char* how = std::getenv("BERTH_FIXTURE_MISBEHAVE");
  if (how == nullptr) return;
  if (std::strcmp(how, abort_value) == 0) std::abort();
  if (std::strcmp(how, hang_value) == 0) {
    for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
  }
}
#endif

#if BERTH_FIXTURE_VARIANT == FIXTURE_MISBEHAVES
// The SDK's host-memory buffer, with a copy to the host that aborts or hangs
// when asked (BERTH_FIXTURE_MISBEHAVE=abort|hang).
class FixtureBuffer final : public plugin::HostMemoryBuffer {
 public:
  using plugin::HostMemoryBuffer::HostMemoryBuffer;
  Result<plugin::Event> ToHostBuffer(void* dst, size_t dst_size) override {
    MisbehaveWhenAsked("abort", "hang");
    return plugin::HostMemoryBuffer::ToHostBuffer(dst, dst_size);
  }
};
#endif

// Returns a copy of each argument; outputs are declared by the program text:
// "identity <type> <dim>..." per output, one per line.
class IdentityExecutable final : public plugin::LoadedExecutable {
 public:
  using plugin::LoadedExecutable::LoadedExecutable;

  Result<plugin::ExecuteResult> Execute(std::span<const std::vector<plugin::Buffer*>> lists,
                                        const plugin::ExecuteOptions& options,
                                        plugin::Device* execute_device) override {
    (void)options;
    plugin::ExecuteResult result;
    size_t expected = metadata()->output_types.size();
    for (size_t d = 0; d < lists.size(); ++d) {
      if (lists[d].size() != expected) {
        return InvalidArgumentError("identity program takes " + std::to_string(expected) +
                                    " arguments, got " + std::to_string(lists[d].size()));
      }
      plugin::Device* device = execute_device ? execute_device : addressable_devices()[d];
      std::vector<std::unique_ptr<plugin::Buffer>> outputs;
      for (plugin::Buffer* arg : lists[d]) {
        auto* buffer = static_cast<plugin::HostMemoryBuffer*>(arg);
        std::vector<int64_t> dims = buffer->dims();
#if BERTH_FIXTURE_VARIANT == FIXTURE_WRONG_OUTPUTS
        // Hands back a shape other than the one the executable reports.
        dims.push_back(1);
#endif
        outputs.push_back(std::make_unique<plugin::HostMemoryBuffer>(
            buffer->element_type(), dims, device, buffer->bytes()));
      }
      result.outputs.push_back(std::move(outputs));
      result.completion.push_back(plugin::Event::Ready());
    }
    return result;
  }
};

class FixtureClient final : public plugin::Client {
 public:
  explicit FixtureClient(int64_t device_count) {
    for (int64_t i = 0; i < device_count; ++i) {
      plugin::Memory* memory = AddMemory(std::make_unique<plugin::Memory>(i, "device"));
      auto device = std::make_unique<plugin::Device>(
          plugin::DeviceDescription(i, 0, "fixture", {{"index", i}}), true, i);
      device->AttachMemory(memory);
      memory->AttachDevice(device.get());
      AddDevice(std::move(device));
    }
  }

  const std::string& platform_name() const override { return name_; }
  const std::string& platform_version() const override { return version_; }

  Result<plugin::HostBufferResult> BufferFromHostBuffer(const plugin::HostBufferArgs& args) override {
#if BERTH_FIXTURE_VARIANT == FIXTURE_THROWS
    (void)args;
    throw std::runtime_error("fixture: BufferFromHostBuffer always throws");
#else
    BERTH_ASSIGN_OR_RETURN(plugin::HostBufferResult result,
                           plugin::HostMemoryBuffer::FromHost(args, "fixture"));
    const auto& stored = static_cast<const plugin::HostMemoryBuffer&>(*result.buffer);
#if BERTH_FIXTURE_VARIANT == FIXTURE_MISBEHAVES
    result.buffer = std::make_unique<FixtureBuffer>(stored.element_type(), stored.dims(),
                                                    stored.device(), stored.bytes(), stored.memory());
#elif BERTH_FIXTURE_VARIANT == FIXTURE_LEAKS
    // Keeps a copy of every buffer until the library is unloaded: the
    // live_objects count never returns to zero (the memory stays reachable,
    // so sanitizers do not report it).
    static std::vector<std::unique_ptr<plugin::Buffer>> kept;
    kept.push_back(std::make_unique<plugin::HostMemoryBuffer>(stored.element_type(), stored.dims(),
                                                              stored.device(), stored.bytes()));
#else
    (void)stored;
#endif
    return result;
#endif
  }

  Result<std::unique_ptr<plugin::LoadedExecutable>> Compile(
      const plugin::Program& program, const plugin::CompileOptions& options) override {
    (void)options;
    if (program.format != "identity") {
      return UnimplementedError("fixture compiles only the 'identity' format, not '" +
                                std::string(program.format) + "'");
    }
    auto metadata = std::make_shared<plugin::ExecutableMetadata>();
    metadata->name = "identity";
    size_t start = 0;
    std::string_view code = program.code;
    while (start < code.size()) {
      size_t end = code.find('\n', start);
      if (end == std::string_view::npos) end = code.size();
      std::string_view line = code.substr(start, end - start);
      start = end + 1;
      if (line.empty()) continue;
      std::vector<std::string> words;
      size_t pos = 0;
      while (pos < line.size()) {
        size_t space = line.find(' ', pos);
        if (space == std::string_view::npos) space = line.size();
        if (space > pos) words.emplace_back(line.substr(pos, space - pos));
        pos = space + 1;
      }
      std::optional<ElementType> type =
          words.size() >= 2 && words[0] == "identity" ? ParseElementType(words[1]) : std::nullopt;
      if (!type) return InvalidArgumentError("fixture: bad line '" + std::string(line) + "'");
      std::vector<int64_t> dims;
      for (size_t i = 2; i < words.size(); ++i) dims.push_back(std::stoll(words[i]));
      metadata->output_types.push_back(*type);
      metadata->output_dims.push_back(dims);
    }
    std::vector<plugin::Device*> devices(addressable_devices().begin(),
                                         addressable_devices().end());
    return std::unique_ptr<plugin::LoadedExecutable>(
        std::make_unique<IdentityExecutable>(std::move(metadata), std::move(devices)));
  }

 private:
  std::string name_ = "fixture";
  std::string version_ = "fixture 1";
};

class FixturePlugin final : public plugin::Plugin {
 public:
  Status Initialize(const plugin::HostContext& host) override {
    (void)host;
#if BERTH_FIXTURE_VARIANT == FIXTURE_INIT_FAILS
    return FailedPreconditionError("fixture: initialization refused on purpose");
#else
#if BERTH_FIXTURE_VARIANT == FIXTURE_MISBEHAVES
    // A plugin that takes down (or stalls) whoever loads it.
    MisbehaveWhenAsked("abort_at_initialize", "hang_at_initialize");
#endif
    plugin::Log(BERTH_LogLevel_Info, "fixture plugin initialized");
    return OkStatus();
#endif
  }

  NamedValueMap Attributes() const override {
#if BERTH_FIXTURE_VARIANT == FIXTURE_BAD_ATTRIBUTES
    // Well-known attributes of the wrong types: a string where a list of
    // BERTH_Buffer_Type values belongs, an int64 where a bool does.
    return {{"variant", int64_t{BERTH_FIXTURE_VARIANT}},
            {BERTH_ATTRIBUTE_ELEMENT_TYPES, std::string("f32,i32")},
            {BERTH_ATTRIBUTE_STABLEHLO_SUPPORT, int64_t{1}}};
#elif BERTH_FIXTURE_VARIANT == FIXTURE_CLAIMS_OPS
    // Claims ops it does not run (it compiles no StableHLO at all).
    return {{"variant", int64_t{BERTH_FIXTURE_VARIANT}},
            {BERTH_ATTRIBUTE_SUPPORTED_OPS, std::string("stablehlo.add,stablehlo.multiply")}};
#else
    return {{"variant", int64_t{BERTH_FIXTURE_VARIANT}}, {"fixture", true}};
#endif
  }

  Result<std::unique_ptr<plugin::Client>> CreateClient(const NamedValueMap& options,
                                                       const plugin::KeyValueStore&) override {
#if BERTH_FIXTURE_VARIANT == FIXTURE_REJECTS_RESERVED
    // What a plugin with its own strict option check did before SDK 1.1: the
    // reserved job options are "unknown".
    if (options.count(BERTH_OPTION_NODE_ID) || options.count(BERTH_OPTION_NUM_NODES)) {
      return InvalidArgumentError("unknown fixture client option 'node_id'");
    }
#endif
    plugin::OptionReader reader(options, "fixture client option");
    BERTH_ASSIGN_OR_RETURN(int64_t device_count, reader.Int64("device_count", 2));
    BERTH_RETURN_IF_ERROR(reader.CheckNoUnknown());
    if (device_count < 1 || device_count > 64) {
      return InvalidArgumentError("fixture: device_count must be in [1, 64]");
    }
    return std::unique_ptr<plugin::Client>(std::make_unique<FixtureClient>(device_count));
  }

  std::vector<BERTH_Extension_Base*> Extensions() override {
#if BERTH_FIXTURE_VARIANT == FIXTURE_NEWER_MINOR
    // A type this host does not know: it must be skipped.
    static BERTH_Extension_Base future{sizeof(BERTH_Extension_Base),
                                       static_cast<BERTH_Extension_Type>(1000), nullptr};
    static BERTH_Extension_Base ffi{sizeof(BERTH_Extension_Base), BERTH_Extension_Type_Ffi,
                                    nullptr};
    return {&future, &ffi};
#elif BERTH_FIXTURE_VARIANT == FIXTURE_DUPLICATE_EXTENSION
    static BERTH_Extension_Base first{sizeof(BERTH_Extension_Base),
                                      BERTH_Extension_Type_Callback, nullptr};
    static BERTH_Extension_Base second{sizeof(BERTH_Extension_Base),
                                       BERTH_Extension_Type_Callback, nullptr};
    return {&first, &second};
#else
    return {};
#endif
  }
};

[[maybe_unused]] std::unique_ptr<plugin::Plugin> MakeFixture() { return std::make_unique<FixturePlugin>(); }

#if BERTH_FIXTURE_VARIANT == FIXTURE_THROWS
// An entry point written without the SDK's guard, letting an exception
// escape: the host must contain it.
BERTH_Error* CompileThatThrows(BERTH_Client_Compile_Args*) {
  throw std::runtime_error("fixture: exception through the C ABI");
}
#endif

}  // namespace
}  // namespace berth::fixture

// Control hook for tests: clients, buffers and executables alive.
extern "C" BERTH_PLUGIN_VISIBLE int64_t BERTH_Fixture_LiveObjects(void) {
  berth::plugin::LiveObjectCounts counts = berth::plugin::LiveObjects();
  return counts.clients + counts.buffers + counts.executables;
}

#if BERTH_FIXTURE_VARIANT == FIXTURE_GOOD || BERTH_FIXTURE_VARIANT == FIXTURE_INIT_FAILS || \
    BERTH_FIXTURE_VARIANT == FIXTURE_DUPLICATE_EXTENSION || BERTH_FIXTURE_VARIANT == FIXTURE_LEAKS || \
    BERTH_FIXTURE_VARIANT == FIXTURE_MISBEHAVES || BERTH_FIXTURE_VARIANT == FIXTURE_BAD_ATTRIBUTES || \
    BERTH_FIXTURE_VARIANT == FIXTURE_CLAIMS_OPS || BERTH_FIXTURE_VARIANT == FIXTURE_REJECTS_RESERVED || \
    BERTH_FIXTURE_VARIANT == FIXTURE_WRONG_OUTPUTS
BERTH_PLUGIN_EXPORT(berth::fixture::FixturePlugin)

#elif BERTH_FIXTURE_VARIANT == FIXTURE_OLDER_MINOR
// A table as an older plugin would ship it: it ends before the buffer
// functions after BERTH_Buffer_IsDeleted, so those are absent, and its chain
// lacks the live_objects extension of 1.1.
extern "C" BERTH_PLUGIN_VISIBLE const BERTH_Api* BERTH_GetApi(void) {
  static BERTH_Api table = [] {
    BERTH_Api api = *berth::plugin::MakeApi(berth::fixture::MakeFixture);
    api.struct_size = BERTH_STRUCT_SIZE(BERTH_Api, BERTH_Buffer_IsDeleted);
    api.api_version.minor_version = 0;
    api.extension_start = nullptr;
    return api;
  }();
  return &table;
}

#elif BERTH_FIXTURE_VARIANT == FIXTURE_NEWER_MINOR
// A table from the future: a higher minor, fields the host does not know.
struct FutureApi {
  BERTH_Api api;
  void (*future_functions[6])(void);
};
extern "C" BERTH_PLUGIN_VISIBLE const BERTH_Api* BERTH_GetApi(void) {
  static FutureApi table = [] {
    FutureApi future{};
    future.api = *berth::plugin::MakeApi(berth::fixture::MakeFixture);
    future.api.struct_size = sizeof(FutureApi);
    future.api.api_version.minor_version = BERTH_API_MINOR + 7;
    return future;
  }();
  return &table.api;
}

#elif BERTH_FIXTURE_VARIANT == FIXTURE_OTHER_MAJOR
extern "C" BERTH_PLUGIN_VISIBLE const BERTH_Api* BERTH_GetApi(void) {
  static BERTH_Api table = [] {
    BERTH_Api api = *berth::plugin::MakeApi(berth::fixture::MakeFixture);
    api.api_version.major_version = BERTH_API_MAJOR + 1;
    return api;
  }();
  return &table;
}

#elif BERTH_FIXTURE_VARIANT == FIXTURE_NO_ENTRY
// Exports something, but not BERTH_GetApi.
extern "C" BERTH_PLUGIN_VISIBLE int BERTH_NotTheEntryPoint(void) { return 0; }

#elif BERTH_FIXTURE_VARIANT == FIXTURE_NULL_TABLE
extern "C" BERTH_PLUGIN_VISIBLE const BERTH_Api* BERTH_GetApi(void) { return nullptr; }

#elif BERTH_FIXTURE_VARIANT == FIXTURE_THROWS
extern "C" BERTH_PLUGIN_VISIBLE const BERTH_Api* BERTH_GetApi(void) {
  static BERTH_Api table = [] {
    BERTH_Api api = *berth::plugin::MakeApi(berth::fixture::MakeFixture);
    api.BERTH_Client_Compile = berth::fixture::CompileThatThrows;
    return api;
  }();
  return &table;
}
#endif
