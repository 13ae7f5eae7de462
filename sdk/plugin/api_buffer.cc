// C entry points for buffers, including Client_BufferFromHostBuffer.
#include <algorithm>

#include "abi_glue.hpp"

namespace berth::plugin::glue {
namespace {

Result<Buffer*> CheckBuffer(BERTH_Buffer* buffer, const char* function) {
  if (buffer == nullptr) return NullArgument(function, "buffer");
  if (buffer->impl == nullptr) {
    return InternalError(std::string(function) + ": buffer has no implementation");
  }
  return buffer->impl.get();
}

BERTH_Error* ClientBufferFromHostBuffer(BERTH_Client_BufferFromHostBuffer_Args* args) {
  constexpr const char* kFn = "BERTH_Client_BufferFromHostBuffer";
  return Guard(kFn, args, BERTH_Client_BufferFromHostBuffer_Args_STRUCT_SIZE, [&]() -> Status {
    args->buffer = nullptr;
    args->done_with_host_buffer = nullptr;
    if (args->client == nullptr) return NullArgument(kFn, "client");
    Client& client = *args->client->impl;
    if (!IsValidElementType(static_cast<int32_t>(args->type)) ||
        args->type == BERTH_Buffer_Type_TOKEN) {
      return InvalidArgumentError(std::string(kFn) + ": element type " +
                                  std::to_string(static_cast<int>(args->type)) +
                                  " is not a valid buffer element type");
    }
    if (args->num_dims > 0 && args->dims == nullptr) return NullArgument(kFn, "dims");
    std::span<const int64_t> dims(args->dims, args->num_dims);
    ElementType type = static_cast<ElementType>(args->type);
    BERTH_ASSIGN_OR_RETURN(size_t byte_size, DenseByteSize(type, dims));
    if (byte_size > 0 && args->data == nullptr) return NullArgument(kFn, "data");
    std::span<const int64_t> strides;
    if (args->byte_strides != nullptr) {
      if (args->num_byte_strides != args->num_dims) {
        return InvalidArgumentError(std::string(kFn) + ": " +
                                    std::to_string(args->num_byte_strides) +
                                    " byte strides for " + std::to_string(args->num_dims) +
                                    " dimensions");
      }
      strides = std::span<const int64_t>(args->byte_strides, args->num_byte_strides);
    }
    if (args->host_buffer_semantics != BERTH_HostBufferSemantics_ImmutableOnlyDuringCall &&
        args->host_buffer_semantics !=
            BERTH_HostBufferSemantics_ImmutableUntilTransferCompletes) {
      return InvalidArgumentError(std::string(kFn) + ": unknown host_buffer_semantics " +
                                  std::to_string(static_cast<int>(args->host_buffer_semantics)));
    }
    if (args->device == nullptr) return NullArgument(kFn, "device");
    Device* device = FromC(args->device);
    if (!client.Owns(device)) {
      return InvalidArgumentError(std::string(kFn) + ": device is not one of this client's");
    }
    if (!device->is_addressable()) {
      return InvalidArgumentError(std::string(kFn) + ": device " +
                                  device->description().debug_string() +
                                  " is not addressable from this process");
    }
    Memory* memory = args->memory != nullptr ? FromC(args->memory) : device->default_memory();
    const std::vector<Memory*>& device_memories = device->memories();
    if (memory == nullptr ||
        std::find(device_memories.begin(), device_memories.end(), memory) ==
            device_memories.end()) {
      return InvalidArgumentError(std::string(kFn) + ": memory is not addressable by device " +
                                  device->description().debug_string());
    }
    HostBufferArgs host_args;
    host_args.data = args->data;
    host_args.type = type;
    host_args.dims = dims;
    host_args.byte_strides = strides;
    host_args.semantics =
        args->host_buffer_semantics == BERTH_HostBufferSemantics_ImmutableOnlyDuringCall
            ? HostBufferSemantics::kImmutableOnlyDuringCall
            : HostBufferSemantics::kImmutableUntilTransferCompletes;
    host_args.device = device;
    host_args.memory = memory;
    BERTH_ASSIGN_OR_RETURN(HostBufferResult result, client.BufferFromHostBuffer(host_args));
    if (result.buffer == nullptr) return InternalError(std::string(kFn) + ": no buffer returned");
    auto c_buffer = std::make_unique<BERTH_Buffer>(BERTH_Buffer{std::move(result.buffer)});
    args->done_with_host_buffer = NewCEvent(std::move(result.done_with_host_buffer));
    args->buffer = c_buffer.release();
    return OkStatus();
  });
}

BERTH_Error* BufferDestroy(BERTH_Buffer_Destroy_Args* args) {
  return Guard("BERTH_Buffer_Destroy", args, BERTH_Buffer_Destroy_Args_STRUCT_SIZE, [&] {
    delete args->buffer;
    return OkStatus();
  });
}

BERTH_Error* BufferElementType(BERTH_Buffer_ElementType_Args* args) {
  return Guard("BERTH_Buffer_ElementType", args, BERTH_Buffer_ElementType_Args_STRUCT_SIZE,
               [&]() -> Status {
                 BERTH_ASSIGN_OR_RETURN(Buffer * b, CheckBuffer(args->buffer, "BERTH_Buffer_ElementType"));
                 args->type = static_cast<BERTH_Buffer_Type>(b->element_type());
                 return OkStatus();
               });
}

BERTH_Error* BufferDimensions(BERTH_Buffer_Dimensions_Args* args) {
  return Guard("BERTH_Buffer_Dimensions", args, BERTH_Buffer_Dimensions_Args_STRUCT_SIZE,
               [&]() -> Status {
                 BERTH_ASSIGN_OR_RETURN(Buffer * b, CheckBuffer(args->buffer, "BERTH_Buffer_Dimensions"));
                 args->dims = b->dims().data();
                 args->num_dims = b->dims().size();
                 return OkStatus();
               });
}

BERTH_Error* BufferOnDeviceSize(BERTH_Buffer_OnDeviceSizeInBytes_Args* args) {
  return Guard("BERTH_Buffer_OnDeviceSizeInBytes", args,
               BERTH_Buffer_OnDeviceSizeInBytes_Args_STRUCT_SIZE, [&]() -> Status {
                 BERTH_ASSIGN_OR_RETURN(Buffer * b, CheckBuffer(args->buffer, "BERTH_Buffer_OnDeviceSizeInBytes"));
                 args->on_device_size_in_bytes = b->on_device_size();
                 return OkStatus();
               });
}

BERTH_Error* BufferDevice(BERTH_Buffer_Device_Args* args) {
  return Guard("BERTH_Buffer_Device", args, BERTH_Buffer_Device_Args_STRUCT_SIZE,
               [&]() -> Status {
                 BERTH_ASSIGN_OR_RETURN(Buffer * b, CheckBuffer(args->buffer, "BERTH_Buffer_Device"));
                 args->device = ToC(b->device());
                 return OkStatus();
               });
}

BERTH_Error* BufferMemory(BERTH_Buffer_Memory_Args* args) {
  return Guard("BERTH_Buffer_Memory", args, BERTH_Buffer_Memory_Args_STRUCT_SIZE,
               [&]() -> Status {
                 BERTH_ASSIGN_OR_RETURN(Buffer * b, CheckBuffer(args->buffer, "BERTH_Buffer_Memory"));
                 args->memory = ToC(b->memory());
                 return OkStatus();
               });
}

BERTH_Error* BufferDelete(BERTH_Buffer_Delete_Args* args) {
  return Guard("BERTH_Buffer_Delete", args, BERTH_Buffer_Delete_Args_STRUCT_SIZE,
               [&]() -> Status {
                 BERTH_ASSIGN_OR_RETURN(Buffer * b, CheckBuffer(args->buffer, "BERTH_Buffer_Delete"));
                 return b->Delete();
               });
}

BERTH_Error* BufferIsDeleted(BERTH_Buffer_IsDeleted_Args* args) {
  return Guard("BERTH_Buffer_IsDeleted", args, BERTH_Buffer_IsDeleted_Args_STRUCT_SIZE,
               [&]() -> Status {
                 BERTH_ASSIGN_OR_RETURN(Buffer * b, CheckBuffer(args->buffer, "BERTH_Buffer_IsDeleted"));
                 args->is_deleted = b->IsDeleted();
                 return OkStatus();
               });
}

BERTH_Error* BufferReadyEvent(BERTH_Buffer_ReadyEvent_Args* args) {
  return Guard("BERTH_Buffer_ReadyEvent", args, BERTH_Buffer_ReadyEvent_Args_STRUCT_SIZE,
               [&]() -> Status {
                 BERTH_ASSIGN_OR_RETURN(Buffer * b, CheckBuffer(args->buffer, "BERTH_Buffer_ReadyEvent"));
                 args->event = NewCEvent(b->ReadyEvent());
                 return OkStatus();
               });
}

BERTH_Error* BufferToHostBuffer(BERTH_Buffer_ToHostBuffer_Args* args) {
  constexpr const char* kFn = "BERTH_Buffer_ToHostBuffer";
  return Guard(kFn, args, BERTH_Buffer_ToHostBuffer_Args_STRUCT_SIZE, [&]() -> Status {
    args->event = nullptr;
    if (args->src == nullptr) return NullArgument(kFn, "src");
    Buffer* b = args->src->impl.get();
    if (b->IsDeleted()) {
      return FailedPreconditionError(std::string(kFn) + ": the buffer has been deleted");
    }
    BERTH_ASSIGN_OR_RETURN(size_t needed, DenseByteSize(b->element_type(), b->dims()));
    if (args->dst == nullptr) {
      args->dst_size = needed;
      return OkStatus();
    }
    if (args->dst_size < needed) {
      return InvalidArgumentError(std::string(kFn) + ": destination holds " +
                                  std::to_string(args->dst_size) + " bytes; the buffer needs " +
                                  std::to_string(needed));
    }
    BERTH_ASSIGN_OR_RETURN(Event event, b->ToHostBuffer(args->dst, needed));
    args->event = NewCEvent(std::move(event));
    return OkStatus();
  });
}

BERTH_Error* BufferCopyToDevice(BERTH_Buffer_CopyToDevice_Args* args) {
  constexpr const char* kFn = "BERTH_Buffer_CopyToDevice";
  return Guard(kFn, args, BERTH_Buffer_CopyToDevice_Args_STRUCT_SIZE, [&]() -> Status {
    args->dst_buffer = nullptr;
    BERTH_ASSIGN_OR_RETURN(Buffer * b, CheckBuffer(args->buffer, kFn));
    if (args->dst_device == nullptr) return NullArgument(kFn, "dst_device");
    if (b->IsDeleted()) {
      return FailedPreconditionError(std::string(kFn) + ": the buffer has been deleted");
    }
    Device* dst = FromC(args->dst_device);
    if (!dst->is_addressable()) {
      return InvalidArgumentError(std::string(kFn) + ": device " +
                                  dst->description().debug_string() + " is not addressable");
    }
    BERTH_ASSIGN_OR_RETURN(std::unique_ptr<Buffer> copy, b->CopyToDevice(dst));
    if (copy == nullptr) return InternalError(std::string(kFn) + ": no buffer returned");
    args->dst_buffer = new BERTH_Buffer{std::move(copy)};
    return OkStatus();
  });
}

}  // namespace

void FillBufferEntries(BERTH_Api& api) {
  api.BERTH_Client_BufferFromHostBuffer = ClientBufferFromHostBuffer;
  api.BERTH_Buffer_Destroy = BufferDestroy;
  api.BERTH_Buffer_ElementType = BufferElementType;
  api.BERTH_Buffer_Dimensions = BufferDimensions;
  api.BERTH_Buffer_OnDeviceSizeInBytes = BufferOnDeviceSize;
  api.BERTH_Buffer_Device = BufferDevice;
  api.BERTH_Buffer_Memory = BufferMemory;
  api.BERTH_Buffer_Delete = BufferDelete;
  api.BERTH_Buffer_IsDeleted = BufferIsDeleted;
  api.BERTH_Buffer_ReadyEvent = BufferReadyEvent;
  api.BERTH_Buffer_ToHostBuffer = BufferToHostBuffer;
  api.BERTH_Buffer_CopyToDevice = BufferCopyToDevice;
}

}  // namespace berth::plugin::glue
