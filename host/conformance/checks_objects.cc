// Object lifecycles through the host API: clients, devices, memories,
// buffers (a round trip per element type the plugin takes), events.
#include <atomic>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <set>
#include <string_view>
#include <vector>

#include "conformance/suite_context.hpp"

namespace berth::conformance {

std::vector<ElementType> TypesToTry(const Context& c, bool* declared) {
  std::vector<ElementType> types;
  auto it = c.attributes.find(BERTH_ATTRIBUTE_ELEMENT_TYPES);
  *declared = it != c.attributes.end() && std::holds_alternative<std::vector<int64_t>>(it->second);
  if (*declared) {
    for (int64_t value : std::get<std::vector<int64_t>>(it->second)) {
      if (IsValidElementType(static_cast<int32_t>(value))) {
        types.push_back(static_cast<ElementType>(value));
      }
    }
    return types;
  }
  for (ElementType type : {ElementType::kPred, ElementType::kS8, ElementType::kS16,
                           ElementType::kS32, ElementType::kS64, ElementType::kU8,
                           ElementType::kU16, ElementType::kU32, ElementType::kU64,
                           ElementType::kF16, ElementType::kBF16, ElementType::kF32,
                           ElementType::kF64, ElementType::kC64, ElementType::kC128}) {
    types.push_back(type);
  }
  return types;
}

namespace {

void ClientLifecycle(Context& c, const Emit& emit) {
  const std::string name = "client.create_destroy_repeatedly";
  for (int i = 0; i < 3; ++i) {
    Result<Client> client = c.NewClient();
    if (!client.ok()) return emit(Fail(name, "client " + std::to_string(i) + ": " +
                                                 client.status().ToString()));
  }
  emit(Pass(name));
  const Client& client = *c.client;
  emit(client.platform_name().empty() ? Fail("client.platform_name", "empty")
                                      : Pass("client.platform_name"));
}

void Devices(Context& c, const Emit& emit) {
  const Client& client = *c.client;
  const std::string name = "client.devices";
  if (client.addressable_devices().empty()) return emit(Fail(name, "no addressable device"));
  std::set<int64_t> ids;
  for (const Device& device : client.devices()) {
    if (!ids.insert(device.id()).second) {
      return emit(Fail(name, "device id " + std::to_string(device.id()) + " appears twice"));
    }
    if (device.kind().empty()) {
      return emit(Fail(name, "device " + std::to_string(device.id()) + " has an empty kind"));
    }
    Result<Device> found = client.LookupDevice(device.id());
    if (!found.ok() || !(*found == device)) {
      return emit(Fail(name, "LookupDevice(" + std::to_string(device.id()) +
                                 ") does not give the device back"));
    }
  }
  emit(Pass(name));
  const std::string memories = "client.memories";
  for (const Device& device : client.addressable_devices()) {
    if (device.memories().empty()) {
      return emit(Fail(memories, "device " + std::to_string(device.id()) + " has no memory"));
    }
  }
  emit(Pass(memories));
}

// Deterministic, non-trivial bytes valid for `type` (bools are 0 or 1).
std::vector<std::byte> Pattern(ElementType type, size_t bytes) {
  std::vector<std::byte> out(bytes);
  for (size_t i = 0; i < bytes; ++i) {
    uint8_t value = static_cast<uint8_t>((i * 37 + 11) & 0xFF);
    if (type == ElementType::kPred) value &= 1;
    // Keep floating-point patterns away from NaNs, whose bits may change.
    if (type == ElementType::kF16 || type == ElementType::kBF16 || type == ElementType::kF32 ||
        type == ElementType::kF64) {
      value &= 0x3F;
    }
    out[i] = static_cast<std::byte>(value);
  }
  return out;
}

void RoundTrips(Context& c, const Emit& emit) {
  if (c.Function(&BERTH_Api::BERTH_Buffer_ToHostBuffer) == nullptr) {
    return emit(Skip("buffer.round_trip",
                     "BERTH_Buffer_ToHostBuffer is not in this plugin's ABI minor"));
  }
  const Client& client = *c.client;
  bool declared = false;
  const std::vector<int64_t> dims{2, 3};
  for (ElementType type : TypesToTry(c, &declared)) {
    const std::string name = "buffer.round_trip." + std::string(ElementTypeName(type));
    std::vector<std::byte> data = Pattern(type, 6 * ElementTypeByteSize(type));
    for (const Device& device : client.addressable_devices()) {
      Result<Buffer> buffer = client.BufferFromHost(data.data(), type, dims, device);
      if (!buffer.ok()) {
        // A type the plugin does not list may be refused; a listed one not.
        if (!declared && (buffer.status().code() == StatusCode::kUnimplemented ||
                          buffer.status().code() == StatusCode::kInvalidArgument)) {
          emit(Skip(name, "not taken by the plugin: " + buffer.status().ToString()));
        } else {
          emit(Fail(name, buffer.status().ToString()));
        }
        break;
      }
      Result<std::vector<std::byte>> back = buffer->ToHostBytes();
      if (!back.ok()) {
        emit(Fail(name, "device " + std::to_string(device.id()) + ": " + back.status().ToString()));
        break;
      }
      if (buffer->element_type() != type || buffer->dims() != dims || *back != data) {
        emit(Fail(name, "device " + std::to_string(device.id()) +
                            ": the buffer read back differs from what was written"));
        break;
      }
      if (&device == &client.addressable_devices().back()) emit(Pass(name));
    }
  }
}

// An f32 buffer of `values` on the first device for check `name`, which also
// calls `fn`; none (the check emitted as skipped) where either is missing.
template <typename Fn>
std::optional<Buffer> F32BufferFor(Context& c, const Emit& emit, const std::string& name,
                                   std::initializer_list<float> values, Fn* BERTH_Api::*fn,
                                   std::string_view fn_name) {
  const Client& client = *c.client;
  const int64_t dims[1] = {static_cast<int64_t>(values.size())};
  Result<Buffer> buffer = client.BufferFromHost(std::data(values), ElementType::kF32, dims,
                                                client.addressable_devices()[0]);
  if (!buffer.ok()) {
    emit(Skip(name, "no f32 buffer: " + buffer.status().ToString()));
    return std::nullopt;
  }
  if (c.Function(fn) == nullptr) {
    emit(Skip(name, std::string(fn_name) + " is not in this plugin's ABI minor"));
    return std::nullopt;
  }
  return std::move(buffer).value();
}

void BufferDelete(Context& c, const Emit& emit) {
  const std::string name = "buffer.delete";
  std::optional<Buffer> buffer =
      F32BufferFor(c, emit, name, {1, 2}, &BERTH_Api::BERTH_Buffer_Delete, "BERTH_Buffer_Delete");
  if (!buffer) return;
  if (Status status = buffer->Delete(); !status.ok()) return emit(Fail(name, status.ToString()));
  Result<bool> deleted = buffer->IsDeleted();
  if (!deleted.ok() || !*deleted) return emit(Fail(name, "IsDeleted is not true after Delete"));
  if (c.Function(&BERTH_Api::BERTH_Buffer_ToHostBuffer) == nullptr) return emit(Pass(name));
  float back[2];
  Status read = buffer->ToHost(back, sizeof(back));
  if (read.code() != StatusCode::kFailedPrecondition) {
    return emit(Fail(name, "reading a deleted buffer gave " +
                               (read.ok() ? std::string("OK") : read.ToString()) +
                               ", not FAILED_PRECONDITION"));
  }
  emit(Pass(name));
}

void Events(Context& c, const Emit& emit) {
  const std::string name = "event.ready_await_on_ready";
  std::optional<Buffer> buffer = F32BufferFor(
      c, emit, name, {1, 2, 3, 4}, &BERTH_Api::BERTH_Buffer_ReadyEvent, "BERTH_Buffer_ReadyEvent");
  if (!buffer) return;
  Result<Event> ready = buffer->ReadyEvent();
  if (!ready.ok()) return emit(Fail(name, ready.status().ToString()));
  if (Status status = ready->Await(); !status.ok()) return emit(Fail(name, status.ToString()));
  if (!ready->IsReady()) return emit(Fail(name, "IsReady is false after Await returned"));
  std::atomic<int> calls{0};
  if (Status status = ready->OnReady([&](Status) { calls++; }); !status.ok()) {
    return emit(Fail(name, status.ToString()));
  }
  if (calls != 1) {
    return emit(Fail(name, "OnReady on a ready event ran its callback " +
                               std::to_string(calls.load()) + " times, not once"));
  }
  emit(Pass(name));
}

}  // namespace

void ObjectChecks(Context& context, const Emit& emit) {
  ClientLifecycle(context, emit);
  Devices(context, emit);
  RoundTrips(context, emit);
  BufferDelete(context, emit);
  Events(context, emit);
}

}  // namespace berth::conformance
