// The CPU plugin's entry point.
#include "berth/plugin/plugin.hpp"
#include "cpu_client.hpp"
#include "isa/isa.hpp"

namespace berth::cpu {

class CpuPlugin final : public plugin::Plugin {
 public:
  NamedValueMap Attributes() const override {
    // Buffer element types it holds and computes on (for `berth conformance`
    // and applications choosing types).
    std::vector<int64_t> element_types;
    for (berth::ElementType type : kCpuElementTypes)
      element_types.push_back(static_cast<int64_t>(type));
    // The kernel variant this process computes with (isa/isa.hpp), or why
    // there is none, and every variant built in.
    Result<const isa::Kernels*> selected = isa::Selected();
    std::string built;
    for (const isa::Kernels* kernels : isa::Built()) {
      built += (built.empty() ? "" : ",") + std::string(kernels->name);
    }
    return {{"vendor", std::string("Berth")},
            {"stablehlo_support", true},
            {"element_types", element_types},
            {"version", std::string(BERTH_VERSION)},
            {"cpu_isa", selected.ok() ? std::string((*selected)->name)
                                      : "none: " + std::string(selected.status().message())},
            {"cpu_isa_built", built}};
  }

  std::vector<BERTH_Extension_Base*> Extensions() override {
    return {plugin::FfiExtension(),
            plugin::CallbackExtension(),
            plugin::AbiVersionExtension(),
            plugin::CustomPartitionerExtension(),
            plugin::PhaseCompileExtension(),
            plugin::MultiSliceExtension(),
            plugin::CollectivesExtension(kCpuElementTypes)};
  }

  Result<std::unique_ptr<plugin::Client>> CreateClient(
      const NamedValueMap& options, const plugin::KeyValueStore& kv_store) override {
    return CreateClient(options, kv_store, plugin::SliceTopology{});
  }
  Result<std::unique_ptr<plugin::Client>> CreateClient(
      const NamedValueMap& options, const plugin::KeyValueStore& kv_store,
      const plugin::SliceTopology& slices) override {
    BERTH_ASSIGN_OR_RETURN(std::unique_ptr<CpuClient> client,
                           CpuClient::Create(options, kv_store, slices));
    return std::unique_ptr<plugin::Client>(std::move(client));
  }
};

}  // namespace berth::cpu

BERTH_PLUGIN_EXPORT(berth::cpu::CpuPlugin)
