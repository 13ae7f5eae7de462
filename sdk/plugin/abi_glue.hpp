// Internal to the SDK helpers: what the opaque C types are in a plugin built
// with the helpers, and the guard every C entry point runs its body in.
#ifndef BERTH_SDK_PLUGIN_ABI_GLUE_HPP_
#define BERTH_SDK_PLUGIN_ABI_GLUE_HPP_

#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <vector>

#include "berth/c_api.h"
#include "berth/plugin/options.hpp"
#include "berth/plugin/plugin.hpp"
#include "berth/status.hpp"

struct BERTH_Error {
  berth::Status status;
};

struct BERTH_Event {
  berth::plugin::Event event;
  berth::plugin::LiveObject live{berth::plugin::LiveObjectKind::kEvent};
};

struct BERTH_TopologyDescription {
  std::string platform_name;
  std::vector<BERTH_DeviceDescription*> descriptions;
};

struct BERTH_Client {
  explicit BERTH_Client(berth::plugin::KeyValueStore store) : kv_store(std::move(store)) {}
  // Declared before `impl` so it outlives the plugin's client, which may hold
  // a reference to it.
  berth::plugin::KeyValueStore kv_store;
  std::unique_ptr<berth::plugin::Client> impl;
  BERTH_TopologyDescription topology;
  // BERTH_PhaseCompile_ListPhases' answer, made at the first call.
  struct CompilePhases {
    std::once_flag once;
    std::vector<BERTH_PhaseCompile_Phase> phases;
    std::vector<const BERTH_PhaseCompile_Phase*> pointers;
  } compile_phases;
  // BERTH_MultiSlice_DeviceSlices' answer, made at the first call.
  struct DeviceSlices {
    std::once_flag once;
    std::vector<int32_t> slices;
  } device_slices;
};

struct BERTH_Buffer {
  std::unique_ptr<berth::plugin::Buffer> impl;
};

struct BERTH_LoadedExecutable {
  std::unique_ptr<berth::plugin::LoadedExecutable> impl;
  std::vector<BERTH_Device*> c_devices;
};

struct BERTH_Executable {
  std::shared_ptr<const berth::plugin::ExecutableMetadata> metadata;
  std::vector<BERTH_Buffer_Type> output_types;
  std::vector<int64_t> output_dims;
  std::vector<size_t> output_dim_sizes;
  // BERTH_Executable_Shardings, per side (parameters, outputs): pointers
  // into metadata's strings, and the global dims flattened.
  struct Shardings {
    std::vector<const char*> texts;
    std::vector<int64_t> dims;
    std::vector<size_t> dim_sizes;
  };
  Shardings shardings[2];
};

namespace berth::plugin::glue {

// Converts a Status to the C error (NULL for OK). Never throws.
BERTH_Error* ToC(Status status);

// The "struct too small" error every entry point gives.
Status StructSizeError(const char* struct_name, size_t expected, size_t actual);

// Runs `body` for entry point `function` after checking `args`; turns any
// exception into INTERNAL so nothing crosses the ABI.
template <typename Args, typename Body>
BERTH_Error* Guard(const char* function, Args* args, size_t min_size, Body&& body) {
  try {
    if (args == nullptr) {
      return ToC(InvalidArgumentError(std::string(function) + ": args is NULL"));
    }
    if (args->struct_size < min_size) {
      return ToC(StructSizeError(function, min_size, args->struct_size));
    }
    return ToC(body());
  } catch (const std::bad_alloc&) {
    return ToC(ResourceExhaustedError(std::string(function) + ": out of memory"));
  } catch (const std::exception& e) {
    return ToC(InternalError(std::string(function) + ": the plugin threw an exception: " +
                             e.what()));
  } catch (...) {
    return ToC(InternalError(std::string(function) +
                             ": the plugin threw an exception of unknown type"));
  }
}

// A NULL object argument, named.
Status NullArgument(const char* function, const char* field);

inline Device* FromC(BERTH_Device* device) { return reinterpret_cast<Device*>(device); }
inline BERTH_Device* ToC(Device* device) { return reinterpret_cast<BERTH_Device*>(device); }
inline Memory* FromC(BERTH_Memory* memory) { return reinterpret_cast<Memory*>(memory); }
inline BERTH_Memory* ToC(Memory* memory) { return reinterpret_cast<BERTH_Memory*>(memory); }
inline DeviceDescription* FromC(BERTH_DeviceDescription* d) {
  return reinterpret_cast<DeviceDescription*>(d);
}
inline BERTH_DeviceDescription* ToC(const DeviceDescription* d) {
  return reinterpret_cast<BERTH_DeviceDescription*>(const_cast<DeviceDescription*>(d));
}

// Wraps an Event for the caller (who destroys it).
BERTH_Event* NewCEvent(Event event);

// Wraps a compiled or deserialized executable for the caller (who destroys
// it); INTERNAL when the plugin made none.
Result<BERTH_LoadedExecutable*> WrapExecutable(std::unique_ptr<LoadedExecutable> executable,
                                               const char* function);

// A program and compile options from their C structs, checked (sizes, NULL
// pointers with sizes, negative counts, reserved options); `function` names
// the entry point in errors. NULL options are the defaults.
Result<Program> ProgramFromC(const BERTH_Program* program, const char* function);
Result<CompileOptions> CompileOptionsFromC(const BERTH_CompileOptions* options, const char* function);

// Fills the entry points of each object family.
void FillCoreEntries(BERTH_Api& api);
void FillBufferEntries(BERTH_Api& api);
void FillExecutableEntries(BERTH_Api& api);

}  // namespace berth::plugin::glue

#endif  // BERTH_SDK_PLUGIN_ABI_GLUE_HPP_
