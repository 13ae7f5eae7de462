// The template backend: one device in host memory, buffers of any element
// type it is given (the SDK's plugin::HostMemoryBuffer, bytes in host
// memory), and f32 programs in StableHLO run by executor.cc. Rename the
// classes, replace the executor with your device's and, when the device has
// memory of its own, HostMemoryBuffer with a plugin::Buffer of your own;
// keep the structure.
#include <cstring>

#include "berth/plugin/host_memory_buffer.hpp"
#include "berth/plugin/options.hpp"
#include "berth/plugin/plugin.hpp"
#include "berth/stablehlo/parser.hpp"
#include "executor.hpp"

namespace template_backend {
namespace {

using namespace berth;  // Status, Result, ElementType ...

class TemplateExecutable final : public plugin::LoadedExecutable {
 public:
  TemplateExecutable(std::shared_ptr<const plugin::ExecutableMetadata> metadata,
                     std::vector<plugin::Device*> devices, stablehlo::Module module)
      : plugin::LoadedExecutable(std::move(metadata), std::move(devices)),
        module_(std::move(module)) {}

  Result<plugin::ExecuteResult> Execute(std::span<const std::vector<plugin::Buffer*>> lists,
                                        const plugin::ExecuteOptions& options,
                                        plugin::Device* execute_device) override {
    (void)options;
    const stablehlo::Function& entry = *module_.entry_function();
    plugin::ExecuteResult result;
    for (size_t d = 0; d < lists.size(); ++d) {
      plugin::Device* device = execute_device ? execute_device : addressable_devices()[d];
      const std::vector<plugin::Buffer*>& args = lists[d];
      if (args.size() != entry.num_arguments()) {
        return InvalidArgumentError("template: @" + std::string(entry.name()) + " takes " +
                                    std::to_string(entry.num_arguments()) + " arguments, got " +
                                    std::to_string(args.size()));
      }
      std::vector<Array> arrays;
      for (size_t i = 0; i < args.size(); ++i) {
        auto* buffer = dynamic_cast<plugin::HostMemoryBuffer*>(args[i]);
        stablehlo::Type type = entry.argument_types()[i];
        std::vector<int64_t> dims(type.shape().begin(), type.shape().end());
        if (buffer == nullptr || buffer->element_type() != ElementType::kF32 ||
            buffer->dims() != dims || buffer->IsDeleted()) {
          return InvalidArgumentError("template: argument " + std::to_string(i) + " must be a " +
                                      type.ToString() + " buffer of this client");
        }
        Array array{dims, std::vector<float>(buffer->bytes().size() / sizeof(float))};
        std::memcpy(array.values.data(), buffer->bytes().data(), buffer->bytes().size());
        arrays.push_back(std::move(array));
      }
      // Runs now, on the caller's thread: every event is ready on return.
      BERTH_ASSIGN_OR_RETURN(std::vector<Array> outputs, Run(entry, arrays));
      std::vector<std::unique_ptr<plugin::Buffer>> buffers;
      for (Array& output : outputs) {
        std::vector<std::byte> bytes(output.values.size() * sizeof(float));
        std::memcpy(bytes.data(), output.values.data(), bytes.size());
        buffers.push_back(std::make_unique<plugin::HostMemoryBuffer>(ElementType::kF32, output.dims,
                                                                    device, std::move(bytes)));
      }
      result.outputs.push_back(std::move(buffers));
      result.completion.push_back(plugin::Event::Ready());
    }
    return result;
  }

 private:
  stablehlo::Module module_;
};

class TemplateClient final : public plugin::Client {
 public:
  // One device per process. In a job (`berth launch -n N`) node k's device
  // is global device k, in process k, so ids are unique across the job; the
  // client lists only its own device.
  explicit TemplateClient(int64_t node_id) {
    plugin::Memory* memory = AddMemory(std::make_unique<plugin::Memory>(0, "device"));
    auto device = std::make_unique<plugin::Device>(
        plugin::DeviceDescription(node_id, static_cast<int32_t>(node_id), "template", {}),
        /*addressable=*/true, 0);
    device->AttachMemory(memory);
    memory->AttachDevice(device.get());
    AddDevice(std::move(device));
  }

  const std::string& platform_name() const override { return platform_; }
  const std::string& platform_version() const override { return version_; }

  Result<plugin::HostBufferResult> BufferFromHostBuffer(const plugin::HostBufferArgs& args) override {
    return plugin::HostMemoryBuffer::FromHost(args, "template");
  }

  Result<std::unique_ptr<plugin::LoadedExecutable>> Compile(
      const plugin::Program& program, const plugin::CompileOptions& options) override {
    // A format or feature the backend lacks is UNIMPLEMENTED naming it (the
    // program is reported unsupported); bad input is INVALID_ARGUMENT.
    if (program.format != "stablehlo") {
      return UnimplementedError("template: compiles 'stablehlo' programs, not '" +
                                std::string(program.format) + "'");
    }
    if (options.num_replicas > 1 || options.num_partitions > 1) {
      return UnimplementedError("template: runs single-device programs only");
    }
    // Its own compile options (none yet) and the reserved source_name, which
    // the SDK has checked: the file name for messages.
    plugin::OptionReader reader(options.options, "template compile option");
    BERTH_ASSIGN_OR_RETURN(std::string source_name, reader.String("source_name", "<program>"));
    BERTH_RETURN_IF_ERROR(reader.CheckNoUnknown());
    stablehlo::ParseOptions parse;
    parse.verify = true;
    BERTH_ASSIGN_OR_RETURN(stablehlo::Module module,
                           stablehlo::ParseModule(program.code, source_name, parse));
    const stablehlo::Function* entry = module.entry_function();
    if (entry == nullptr || entry->is_declaration()) {
      return InvalidArgumentError("template: the program has no entry function (@main)");
    }
    BERTH_RETURN_IF_ERROR(CheckSupported(*entry));
    auto metadata = std::make_shared<plugin::ExecutableMetadata>();
    metadata->name = std::string(entry->name());
    for (stablehlo::Type type : entry->result_types()) {
      metadata->output_types.push_back(ElementType::kF32);
      metadata->output_dims.emplace_back(type.shape().begin(), type.shape().end());
    }
    std::vector<plugin::Device*> devices(addressable_devices().begin(), addressable_devices().end());
    return std::unique_ptr<plugin::LoadedExecutable>(std::make_unique<TemplateExecutable>(
        std::move(metadata), std::move(devices), std::move(module)));
  }

 private:
  std::string platform_ = "template";
  std::string version_ = "template 0.1";
};

class TemplatePlugin final : public plugin::Plugin {
 public:
  // The well-known attributes (berth/c_api.h, BERTH_ATTRIBUTE_*): the
  // conformance suite runs a program on each listed element type and holds
  // the plugin to the listed ops.
  NamedValueMap Attributes() const override {
    return {{BERTH_ATTRIBUTE_VENDOR, std::string("Your Company")},
            {BERTH_ATTRIBUTE_STABLEHLO_SUPPORT, true},
            {BERTH_ATTRIBUTE_ELEMENT_TYPES, std::vector<int64_t>{BERTH_Buffer_Type_F32}},
            {BERTH_ATTRIBUTE_SUPPORTED_OPS, std::string(kSupportedOps)}};
  }
  Result<std::unique_ptr<plugin::Client>> CreateClient(const NamedValueMap& options,
                                                       const plugin::KeyValueStore&) override {
    // The reserved job options (the SDK checked their ranges) and the
    // plugin's own (none yet): anything else is INVALID_ARGUMENT naming it.
    plugin::OptionReader reader(options, "template client option");
    BERTH_ASSIGN_OR_RETURN(int64_t node_id, reader.Int64(BERTH_OPTION_NODE_ID, 0));
    BERTH_RETURN_IF_ERROR(reader.CheckNoUnknown());
    return std::unique_ptr<plugin::Client>(std::make_unique<TemplateClient>(node_id));
  }
};

}  // namespace
}  // namespace template_backend

BERTH_PLUGIN_EXPORT(template_backend::TemplatePlugin)
