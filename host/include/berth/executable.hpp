// A program compiled and loaded onto a client's devices.
#ifndef BERTH_EXECUTABLE_HPP_
#define BERTH_EXECUTABLE_HPP_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "berth/api.hpp"
#include "berth/buffer.hpp"
#include "berth/device.hpp"
#include "berth/element_type.hpp"
#include "berth/event.hpp"
#include "berth/named_value.hpp"
#include "berth/sharded_array.hpp"
#include "berth/status.hpp"

namespace berth {

struct CompileOptions {
  int64_t num_replicas = 0;    // 0: from the program (mhlo.num_replicas), else 1
  int64_t num_partitions = 0;  // 0: from the program (mhlo.num_partitions), else 1
  // Global device id of (replica r, partition p) at [r * num_partitions + p];
  // empty: the plugin's default (replica r on device r).
  std::vector<int64_t> device_assignment;
  std::string entry_name;      // empty: "main", else the only public function
  NamedValueMap options;       // plugin-specific
  std::string format = "stablehlo";
};

// One phase of a plugin's compiler (the phase_compile extension,
// docs/phase-compile.md): its name and the formats it reads and writes.
struct CompilePhase {
  std::string name;
  std::string input_format;
  std::string output_format;
  bool output_is_text = false;
};

// A program on its way through the phases: a phase's output, or (phase
// empty) the program itself in its format.
struct CompileIntermediate {
  std::string phase;   // the phase that wrote it; empty for a program
  std::string format;  // "stablehlo", "stablehlo-partitioned", "cpu-plan" ...
  bool text = false;
  std::string bytes;
  // Devices the program runs on, when known to whoever wrote it (berth
  // compile records its source's replicas x partitions); 0: unknown. Kept
  // in the file by WriteIntermediate; tools size their client with it.
  int64_t num_devices = 0;
};

struct ExecuteOptions {
  int64_t launch_id = 0;
};

// Outputs per device, in the order of Executable::addressable_devices().
struct ExecuteResult {
  std::vector<std::vector<Buffer>> outputs;
  std::vector<Event> completion;  // one per device
};

// How a partitioned program lays out one parameter or output over its
// partitions: GSPMD sharding text ("{devices=[4,1]<=[4]}", "{replicated}")
// and the value's global dims. Each device takes and returns its shard
// (ceil(global / tiles) long along each dimension).
struct ValueSharding {
  std::string sharding;
  std::vector<int64_t> global_dims;
};

class BERTH_API Executable {
 public:
  Executable() = default;
  Executable(Executable&& other) noexcept;
  Executable& operator=(Executable&& other) noexcept;
  ~Executable();

  const std::string& name() const { return name_; }
  int64_t num_replicas() const { return num_replicas_; }
  int64_t num_partitions() const { return num_partitions_; }
  const std::vector<ElementType>& output_types() const { return output_types_; }
  // Per device: a partitioned program's are each device's shard dims.
  const std::vector<std::vector<int64_t>>& output_dims() const { return output_dims_; }
  const std::vector<Device>& addressable_devices() const { return devices_; }
  // When the plugin partitioned a sharded program at compile: one per
  // parameter and per output; empty for a program that is not partitioned
  // (and from plugins of ABI 1.0 and 1.1, which cannot say).
  const std::vector<ValueSharding>& parameter_shardings() const { return parameter_shardings_; }
  const std::vector<ValueSharding>& output_shardings() const { return output_shardings_; }

  // Starts the program on every addressable device; argument_lists[d] holds
  // the arguments for addressable_devices()[d]. Returns once started.
  Result<ExecuteResult> Execute(const std::vector<std::vector<const Buffer*>>& argument_lists,
                                const ExecuteOptions& options = {}) const;
  // Runs a partitioned program (one replica, its layouts reported) on
  // global arrays laid out as parameter_shardings() says: each addressable
  // device runs the partition whose shards it holds (partition p on the
  // arguments' device_ids()[p]; with no arguments, device p). Returns once
  // the program has finished, its outputs laid out as output_shardings()
  // says, each process holding its devices' shards (berth/sharded_array.hpp).
  Result<std::vector<ShardedArray>> ExecuteSharded(const std::vector<const ShardedArray*>& arguments,
                                                   const ExecuteOptions& options = {}) const;
  // Runs a single-device program on `device`.
  Result<ExecuteResult> ExecuteOn(const Device& device, const std::vector<const Buffer*>& arguments,
                                  const ExecuteOptions& options = {}) const;

  // The program in the `berth-executable` format (docs/berth-executable.md):
  // plugin, platform, ABI versions, fingerprint and the plugin's payload.
  // UNIMPLEMENTED when the plugin lacks the abi_version extension.
  Result<std::string> Serialize() const;

  BERTH_LoadedExecutable* c_executable() const { return executable_; }

  // Takes ownership of a C executable of `client`.
  static Result<Executable> Adopt(std::shared_ptr<const core::ClientState> client,
                                  BERTH_LoadedExecutable* executable);

 private:
  Result<ExecuteResult> Run(std::span<const std::vector<const Buffer*>> argument_lists,
                            const ExecuteOptions& options, BERTH_Device* execute_device) const;
  void Reset();

  std::shared_ptr<const core::ClientState> client_;
  BERTH_LoadedExecutable* executable_ = nullptr;
  std::string name_;
  int64_t num_replicas_ = 1;
  int64_t num_partitions_ = 1;
  std::vector<ElementType> output_types_;
  std::vector<std::vector<int64_t>> output_dims_;
  std::vector<ValueSharding> parameter_shardings_;
  std::vector<ValueSharding> output_shardings_;
  // Every output dimension is known (none dynamic): outputs are adopted with
  // these shapes instead of asking the plugin per buffer.
  bool static_outputs_ = true;
  std::vector<Device> devices_;
};

}  // namespace berth

#endif  // BERTH_EXECUTABLE_HPP_
