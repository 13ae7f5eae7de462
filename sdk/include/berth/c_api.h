/* Berth plugin ABI, the contract between the Berth host and backend plugins.
 *
 * Rules (see sdk/README.md and docs/abi.md for the reasoning):
 * - A plugin exports exactly one C symbol: `const BERTH_Api* BERTH_GetApi(void)`.
 *   The table it returns is owned by the plugin and lives as long as the library
 *   stays loaded.
 * - BERTH_API_MAJOR must match between host and plugin; any minor works. A
 *   function is present only when the table's `struct_size` covers its field
 *   and the pointer is not NULL; otherwise the host treats it as UNIMPLEMENTED.
 * - Every function takes one args struct that begins with `struct_size` and
 *   `extension_start`. New fields are only ever appended. Callers set
 *   `struct_size` to the `*_STRUCT_SIZE` constant they were compiled with.
 *   Callees accept a larger struct (ignoring what they do not know), and reject
 *   a struct smaller than the struct's 1.0 size with INVALID_ARGUMENT naming the
 *   struct and both sizes. Fields appended in a later minor are read only when
 *   `struct_size` covers them.
 * - Functions return `BERTH_Error*`: NULL is success; otherwise the caller owns
 *   the error and frees it with BERTH_Error_Destroy of the same table.
 * - No C++ exception ever crosses this boundary.
 * - Ownership: whoever allocates frees through its own destroy call; borrowed
 *   inputs live for the duration of the call; every pointer field says who owns
 *   it and for how long. Strings are (pointer, size) pairs and are not
 *   necessarily NUL-terminated.
 * - Enumerations are carried as int32_t typedefs with named values, so a
 *   value one side does not know (a newer extension type, a bad element type)
 *   is still a well-defined integer to the other.
 * - Extensions are a chain of BERTH_Extension_Base hanging off the table (and
 *   off any args struct). Types are appended, never renumbered. A reader skips
 *   types it does not know; a chain holding one type twice is an error.
 *
 * This header is C11 and C++20 clean and has no dependency beyond the C
 * standard library headers below.
 */
#ifndef BERTH_C_API_H_
#define BERTH_C_API_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define BERTH_API_MAJOR 1
#define BERTH_API_MINOR 3

#ifdef __cplusplus
extern "C" {
#endif

/* Size of a struct up to and including its member `last_field`. */
#define BERTH_STRUCT_SIZE(type, last_field) \
  (offsetof(type, last_field) + sizeof(((type*)0)->last_field))

#ifdef __cplusplus
#define BERTH_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#define BERTH_ALIGNOF(type) alignof(type)
#else
#define BERTH_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#define BERTH_ALIGNOF(type) _Alignof(type)
#endif

/* Compile-time guard: `last_field` really is the last member of `type`, so a
 * field appended without updating the *_STRUCT_SIZE constant fails to build. */
#define BERTH_CHECK_STRUCT_SIZE(type, last_field)                             \
  BERTH_STATIC_ASSERT(                                                        \
      (BERTH_STRUCT_SIZE(type, last_field) + BERTH_ALIGNOF(type) - 1) /       \
              BERTH_ALIGNOF(type) * BERTH_ALIGNOF(type) ==                    \
          sizeof(type),                                                       \
      #type " has members after " #last_field "; update its STRUCT_SIZE");

#define BERTH_DEFINE_STRUCT_TRAITS(type, last_field)               \
  enum { type##_STRUCT_SIZE = BERTH_STRUCT_SIZE(type, last_field) }; \
  BERTH_CHECK_STRUCT_SIZE(type, last_field)

/* ------------------------------- Extensions -------------------------------- */

/* Extension types. Appended, never renumbered. Since: 1.0 unless noted. */
typedef int32_t BERTH_Extension_Type;
enum BERTH_Extension_Type_Values {
  BERTH_Extension_Type_Ffi = 1,
  BERTH_Extension_Type_Callback = 2,
  BERTH_Extension_Type_CustomPartitioner = 3,
  BERTH_Extension_Type_Collectives = 4,
  BERTH_Extension_Type_AbiVersion = 5,
  BERTH_Extension_Type_MultiSlice = 6,
  BERTH_Extension_Type_PhaseCompile = 7,
  BERTH_Extension_Type_LiveObjects = 8, /* Since: 1.1 (berth/ext/live_objects.h) */
};

/* Head of every extension struct. An extension struct embeds this as its first
 * member and sets `type`; `struct_size` covers the whole extension struct. */
typedef struct BERTH_Extension_Base {
  size_t struct_size;
  BERTH_Extension_Type type;
  struct BERTH_Extension_Base* next; /* borrowed; same owner as this node */
} BERTH_Extension_Base;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Extension_Base, next)

/* --------------------------------- Errors ---------------------------------- */

/* Numerically equal to the canonical status codes (absl/gRPC). */
typedef int32_t BERTH_Error_Code;
enum BERTH_Error_Code_Values {
  BERTH_Error_Code_OK = 0,
  BERTH_Error_Code_CANCELLED = 1,
  BERTH_Error_Code_UNKNOWN = 2,
  BERTH_Error_Code_INVALID_ARGUMENT = 3,
  BERTH_Error_Code_DEADLINE_EXCEEDED = 4,
  BERTH_Error_Code_NOT_FOUND = 5,
  BERTH_Error_Code_ALREADY_EXISTS = 6,
  BERTH_Error_Code_PERMISSION_DENIED = 7,
  BERTH_Error_Code_RESOURCE_EXHAUSTED = 8,
  BERTH_Error_Code_FAILED_PRECONDITION = 9,
  BERTH_Error_Code_ABORTED = 10,
  BERTH_Error_Code_OUT_OF_RANGE = 11,
  BERTH_Error_Code_UNIMPLEMENTED = 12,
  BERTH_Error_Code_INTERNAL = 13,
  BERTH_Error_Code_UNAVAILABLE = 14,
  BERTH_Error_Code_DATA_LOSS = 15,
  BERTH_Error_Code_UNAUTHENTICATED = 16,
};

/* An error made by the plugin. Opaque. */
typedef struct BERTH_Error BERTH_Error;

typedef struct BERTH_Error_Destroy_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Error* error; /* owned by the caller; freed here; NULL is a no-op */
} BERTH_Error_Destroy_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Error_Destroy_Args, error)

/* Frees an error. It returns nothing, so it cannot refuse bad arguments: with
 * NULL args, a too-small struct or a NULL error it does nothing. Since: 1.0. */
typedef void BERTH_Error_Destroy(BERTH_Error_Destroy_Args* args);

typedef struct BERTH_Error_Message_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  const BERTH_Error* error;
  const char* message; /* out; owned by `error`, lives as long as it */
  size_t message_size; /* out */
} BERTH_Error_Message_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Error_Message_Args, message_size)

/* Gives the error's message. Like BERTH_Error_Destroy it cannot refuse bad
 * arguments: with NULL args or a too-small struct it does nothing, with a
 * NULL error it gives an empty message. Since: 1.0. */
typedef void BERTH_Error_Message(BERTH_Error_Message_Args* args);

typedef struct BERTH_Error_GetCode_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  const BERTH_Error* error;
  BERTH_Error_Code code; /* out */
} BERTH_Error_GetCode_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Error_GetCode_Args, code)

/* Gives the error's canonical code. Since: 1.0. */
typedef BERTH_Error* BERTH_Error_GetCode(BERTH_Error_GetCode_Args* args);

/* ------------------------------ Named values ------------------------------- */

typedef int32_t BERTH_NamedValue_Type;
enum BERTH_NamedValue_Type_Values {
  BERTH_NamedValue_Type_String = 0,
  BERTH_NamedValue_Type_Int64 = 1,
  BERTH_NamedValue_Type_Int64List = 2,
  BERTH_NamedValue_Type_Float64 = 3,
  BERTH_NamedValue_Type_Bool = 4,
};

/* A typed name/value pair: client options and attributes. */
typedef struct BERTH_NamedValue {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  const char* name; /* borrowed; lifetime given by the producer */
  size_t name_size;
  BERTH_NamedValue_Type type;
  union {
    const char* string_value;        /* borrowed, like `name` */
    int64_t int64_value;
    const int64_t* int64_list_value; /* borrowed, like `name` */
    double float64_value;
    bool bool_value;
  };
  /* String: its size in bytes. Int64List: number of elements. Else 1. */
  size_t value_size;
} BERTH_NamedValue;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_NamedValue, value_size)

/* ------------------------------ Host services ------------------------------ */

typedef int32_t BERTH_LogLevel;
enum BERTH_LogLevel_Values {
  BERTH_LogLevel_Error = 0,
  BERTH_LogLevel_Warning = 1,
  BERTH_LogLevel_Info = 2,
  BERTH_LogLevel_Debug = 3,
};

/* Writes one line to the host's log. `message` is borrowed for the call. Safe
 * to call from any thread. */
typedef void BERTH_Host_Log(void* user_data, BERTH_LogLevel level,
                            const char* message, size_t message_size);

/* Services the host offers every plugin, given at BERTH_Plugin_Initialize.
 * Lives until the library is unloaded. Fields may grow: read a field only when
 * `struct_size` covers it. */
typedef struct BERTH_HostServices {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  void* user_data;           /* passed back to every callback below */
  BERTH_Host_Log* log;       /* may be NULL: the plugin then stays silent */
  BERTH_LogLevel log_level;  /* lines above this level are dropped by the host */
  const char* host_name;     /* e.g. "berth 0.1.0"; owned by the host */
  size_t host_name_size;
} BERTH_HostServices;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_HostServices, host_name_size)

/* Bytes allocated by the host for the plugin; the plugin calls `release` once
 * it is done with them (when `release` is not NULL). */
typedef struct BERTH_HostBytes {
  char* data;
  size_t size;
  void (*release)(char* data);
} BERTH_HostBytes;

typedef struct BERTH_KeyValue_Get_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  void* user_data;     /* BERTH_KeyValueStore.user_data */
  const char* key;     /* borrowed for the call */
  size_t key_size;
  int64_t timeout_ms;  /* < 0: do not wait (try-get); else wait this long */
  BERTH_HostBytes value;   /* out on success */
  BERTH_HostBytes message; /* out on failure: why, for the plugin's error */
} BERTH_KeyValue_Get_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_KeyValue_Get_Args, message)

typedef struct BERTH_KeyValue_Put_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  void* user_data;    /* BERTH_KeyValueStore.user_data */
  const char* key;    /* borrowed for the call */
  size_t key_size;
  const char* value;  /* borrowed for the call */
  size_t value_size;
  bool allow_overwrite;
  BERTH_HostBytes message; /* out on failure */
} BERTH_KeyValue_Put_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_KeyValue_Put_Args, message)

/* Key-value callbacks return a canonical code: OK, NOT_FOUND (try-get of a
 * missing key), DEADLINE_EXCEEDED (blocking get timed out), ALREADY_EXISTS,
 * UNAVAILABLE (coordination lost) ... */
typedef BERTH_Error_Code BERTH_KeyValue_Get(BERTH_KeyValue_Get_Args* args);
typedef BERTH_Error_Code BERTH_KeyValue_Put(BERTH_KeyValue_Put_Args* args);

/* A job-wide key-value store run by the host's coordination service. Plugins
 * use it to bootstrap collectives (rendezvous, unique ids). Every key a plugin
 * writes is private to its client's namespace. */
typedef struct BERTH_KeyValueStore {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  void* user_data;
  BERTH_KeyValue_Get* get;
  BERTH_KeyValue_Put* put;
} BERTH_KeyValueStore;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_KeyValueStore, put)

/* --------------------------------- Plugin ---------------------------------- */

typedef struct BERTH_Plugin_Initialize_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  int32_t host_api_major;
  int32_t host_api_minor;
  /* Borrowed; valid until the library is unloaded. Never NULL. */
  const BERTH_HostServices* host_services;
} BERTH_Plugin_Initialize_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Plugin_Initialize_Args, host_services)

/* Called once by the host, before any other function except the error
 * functions. A plugin may adapt to an older host minor here. Since: 1.0. */
typedef BERTH_Error* BERTH_Plugin_Initialize(BERTH_Plugin_Initialize_Args* args);

typedef struct BERTH_Plugin_Attributes_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  const BERTH_NamedValue* attributes; /* out; owned by the plugin, static */
  size_t num_attributes;              /* out */
} BERTH_Plugin_Attributes_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Plugin_Attributes_Args, num_attributes)

/* Plugin-wide attributes. Since: 1.0.
 *
 * Well-known attributes (docs/abi.md, "Plugin attributes"): a plugin need not
 * give any of them, but one it gives has this name, type and meaning. Hosts
 * and `berth conformance` warn about a well-known attribute of another type or
 * with a value outside its range; other names are the plugin's own.
 *
 *   name                 type       meaning
 *   "vendor"             String     who makes the plugin
 *   "stablehlo_support"  Bool       compiles programs of format "stablehlo"
 *   "element_types"      Int64List  BERTH_Buffer_Type values its buffers take
 *   "supported_ops"      String     comma-separated op names it runs (e.g.
 *                                   "stablehlo.add,stablehlo.dot_general"); a
 *                                   plugin giving it is held to the list, one
 *                                   without it may answer UNIMPLEMENTED naming
 *                                   any op it does not run */
#define BERTH_ATTRIBUTE_VENDOR "vendor"
#define BERTH_ATTRIBUTE_STABLEHLO_SUPPORT "stablehlo_support"
#define BERTH_ATTRIBUTE_ELEMENT_TYPES "element_types"
#define BERTH_ATTRIBUTE_SUPPORTED_OPS "supported_ops"
typedef BERTH_Error* BERTH_Plugin_Attributes(BERTH_Plugin_Attributes_Args* args);

/* --------------------------------- Events ---------------------------------- */

/* Completion of asynchronous work, with an error when it failed. */
typedef struct BERTH_Event BERTH_Event;

typedef struct BERTH_Event_Destroy_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Event* event; /* owned by the caller; freed here; NULL is a no-op */
} BERTH_Event_Destroy_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Event_Destroy_Args, event)

/* Frees the event. Pending work goes on; registered callbacks still run.
 * Since: 1.0. */
typedef BERTH_Error* BERTH_Event_Destroy(BERTH_Event_Destroy_Args* args);

typedef struct BERTH_Event_IsReady_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Event* event;
  bool is_ready; /* out */
} BERTH_Event_IsReady_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Event_IsReady_Args, is_ready)

typedef BERTH_Error* BERTH_Event_IsReady(BERTH_Event_IsReady_Args* args);

typedef struct BERTH_Event_Error_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Event* event;
} BERTH_Event_Error_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Event_Error_Args, event)

/* Returns a copy of the event's error (caller owns it), or NULL when the event
 * succeeded. FAILED_PRECONDITION when the event is not ready. Since: 1.0. */
typedef BERTH_Error* BERTH_Event_Error(BERTH_Event_Error_Args* args);

typedef struct BERTH_Event_Await_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Event* event;
} BERTH_Event_Await_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Event_Await_Args, event)

/* Blocks until the event is ready; returns a copy of its error (caller owns
 * it) or NULL. Since: 1.0. */
typedef BERTH_Error* BERTH_Event_Await(BERTH_Event_Await_Args* args);

/* Runs once when the event is ready, on an unspecified thread (possibly the
 * registering one, when already ready). Takes ownership of `error` (NULL on
 * success) and must destroy it. Must not block. */
typedef void BERTH_Event_Callback(BERTH_Error* error, void* user_arg);

typedef struct BERTH_Event_OnReady_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Event* event;
  BERTH_Event_Callback* callback;
  void* user_arg; /* passed to `callback`; owned by the caller */
} BERTH_Event_OnReady_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Event_OnReady_Args, user_arg)

typedef BERTH_Error* BERTH_Event_OnReady(BERTH_Event_OnReady_Args* args);

/* --------------------------- Buffer element types --------------------------- */

/* Appended, never renumbered. Since: 1.0. */
typedef int32_t BERTH_Buffer_Type;
enum BERTH_Buffer_Type_Values {
  BERTH_Buffer_Type_INVALID = 0,
  BERTH_Buffer_Type_PRED = 1, /* i1, one byte per element (0 or 1) */
  BERTH_Buffer_Type_S8 = 2,
  BERTH_Buffer_Type_S16 = 3,
  BERTH_Buffer_Type_S32 = 4,
  BERTH_Buffer_Type_S64 = 5,
  BERTH_Buffer_Type_U8 = 6,
  BERTH_Buffer_Type_U16 = 7,
  BERTH_Buffer_Type_U32 = 8,
  BERTH_Buffer_Type_U64 = 9,
  BERTH_Buffer_Type_F16 = 10,
  BERTH_Buffer_Type_F32 = 11,
  BERTH_Buffer_Type_F64 = 12,
  BERTH_Buffer_Type_BF16 = 13,
  BERTH_Buffer_Type_C64 = 14,
  BERTH_Buffer_Type_C128 = 15,
  BERTH_Buffer_Type_F8E5M2 = 16,
  BERTH_Buffer_Type_F8E4M3FN = 17,
  BERTH_Buffer_Type_F8E4M3B11FNUZ = 18,
  BERTH_Buffer_Type_F8E5M2FNUZ = 19,
  BERTH_Buffer_Type_F8E4M3FNUZ = 20,
  BERTH_Buffer_Type_S4 = 21, /* sub-byte types: one element per byte */
  BERTH_Buffer_Type_U4 = 22,
  BERTH_Buffer_Type_TOKEN = 23,
  BERTH_Buffer_Type_S2 = 24,
  BERTH_Buffer_Type_U2 = 25,
  BERTH_Buffer_Type_F8E4M3 = 26,
  BERTH_Buffer_Type_F8E3M4 = 27,
  BERTH_Buffer_Type_F8E8M0FNU = 28,
  BERTH_Buffer_Type_F4E2M1FN = 29,
  BERTH_Buffer_Type_F6E2M3FN = 30,
  BERTH_Buffer_Type_F6E3M2FN = 31,
};

/* ---------------------------------- Client --------------------------------- */

typedef struct BERTH_Client BERTH_Client;
typedef struct BERTH_Device BERTH_Device;
typedef struct BERTH_DeviceDescription BERTH_DeviceDescription;
typedef struct BERTH_Memory BERTH_Memory;
typedef struct BERTH_Buffer BERTH_Buffer;
typedef struct BERTH_Executable BERTH_Executable;
typedef struct BERTH_LoadedExecutable BERTH_LoadedExecutable;
typedef struct BERTH_TopologyDescription BERTH_TopologyDescription;

/* Options every plugin accepts besides its own (docs/abi.md, "Reserved
 * options"): "node_id" (Int64, 0 <= node_id < num_nodes) and "num_nodes"
 * (Int64, >= 1), this process's place in a distributed job; the host sets
 * them for every client of a job, num_nodes = 1 included. Since 1.3:
 * "node_address" (String, not empty), the IP address other nodes of the job
 * reach this process at (IPv4 dotted or IPv6 without brackets); the host sets
 * it for plugins of 1.3 and later in a job of several nodes. A plugin rejects
 * an option it does not know, or of the wrong type, with INVALID_ARGUMENT
 * naming the option; the SDK's glue checks the reserved ones and its
 * OptionReader accepts them. */
#define BERTH_OPTION_NODE_ID "node_id"
#define BERTH_OPTION_NUM_NODES "num_nodes"
#define BERTH_OPTION_NODE_ADDRESS "node_address"
typedef struct BERTH_Client_Create_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  const BERTH_NamedValue* options; /* borrowed for the call; may be NULL */
  size_t num_options;
  /* Borrowed; lives until the client is destroyed. NULL for a client that is
   * not part of a distributed job. */
  const BERTH_KeyValueStore* kv_store;
  BERTH_Client* client; /* out; destroy with BERTH_Client_Destroy */
} BERTH_Client_Create_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Client_Create_Args, client)

/* Creates a client for this plugin's devices. Since: 1.0. */
typedef BERTH_Error* BERTH_Client_Create(BERTH_Client_Create_Args* args);

typedef struct BERTH_Client_Destroy_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Client* client; /* owned by the caller; freed here; NULL is a no-op */
} BERTH_Client_Destroy_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Client_Destroy_Args, client)

/* Destroys the client. Buffers and executables made from it must be destroyed
 * first; devices and memories become invalid. Since: 1.0. */
typedef BERTH_Error* BERTH_Client_Destroy(BERTH_Client_Destroy_Args* args);

typedef struct BERTH_Client_PlatformName_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Client* client;
  const char* platform_name; /* out; owned by the client, lives as long */
  size_t platform_name_size; /* out */
} BERTH_Client_PlatformName_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Client_PlatformName_Args, platform_name_size)

typedef BERTH_Error* BERTH_Client_PlatformName(BERTH_Client_PlatformName_Args* args);

typedef struct BERTH_Client_PlatformVersion_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Client* client;
  const char* platform_version; /* out; owned by the client, lives as long */
  size_t platform_version_size; /* out */
} BERTH_Client_PlatformVersion_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Client_PlatformVersion_Args, platform_version_size)

typedef BERTH_Error* BERTH_Client_PlatformVersion(BERTH_Client_PlatformVersion_Args* args);

typedef struct BERTH_Client_ProcessIndex_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Client* client;
  int32_t process_index; /* out; 0 outside a distributed job */
} BERTH_Client_ProcessIndex_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Client_ProcessIndex_Args, process_index)

typedef BERTH_Error* BERTH_Client_ProcessIndex(BERTH_Client_ProcessIndex_Args* args);

typedef struct BERTH_Client_Devices_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Client* client;
  /* out; array and devices owned by the client, live as long as it */
  BERTH_Device* const* devices;
  size_t num_devices; /* out */
} BERTH_Client_Devices_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Client_Devices_Args, num_devices)

/* All devices of the job, addressable or not, ordered by id. Since: 1.0. */
typedef BERTH_Error* BERTH_Client_Devices(BERTH_Client_Devices_Args* args);

typedef struct BERTH_Client_AddressableDevices_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Client* client;
  /* out; array and devices owned by the client, live as long as it */
  BERTH_Device* const* addressable_devices;
  size_t num_addressable_devices; /* out */
} BERTH_Client_AddressableDevices_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Client_AddressableDevices_Args, num_addressable_devices)

/* Devices this process can address. Since: 1.0. */
typedef BERTH_Error* BERTH_Client_AddressableDevices(
    BERTH_Client_AddressableDevices_Args* args);

typedef struct BERTH_Client_LookupDevice_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Client* client;
  int64_t id;
  BERTH_Device* device; /* out; owned by the client */
} BERTH_Client_LookupDevice_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Client_LookupDevice_Args, device)

/* Finds a device by its global id; NOT_FOUND naming the id. Since: 1.0. */
typedef BERTH_Error* BERTH_Client_LookupDevice(BERTH_Client_LookupDevice_Args* args);

typedef struct BERTH_Client_AddressableMemories_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Client* client;
  BERTH_Memory* const* addressable_memories; /* out; owned by the client */
  size_t num_addressable_memories;           /* out */
} BERTH_Client_AddressableMemories_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Client_AddressableMemories_Args, num_addressable_memories)

typedef BERTH_Error* BERTH_Client_AddressableMemories(
    BERTH_Client_AddressableMemories_Args* args);

/* A program to compile. The host never interprets it. */
typedef struct BERTH_Program {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  const char* format; /* "stablehlo" or "berth-executable"; borrowed */
  size_t format_size;
  const char* code;   /* borrowed for the call */
  size_t code_size;
} BERTH_Program;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Program, code_size)

/* How to compile. Zero replicas/partitions: take them from the program (the
 * module's mhlo.num_replicas / mhlo.num_partitions), else 1. */
typedef struct BERTH_CompileOptions {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  int64_t num_replicas;
  int64_t num_partitions;
  /* Global device id of replica r, partition p at [r * num_partitions + p];
   * borrowed for the call; NULL for the plugin's default assignment. */
  const int64_t* device_assignment;
  size_t device_assignment_size;
  const char* entry_name; /* borrowed; NULL/empty: "main" or the only public function */
  size_t entry_name_size;
  /* Plugin-specific, plus the reserved "source_name" (String: the file the
   * program came from, for diagnostics), which every plugin accepts; borrowed;
   * may be NULL. */
  const BERTH_NamedValue* options;
  size_t num_options;
} BERTH_CompileOptions;
#define BERTH_OPTION_SOURCE_NAME "source_name"
BERTH_DEFINE_STRUCT_TRAITS(BERTH_CompileOptions, num_options)

typedef struct BERTH_Client_Compile_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Client* client;
  const BERTH_Program* program;         /* borrowed for the call */
  const BERTH_CompileOptions* options;  /* borrowed; NULL means defaults */
  BERTH_LoadedExecutable* executable;   /* out; destroy with LoadedExecutable_Destroy */
} BERTH_Client_Compile_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Client_Compile_Args, executable)

/* Compiles and loads a program onto the client's devices. Since: 1.0. */
typedef BERTH_Error* BERTH_Client_Compile(BERTH_Client_Compile_Args* args);

typedef int32_t BERTH_HostBufferSemantics;
enum BERTH_HostBufferSemantics_Values {
  /* The host data may change or be freed as soon as the call returns. */
  BERTH_HostBufferSemantics_ImmutableOnlyDuringCall = 0,
  /* The host data stays valid until `done_with_host_buffer` is ready. */
  BERTH_HostBufferSemantics_ImmutableUntilTransferCompletes = 1,
};

typedef struct BERTH_Client_BufferFromHostBuffer_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Client* client;
  const void* data;         /* borrowed as `host_buffer_semantics` says */
  BERTH_Buffer_Type type;
  const int64_t* dims;      /* borrowed for the call */
  size_t num_dims;
  /* Byte strides per dimension; borrowed; NULL for dense major-to-minor. */
  const int64_t* byte_strides;
  size_t num_byte_strides;
  BERTH_HostBufferSemantics host_buffer_semantics;
  BERTH_Device* device;     /* addressable device of `client` */
  BERTH_Memory* memory;     /* may be NULL: the device's default memory */
  BERTH_Event* done_with_host_buffer; /* out; caller destroys; may be NULL */
  BERTH_Buffer* buffer;     /* out; destroy with BERTH_Buffer_Destroy */
} BERTH_Client_BufferFromHostBuffer_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Client_BufferFromHostBuffer_Args, buffer)

/* Copies host data into a new buffer on a device. Since: 1.0. */
typedef BERTH_Error* BERTH_Client_BufferFromHostBuffer(
    BERTH_Client_BufferFromHostBuffer_Args* args);

typedef struct BERTH_Client_TopologyDescription_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Client* client;
  /* out; owned by the client, lives as long as it */
  BERTH_TopologyDescription* topology;
} BERTH_Client_TopologyDescription_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Client_TopologyDescription_Args, topology)

typedef BERTH_Error* BERTH_Client_TopologyDescription(
    BERTH_Client_TopologyDescription_Args* args);

/* ------------------------------ Device description ------------------------- */

typedef struct BERTH_DeviceDescription_Id_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_DeviceDescription* device_description;
  int64_t id; /* out; the global device id, unique in the job */
} BERTH_DeviceDescription_Id_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_DeviceDescription_Id_Args, id)

typedef BERTH_Error* BERTH_DeviceDescription_Id(BERTH_DeviceDescription_Id_Args* args);

typedef struct BERTH_DeviceDescription_ProcessIndex_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_DeviceDescription* device_description;
  int32_t process_index; /* out */
} BERTH_DeviceDescription_ProcessIndex_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_DeviceDescription_ProcessIndex_Args, process_index)

typedef BERTH_Error* BERTH_DeviceDescription_ProcessIndex(
    BERTH_DeviceDescription_ProcessIndex_Args* args);

typedef struct BERTH_DeviceDescription_Kind_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_DeviceDescription* device_description;
  const char* device_kind; /* out; owned by the description, lives as long */
  size_t device_kind_size; /* out */
} BERTH_DeviceDescription_Kind_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_DeviceDescription_Kind_Args, device_kind_size)

/* The device kind, e.g. "cpu" or "NVIDIA H100". Since: 1.0. */
typedef BERTH_Error* BERTH_DeviceDescription_Kind(BERTH_DeviceDescription_Kind_Args* args);

typedef struct BERTH_DeviceDescription_Attributes_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_DeviceDescription* device_description;
  const BERTH_NamedValue* attributes; /* out; owned by the description */
  size_t num_attributes;              /* out */
} BERTH_DeviceDescription_Attributes_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_DeviceDescription_Attributes_Args, num_attributes)

typedef BERTH_Error* BERTH_DeviceDescription_Attributes(
    BERTH_DeviceDescription_Attributes_Args* args);

typedef struct BERTH_DeviceDescription_DebugString_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_DeviceDescription* device_description;
  const char* debug_string; /* out; owned by the description */
  size_t debug_string_size; /* out */
} BERTH_DeviceDescription_DebugString_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_DeviceDescription_DebugString_Args, debug_string_size)

typedef BERTH_Error* BERTH_DeviceDescription_DebugString(
    BERTH_DeviceDescription_DebugString_Args* args);

/* ---------------------------------- Device --------------------------------- */

typedef struct BERTH_Device_GetDescription_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Device* device;
  BERTH_DeviceDescription* device_description; /* out; owned by the device */
} BERTH_Device_GetDescription_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Device_GetDescription_Args, device_description)

typedef BERTH_Error* BERTH_Device_GetDescription(BERTH_Device_GetDescription_Args* args);

typedef struct BERTH_Device_IsAddressable_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Device* device;
  bool is_addressable; /* out */
} BERTH_Device_IsAddressable_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Device_IsAddressable_Args, is_addressable)

typedef BERTH_Error* BERTH_Device_IsAddressable(BERTH_Device_IsAddressable_Args* args);

typedef struct BERTH_Device_LocalHardwareId_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Device* device;
  int32_t local_hardware_id; /* out; -1 when not addressable */
} BERTH_Device_LocalHardwareId_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Device_LocalHardwareId_Args, local_hardware_id)

typedef BERTH_Error* BERTH_Device_LocalHardwareId(BERTH_Device_LocalHardwareId_Args* args);

typedef struct BERTH_Device_AddressableMemories_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Device* device;
  BERTH_Memory* const* memories; /* out; owned by the client */
  size_t num_memories;           /* out */
} BERTH_Device_AddressableMemories_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Device_AddressableMemories_Args, num_memories)

typedef BERTH_Error* BERTH_Device_AddressableMemories(
    BERTH_Device_AddressableMemories_Args* args);

typedef struct BERTH_Device_DefaultMemory_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Device* device;
  BERTH_Memory* memory; /* out; owned by the client */
} BERTH_Device_DefaultMemory_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Device_DefaultMemory_Args, memory)

typedef BERTH_Error* BERTH_Device_DefaultMemory(BERTH_Device_DefaultMemory_Args* args);

/* ---------------------------------- Memory --------------------------------- */

typedef struct BERTH_Memory_Id_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Memory* memory;
  int32_t id; /* out */
} BERTH_Memory_Id_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Memory_Id_Args, id)

typedef BERTH_Error* BERTH_Memory_Id(BERTH_Memory_Id_Args* args);

typedef struct BERTH_Memory_Kind_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Memory* memory;
  const char* kind; /* out; e.g. "device", "pinned_host"; owned by the client */
  size_t kind_size; /* out */
} BERTH_Memory_Kind_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Memory_Kind_Args, kind_size)

typedef BERTH_Error* BERTH_Memory_Kind(BERTH_Memory_Kind_Args* args);

typedef struct BERTH_Memory_AddressableByDevices_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Memory* memory;
  BERTH_Device* const* devices; /* out; owned by the client */
  size_t num_devices;           /* out */
} BERTH_Memory_AddressableByDevices_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Memory_AddressableByDevices_Args, num_devices)

typedef BERTH_Error* BERTH_Memory_AddressableByDevices(
    BERTH_Memory_AddressableByDevices_Args* args);

/* ---------------------------------- Buffer --------------------------------- */

typedef struct BERTH_Buffer_Destroy_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Buffer* buffer; /* owned by the caller; freed here; NULL is a no-op */
} BERTH_Buffer_Destroy_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Buffer_Destroy_Args, buffer)

/* Frees the handle and, when no pending work still reads it, its memory.
 * Since: 1.0. */
typedef BERTH_Error* BERTH_Buffer_Destroy(BERTH_Buffer_Destroy_Args* args);

typedef struct BERTH_Buffer_ElementType_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Buffer* buffer;
  BERTH_Buffer_Type type; /* out */
} BERTH_Buffer_ElementType_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Buffer_ElementType_Args, type)

typedef BERTH_Error* BERTH_Buffer_ElementType(BERTH_Buffer_ElementType_Args* args);

typedef struct BERTH_Buffer_Dimensions_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Buffer* buffer;
  const int64_t* dims; /* out; owned by the buffer, lives as long */
  size_t num_dims;     /* out */
} BERTH_Buffer_Dimensions_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Buffer_Dimensions_Args, num_dims)

typedef BERTH_Error* BERTH_Buffer_Dimensions(BERTH_Buffer_Dimensions_Args* args);

typedef struct BERTH_Buffer_OnDeviceSizeInBytes_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Buffer* buffer;
  size_t on_device_size_in_bytes; /* out */
} BERTH_Buffer_OnDeviceSizeInBytes_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Buffer_OnDeviceSizeInBytes_Args, on_device_size_in_bytes)

typedef BERTH_Error* BERTH_Buffer_OnDeviceSizeInBytes(
    BERTH_Buffer_OnDeviceSizeInBytes_Args* args);

typedef struct BERTH_Buffer_Device_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Buffer* buffer;
  BERTH_Device* device; /* out; owned by the client */
} BERTH_Buffer_Device_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Buffer_Device_Args, device)

typedef BERTH_Error* BERTH_Buffer_Device(BERTH_Buffer_Device_Args* args);

typedef struct BERTH_Buffer_Memory_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Buffer* buffer;
  BERTH_Memory* memory; /* out; owned by the client */
} BERTH_Buffer_Memory_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Buffer_Memory_Args, memory)

typedef BERTH_Error* BERTH_Buffer_Memory(BERTH_Buffer_Memory_Args* args);

typedef struct BERTH_Buffer_Delete_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Buffer* buffer;
} BERTH_Buffer_Delete_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Buffer_Delete_Args, buffer)

/* Drops the buffer's memory now, keeping the handle; later uses of the
 * buffer fail with FAILED_PRECONDITION. Since: 1.0. */
typedef BERTH_Error* BERTH_Buffer_Delete(BERTH_Buffer_Delete_Args* args);

typedef struct BERTH_Buffer_IsDeleted_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Buffer* buffer;
  bool is_deleted; /* out */
} BERTH_Buffer_IsDeleted_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Buffer_IsDeleted_Args, is_deleted)

typedef BERTH_Error* BERTH_Buffer_IsDeleted(BERTH_Buffer_IsDeleted_Args* args);

typedef struct BERTH_Buffer_ReadyEvent_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Buffer* buffer;
  BERTH_Event* event; /* out; caller destroys */
} BERTH_Buffer_ReadyEvent_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Buffer_ReadyEvent_Args, event)

/* An event ready when the buffer's contents are, with the producer's error
 * when producing it failed. Since: 1.0. */
typedef BERTH_Error* BERTH_Buffer_ReadyEvent(BERTH_Buffer_ReadyEvent_Args* args);

typedef struct BERTH_Buffer_ToHostBuffer_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Buffer* src;
  /* Destination, dense major-to-minor; owned by the caller and must stay valid
   * until `event` is ready. NULL asks only for the size. */
  void* dst;
  size_t dst_size;    /* in: capacity of dst; out when dst is NULL: bytes needed */
  BERTH_Event* event; /* out; caller destroys; NULL when dst is NULL */
} BERTH_Buffer_ToHostBuffer_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Buffer_ToHostBuffer_Args, event)

/* Copies the buffer to host memory asynchronously. Since: 1.0. */
typedef BERTH_Error* BERTH_Buffer_ToHostBuffer(BERTH_Buffer_ToHostBuffer_Args* args);

typedef struct BERTH_Buffer_CopyToDevice_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Buffer* buffer;
  BERTH_Device* dst_device;  /* addressable device of the same client */
  BERTH_Buffer* dst_buffer;  /* out; destroy with BERTH_Buffer_Destroy */
} BERTH_Buffer_CopyToDevice_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Buffer_CopyToDevice_Args, dst_buffer)

typedef BERTH_Error* BERTH_Buffer_CopyToDevice(BERTH_Buffer_CopyToDevice_Args* args);

/* -------------------------------- Executable ------------------------------- */

typedef struct BERTH_Executable_Destroy_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Executable* executable; /* owned by the caller; NULL is a no-op */
} BERTH_Executable_Destroy_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Executable_Destroy_Args, executable)

typedef BERTH_Error* BERTH_Executable_Destroy(BERTH_Executable_Destroy_Args* args);

typedef struct BERTH_Executable_Name_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Executable* executable;
  const char* executable_name; /* out; owned by the executable */
  size_t executable_name_size; /* out */
} BERTH_Executable_Name_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Executable_Name_Args, executable_name_size)

typedef BERTH_Error* BERTH_Executable_Name(BERTH_Executable_Name_Args* args);

typedef struct BERTH_Executable_NumReplicas_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Executable* executable;
  int64_t num_replicas;   /* out */
  int64_t num_partitions; /* out */
} BERTH_Executable_NumReplicas_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Executable_NumReplicas_Args, num_partitions)

typedef BERTH_Error* BERTH_Executable_NumReplicas(BERTH_Executable_NumReplicas_Args* args);

typedef struct BERTH_Executable_NumOutputs_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Executable* executable;
  size_t num_outputs; /* out; outputs per device */
} BERTH_Executable_NumOutputs_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Executable_NumOutputs_Args, num_outputs)

typedef BERTH_Error* BERTH_Executable_NumOutputs(BERTH_Executable_NumOutputs_Args* args);

typedef struct BERTH_Executable_OutputElementTypes_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Executable* executable;
  const BERTH_Buffer_Type* output_types; /* out; owned by the executable */
  size_t num_output_types;               /* out */
} BERTH_Executable_OutputElementTypes_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Executable_OutputElementTypes_Args, num_output_types)

typedef BERTH_Error* BERTH_Executable_OutputElementTypes(
    BERTH_Executable_OutputElementTypes_Args* args);

typedef struct BERTH_Executable_OutputDimensions_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Executable* executable;
  size_t num_outputs;         /* out */
  /* out; owned by the executable. Output i has dim_sizes[i] dims, stored in
   * `dims` right after those of outputs 0..i-1. */
  const int64_t* dims;
  const size_t* dim_sizes;
} BERTH_Executable_OutputDimensions_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Executable_OutputDimensions_Args, dim_sizes)

typedef BERTH_Error* BERTH_Executable_OutputDimensions(
    BERTH_Executable_OutputDimensions_Args* args);

/* ABI 1.2. How a partitioned program (one global program with sharding
 * annotations, which the plugin partitioned at compile) lays out each of its
 * parameters or outputs over its partitions: GSPMD sharding text
 * ("{devices=[4,1]<=[4]}", "{replicated}") and the value's global dims.
 * Execute then takes and returns each device's shard, ceil(global / tiles)
 * long along each dimension (the last shards padded where a dimension does
 * not divide). A program that is not partitioned reports num_values = 0. */
typedef int32_t BERTH_Executable_Side;
enum BERTH_Executable_Side_Values {
  BERTH_Executable_Side_Parameters = 0,
  BERTH_Executable_Side_Outputs = 1,
};

typedef struct BERTH_Executable_Shardings_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Executable* executable;
  BERTH_Executable_Side side;
  size_t num_values;            /* out: parameters or outputs, or 0 */
  /* out; owned by the executable: value i's sharding, NUL-terminated, and
   * its global dims (global_dim_sizes[i] of them, in `global_dims` right
   * after those of values 0..i-1). */
  const char* const* shardings;
  const int64_t* global_dims;
  const size_t* global_dim_sizes;
} BERTH_Executable_Shardings_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Executable_Shardings_Args, global_dim_sizes)

typedef BERTH_Error* BERTH_Executable_Shardings(BERTH_Executable_Shardings_Args* args);

/* ----------------------------- Loaded executable --------------------------- */

typedef struct BERTH_LoadedExecutable_Destroy_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_LoadedExecutable* executable; /* owned by the caller; NULL is a no-op */
} BERTH_LoadedExecutable_Destroy_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_LoadedExecutable_Destroy_Args, executable)

/* Frees the executable; executions already started finish. Since: 1.0. */
typedef BERTH_Error* BERTH_LoadedExecutable_Destroy(
    BERTH_LoadedExecutable_Destroy_Args* args);

typedef struct BERTH_LoadedExecutable_GetExecutable_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_LoadedExecutable* loaded_executable;
  BERTH_Executable* executable; /* out; caller destroys with Executable_Destroy */
} BERTH_LoadedExecutable_GetExecutable_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_LoadedExecutable_GetExecutable_Args, executable)

typedef BERTH_Error* BERTH_LoadedExecutable_GetExecutable(
    BERTH_LoadedExecutable_GetExecutable_Args* args);

typedef struct BERTH_LoadedExecutable_AddressableDevices_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_LoadedExecutable* executable;
  /* out; owned by the executable. The devices of this process that run the
   * program, in the order Execute expects their argument lists. */
  BERTH_Device* const* addressable_devices;
  size_t num_addressable_devices; /* out */
} BERTH_LoadedExecutable_AddressableDevices_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_LoadedExecutable_AddressableDevices_Args,
                           num_addressable_devices)

typedef BERTH_Error* BERTH_LoadedExecutable_AddressableDevices(
    BERTH_LoadedExecutable_AddressableDevices_Args* args);

typedef struct BERTH_ExecuteOptions {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  /* Identifies one execution across processes; executions of the same program
   * with the same launch id take part in the same collectives. 0: chosen by
   * the plugin (a per-executable counter). */
  int64_t launch_id;
} BERTH_ExecuteOptions;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_ExecuteOptions, launch_id)

typedef struct BERTH_LoadedExecutable_Execute_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_LoadedExecutable* executable;
  const BERTH_ExecuteOptions* options; /* borrowed; NULL means defaults */
  /* argument_lists[d][i]: argument i on device d; borrowed for the call; the
   * plugin keeps the buffers' memory alive until the execution ends. */
  BERTH_Buffer* const* const* argument_lists;
  size_t num_devices;
  /* Arguments per device. When num_devices is 0 (this process holds no
   * device of the executable: nothing runs, and the call succeeds) num_args
   * and argument_lists carry nothing and must not be checked. */
  size_t num_args;
  /* output_lists[d] is an array of NumOutputs pointers owned by the caller;
   * the plugin fills it with new buffers the caller destroys. Their element
   * types and dimensions are those OutputElementTypes and OutputDimensions
   * report (hosts rely on this and need not ask each buffer). */
  BERTH_Buffer** const* output_lists;
  /* Caller-owned array of num_devices; filled with events the caller
   * destroys. May be NULL when the caller waits on the outputs instead. */
  BERTH_Event** device_complete_events;
  /* NULL: run on the executable's addressable devices (num_devices of them).
   * Else: run a single-device program on this device (num_devices == 1). */
  BERTH_Device* execute_device;
} BERTH_LoadedExecutable_Execute_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_LoadedExecutable_Execute_Args, execute_device)

/* Starts the program on every device and returns at once; outputs become ready
 * as their events do. Since: 1.0. */
typedef BERTH_Error* BERTH_LoadedExecutable_Execute(
    BERTH_LoadedExecutable_Execute_Args* args);

/* --------------------------------- Topology -------------------------------- */

typedef struct BERTH_TopologyDescription_PlatformName_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_TopologyDescription* topology;
  const char* platform_name; /* out; owned by the topology */
  size_t platform_name_size; /* out */
} BERTH_TopologyDescription_PlatformName_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_TopologyDescription_PlatformName_Args, platform_name_size)

typedef BERTH_Error* BERTH_TopologyDescription_PlatformName(
    BERTH_TopologyDescription_PlatformName_Args* args);

typedef struct BERTH_TopologyDescription_GetDeviceDescriptions_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_TopologyDescription* topology;
  /* out; owned by the topology */
  BERTH_DeviceDescription* const* descriptions;
  size_t num_descriptions; /* out */
} BERTH_TopologyDescription_GetDeviceDescriptions_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_TopologyDescription_GetDeviceDescriptions_Args,
                           num_descriptions)

typedef BERTH_Error* BERTH_TopologyDescription_GetDeviceDescriptions(
    BERTH_TopologyDescription_GetDeviceDescriptions_Args* args);

/* -------------------------------- API table -------------------------------- */

typedef struct BERTH_Api_Version {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  int32_t major_version; /* BERTH_API_MAJOR the plugin was built with */
  int32_t minor_version; /* BERTH_API_MINOR the plugin was built with */
} BERTH_Api_Version;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Api_Version, minor_version)

/* A table field has the name of its function type. C++ needs the qualified
 * type name there, or the member would change the meaning of the name. */
#ifdef __cplusplus
#define BERTH_API_STRUCT_FIELD(fn_type) ::fn_type* fn_type
#else
#define BERTH_API_STRUCT_FIELD(fn_type) fn_type* fn_type
#endif

/* The table a plugin returns from BERTH_GetApi. Fields are only ever appended;
 * the host reads a field only when `struct_size` covers it. */
typedef struct BERTH_Api {
  size_t struct_size;
  BERTH_Extension_Base* extension_start; /* owned by the plugin, static */
  BERTH_Api_Version api_version;

  BERTH_API_STRUCT_FIELD(BERTH_Error_Destroy);
  BERTH_API_STRUCT_FIELD(BERTH_Error_Message);
  BERTH_API_STRUCT_FIELD(BERTH_Error_GetCode);

  BERTH_API_STRUCT_FIELD(BERTH_Plugin_Initialize);
  BERTH_API_STRUCT_FIELD(BERTH_Plugin_Attributes);

  BERTH_API_STRUCT_FIELD(BERTH_Event_Destroy);
  BERTH_API_STRUCT_FIELD(BERTH_Event_IsReady);
  BERTH_API_STRUCT_FIELD(BERTH_Event_Error);
  BERTH_API_STRUCT_FIELD(BERTH_Event_Await);
  BERTH_API_STRUCT_FIELD(BERTH_Event_OnReady);

  BERTH_API_STRUCT_FIELD(BERTH_Client_Create);
  BERTH_API_STRUCT_FIELD(BERTH_Client_Destroy);
  BERTH_API_STRUCT_FIELD(BERTH_Client_PlatformName);
  BERTH_API_STRUCT_FIELD(BERTH_Client_PlatformVersion);
  BERTH_API_STRUCT_FIELD(BERTH_Client_ProcessIndex);
  BERTH_API_STRUCT_FIELD(BERTH_Client_Devices);
  BERTH_API_STRUCT_FIELD(BERTH_Client_AddressableDevices);
  BERTH_API_STRUCT_FIELD(BERTH_Client_LookupDevice);
  BERTH_API_STRUCT_FIELD(BERTH_Client_AddressableMemories);
  BERTH_API_STRUCT_FIELD(BERTH_Client_Compile);
  BERTH_API_STRUCT_FIELD(BERTH_Client_BufferFromHostBuffer);
  BERTH_API_STRUCT_FIELD(BERTH_Client_TopologyDescription);

  BERTH_API_STRUCT_FIELD(BERTH_DeviceDescription_Id);
  BERTH_API_STRUCT_FIELD(BERTH_DeviceDescription_ProcessIndex);
  BERTH_API_STRUCT_FIELD(BERTH_DeviceDescription_Kind);
  BERTH_API_STRUCT_FIELD(BERTH_DeviceDescription_Attributes);
  BERTH_API_STRUCT_FIELD(BERTH_DeviceDescription_DebugString);

  BERTH_API_STRUCT_FIELD(BERTH_Device_GetDescription);
  BERTH_API_STRUCT_FIELD(BERTH_Device_IsAddressable);
  BERTH_API_STRUCT_FIELD(BERTH_Device_LocalHardwareId);
  BERTH_API_STRUCT_FIELD(BERTH_Device_AddressableMemories);
  BERTH_API_STRUCT_FIELD(BERTH_Device_DefaultMemory);

  BERTH_API_STRUCT_FIELD(BERTH_Memory_Id);
  BERTH_API_STRUCT_FIELD(BERTH_Memory_Kind);
  BERTH_API_STRUCT_FIELD(BERTH_Memory_AddressableByDevices);

  BERTH_API_STRUCT_FIELD(BERTH_Buffer_Destroy);
  BERTH_API_STRUCT_FIELD(BERTH_Buffer_ElementType);
  BERTH_API_STRUCT_FIELD(BERTH_Buffer_Dimensions);
  BERTH_API_STRUCT_FIELD(BERTH_Buffer_OnDeviceSizeInBytes);
  BERTH_API_STRUCT_FIELD(BERTH_Buffer_Device);
  BERTH_API_STRUCT_FIELD(BERTH_Buffer_Memory);
  BERTH_API_STRUCT_FIELD(BERTH_Buffer_Delete);
  BERTH_API_STRUCT_FIELD(BERTH_Buffer_IsDeleted);
  BERTH_API_STRUCT_FIELD(BERTH_Buffer_ReadyEvent);
  BERTH_API_STRUCT_FIELD(BERTH_Buffer_ToHostBuffer);
  BERTH_API_STRUCT_FIELD(BERTH_Buffer_CopyToDevice);

  BERTH_API_STRUCT_FIELD(BERTH_Executable_Destroy);
  BERTH_API_STRUCT_FIELD(BERTH_Executable_Name);
  BERTH_API_STRUCT_FIELD(BERTH_Executable_NumReplicas);
  BERTH_API_STRUCT_FIELD(BERTH_Executable_NumOutputs);
  BERTH_API_STRUCT_FIELD(BERTH_Executable_OutputElementTypes);
  BERTH_API_STRUCT_FIELD(BERTH_Executable_OutputDimensions);

  BERTH_API_STRUCT_FIELD(BERTH_LoadedExecutable_Destroy);
  BERTH_API_STRUCT_FIELD(BERTH_LoadedExecutable_GetExecutable);
  BERTH_API_STRUCT_FIELD(BERTH_LoadedExecutable_AddressableDevices);
  BERTH_API_STRUCT_FIELD(BERTH_LoadedExecutable_Execute);

  BERTH_API_STRUCT_FIELD(BERTH_TopologyDescription_PlatformName);
  BERTH_API_STRUCT_FIELD(BERTH_TopologyDescription_GetDeviceDescriptions);

  /* 1.2 */
  BERTH_API_STRUCT_FIELD(BERTH_Executable_Shardings);
} BERTH_Api;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Api, BERTH_Executable_Shardings)

/* The one symbol a plugin exports. */
typedef const BERTH_Api* BERTH_GetApi_Fn(void);
#define BERTH_GET_API_SYMBOL "BERTH_GetApi"

/* Marks a plugin's BERTH_GetApi for export from a library built with hidden
 * visibility, in C or C++:
 *   BERTH_PLUGIN_VISIBLE const BERTH_Api* BERTH_GetApi(void) { ... }
 * (C++ plugins of the SDK get it from BERTH_PLUGIN_EXPORT). */
#ifndef BERTH_PLUGIN_VISIBLE
#if defined(_WIN32)
#define BERTH_PLUGIN_VISIBLE __declspec(dllexport)
#elif defined(__GNUC__)
#define BERTH_PLUGIN_VISIBLE __attribute__((visibility("default")))
#else
#define BERTH_PLUGIN_VISIBLE
#endif
#endif

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* BERTH_C_API_H_ */
