// Compiled programs as a plugin implements them.
#ifndef BERTH_PLUGIN_EXECUTABLE_HPP_
#define BERTH_PLUGIN_EXECUTABLE_HPP_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "berth/element_type.hpp"
#include "berth/named_value.hpp"
#include "berth/plugin/buffer.hpp"
#include "berth/plugin/device.hpp"
#include "berth/plugin/event.hpp"
#include "berth/plugin/extensions.hpp"
#include "berth/plugin/live_objects.hpp"

namespace berth::plugin {

// A program to compile: {format, bytes}; borrowed for the Compile call.
struct Program {
  std::string_view format;
  std::string_view code;
};

struct CompileOptions {
  int64_t num_replicas = 0;    // 0: from the program, else 1
  int64_t num_partitions = 0;  // 0: from the program, else 1
  // Global device id of (replica r, partition p) at r * num_partitions + p;
  // empty for the plugin's default.
  std::vector<int64_t> device_assignment;
  std::string entry_name;      // empty: "main" or the only public function
  NamedValueMap options;       // plugin-specific
};

// How a partitioned program lays out one parameter or output over its
// partitions: GSPMD sharding text and the value's global dims.
struct ValueSharding {
  std::string sharding;
  std::vector<int64_t> global_dims;
};

// What the host may ask of any compiled program.
struct ExecutableMetadata {
  std::string name;
  int64_t num_replicas = 1;
  int64_t num_partitions = 1;
  std::vector<ElementType> output_types;
  // Per device: for a partitioned program, each device's shard.
  std::vector<std::vector<int64_t>> output_dims;
  // Set when the plugin partitioned a sharded program at compile (see
  // berth/spmd/partitioner.hpp): one per parameter and output; empty
  // otherwise (BERTH_Executable_Shardings).
  std::vector<ValueSharding> parameter_shardings;
  std::vector<ValueSharding> output_shardings;
};

struct ExecuteOptions {
  int64_t launch_id = 0;
};

// Outputs per device (in the order of the argument lists) and an event per
// device that is ready when that device's execution has finished.
struct ExecuteResult {
  std::vector<std::vector<std::unique_ptr<Buffer>>> outputs;
  std::vector<Event> completion;
};

class LoadedExecutable {
 public:
  LoadedExecutable(std::shared_ptr<const ExecutableMetadata> metadata,
                   std::vector<Device*> addressable_devices)
      : metadata_(std::move(metadata)), addressable_devices_(std::move(addressable_devices)) {}
  virtual ~LoadedExecutable() = default;
  LoadedExecutable(const LoadedExecutable&) = delete;
  LoadedExecutable& operator=(const LoadedExecutable&) = delete;

  const std::shared_ptr<const ExecutableMetadata>& metadata() const { return metadata_; }
  // Devices of this process that run the program, in argument-list order.
  const std::vector<Device*>& addressable_devices() const { return addressable_devices_; }

  // Starts an execution. `argument_lists[d]` are the arguments on device d
  // (of addressable_devices(), or `execute_device` when it is not NULL and
  // there is one list). The SDK's glue has checked that there is one list
  // per device and that no argument is NULL or deleted; the count, element
  // types and shapes against the program's parameters are the plugin's to
  // check (INVALID_ARGUMENT naming the argument). The outputs returned must
  // have the types and dims metadata() reports: the glue turns any other
  // into INTERNAL naming the output.
  virtual Result<ExecuteResult> Execute(std::span<const std::vector<Buffer*>> argument_lists,
                                        const ExecuteOptions& options,
                                        Device* execute_device) = 0;

  // abi_version extension: the plugin's serialized form of the program,
  // which Client::DeserializeAndLoad takes back. Default: UNIMPLEMENTED.
  virtual Result<SerializedExecutable> Serialize() const;

 private:
  std::shared_ptr<const ExecutableMetadata> metadata_;
  std::vector<Device*> addressable_devices_;
  LiveObject live_{LiveObjectKind::kExecutable};
};

}  // namespace berth::plugin

#endif  // BERTH_PLUGIN_EXECUTABLE_HPP_
