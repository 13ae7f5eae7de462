// The cuda plugin's entry point.
#include "berth/plugin/plugin.hpp"
#include "codegen/elementwise_codegen.hpp"
#include "codegen/nvrtc_compiler.hpp"
#include "cuda_client.hpp"

namespace berth::cuda {

class CudaPlugin final : public plugin::Plugin {
 public:
  NamedValueMap Attributes() const override {
    std::vector<int64_t> element_types;
    for (berth::ElementType type : GeneratedBufferTypes())
      element_types.push_back(static_cast<int64_t>(type));
    return {{"vendor", std::string("Berth")},
            {"element_types", element_types},
            {"stablehlo_support", true},
            {"version", std::string(BERTH_VERSION)},
            {"nvrtc_version", NvrtcVersion()}};
  }

  Result<std::unique_ptr<plugin::Client>> CreateClient(
      const NamedValueMap& options, const plugin::KeyValueStore& kv_store) override {
    BERTH_ASSIGN_OR_RETURN(std::unique_ptr<CudaClient> client,
                           CudaClient::Create(options, kv_store));
    return std::unique_ptr<plugin::Client>(std::move(client));
  }
};

}  // namespace berth::cuda

BERTH_PLUGIN_EXPORT(berth::cuda::CudaPlugin)
