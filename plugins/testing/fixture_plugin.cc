// The fixture plugin, compiled once; each variant (fixture.hpp, built from
// this library and fixture_entry.cc) breaks one rule of the ABI, so tests can
// pin the host's behaviour. Which one is kVariant, read where it matters.
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
#include "fixture.hpp"

namespace berth::fixture {
namespace {

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
        // wrong_outputs hands back a shape other than the one the executable reports.
        if (kVariant == Variant::kWrongOutputs) dims.push_back(1);
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
    if (kVariant == Variant::kThrows) {
      throw std::runtime_error("fixture: BufferFromHostBuffer always throws");
    }
    BERTH_ASSIGN_OR_RETURN(plugin::HostBufferResult result,
                           plugin::HostMemoryBuffer::FromHost(args, "fixture"));
    const auto& stored = static_cast<const plugin::HostMemoryBuffer&>(*result.buffer);
    if (kVariant == Variant::kMisbehaves) {
      result.buffer = std::make_unique<FixtureBuffer>(
          stored.element_type(), stored.dims(), stored.device(), stored.bytes(), stored.memory());
    } else if (kVariant == Variant::kLeaks) {
      // Keeps a copy of every buffer until the library is unloaded: the
      // live_objects count never returns to zero (the memory stays
      // reachable, so sanitizers do not report it).
      static std::vector<std::unique_ptr<plugin::Buffer>> kept;
      kept.push_back(std::make_unique<plugin::HostMemoryBuffer>(
          stored.element_type(), stored.dims(), stored.device(), stored.bytes()));
    }
    return result;
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
    if (kVariant == Variant::kInitFails) {
      return FailedPreconditionError("fixture: initialization refused on purpose");
    }
    if (kVariant == Variant::kMisbehaves) {
      // A plugin that takes down (or stalls) whoever loads it.
      MisbehaveWhenAsked("abort_at_initialize", "hang_at_initialize");
    }
    plugin::Log(BERTH_LogLevel_Info, "fixture plugin initialized");
    return OkStatus();
  }

  NamedValueMap Attributes() const override {
    const auto variant = static_cast<int64_t>(kVariant);
    if (kVariant == Variant::kBadAttributes) {
      // Well-known attributes of the wrong types: a string where a list of
      // BERTH_Buffer_Type values belongs, an int64 where a bool does.
      return {{"variant", variant},
              {BERTH_ATTRIBUTE_ELEMENT_TYPES, std::string("f32,i32")},
              {BERTH_ATTRIBUTE_STABLEHLO_SUPPORT, int64_t{1}}};
    }
    if (kVariant == Variant::kClaimsOps) {
      // Claims ops it does not run (it compiles no StableHLO at all).
      return {{"variant", variant},
              {BERTH_ATTRIBUTE_SUPPORTED_OPS, std::string("stablehlo.add,stablehlo.multiply")}};
    }
    return {{"variant", variant}, {"fixture", true}};
  }

  Result<std::unique_ptr<plugin::Client>> CreateClient(const NamedValueMap& options,
                                                       const plugin::KeyValueStore&) override {
    // rejects_reserved does what a plugin with its own strict option check
    // did before SDK 1.1: the reserved job options are "unknown".
    if (kVariant == Variant::kRejectsReserved &&
        (options.count(BERTH_OPTION_NODE_ID) || options.count(BERTH_OPTION_NUM_NODES))) {
      return InvalidArgumentError("unknown fixture client option 'node_id'");
    }
    // older_minor stands for a plugin of C API 1.0, to which `node_address`
    // (1.3) is an unknown option: the host must not pass it.
    if (kVariant == Variant::kOlderMinor && options.count(BERTH_OPTION_NODE_ADDRESS)) {
      return InvalidArgumentError("unknown fixture client option 'node_address'");
    }
    plugin::OptionReader reader(options, "fixture client option");
    BERTH_ASSIGN_OR_RETURN(int64_t device_count, reader.Int64("device_count", 2));
    BERTH_RETURN_IF_ERROR(reader.CheckNoUnknown());
    if (device_count < 1 || device_count > 64) {
      return InvalidArgumentError("fixture: device_count must be in [1, 64]");
    }
    return std::unique_ptr<plugin::Client>(std::make_unique<FixtureClient>(device_count));
  }

  std::vector<BERTH_Extension_Base*> Extensions() override {
    if (kVariant == Variant::kNewerMinor) {
      // A type this host does not know: it must be skipped.
      static BERTH_Extension_Base future{sizeof(BERTH_Extension_Base),
                                         static_cast<BERTH_Extension_Type>(1000), nullptr};
      static BERTH_Extension_Base ffi{sizeof(BERTH_Extension_Base), BERTH_Extension_Type_Ffi,
                                      nullptr};
      return {&future, &ffi};
    }
    if (kVariant == Variant::kDuplicateExtension) {
      static BERTH_Extension_Base first{sizeof(BERTH_Extension_Base),
                                        BERTH_Extension_Type_Callback, nullptr};
      static BERTH_Extension_Base second{sizeof(BERTH_Extension_Base),
                                         BERTH_Extension_Type_Callback, nullptr};
      return {&first, &second};
    }
    return {};
  }
};

}  // namespace

const BERTH_Api* SdkApi() {
  static const BERTH_Api* api = plugin::MakeApi(
      []() -> std::unique_ptr<plugin::Plugin> { return std::make_unique<FixturePlugin>(); });
  return api;
}

BERTH_Error* CompileThatThrows(BERTH_Client_Compile_Args*) {
  throw std::runtime_error("fixture: exception through the C ABI");
}

int64_t LiveObjectCount() {
  plugin::LiveObjectCounts counts = plugin::LiveObjects();
  return counts.clients + counts.buffers + counts.executables;
}

}  // namespace berth::fixture
