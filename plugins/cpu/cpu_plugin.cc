// The CPU plugin's entry point.
#include "berth/plugin/plugin.hpp"
#include "cpu_client.hpp"
#include "openmp_runtime.hpp"

namespace berth::cpu {

class CpuPlugin final : public plugin::Plugin {
 public:
  Status Initialize(const plugin::HostContext& host) override {
    PinOpenMpRuntime();
    return plugin::Plugin::Initialize(host);
  }

  NamedValueMap Attributes() const override {
    // Buffer element types it holds and computes on (for `berth conformance`
    // and applications choosing types).
    std::vector<int64_t> element_types;
    for (ElementType type : {ElementType::kPred, ElementType::kS8, ElementType::kS16,
                             ElementType::kS32, ElementType::kS64, ElementType::kU8,
                             ElementType::kU16, ElementType::kU32, ElementType::kU64,
                             ElementType::kF16, ElementType::kBF16, ElementType::kF32,
                             ElementType::kF64}) {
      element_types.push_back(static_cast<int64_t>(type));
    }
    return {{"vendor", std::string("Berth")},
            {"stablehlo_support", true},
            {"element_types", element_types},
            {"version", std::string(BERTH_VERSION)}};
  }

  std::vector<BERTH_Extension_Base*> Extensions() override {
    return {plugin::FfiExtension(), plugin::CallbackExtension(), plugin::AbiVersionExtension()};
  }

  Result<std::unique_ptr<plugin::Client>> CreateClient(
      const NamedValueMap& options, const plugin::KeyValueStore& kv_store) override {
    BERTH_ASSIGN_OR_RETURN(std::unique_ptr<CpuClient> client, CpuClient::Create(options, kv_store));
    return std::unique_ptr<plugin::Client>(std::move(client));
  }
};

}  // namespace berth::cpu

BERTH_PLUGIN_EXPORT(berth::cpu::CpuPlugin)
