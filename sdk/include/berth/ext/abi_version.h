/* Berth `abi_version` extension: runtime and executable ABI versions, and
 * serialized executables.
 *
 * A plugin reports the ABI version of its runtime and stamps every executable
 * with the ABI version of its serialized form. The host writes serialized
 * executables in the `berth-executable` container (plugin, versions,
 * fingerprint, payload; docs/berth-executable.md) and, before loading one,
 * asks the plugin whether an executable of that version runs on this runtime.
 *
 * This header is C11 and C++20 clean; it depends only on berth/c_api.h.
 */
#ifndef BERTH_EXT_ABI_VERSION_H_
#define BERTH_EXT_ABI_VERSION_H_

#include "berth/c_api.h"

/* 1: the first. */
#define BERTH_ABI_VERSION_EXTENSION_VERSION 1

#ifdef __cplusplus
extern "C" {
#endif

typedef struct BERTH_AbiVersion_Number {
  int32_t major;
  int32_t minor;
} BERTH_AbiVersion_Number;

typedef struct BERTH_AbiVersion_Runtime_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Client* client;
  BERTH_AbiVersion_Number runtime;            /* out */
  BERTH_AbiVersion_Number newest_executable;  /* out: what Serialize stamps */
} BERTH_AbiVersion_Runtime_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_AbiVersion_Runtime_Args, newest_executable)

/* The client's runtime ABI version. Since: abi_version 1. */
typedef BERTH_Error* BERTH_AbiVersion_Runtime(BERTH_AbiVersion_Runtime_Args* args);

typedef struct BERTH_AbiVersion_IsCompatible_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Client* client;
  BERTH_AbiVersion_Number executable; /* stamped on the serialized executable */
  BERTH_AbiVersion_Number runtime;    /* of the runtime that serialized it */
} BERTH_AbiVersion_IsCompatible_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_AbiVersion_IsCompatible_Args, runtime)

/* NULL when an executable of these versions loads on this client; else
 * FAILED_PRECONDITION saying which version is not supported and which are.
 * Since: abi_version 1. */
typedef BERTH_Error* BERTH_AbiVersion_IsCompatible(BERTH_AbiVersion_IsCompatible_Args* args);

/* Bytes the plugin made; the caller hands `owner` to `release` when done. */
typedef struct BERTH_AbiVersion_Bytes {
  const char* data; /* owned by `owner` */
  size_t size;
  void* owner;
  void (*release)(void* owner);
} BERTH_AbiVersion_Bytes;

typedef struct BERTH_AbiVersion_Serialize_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_LoadedExecutable* executable;
  BERTH_AbiVersion_Number executable_version; /* out */
  BERTH_AbiVersion_Bytes payload;             /* out; the caller releases it */
} BERTH_AbiVersion_Serialize_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_AbiVersion_Serialize_Args, payload)

/* The executable's plugin-specific serialized form. Since: abi_version 1. */
typedef BERTH_Error* BERTH_AbiVersion_Serialize(BERTH_AbiVersion_Serialize_Args* args);

typedef struct BERTH_AbiVersion_DeserializeAndLoad_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Client* client;
  const char* payload; /* borrowed for the call */
  size_t payload_size;
  BERTH_AbiVersion_Number executable_version; /* as stamped at Serialize */
  BERTH_LoadedExecutable* executable;         /* out; caller destroys */
} BERTH_AbiVersion_DeserializeAndLoad_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_AbiVersion_DeserializeAndLoad_Args, executable)

/* Loads a payload made by Serialize on this client's devices. Must reject any
 * payload it cannot fully check (INVALID_ARGUMENT / DATA_LOSS), never crash.
 * Since: abi_version 1. */
typedef BERTH_Error* BERTH_AbiVersion_DeserializeAndLoad(
    BERTH_AbiVersion_DeserializeAndLoad_Args* args);

/* What a plugin puts in its chain (type BERTH_Extension_Type_AbiVersion). */
typedef struct BERTH_AbiVersion_Extension {
  BERTH_Extension_Base base;
  int32_t version; /* BERTH_ABI_VERSION_EXTENSION_VERSION */
  BERTH_AbiVersion_Runtime* runtime;
  BERTH_AbiVersion_IsCompatible* is_compatible;
  BERTH_AbiVersion_Serialize* serialize;
  BERTH_AbiVersion_DeserializeAndLoad* deserialize_and_load;
} BERTH_AbiVersion_Extension;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_AbiVersion_Extension, deserialize_and_load)

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* BERTH_EXT_ABI_VERSION_H_ */
