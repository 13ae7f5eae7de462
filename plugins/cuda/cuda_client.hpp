// The cuda plugin's client: one device per visible GPU.
//
// Creation checks the options first (INVALID_ARGUMENT without touching CUDA),
// then asks the CUDA runtime for its GPUs: with none (no driver, no device)
// it is FAILED_PRECONDITION naming the CUDA error, so the plugin still loads
// and says why it has no devices.
#ifndef BERTH_PLUGINS_CUDA_CUDA_CLIENT_HPP_
#define BERTH_PLUGINS_CUDA_CUDA_CLIENT_HPP_

#include <memory>
#include <string>
#include <vector>

#include "berth/plugin/client.hpp"
#include "berth/plugin/key_value.hpp"
#include "cuda_client_options.hpp"
#include "cuda_device.hpp"

namespace berth::cuda {

class CudaClient final : public plugin::Client {
 public:
  static Result<std::unique_ptr<CudaClient>> Create(const NamedValueMap& options,
                                                    const plugin::KeyValueStore& kv_store);

  const std::string& platform_name() const override { return platform_name_; }
  const std::string& platform_version() const override { return platform_version_; }

  Result<plugin::HostBufferResult> BufferFromHostBuffer(
      const plugin::HostBufferArgs& args) override;
  Result<std::unique_ptr<plugin::LoadedExecutable>> Compile(
      const plugin::Program& program, const plugin::CompileOptions& options) override;

  const CudaClientOptions& options() const { return options_; }
  const std::vector<CudaDevice*>& cuda_devices() const { return cuda_devices_; }

 private:
  CudaClient(CudaClientOptions options, std::string platform_version);

  CudaClientOptions options_;
  std::vector<CudaDevice*> cuda_devices_;  // owned by the base class, in id order
  std::string platform_name_ = "cuda";
  std::string platform_version_;
};

}  // namespace berth::cuda

#endif  // BERTH_PLUGINS_CUDA_CUDA_CLIENT_HPP_
