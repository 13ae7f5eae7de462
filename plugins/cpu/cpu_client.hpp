// The CPU plugin's client: `device_count` virtual devices in host memory.
#ifndef BERTH_PLUGINS_CPU_CPU_CLIENT_HPP_
#define BERTH_PLUGINS_CPU_CPU_CLIENT_HPP_

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "berth/plugin/client.hpp"
#include "berth/plugin/key_value.hpp"
#include "cpu_topology.hpp"
#include "device_stream.hpp"
#include "cpu/distributed/gloo_collectives.hpp"
#include "thread_pool.hpp"

namespace berth::cpu {

// ABI versions of the abi_version extension: the runtime's, and the newest
// serialized-executable format it writes and reads.
inline constexpr plugin::AbiVersion kCpuRuntimeAbi{1, 0};
// Executable ABI 1.1: payloads are cpu-plans (cpu_compiler.hpp); 1.0
// payloads (source and options as JSON) still load.
inline constexpr plugin::AbiVersion kCpuExecutableAbi{1, 1};

// The buffer element types the plugin holds and computes on, its
// collectives included (the plugin attribute `element_types`).
inline constexpr berth::ElementType kCpuElementTypes[] = {
    berth::ElementType::kPred, berth::ElementType::kS8,   berth::ElementType::kS16,
    berth::ElementType::kS32,  berth::ElementType::kS64,  berth::ElementType::kU8,
    berth::ElementType::kU16,  berth::ElementType::kU32,  berth::ElementType::kU64,
    berth::ElementType::kF16,  berth::ElementType::kBF16, berth::ElementType::kF32,
    berth::ElementType::kF64};

struct CpuClientOptions {
  int64_t device_count = 1;
  int64_t node_id = 0;
  int64_t num_nodes = 1;
  std::string node_address;  // the reserved option; empty outside jobs and from older hosts
  plugin::SliceTopology slices;  // the multi_slice extension's; one slice without it
  // `collective_algorithm`: auto (default), flat or hierarchical.
  CollectiveAlgorithm collective_algorithm = CollectiveAlgorithm::kAuto;
};

class CpuClient final : public plugin::Client {
 public:
  static Result<std::unique_ptr<CpuClient>> Create(const NamedValueMap& options,
                                                   const plugin::KeyValueStore& kv_store,
                                                   const plugin::SliceTopology& slices = {});

  const std::string& platform_name() const override { return platform_name_; }
  const std::string& platform_version() const override { return platform_version_; }
  int32_t process_index() const override { return static_cast<int32_t>(options_.node_id); }
  int32_t num_slices() const override { return topology_.num_slices; }
  std::vector<int32_t> device_slices() const override;

  Result<plugin::HostBufferResult> BufferFromHostBuffer(const plugin::HostBufferArgs& args) override;
  Result<std::unique_ptr<plugin::LoadedExecutable>> Compile(
      const plugin::Program& program, const plugin::CompileOptions& options) override;

  // Extensions (see README.md, "Extensions").
  bool HasBuiltinCustomCall(std::string_view target) const override;
  Result<plugin::RuntimeAbiVersions> RuntimeAbiVersion() const override;
  Status CheckExecutableCompatible(plugin::AbiVersion executable,
                                   plugin::AbiVersion runtime) const override;
  Result<std::unique_ptr<plugin::LoadedExecutable>> DeserializeAndLoad(
      std::string_view payload, plugin::AbiVersion version) override;
  std::span<const plugin::CompilePhase> CompilePhases() const override;
  Result<std::string> RunCompilePhase(const plugin::CompilePhase& phase, const plugin::Program& input,
                                      const plugin::CompileOptions& options) override;
  Result<std::unique_ptr<plugin::Communicator>> CreateCommunicator(
      const std::vector<int64_t>& device_ids, std::chrono::milliseconds timeout) override;

  ThreadPool& pool() { return *pool_; }
  const CpuTopology& topology() const { return topology_; }
  // Cross-process collectives; null in a single-process client.
  GlooCollectives* gloo() { return gloo_.get(); }
  // Collectives between the same nodes on contexts of their own, with their
  // own timeout and no fatal-error reports (a communicator's); null in a
  // single-process client.
  std::unique_ptr<GlooCollectives> NewGlooCollectives(std::chrono::milliseconds timeout) const;
  // How many communicators over the device list of hash `list` this client
  // made before (every process numbers its communicators alike).
  int64_t CountCommunicator(uint64_t list);
  // The job's key-value store; null in a single-process client.
  const plugin::KeyValueStore* kv_store() const { return kv_store_; }

  // Queues one launch: work[i] runs on the stream of local device
  // devices[i]. Launches are queued atomically, so every stream sees them in
  // the same order (instances of two launches never wait on each other).
  void EnqueueLaunch(const std::vector<plugin::Device*>& devices,
                     std::vector<std::function<void()>> work);
  // A one-device launch run on the caller's thread when the device's stream
  // is idle (see DeviceStream::TryRunInline), queued otherwise.
  void RunInlineOrEnqueue(plugin::Device* device, std::function<void()> work);

 private:
  CpuClient(CpuClientOptions options, CpuTopology topology, const plugin::KeyValueStore* kv_store);
  // The stream of `device`, started on first use; launch_mutex_ held.
  DeviceStream& StreamLocked(const plugin::Device& device);

  CpuClientOptions options_;
  CpuTopology topology_;
  std::string platform_name_ = "cpu";
  std::string platform_version_;
  std::unique_ptr<ThreadPool> pool_;
  const plugin::KeyValueStore* kv_store_ = nullptr;
  std::vector<std::string> gloo_addresses_;  // where Gloo reaches each node
  std::unique_ptr<GlooCollectives> gloo_;
  std::mutex communicators_mutex_;
  std::map<uint64_t, int64_t> communicators_made_;
  std::mutex launch_mutex_;
  // One per local device, started on first use; destroyed before the pool.
  std::vector<std::unique_ptr<DeviceStream>> streams_;
};

}  // namespace berth::cpu

#endif  // BERTH_PLUGINS_CPU_CPU_CLIENT_HPP_
