/* A Berth plugin in plain C11: the whole C ABI (berth/c_api.h) served by
 * hand, with no C++ and no SDK helper library; only the SDK's headers.
 *
 * The backend: one device per process, in host memory. Under a job of N
 * nodes (berth launch -n N) node k's device is global device k (process
 * index k); the client lists all N devices and addresses its own. Buffers
 * hold f32 elements. Programs are the StableHLO subset program.c parses and
 * runs; every event is ready when the call that made it returns.
 *
 * Where each ABI rule lives (README.md has the same list):
 *   - one exported symbol ................ BERTH_GetApi (end of this file)
 *   - struct_size below the 1.0 size ..... CHECK_ARGS, check_struct
 *   - NULL args and objects .............. CHECK_ARGS, null_object
 *   - destroy of NULL is a no-op ......... the *_Destroy functions
 *   - canonical codes, owned errors ...... cp_error, error_destroy
 *   - reserved and unknown options ....... read_options, client_create,
 *                                          client_compile
 *   - attributes ......................... plugin_attributes
 *   - outputs as the executable reports .. loaded_execute (built from the
 *                                          same cp_type the metadata is)
 *   - thread safety ...................... immutable clients and programs,
 *                                          a mutex per buffer, atomic counts
 *   - live_objects extension ............. live_count, kLiveObjects
 */
#if defined(__STDC_NO_THREADS__) || defined(__STDC_NO_ATOMICS__)
#error "the c plugin needs C11 <threads.h> and <stdatomic.h>"
#endif

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

#include "berth/c_api.h"
#include "berth/ext/live_objects.h"
#include "c_plugin.h"

/* The ABI minor this plugin implements: 1.1 (the live_objects extension).
 * Not BERTH_API_MINOR: built against a newer header, the plugin still
 * implements 1.1, and its manifest says so. */
#define CP_API_MINOR 1
BERTH_STATIC_ASSERT(BERTH_API_MAJOR == 1 && BERTH_API_MINOR >= CP_API_MINOR,
                    "the c plugin implements Berth ABI 1.1");

#define CP_PLATFORM "c_plugin"
#define CP_PLATFORM_VERSION "c_plugin 0.1.0"
#define CP_DEVICE_KIND "host"
#define CP_VENDOR "Berth examples"
/* Devices are made for every node of a job; this bounds what a job asks. */
#define CP_MAX_NODES 65536

/* ------------------------------------------------------------------ errors */

struct BERTH_Error {
  BERTH_Error_Code code;
  size_t size;
  const char* message; /* NUL-terminated, right after the struct */
};

#define CP_OOM_TEXT CP_NAME ": out of memory"
static BERTH_Error out_of_memory_error = {BERTH_Error_Code_RESOURCE_EXHAUSTED,
                                          sizeof(CP_OOM_TEXT) - 1, CP_OOM_TEXT};

BERTH_Error* cp_out_of_memory(void) { return &out_of_memory_error; }

static BERTH_Error* new_error(BERTH_Error_Code code, const char* text, size_t size) {
  BERTH_Error* error = malloc(sizeof(BERTH_Error) + size + 1);
  if (error == NULL) return cp_out_of_memory();
  char* message = (char*)(error + 1);
  memcpy(message, text, size);
  message[size] = '\0';
  error->code = code;
  error->size = size;
  error->message = message;
  return error;
}

BERTH_Error* cp_error(BERTH_Error_Code code, const char* format, ...) {
  va_list args;
  va_start(args, format);
  va_list again;
  va_copy(again, args);
  int size = vsnprintf(NULL, 0, format, args);
  va_end(args);
  BERTH_Error* error = cp_out_of_memory();
  char* text = size >= 0 ? malloc((size_t)size + 1) : NULL;
  if (text != NULL) {
    vsnprintf(text, (size_t)size + 1, format, again);
    error = new_error(code, text, (size_t)size);
    free(text);
  }
  va_end(again);
  return error;
}

void cp_error_free(BERTH_Error* error) {
  if (error != NULL && error != &out_of_memory_error) free(error);
}

static BERTH_Error* copy_error(const BERTH_Error* error) {
  return error == NULL ? NULL : new_error(error->code, error->message, error->size);
}

/* The first check of every entry point: args present and at least as large
 * as the struct was in ABI 1.0. No struct has grown since 1.0, so each
 * *_STRUCT_SIZE is its 1.0 size; when one grows, the header adds
 * *_STRUCT_SIZE_1_0 and that is what goes here (docs/abi.md). */
static BERTH_Error* check_struct(const char* function, const char* type, const size_t* struct_size,
                                 size_t size_1_0) {
  if (struct_size == NULL) {
    return cp_error(BERTH_Error_Code_INVALID_ARGUMENT, "%s: args is NULL", function);
  }
  if (*struct_size < size_1_0) {
    return cp_error(BERTH_Error_Code_INVALID_ARGUMENT,
                    "%s: %s.struct_size is %zu bytes, smaller than the %zu bytes of its ABI 1.0 "
                    "layout (the caller was built against an incompatible berth/c_api.h)",
                    function, type, *struct_size, size_1_0);
  }
  return NULL;
}

#define CHECK_ARGS(function, type, args)                                              \
  do {                                                                                \
    BERTH_Error* check_error_ = check_struct(                                         \
        function, #type, (args) == NULL ? NULL : &(args)->struct_size, type##_STRUCT_SIZE); \
    if (check_error_ != NULL) return check_error_;                                    \
  } while (0)

static BERTH_Error* null_object(const char* function, const char* field) {
  return cp_error(BERTH_Error_Code_INVALID_ARGUMENT, "%s: %s is NULL", function, field);
}

static int clamp_int(size_t n) { return n > 0x7fffffff ? 0x7fffffff : (int)n; }

static void error_destroy(BERTH_Error_Destroy_Args* args) {
  /* Returns void: a bad args struct cannot be reported, only not acted on. */
  if (args == NULL || args->struct_size < BERTH_Error_Destroy_Args_STRUCT_SIZE) return;
  cp_error_free(args->error);
}

static void error_message(BERTH_Error_Message_Args* args) {
  if (args == NULL || args->struct_size < BERTH_Error_Message_Args_STRUCT_SIZE) return;
  args->message = args->error != NULL ? args->error->message : "";
  args->message_size = args->error != NULL ? args->error->size : 0;
}

static BERTH_Error* error_get_code(BERTH_Error_GetCode_Args* args) {
  CHECK_ARGS("BERTH_Error_GetCode", BERTH_Error_GetCode_Args, args);
  if (args->error == NULL) return null_object("BERTH_Error_GetCode", "error");
  args->code = args->error->code;
  return NULL;
}

/* ------------------------------------------------------------ live objects */

static atomic_llong live_clients, live_buffers, live_executables, live_events;

static void count(atomic_llong* counter, long long delta) {
  atomic_fetch_add_explicit(counter, delta, memory_order_relaxed);
}

static BERTH_Error* live_count(BERTH_LiveObjects_Count_Args* args) {
  CHECK_ARGS("BERTH_LiveObjects_Count", BERTH_LiveObjects_Count_Args, args);
  args->clients = atomic_load(&live_clients);
  args->buffers = atomic_load(&live_buffers);
  args->executables = atomic_load(&live_executables);
  args->events = atomic_load(&live_events);
  return NULL;
}

static BERTH_LiveObjects_Extension kLiveObjects = {
    .base = {.struct_size = BERTH_LiveObjects_Extension_STRUCT_SIZE,
             .type = BERTH_Extension_Type_LiveObjects,
             .next = NULL},
    .version = BERTH_LIVE_OBJECTS_EXTENSION_VERSION,
    .count = live_count,
};

/* ------------------------------------------------------------------ plugin */

static BERTH_Error* plugin_initialize(BERTH_Plugin_Initialize_Args* args) {
  CHECK_ARGS("BERTH_Plugin_Initialize", BERTH_Plugin_Initialize_Args, args);
  if (args->host_api_major != BERTH_API_MAJOR) {
    return cp_error(BERTH_Error_Code_FAILED_PRECONDITION,
                    CP_NAME " implements Berth ABI %d.%d; the host speaks major %d",
                    BERTH_API_MAJOR, CP_API_MINOR, (int)args->host_api_major);
  }
  const BERTH_HostServices* services = args->host_services;
  if (services == NULL) return null_object("BERTH_Plugin_Initialize", "host_services");
  BERTH_Error* error = check_struct("BERTH_Plugin_Initialize", "BERTH_HostServices",
                                    &services->struct_size, BERTH_HostServices_STRUCT_SIZE);
  if (error != NULL) return error;
  /* The services are used here only: a second host in the same process
   * initializes the library again with its own, and the first one's may
   * then be gone before the library is unloaded. */
  if (services->log != NULL && services->log_level >= BERTH_LogLevel_Debug) {
    char line[160];
    int n = snprintf(line, sizeof line, CP_NAME " %s (ABI 1.%d) initialized by %.*s",
                     CP_PLATFORM_VERSION, CP_API_MINOR, clamp_int(services->host_name_size),
                     services->host_name != NULL ? services->host_name : "");
    if (n > 0) {
      services->log(services->user_data, BERTH_LogLevel_Debug, line,
                    (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
    }
  }
  return NULL;
}

static const int64_t kElementTypes[] = {BERTH_Buffer_Type_F32};

#define CP_STRING_ATTRIBUTE(attribute_name, value)                                      \
  {.struct_size = BERTH_NamedValue_STRUCT_SIZE, .name = attribute_name,               \
   .name_size = sizeof(attribute_name) - 1, .type = BERTH_NamedValue_Type_String,    \
   .string_value = value, .value_size = sizeof(value) - 1}

#define NUM_ATTRIBUTES 4
static const BERTH_NamedValue kAttributes[NUM_ATTRIBUTES] = {
    CP_STRING_ATTRIBUTE(BERTH_ATTRIBUTE_VENDOR, CP_VENDOR),
    {.struct_size = BERTH_NamedValue_STRUCT_SIZE,
     .name = BERTH_ATTRIBUTE_STABLEHLO_SUPPORT,
     .name_size = sizeof(BERTH_ATTRIBUTE_STABLEHLO_SUPPORT) - 1,
     .type = BERTH_NamedValue_Type_Bool,
     .bool_value = true,
     .value_size = 1},
    {.struct_size = BERTH_NamedValue_STRUCT_SIZE,
     .name = BERTH_ATTRIBUTE_ELEMENT_TYPES,
     .name_size = sizeof(BERTH_ATTRIBUTE_ELEMENT_TYPES) - 1,
     .type = BERTH_NamedValue_Type_Int64List,
     .int64_list_value = kElementTypes,
     .value_size = sizeof(kElementTypes) / sizeof(kElementTypes[0])},
    {.struct_size = BERTH_NamedValue_STRUCT_SIZE,
     .name = BERTH_ATTRIBUTE_SUPPORTED_OPS,
     .name_size = sizeof(BERTH_ATTRIBUTE_SUPPORTED_OPS) - 1,
     .type = BERTH_NamedValue_Type_String,
     .string_value = &CP_SUPPORTED_OPS_LEADING_COMMA[1],
     .value_size = sizeof(CP_SUPPORTED_OPS_LEADING_COMMA) - 2},
};

static BERTH_Error* plugin_attributes(BERTH_Plugin_Attributes_Args* args) {
  CHECK_ARGS("BERTH_Plugin_Attributes", BERTH_Plugin_Attributes_Args, args);
  args->attributes = kAttributes;
  args->num_attributes = NUM_ATTRIBUTES;
  return NULL;
}

/* ------------------------------------------------------------------ events */

/* Every event is ready when made; `error` is its outcome (NULL: success). */
struct BERTH_Event {
  BERTH_Error* error;
};

/* A ready event owning `error`; NULL when out of memory (error freed). */
static BERTH_Event* new_event(BERTH_Error* error) {
  BERTH_Event* event = malloc(sizeof *event);
  if (event == NULL) {
    cp_error_free(error);
    return NULL;
  }
  event->error = error;
  count(&live_events, 1);
  return event;
}

static BERTH_Error* event_destroy(BERTH_Event_Destroy_Args* args) {
  CHECK_ARGS("BERTH_Event_Destroy", BERTH_Event_Destroy_Args, args);
  if (args->event == NULL) return NULL;
  cp_error_free(args->event->error);
  free(args->event);
  count(&live_events, -1);
  return NULL;
}

static BERTH_Error* event_is_ready(BERTH_Event_IsReady_Args* args) {
  CHECK_ARGS("BERTH_Event_IsReady", BERTH_Event_IsReady_Args, args);
  if (args->event == NULL) return null_object("BERTH_Event_IsReady", "event");
  args->is_ready = true;
  return NULL;
}

static BERTH_Error* event_error(BERTH_Event_Error_Args* args) {
  CHECK_ARGS("BERTH_Event_Error", BERTH_Event_Error_Args, args);
  if (args->event == NULL) return null_object("BERTH_Event_Error", "event");
  return copy_error(args->event->error);
}

static BERTH_Error* event_await(BERTH_Event_Await_Args* args) {
  CHECK_ARGS("BERTH_Event_Await", BERTH_Event_Await_Args, args);
  if (args->event == NULL) return null_object("BERTH_Event_Await", "event");
  return copy_error(args->event->error);
}

static BERTH_Error* event_on_ready(BERTH_Event_OnReady_Args* args) {
  CHECK_ARGS("BERTH_Event_OnReady", BERTH_Event_OnReady_Args, args);
  if (args->event == NULL) return null_object("BERTH_Event_OnReady", "event");
  if (args->callback == NULL) return null_object("BERTH_Event_OnReady", "callback");
  /* Ready already: the callback runs now, on this thread, and owns the copy. */
  args->callback(copy_error(args->event->error), args->user_arg);
  return NULL;
}

/* ----------------------------------------------- client, devices, memories */

struct BERTH_DeviceDescription {
  int64_t id;
  int32_t process_index;
  char debug_string[64];
  size_t debug_string_size;
};

struct BERTH_Device {
  struct BERTH_DeviceDescription description; /* first: the same address */
  BERTH_Client* client;
  bool addressable;
};

struct BERTH_Memory {
  BERTH_Client* client;
  BERTH_Device* devices[1]; /* the local device */
};

struct BERTH_TopologyDescription {
  BERTH_Client* client;
};

/* Immutable once made: every thread may read it without a lock. */
struct BERTH_Client {
  int64_t node_id, num_nodes;
  BERTH_Device* devices;                        /* num_nodes, by id */
  BERTH_Device** device_list;                   /* the same, as handles */
  BERTH_DeviceDescription** description_list;   /* the same, as descriptions */
  BERTH_Device* local;                          /* devices[node_id] */
  BERTH_Device* local_list[1];
  BERTH_Memory memory;                          /* the local device's */
  BERTH_Memory* memory_list[1];
  BERTH_TopologyDescription topology;
};

typedef struct cp_option {
  const char* name;
  BERTH_NamedValue_Type type;
  const BERTH_NamedValue* value; /* set when given */
} cp_option;

static const char* value_type_name(BERTH_NamedValue_Type type) {
  switch (type) {
    case BERTH_NamedValue_Type_String: return "String";
    case BERTH_NamedValue_Type_Int64: return "Int64";
    case BERTH_NamedValue_Type_Int64List: return "Int64List";
    case BERTH_NamedValue_Type_Float64: return "Float64";
    case BERTH_NamedValue_Type_Bool: return "Bool";
    default: return "an unknown type";
  }
}

/* Matches `values` against `known` (setting each one's `value`); an unknown
 * option, one of the wrong type or one given twice is INVALID_ARGUMENT
 * naming it. `what` is "client option" or "compile option". */
static BERTH_Error* read_options(const char* function, const char* what,
                                 const BERTH_NamedValue* values, size_t num_values,
                                 cp_option* known, size_t num_known, const char* known_list) {
  if (num_values > 0 && values == NULL) return null_object(function, "options");
  for (size_t i = 0; i < num_values; ++i) {
    const BERTH_NamedValue* v = &values[i];
    BERTH_Error* error = check_struct(function, "BERTH_NamedValue", &v->struct_size,
                                      BERTH_NamedValue_STRUCT_SIZE);
    if (error != NULL) return error;
    if (v->name == NULL && v->name_size > 0) return null_object(function, "an option's name");
    const char* name = v->name != NULL ? v->name : "";
    size_t k = 0;
    while (k < num_known &&
           !(strlen(known[k].name) == v->name_size && memcmp(known[k].name, name, v->name_size) == 0)) {
      k++;
    }
    if (k == num_known) {
      return cp_error(BERTH_Error_Code_INVALID_ARGUMENT,
                      "%s: unknown %s '%.*s' (" CP_NAME " takes %s)", function, what,
                      clamp_int(v->name_size), name, known_list);
    }
    if (v->type != known[k].type) {
      return cp_error(BERTH_Error_Code_INVALID_ARGUMENT, "%s: %s '%s' must be %s, not %s", function,
                      what, known[k].name, value_type_name(known[k].type), value_type_name(v->type));
    }
    if (v->type == BERTH_NamedValue_Type_String && v->string_value == NULL && v->value_size > 0) {
      return null_object(function, "a string option's value");
    }
    if (known[k].value != NULL) {
      return cp_error(BERTH_Error_Code_INVALID_ARGUMENT, "%s: %s '%s' is given twice", function,
                      what, known[k].name);
    }
    known[k].value = v;
  }
  return NULL;
}

static void free_client(BERTH_Client* client) {
  free(client->devices);
  free(client->device_list);
  free(client->description_list);
  free(client);
}

static BERTH_Error* client_create(BERTH_Client_Create_Args* args) {
  static const char kFn[] = "BERTH_Client_Create";
  CHECK_ARGS(kFn, BERTH_Client_Create_Args, args);
  args->client = NULL;
  cp_option options[] = {
      {BERTH_OPTION_NODE_ID, BERTH_NamedValue_Type_Int64, NULL},
      {BERTH_OPTION_NUM_NODES, BERTH_NamedValue_Type_Int64, NULL},
      {"device_count", BERTH_NamedValue_Type_Int64, NULL},
  };
  BERTH_Error* error = read_options(kFn, "client option", args->options, args->num_options, options,
                                    3, "node_id, num_nodes and device_count");
  if (error != NULL) return error;
  const int64_t num_nodes = options[1].value != NULL ? options[1].value->int64_value : 1;
  const int64_t node_id = options[0].value != NULL ? options[0].value->int64_value : 0;
  if (num_nodes < 1 || num_nodes > CP_MAX_NODES) {
    return cp_error(BERTH_Error_Code_INVALID_ARGUMENT,
                    "%s: reserved client option 'num_nodes' is %lld; it must be 1 to %d", kFn,
                    (long long)num_nodes, CP_MAX_NODES);
  }
  if (node_id < 0 || node_id >= num_nodes) {
    return cp_error(BERTH_Error_Code_INVALID_ARGUMENT,
                    "%s: reserved client option 'node_id' is %lld; with num_nodes = %lld it must "
                    "be 0 to %lld", kFn, (long long)node_id, (long long)num_nodes,
                    (long long)(num_nodes - 1));
  }
  if (options[2].value != NULL && options[2].value->int64_value != 1) {
    return cp_error(BERTH_Error_Code_INVALID_ARGUMENT,
                    "%s: client option 'device_count' is %lld; " CP_NAME
                    " has one device per process", kFn, (long long)options[2].value->int64_value);
  }
  if (args->kv_store != NULL) {
    /* Not used (no collectives), but a store of a foreign layout is refused. */
    error = check_struct(kFn, "BERTH_KeyValueStore", &args->kv_store->struct_size,
                         BERTH_KeyValueStore_STRUCT_SIZE);
    if (error != NULL) return error;
  }

  BERTH_Client* client = calloc(1, sizeof *client);
  const size_t n = (size_t)num_nodes;
  if (client == NULL) return cp_out_of_memory();
  client->devices = calloc(n, sizeof(BERTH_Device));
  client->device_list = calloc(n, sizeof(BERTH_Device*));
  client->description_list = calloc(n, sizeof(BERTH_DeviceDescription*));
  if (client->devices == NULL || client->device_list == NULL || client->description_list == NULL) {
    free_client(client);
    return cp_out_of_memory();
  }
  client->node_id = node_id;
  client->num_nodes = num_nodes;
  for (size_t i = 0; i < n; ++i) {
    BERTH_Device* device = &client->devices[i];
    device->client = client;
    device->addressable = (int64_t)i == node_id;
    device->description.id = (int64_t)i;
    device->description.process_index = (int32_t)i; /* node i's device */
    int size = snprintf(device->description.debug_string, sizeof device->description.debug_string,
                        CP_PLATFORM ":%zu (node %zu)", i, i);
    device->description.debug_string_size = size > 0 ? (size_t)size : 0;
    client->device_list[i] = device;
    client->description_list[i] = &device->description;
  }
  client->local = &client->devices[node_id];
  client->local_list[0] = client->local;
  client->memory.client = client;
  client->memory.devices[0] = client->local;
  client->memory_list[0] = &client->memory;
  client->topology.client = client;
  args->client = client;
  count(&live_clients, 1);
  return NULL;
}

static BERTH_Error* client_destroy(BERTH_Client_Destroy_Args* args) {
  CHECK_ARGS("BERTH_Client_Destroy", BERTH_Client_Destroy_Args, args);
  if (args->client == NULL) return NULL;
  free_client(args->client);
  count(&live_clients, -1);
  return NULL;
}

#define CHECK_OBJECT(function, object, field) \
  do {                                        \
    if ((object) == NULL) return null_object(function, field); \
  } while (0)

static BERTH_Error* client_platform_name(BERTH_Client_PlatformName_Args* args) {
  CHECK_ARGS("BERTH_Client_PlatformName", BERTH_Client_PlatformName_Args, args);
  CHECK_OBJECT("BERTH_Client_PlatformName", args->client, "client");
  args->platform_name = CP_PLATFORM;
  args->platform_name_size = sizeof(CP_PLATFORM) - 1;
  return NULL;
}

static BERTH_Error* client_platform_version(BERTH_Client_PlatformVersion_Args* args) {
  CHECK_ARGS("BERTH_Client_PlatformVersion", BERTH_Client_PlatformVersion_Args, args);
  CHECK_OBJECT("BERTH_Client_PlatformVersion", args->client, "client");
  args->platform_version = CP_PLATFORM_VERSION;
  args->platform_version_size = sizeof(CP_PLATFORM_VERSION) - 1;
  return NULL;
}

static BERTH_Error* client_process_index(BERTH_Client_ProcessIndex_Args* args) {
  CHECK_ARGS("BERTH_Client_ProcessIndex", BERTH_Client_ProcessIndex_Args, args);
  CHECK_OBJECT("BERTH_Client_ProcessIndex", args->client, "client");
  args->process_index = (int32_t)args->client->node_id;
  return NULL;
}

static BERTH_Error* client_devices(BERTH_Client_Devices_Args* args) {
  CHECK_ARGS("BERTH_Client_Devices", BERTH_Client_Devices_Args, args);
  CHECK_OBJECT("BERTH_Client_Devices", args->client, "client");
  args->devices = args->client->device_list;
  args->num_devices = (size_t)args->client->num_nodes;
  return NULL;
}

static BERTH_Error* client_addressable_devices(BERTH_Client_AddressableDevices_Args* args) {
  CHECK_ARGS("BERTH_Client_AddressableDevices", BERTH_Client_AddressableDevices_Args, args);
  CHECK_OBJECT("BERTH_Client_AddressableDevices", args->client, "client");
  args->addressable_devices = args->client->local_list;
  args->num_addressable_devices = 1;
  return NULL;
}

static BERTH_Error* client_lookup_device(BERTH_Client_LookupDevice_Args* args) {
  CHECK_ARGS("BERTH_Client_LookupDevice", BERTH_Client_LookupDevice_Args, args);
  CHECK_OBJECT("BERTH_Client_LookupDevice", args->client, "client");
  if (args->id < 0 || args->id >= args->client->num_nodes) {
    return cp_error(BERTH_Error_Code_NOT_FOUND,
                    "BERTH_Client_LookupDevice: no device %lld; the job's devices are 0 to %lld",
                    (long long)args->id, (long long)(args->client->num_nodes - 1));
  }
  args->device = &args->client->devices[args->id];
  return NULL;
}

static BERTH_Error* client_addressable_memories(BERTH_Client_AddressableMemories_Args* args) {
  CHECK_ARGS("BERTH_Client_AddressableMemories", BERTH_Client_AddressableMemories_Args, args);
  CHECK_OBJECT("BERTH_Client_AddressableMemories", args->client, "client");
  args->addressable_memories = args->client->memory_list;
  args->num_addressable_memories = 1;
  return NULL;
}

static BERTH_Error* client_topology(BERTH_Client_TopologyDescription_Args* args) {
  CHECK_ARGS("BERTH_Client_TopologyDescription", BERTH_Client_TopologyDescription_Args, args);
  CHECK_OBJECT("BERTH_Client_TopologyDescription", args->client, "client");
  args->topology = &args->client->topology;
  return NULL;
}

static BERTH_Error* description_id(BERTH_DeviceDescription_Id_Args* args) {
  CHECK_ARGS("BERTH_DeviceDescription_Id", BERTH_DeviceDescription_Id_Args, args);
  CHECK_OBJECT("BERTH_DeviceDescription_Id", args->device_description, "device_description");
  args->id = args->device_description->id;
  return NULL;
}

static BERTH_Error* description_process_index(BERTH_DeviceDescription_ProcessIndex_Args* args) {
  CHECK_ARGS("BERTH_DeviceDescription_ProcessIndex", BERTH_DeviceDescription_ProcessIndex_Args,
             args);
  CHECK_OBJECT("BERTH_DeviceDescription_ProcessIndex", args->device_description,
               "device_description");
  args->process_index = args->device_description->process_index;
  return NULL;
}

static BERTH_Error* description_kind(BERTH_DeviceDescription_Kind_Args* args) {
  CHECK_ARGS("BERTH_DeviceDescription_Kind", BERTH_DeviceDescription_Kind_Args, args);
  CHECK_OBJECT("BERTH_DeviceDescription_Kind", args->device_description, "device_description");
  args->device_kind = CP_DEVICE_KIND;
  args->device_kind_size = sizeof(CP_DEVICE_KIND) - 1;
  return NULL;
}

static BERTH_Error* description_attributes(BERTH_DeviceDescription_Attributes_Args* args) {
  CHECK_ARGS("BERTH_DeviceDescription_Attributes", BERTH_DeviceDescription_Attributes_Args, args);
  CHECK_OBJECT("BERTH_DeviceDescription_Attributes", args->device_description,
               "device_description");
  args->attributes = NULL; /* none */
  args->num_attributes = 0;
  return NULL;
}

static BERTH_Error* description_debug_string(BERTH_DeviceDescription_DebugString_Args* args) {
  CHECK_ARGS("BERTH_DeviceDescription_DebugString", BERTH_DeviceDescription_DebugString_Args,
             args);
  CHECK_OBJECT("BERTH_DeviceDescription_DebugString", args->device_description,
               "device_description");
  args->debug_string = args->device_description->debug_string;
  args->debug_string_size = args->device_description->debug_string_size;
  return NULL;
}

static BERTH_Error* device_get_description(BERTH_Device_GetDescription_Args* args) {
  CHECK_ARGS("BERTH_Device_GetDescription", BERTH_Device_GetDescription_Args, args);
  CHECK_OBJECT("BERTH_Device_GetDescription", args->device, "device");
  args->device_description = &args->device->description;
  return NULL;
}

static BERTH_Error* device_is_addressable(BERTH_Device_IsAddressable_Args* args) {
  CHECK_ARGS("BERTH_Device_IsAddressable", BERTH_Device_IsAddressable_Args, args);
  CHECK_OBJECT("BERTH_Device_IsAddressable", args->device, "device");
  args->is_addressable = args->device->addressable;
  return NULL;
}

static BERTH_Error* device_local_hardware_id(BERTH_Device_LocalHardwareId_Args* args) {
  CHECK_ARGS("BERTH_Device_LocalHardwareId", BERTH_Device_LocalHardwareId_Args, args);
  CHECK_OBJECT("BERTH_Device_LocalHardwareId", args->device, "device");
  args->local_hardware_id = args->device->addressable ? 0 : -1;
  return NULL;
}

static BERTH_Error* device_addressable_memories(BERTH_Device_AddressableMemories_Args* args) {
  CHECK_ARGS("BERTH_Device_AddressableMemories", BERTH_Device_AddressableMemories_Args, args);
  CHECK_OBJECT("BERTH_Device_AddressableMemories", args->device, "device");
  const bool local = args->device->addressable;
  args->memories = local ? args->device->client->memory_list : NULL;
  args->num_memories = local ? 1 : 0;
  return NULL;
}

static BERTH_Error* device_default_memory(BERTH_Device_DefaultMemory_Args* args) {
  CHECK_ARGS("BERTH_Device_DefaultMemory", BERTH_Device_DefaultMemory_Args, args);
  CHECK_OBJECT("BERTH_Device_DefaultMemory", args->device, "device");
  if (!args->device->addressable) {
    return cp_error(BERTH_Error_Code_INVALID_ARGUMENT,
                    "BERTH_Device_DefaultMemory: device %lld is node %lld's; this process "
                    "addresses no memory of it", (long long)args->device->description.id,
                    (long long)args->device->description.id);
  }
  args->memory = &args->device->client->memory;
  return NULL;
}

static BERTH_Error* memory_id(BERTH_Memory_Id_Args* args) {
  CHECK_ARGS("BERTH_Memory_Id", BERTH_Memory_Id_Args, args);
  CHECK_OBJECT("BERTH_Memory_Id", args->memory, "memory");
  args->id = 0; /* the client's only memory */
  return NULL;
}

static BERTH_Error* memory_kind(BERTH_Memory_Kind_Args* args) {
  CHECK_ARGS("BERTH_Memory_Kind", BERTH_Memory_Kind_Args, args);
  CHECK_OBJECT("BERTH_Memory_Kind", args->memory, "memory");
  args->kind = "device";
  args->kind_size = sizeof("device") - 1;
  return NULL;
}

static BERTH_Error* memory_addressable_by(BERTH_Memory_AddressableByDevices_Args* args) {
  CHECK_ARGS("BERTH_Memory_AddressableByDevices", BERTH_Memory_AddressableByDevices_Args, args);
  CHECK_OBJECT("BERTH_Memory_AddressableByDevices", args->memory, "memory");
  args->devices = args->memory->devices;
  args->num_devices = 1;
  return NULL;
}

static BERTH_Error* topology_platform_name(BERTH_TopologyDescription_PlatformName_Args* args) {
  CHECK_ARGS("BERTH_TopologyDescription_PlatformName", BERTH_TopologyDescription_PlatformName_Args,
             args);
  CHECK_OBJECT("BERTH_TopologyDescription_PlatformName", args->topology, "topology");
  args->platform_name = CP_PLATFORM;
  args->platform_name_size = sizeof(CP_PLATFORM) - 1;
  return NULL;
}

static BERTH_Error* topology_descriptions(BERTH_TopologyDescription_GetDeviceDescriptions_Args* args) {
  CHECK_ARGS("BERTH_TopologyDescription_GetDeviceDescriptions",
             BERTH_TopologyDescription_GetDeviceDescriptions_Args, args);
  CHECK_OBJECT("BERTH_TopologyDescription_GetDeviceDescriptions", args->topology, "topology");
  args->descriptions = args->topology->client->description_list;
  args->num_descriptions = (size_t)args->topology->client->num_nodes;
  return NULL;
}

/* ----------------------------------------------------------------- buffers */

struct BERTH_Buffer {
  BERTH_Device* device;
  cp_type type;
  mtx_t lock;          /* guards `storage`: Delete may race a read */
  cp_storage* storage; /* NULL once deleted */
};

static const char* const kTypeNames[] = {
    "INVALID", "PRED", "S8", "S16", "S32", "S64", "U8", "U16", "U32", "U64", "F16",
    "F32", "F64", "BF16", "C64", "C128", "F8E5M2", "F8E4M3FN", "F8E4M3B11FNUZ", "F8E5M2FNUZ",
    "F8E4M3FNUZ", "S4", "U4", "TOKEN", "S2", "U2", "F8E4M3", "F8E3M4", "F8E8M0FNU", "F4E2M1FN",
    "F6E2M3FN", "F6E3M2FN"};
#define NUM_TYPE_NAMES ((int32_t)(sizeof(kTypeNames) / sizeof(kTypeNames[0])))

/* A new buffer handle holding `storage` (taken). */
static BERTH_Error* new_buffer(BERTH_Device* device, const cp_type* type, cp_storage* storage,
                               BERTH_Buffer** out) {
  BERTH_Buffer* buffer = malloc(sizeof *buffer);
  if (buffer == NULL || mtx_init(&buffer->lock, mtx_plain) != thrd_success) {
    free(buffer);
    cp_storage_release(storage);
    return cp_out_of_memory();
  }
  buffer->device = device;
  buffer->type = *type;
  buffer->storage = storage;
  count(&live_buffers, 1);
  *out = buffer;
  return NULL;
}

static void free_buffer(BERTH_Buffer* buffer) {
  cp_storage_release(buffer->storage);
  mtx_destroy(&buffer->lock);
  free(buffer);
  count(&live_buffers, -1);
}

/* A new reference to the buffer's elements; NULL once it is deleted. */
static cp_storage* buffer_contents(BERTH_Buffer* buffer) {
  mtx_lock(&buffer->lock);
  cp_storage* storage = buffer->storage != NULL ? cp_storage_retain(buffer->storage) : NULL;
  mtx_unlock(&buffer->lock);
  return storage;
}

static BERTH_Error* deleted_error(const char* function) {
  return cp_error(BERTH_Error_Code_FAILED_PRECONDITION, "%s: the buffer has been deleted", function);
}

static BERTH_Error* client_buffer_from_host(BERTH_Client_BufferFromHostBuffer_Args* args) {
  static const char kFn[] = "BERTH_Client_BufferFromHostBuffer";
  CHECK_ARGS(kFn, BERTH_Client_BufferFromHostBuffer_Args, args);
  args->buffer = NULL;
  args->done_with_host_buffer = NULL; /* the data is copied before returning */
  CHECK_OBJECT(kFn, args->client, "client");
  const int32_t element_type = args->type;
  if (element_type <= BERTH_Buffer_Type_INVALID || element_type >= NUM_TYPE_NAMES ||
      element_type == BERTH_Buffer_Type_TOKEN) {
    return cp_error(BERTH_Error_Code_INVALID_ARGUMENT,
                    "%s: %d is not a buffer element type (BERTH_Buffer_Type)", kFn,
                    (int)element_type);
  }
  if (element_type != BERTH_Buffer_Type_F32) {
    return cp_error(BERTH_Error_Code_UNIMPLEMENTED,
                    "%s: " CP_NAME " does not take element type %s (F32 only)", kFn,
                    kTypeNames[element_type]);
  }
  if (args->num_dims > CP_MAX_RANK) {
    return cp_error(BERTH_Error_Code_UNIMPLEMENTED,
                    "%s: " CP_NAME " does not take buffers of rank %zu (at most %d)", kFn,
                    args->num_dims, CP_MAX_RANK);
  }
  if (args->num_dims > 0 && args->dims == NULL) return null_object(kFn, "dims");
  cp_type type = {.rank = (int)args->num_dims, .count = 1};
  for (size_t i = 0; i < args->num_dims; ++i) {
    const int64_t dim = args->dims[i];
    if (dim < 0) {
      return cp_error(BERTH_Error_Code_INVALID_ARGUMENT, "%s: dimension %zu is %lld", kFn, i,
                      (long long)dim);
    }
    if (dim != 0 && type.count > (SIZE_MAX / sizeof(float)) / (uint64_t)dim) {
      return cp_error(BERTH_Error_Code_INVALID_ARGUMENT, "%s: the buffer has too many elements",
                      kFn);
    }
    type.dims[i] = dim;
    type.count *= (size_t)dim;
  }
  if (type.count > 0 && args->data == NULL) return null_object(kFn, "data");
  if (args->byte_strides != NULL && args->num_byte_strides != args->num_dims) {
    return cp_error(BERTH_Error_Code_INVALID_ARGUMENT, "%s: %zu byte strides for %zu dimensions",
                    kFn, args->num_byte_strides, args->num_dims);
  }
  if (args->host_buffer_semantics != BERTH_HostBufferSemantics_ImmutableOnlyDuringCall &&
      args->host_buffer_semantics != BERTH_HostBufferSemantics_ImmutableUntilTransferCompletes) {
    return cp_error(BERTH_Error_Code_INVALID_ARGUMENT, "%s: unknown host_buffer_semantics %d",
                    kFn, (int)args->host_buffer_semantics);
  }
  CHECK_OBJECT(kFn, args->device, "device");
  if (args->device->client != args->client) {
    return cp_error(BERTH_Error_Code_INVALID_ARGUMENT, "%s: the device is not this client's", kFn);
  }
  if (!args->device->addressable) {
    return cp_error(BERTH_Error_Code_INVALID_ARGUMENT,
                    "%s: device %lld is node %lld's, not addressable from this process", kFn,
                    (long long)args->device->description.id, (long long)args->device->description.id);
  }
  if (args->memory != NULL && args->memory != &args->client->memory) {
    return cp_error(BERTH_Error_Code_INVALID_ARGUMENT,
                    "%s: the memory is not addressable by device %lld", kFn,
                    (long long)args->device->description.id);
  }
  cp_storage* storage = cp_storage_new(type.count);
  if (storage == NULL) return cp_out_of_memory();
  if (args->byte_strides == NULL) {
    if (type.count > 0) memcpy(storage->data, args->data, type.count * sizeof(float));
  } else {
    /* Gather element by element, walking the index in row-major order. */
    int64_t index[CP_MAX_RANK] = {0};
    const unsigned char* base = args->data;
    for (size_t e = 0; e < type.count; ++e) {
      int64_t offset = 0;
      for (int d = 0; d < type.rank; ++d) offset += index[d] * args->byte_strides[d];
      memcpy(&storage->data[e], base + offset, sizeof(float));
      for (int d = type.rank - 1; d >= 0; --d) {
        if (++index[d] < type.dims[d]) break;
        index[d] = 0;
      }
    }
  }
  return new_buffer(args->device, &type, storage, &args->buffer);
}

static BERTH_Error* buffer_destroy(BERTH_Buffer_Destroy_Args* args) {
  CHECK_ARGS("BERTH_Buffer_Destroy", BERTH_Buffer_Destroy_Args, args);
  if (args->buffer != NULL) free_buffer(args->buffer);
  return NULL;
}

static BERTH_Error* buffer_element_type(BERTH_Buffer_ElementType_Args* args) {
  CHECK_ARGS("BERTH_Buffer_ElementType", BERTH_Buffer_ElementType_Args, args);
  CHECK_OBJECT("BERTH_Buffer_ElementType", args->buffer, "buffer");
  args->type = BERTH_Buffer_Type_F32;
  return NULL;
}

static BERTH_Error* buffer_dimensions(BERTH_Buffer_Dimensions_Args* args) {
  CHECK_ARGS("BERTH_Buffer_Dimensions", BERTH_Buffer_Dimensions_Args, args);
  CHECK_OBJECT("BERTH_Buffer_Dimensions", args->buffer, "buffer");
  args->dims = args->buffer->type.dims;
  args->num_dims = (size_t)args->buffer->type.rank;
  return NULL;
}

static BERTH_Error* buffer_on_device_size(BERTH_Buffer_OnDeviceSizeInBytes_Args* args) {
  CHECK_ARGS("BERTH_Buffer_OnDeviceSizeInBytes", BERTH_Buffer_OnDeviceSizeInBytes_Args, args);
  CHECK_OBJECT("BERTH_Buffer_OnDeviceSizeInBytes", args->buffer, "buffer");
  args->on_device_size_in_bytes = args->buffer->type.count * sizeof(float);
  return NULL;
}

static BERTH_Error* buffer_device(BERTH_Buffer_Device_Args* args) {
  CHECK_ARGS("BERTH_Buffer_Device", BERTH_Buffer_Device_Args, args);
  CHECK_OBJECT("BERTH_Buffer_Device", args->buffer, "buffer");
  args->device = args->buffer->device;
  return NULL;
}

static BERTH_Error* buffer_memory(BERTH_Buffer_Memory_Args* args) {
  CHECK_ARGS("BERTH_Buffer_Memory", BERTH_Buffer_Memory_Args, args);
  CHECK_OBJECT("BERTH_Buffer_Memory", args->buffer, "buffer");
  args->memory = &args->buffer->device->client->memory;
  return NULL;
}

static BERTH_Error* buffer_delete(BERTH_Buffer_Delete_Args* args) {
  CHECK_ARGS("BERTH_Buffer_Delete", BERTH_Buffer_Delete_Args, args);
  CHECK_OBJECT("BERTH_Buffer_Delete", args->buffer, "buffer");
  mtx_lock(&args->buffer->lock);
  cp_storage* storage = args->buffer->storage;
  args->buffer->storage = NULL;
  mtx_unlock(&args->buffer->lock);
  cp_storage_release(storage); /* executions reading it hold their own reference */
  return NULL;
}

static BERTH_Error* buffer_is_deleted(BERTH_Buffer_IsDeleted_Args* args) {
  CHECK_ARGS("BERTH_Buffer_IsDeleted", BERTH_Buffer_IsDeleted_Args, args);
  CHECK_OBJECT("BERTH_Buffer_IsDeleted", args->buffer, "buffer");
  mtx_lock(&args->buffer->lock);
  args->is_deleted = args->buffer->storage == NULL;
  mtx_unlock(&args->buffer->lock);
  return NULL;
}

static BERTH_Error* buffer_ready_event(BERTH_Buffer_ReadyEvent_Args* args) {
  CHECK_ARGS("BERTH_Buffer_ReadyEvent", BERTH_Buffer_ReadyEvent_Args, args);
  args->event = NULL;
  CHECK_OBJECT("BERTH_Buffer_ReadyEvent", args->buffer, "buffer");
  args->event = new_event(NULL); /* contents are there when the buffer is */
  return args->event != NULL ? NULL : cp_out_of_memory();
}

static BERTH_Error* buffer_to_host(BERTH_Buffer_ToHostBuffer_Args* args) {
  static const char kFn[] = "BERTH_Buffer_ToHostBuffer";
  CHECK_ARGS(kFn, BERTH_Buffer_ToHostBuffer_Args, args);
  args->event = NULL;
  CHECK_OBJECT(kFn, args->src, "src");
  cp_storage* storage = buffer_contents(args->src);
  if (storage == NULL) return deleted_error(kFn);
  const size_t needed = storage->count * sizeof(float);
  BERTH_Error* error = NULL;
  if (args->dst == NULL) {
    args->dst_size = needed;
  } else if (args->dst_size < needed) {
    error = cp_error(BERTH_Error_Code_INVALID_ARGUMENT,
                     "%s: the destination holds %zu bytes; the buffer needs %zu", kFn,
                     args->dst_size, needed);
  } else {
    if (needed > 0) memcpy(args->dst, storage->data, needed);
    args->event = new_event(NULL);
    if (args->event == NULL) error = cp_out_of_memory();
  }
  cp_storage_release(storage);
  return error;
}

static BERTH_Error* buffer_copy_to_device(BERTH_Buffer_CopyToDevice_Args* args) {
  static const char kFn[] = "BERTH_Buffer_CopyToDevice";
  CHECK_ARGS(kFn, BERTH_Buffer_CopyToDevice_Args, args);
  args->dst_buffer = NULL;
  CHECK_OBJECT(kFn, args->buffer, "buffer");
  CHECK_OBJECT(kFn, args->dst_device, "dst_device");
  if (args->dst_device->client != args->buffer->device->client || !args->dst_device->addressable) {
    return cp_error(BERTH_Error_Code_INVALID_ARGUMENT,
                    "%s: dst_device is not an addressable device of the buffer's client", kFn);
  }
  cp_storage* storage = buffer_contents(args->buffer);
  if (storage == NULL) return deleted_error(kFn);
  /* Elements never change once written: the copy shares them. */
  return new_buffer(args->dst_device, &args->buffer->type, storage, &args->dst_buffer);
}

/* ------------------------------------------------------------- executables */

/* A compiled program and what the host asks of it; shared (by count) by the
 * loaded executable and every executable view of it, read-only. */
typedef struct cp_compiled {
  atomic_long refs;
  cp_program* program;
  int entry;
  int64_t num_replicas, num_partitions;
  size_t num_outputs;
  BERTH_Buffer_Type* output_types;
  int64_t* output_dims; /* output i's dims after those of outputs 0..i-1 */
  size_t* output_dim_sizes;
} cp_compiled;

static void release_compiled(cp_compiled* compiled) {
  if (atomic_fetch_sub_explicit(&compiled->refs, 1, memory_order_acq_rel) != 1) return;
  cp_program_free(compiled->program);
  free(compiled->output_types);
  free(compiled->output_dims);
  free(compiled->output_dim_sizes);
  free(compiled);
}

struct BERTH_Executable {
  cp_compiled* compiled;
};

struct BERTH_LoadedExecutable {
  cp_compiled* compiled;
  BERTH_Client* client;
  BERTH_Device* devices[1]; /* this process's device, when the program runs on it */
  size_t num_devices;
};

/* The compile options this plugin reads: the reserved source_name only. */
static BERTH_Error* read_compile_options(const BERTH_CompileOptions* options, char** source_name) {
  static const char kFn[] = "BERTH_Client_Compile";
  *source_name = NULL;
  const char* name = "<program>";
  size_t name_size = sizeof("<program>") - 1;
  if (options != NULL) {
    BERTH_Error* error = check_struct(kFn, "BERTH_CompileOptions", &options->struct_size,
                                      BERTH_CompileOptions_STRUCT_SIZE);
    if (error != NULL) return error;
    cp_option known[] = {{BERTH_OPTION_SOURCE_NAME, BERTH_NamedValue_Type_String, NULL}};
    error = read_options(kFn, "compile option", options->options, options->num_options, known, 1,
                         "source_name");
    if (error != NULL) return error;
    if (known[0].value != NULL && known[0].value->value_size > 0) {
      name = known[0].value->string_value;
      name_size = known[0].value->value_size;
    }
  }
  *source_name = malloc(name_size + 1);
  if (*source_name == NULL) return cp_out_of_memory();
  memcpy(*source_name, name, name_size);
  (*source_name)[name_size] = '\0';
  return NULL;
}

/* The executable's metadata, from the entry function's result types. */
static BERTH_Error* describe_outputs(cp_compiled* compiled) {
  const size_t n = cp_function_num_results(compiled->program, compiled->entry);
  size_t total_dims = 0;
  for (size_t i = 0; i < n; ++i) {
    total_dims += (size_t)cp_function_result_type(compiled->program, compiled->entry, i)->rank;
  }
  compiled->num_outputs = n;
  compiled->output_types = malloc((n > 0 ? n : 1) * sizeof(BERTH_Buffer_Type));
  compiled->output_dim_sizes = malloc((n > 0 ? n : 1) * sizeof(size_t));
  compiled->output_dims = malloc((total_dims > 0 ? total_dims : 1) * sizeof(int64_t));
  if (compiled->output_types == NULL || compiled->output_dim_sizes == NULL ||
      compiled->output_dims == NULL) {
    return cp_out_of_memory();
  }
  size_t at = 0;
  for (size_t i = 0; i < n; ++i) {
    const cp_type* type = cp_function_result_type(compiled->program, compiled->entry, i);
    compiled->output_types[i] = BERTH_Buffer_Type_F32;
    compiled->output_dim_sizes[i] = (size_t)type->rank;
    for (int d = 0; d < type->rank; ++d) compiled->output_dims[at++] = type->dims[d];
  }
  return NULL;
}

/* Replicas, partitions and device assignment: which of the job's devices
 * run the program, and whether this process's is one of them. */
static BERTH_Error* place(const BERTH_Client* client, const BERTH_CompileOptions* options,
                          const char* source_name, cp_compiled* compiled, bool* runs_here) {
  static const char kFn[] = "BERTH_Client_Compile";
  int64_t replicas = options != NULL ? options->num_replicas : 0;
  int64_t partitions = options != NULL ? options->num_partitions : 0;
  if (replicas < 0 || partitions < 0) {
    return cp_error(BERTH_Error_Code_INVALID_ARGUMENT, "%s: %lld replicas, %lld partitions", kFn,
                    (long long)replicas, (long long)partitions);
  }
  if (replicas == 0) replicas = cp_program_num_replicas(compiled->program);
  if (replicas == 0) replicas = 1;
  if (partitions == 0) partitions = cp_program_num_partitions(compiled->program);
  if (partitions == 0) partitions = 1;
  compiled->num_replicas = replicas;
  compiled->num_partitions = partitions;
  if (replicas > client->num_nodes || partitions > client->num_nodes / replicas) {
    return cp_error(BERTH_Error_Code_INVALID_ARGUMENT,
                    "%s needs %lld x %lld devices (replicas x partitions); the job has %lld, one "
                    "per node (" CP_NAME " has one device per process: berth launch -n N)",
                    source_name, (long long)replicas, (long long)partitions,
                    (long long)client->num_nodes);
  }
  const size_t grid = (size_t)(replicas * partitions);
  const int64_t* assignment = options != NULL ? options->device_assignment : NULL;
  if (assignment != NULL && options->device_assignment_size != grid) {
    return cp_error(BERTH_Error_Code_INVALID_ARGUMENT,
                    "%s: the device assignment has %zu entries for %lld replicas x %lld partitions",
                    kFn, options->device_assignment_size, (long long)replicas,
                    (long long)partitions);
  }
  unsigned char* used = calloc((size_t)client->num_nodes, 1);
  if (used == NULL) return cp_out_of_memory();
  *runs_here = false;
  for (size_t i = 0; i < grid; ++i) {
    const int64_t id = assignment != NULL ? assignment[i] : (int64_t)i;
    if (id < 0 || id >= client->num_nodes || used[id]) {
      free(used);
      return cp_error(BERTH_Error_Code_INVALID_ARGUMENT,
                      "%s: device %lld of the assignment (entry %zu) %s", kFn, (long long)id, i,
                      id < 0 || id >= client->num_nodes ? "does not exist" : "appears twice");
    }
    used[id] = 1;
    if (id == client->node_id) *runs_here = true;
  }
  free(used);
  return NULL;
}

static BERTH_Error* client_compile(BERTH_Client_Compile_Args* args) {
  static const char kFn[] = "BERTH_Client_Compile";
  CHECK_ARGS(kFn, BERTH_Client_Compile_Args, args);
  args->executable = NULL;
  CHECK_OBJECT(kFn, args->client, "client");
  CHECK_OBJECT(kFn, args->program, "program");
  const BERTH_Program* program = args->program;
  BERTH_Error* error = check_struct(kFn, "BERTH_Program", &program->struct_size,
                                    BERTH_Program_STRUCT_SIZE);
  if (error != NULL) return error;
  if ((program->format == NULL && program->format_size > 0) ||
      (program->code == NULL && program->code_size > 0)) {
    return null_object(kFn, "the program's format or code");
  }
  const char* format = program->format != NULL ? program->format : "";
  if (program->format_size != sizeof("stablehlo") - 1 ||
      memcmp(format, "stablehlo", program->format_size) != 0) {
    return cp_error(BERTH_Error_Code_UNIMPLEMENTED,
                    CP_NAME " does not compile programs of format '%.*s' (only 'stablehlo')",
                    clamp_int(program->format_size), format);
  }
  char* source_name = NULL;
  error = read_compile_options(args->options, &source_name);
  if (error != NULL) return error;

  cp_compiled* compiled = calloc(1, sizeof *compiled);
  BERTH_LoadedExecutable* loaded = calloc(1, sizeof *loaded);
  if (compiled == NULL || loaded == NULL) {
    free(compiled);
    free(loaded);
    free(source_name);
    return cp_out_of_memory();
  }
  atomic_init(&compiled->refs, 1);
  bool runs_here = false;
  error = cp_program_parse(program->code != NULL ? program->code : "", program->code_size,
                           source_name, &compiled->program);
  if (error == NULL) {
    const BERTH_CompileOptions* o = args->options;
    compiled->entry = cp_program_find_entry(compiled->program, o != NULL ? o->entry_name : NULL,
                                            o != NULL ? o->entry_name_size : 0, &error);
  }
  if (error == NULL) error = describe_outputs(compiled);
  if (error == NULL) error = place(args->client, args->options, source_name, compiled, &runs_here);
  free(source_name);
  if (error != NULL) {
    release_compiled(compiled);
    free(loaded);
    return error;
  }
  loaded->compiled = compiled;
  loaded->client = args->client;
  loaded->devices[0] = args->client->local;
  loaded->num_devices = runs_here ? 1 : 0;
  count(&live_executables, 1);
  args->executable = loaded;
  return NULL;
}

#define CHECK_EXECUTABLE(function, args) CHECK_OBJECT(function, (args)->executable, "executable")

static BERTH_Error* executable_destroy(BERTH_Executable_Destroy_Args* args) {
  CHECK_ARGS("BERTH_Executable_Destroy", BERTH_Executable_Destroy_Args, args);
  if (args->executable == NULL) return NULL;
  release_compiled(args->executable->compiled);
  free(args->executable);
  return NULL;
}

static BERTH_Error* executable_name(BERTH_Executable_Name_Args* args) {
  CHECK_ARGS("BERTH_Executable_Name", BERTH_Executable_Name_Args, args);
  CHECK_EXECUTABLE("BERTH_Executable_Name", args);
  const cp_compiled* c = args->executable->compiled;
  args->executable_name = cp_function_name(c->program, c->entry);
  args->executable_name_size = strlen(args->executable_name);
  return NULL;
}

static BERTH_Error* executable_num_replicas(BERTH_Executable_NumReplicas_Args* args) {
  CHECK_ARGS("BERTH_Executable_NumReplicas", BERTH_Executable_NumReplicas_Args, args);
  CHECK_EXECUTABLE("BERTH_Executable_NumReplicas", args);
  args->num_replicas = args->executable->compiled->num_replicas;
  args->num_partitions = args->executable->compiled->num_partitions;
  return NULL;
}

static BERTH_Error* executable_num_outputs(BERTH_Executable_NumOutputs_Args* args) {
  CHECK_ARGS("BERTH_Executable_NumOutputs", BERTH_Executable_NumOutputs_Args, args);
  CHECK_EXECUTABLE("BERTH_Executable_NumOutputs", args);
  args->num_outputs = args->executable->compiled->num_outputs;
  return NULL;
}

static BERTH_Error* executable_output_types(BERTH_Executable_OutputElementTypes_Args* args) {
  CHECK_ARGS("BERTH_Executable_OutputElementTypes", BERTH_Executable_OutputElementTypes_Args, args);
  CHECK_EXECUTABLE("BERTH_Executable_OutputElementTypes", args);
  args->output_types = args->executable->compiled->output_types;
  args->num_output_types = args->executable->compiled->num_outputs;
  return NULL;
}

static BERTH_Error* executable_output_dims(BERTH_Executable_OutputDimensions_Args* args) {
  CHECK_ARGS("BERTH_Executable_OutputDimensions", BERTH_Executable_OutputDimensions_Args, args);
  CHECK_EXECUTABLE("BERTH_Executable_OutputDimensions", args);
  args->num_outputs = args->executable->compiled->num_outputs;
  args->dims = args->executable->compiled->output_dims;
  args->dim_sizes = args->executable->compiled->output_dim_sizes;
  return NULL;
}

static BERTH_Error* loaded_destroy(BERTH_LoadedExecutable_Destroy_Args* args) {
  CHECK_ARGS("BERTH_LoadedExecutable_Destroy", BERTH_LoadedExecutable_Destroy_Args, args);
  if (args->executable == NULL) return NULL;
  release_compiled(args->executable->compiled);
  free(args->executable);
  count(&live_executables, -1);
  return NULL;
}

static BERTH_Error* loaded_get_executable(BERTH_LoadedExecutable_GetExecutable_Args* args) {
  CHECK_ARGS("BERTH_LoadedExecutable_GetExecutable", BERTH_LoadedExecutable_GetExecutable_Args,
             args);
  args->executable = NULL;
  CHECK_OBJECT("BERTH_LoadedExecutable_GetExecutable", args->loaded_executable,
               "loaded_executable");
  BERTH_Executable* view = malloc(sizeof *view);
  if (view == NULL) return cp_out_of_memory();
  view->compiled = args->loaded_executable->compiled;
  atomic_fetch_add_explicit(&view->compiled->refs, 1, memory_order_relaxed);
  args->executable = view;
  return NULL;
}

static BERTH_Error* loaded_addressable_devices(BERTH_LoadedExecutable_AddressableDevices_Args* args) {
  CHECK_ARGS("BERTH_LoadedExecutable_AddressableDevices",
             BERTH_LoadedExecutable_AddressableDevices_Args, args);
  CHECK_EXECUTABLE("BERTH_LoadedExecutable_AddressableDevices", args);
  args->addressable_devices = args->executable->devices;
  args->num_addressable_devices = args->executable->num_devices;
  return NULL;
}

/* Takes a reference to argument `i` of one device's list after checking it
 * against the entry function's parameter. */
static BERTH_Error* take_argument(const cp_compiled* compiled, BERTH_Buffer* buffer, size_t i,
                                  const BERTH_Device* device, cp_storage** out) {
  static const char kFn[] = "BERTH_LoadedExecutable_Execute";
  if (buffer == NULL) {
    return cp_error(BERTH_Error_Code_INVALID_ARGUMENT, "%s: argument %zu is NULL", kFn, i);
  }
  const cp_type* want = cp_function_arg_type(compiled->program, compiled->entry, i);
  if (buffer->device != device) {
    return cp_error(BERTH_Error_Code_INVALID_ARGUMENT,
                    "%s: argument %zu lives on another device or client than the one running",
                    kFn, i);
  }
  if (!cp_type_equal(&buffer->type, want)) {
    char have_text[CP_TYPE_TEXT], want_text[CP_TYPE_TEXT];
    cp_type_format(&buffer->type, have_text, sizeof have_text);
    cp_type_format(want, want_text, sizeof want_text);
    return cp_error(BERTH_Error_Code_INVALID_ARGUMENT,
                    "%s: argument %zu of @%s is a %s buffer; the parameter is %s", kFn, i,
                    cp_function_name(compiled->program, compiled->entry), have_text, want_text);
  }
  *out = buffer_contents(buffer);
  if (*out == NULL) {
    return cp_error(BERTH_Error_Code_FAILED_PRECONDITION, "%s: argument %zu has been deleted", kFn,
                    i);
  }
  return NULL;
}

/* Runs the program for one device; fills outputs[] with new buffers and
 * *event with a ready event (when `event` is not NULL). Nothing is left
 * behind on failure. */
static BERTH_Error* run_on_device(const cp_compiled* compiled, BERTH_Device* device,
                                  BERTH_Buffer* const* arguments, BERTH_Buffer** outputs,
                                  BERTH_Event** event) {
  const size_t num_args = cp_function_num_args(compiled->program, compiled->entry);
  const size_t num_outputs = compiled->num_outputs;
  cp_storage** values = calloc(num_args + num_outputs + 1, sizeof(cp_storage*));
  BERTH_Buffer** made = calloc(num_outputs + 1, sizeof(BERTH_Buffer*));
  BERTH_Error* error = values == NULL || made == NULL ? cp_out_of_memory() : NULL;
  for (size_t i = 0; error == NULL && i < num_args; ++i) {
    error = take_argument(compiled, arguments[i], i, device, &values[i]);
  }
  cp_storage** results = values != NULL ? values + num_args : NULL;
  if (error == NULL) error = cp_program_run(compiled->program, compiled->entry, values, results);
  for (size_t o = 0; error == NULL && o < num_outputs; ++o) {
    const cp_type* type = cp_function_result_type(compiled->program, compiled->entry, o);
    /* The buffer's type is the result type the metadata was made from. */
    error = new_buffer(device, type, results[o], &made[o]);
    results[o] = NULL; /* taken, even on failure */
  }
  BERTH_Event* done = NULL;
  if (error == NULL && event != NULL) {
    done = new_event(NULL);
    if (done == NULL) error = cp_out_of_memory();
  }
  if (values != NULL) {
    for (size_t i = 0; i < num_args + num_outputs; ++i) cp_storage_release(values[i]);
  }
  if (error == NULL) {
    for (size_t o = 0; o < num_outputs; ++o) outputs[o] = made[o];
    if (event != NULL) *event = done;
  } else if (made != NULL) {
    for (size_t o = 0; o < num_outputs; ++o) {
      if (made[o] != NULL) free_buffer(made[o]);
    }
  }
  free(values);
  free(made);
  return error;
}

static BERTH_Error* loaded_execute(BERTH_LoadedExecutable_Execute_Args* args) {
  static const char kFn[] = "BERTH_LoadedExecutable_Execute";
  CHECK_ARGS(kFn, BERTH_LoadedExecutable_Execute_Args, args);
  CHECK_EXECUTABLE(kFn, args);
  const BERTH_LoadedExecutable* executable = args->executable;
  const cp_compiled* compiled = executable->compiled;
  if (args->options != NULL) {
    /* launch_id is not needed: programs have no collectives. */
    BERTH_Error* error = check_struct(kFn, "BERTH_ExecuteOptions", &args->options->struct_size,
                                      BERTH_ExecuteOptions_STRUCT_SIZE);
    if (error != NULL) return error;
  }
  BERTH_Device* const* devices = executable->devices;
  size_t expected = executable->num_devices;
  if (args->execute_device != NULL) {
    if (args->execute_device != executable->client->local) {
      return cp_error(BERTH_Error_Code_INVALID_ARGUMENT,
                      "%s: execute_device is not an addressable device of the executable's client",
                      kFn);
    }
    if (compiled->num_replicas * compiled->num_partitions != 1) {
      return cp_error(BERTH_Error_Code_INVALID_ARGUMENT,
                      "%s: execute_device runs single-device programs; this one runs on %lld "
                      "devices", kFn, (long long)(compiled->num_replicas * compiled->num_partitions));
    }
    devices = &executable->client->local_list[0];
    expected = 1;
  }
  if (args->num_devices != expected) {
    return cp_error(BERTH_Error_Code_INVALID_ARGUMENT,
                    "%s: %zu argument lists given; the executable runs on %zu device(s) of this "
                    "process", kFn, args->num_devices, expected);
  }
  /* Every device is another node's: nothing runs here (a host then has no
   * argument lists, and so no argument count, to give). */
  if (args->num_devices == 0) return NULL;
  const size_t num_params = cp_function_num_args(compiled->program, compiled->entry);
  if (args->num_args != num_params) {
    return cp_error(BERTH_Error_Code_INVALID_ARGUMENT, "%s: @%s takes %zu argument(s), got %zu",
                    kFn, cp_function_name(compiled->program, compiled->entry), num_params,
                    args->num_args);
  }
  if (args->num_args > 0 && args->argument_lists == NULL) return null_object(kFn, "argument_lists");
  if (args->output_lists == NULL) return null_object(kFn, "output_lists");
  for (size_t d = 0; d < args->num_devices; ++d) {
    if (args->num_args > 0 && args->argument_lists[d] == NULL) {
      return cp_error(BERTH_Error_Code_INVALID_ARGUMENT, "%s: argument_lists[%zu] is NULL", kFn, d);
    }
    if (compiled->num_outputs > 0 && args->output_lists[d] == NULL) {
      return cp_error(BERTH_Error_Code_INVALID_ARGUMENT, "%s: output_lists[%zu] is NULL", kFn, d);
    }
  }
  /* One device per process: num_devices is 1 here. */
  for (size_t d = 0; d < args->num_devices; ++d) {
    BERTH_Error* error = run_on_device(
        compiled, devices[d], args->num_args > 0 ? args->argument_lists[d] : NULL,
        args->output_lists[d],
        args->device_complete_events != NULL ? &args->device_complete_events[d] : NULL);
    if (error != NULL) return error;
  }
  return NULL;
}

/* ------------------------------------------------------------------- table */

/* The table of ABI 1.1: it ends at the last 1.1 function, so a host of a
 * later minor sees the later functions as absent (UNIMPLEMENTED). */
static const BERTH_Api kApi = {
    .struct_size = BERTH_STRUCT_SIZE(BERTH_Api, BERTH_TopologyDescription_GetDeviceDescriptions),
    .extension_start = &kLiveObjects.base,
    .api_version = {.struct_size = BERTH_Api_Version_STRUCT_SIZE,
                    .major_version = BERTH_API_MAJOR,
                    .minor_version = CP_API_MINOR},
    .BERTH_Error_Destroy = error_destroy,
    .BERTH_Error_Message = error_message,
    .BERTH_Error_GetCode = error_get_code,
    .BERTH_Plugin_Initialize = plugin_initialize,
    .BERTH_Plugin_Attributes = plugin_attributes,
    .BERTH_Event_Destroy = event_destroy,
    .BERTH_Event_IsReady = event_is_ready,
    .BERTH_Event_Error = event_error,
    .BERTH_Event_Await = event_await,
    .BERTH_Event_OnReady = event_on_ready,
    .BERTH_Client_Create = client_create,
    .BERTH_Client_Destroy = client_destroy,
    .BERTH_Client_PlatformName = client_platform_name,
    .BERTH_Client_PlatformVersion = client_platform_version,
    .BERTH_Client_ProcessIndex = client_process_index,
    .BERTH_Client_Devices = client_devices,
    .BERTH_Client_AddressableDevices = client_addressable_devices,
    .BERTH_Client_LookupDevice = client_lookup_device,
    .BERTH_Client_AddressableMemories = client_addressable_memories,
    .BERTH_Client_Compile = client_compile,
    .BERTH_Client_BufferFromHostBuffer = client_buffer_from_host,
    .BERTH_Client_TopologyDescription = client_topology,
    .BERTH_DeviceDescription_Id = description_id,
    .BERTH_DeviceDescription_ProcessIndex = description_process_index,
    .BERTH_DeviceDescription_Kind = description_kind,
    .BERTH_DeviceDescription_Attributes = description_attributes,
    .BERTH_DeviceDescription_DebugString = description_debug_string,
    .BERTH_Device_GetDescription = device_get_description,
    .BERTH_Device_IsAddressable = device_is_addressable,
    .BERTH_Device_LocalHardwareId = device_local_hardware_id,
    .BERTH_Device_AddressableMemories = device_addressable_memories,
    .BERTH_Device_DefaultMemory = device_default_memory,
    .BERTH_Memory_Id = memory_id,
    .BERTH_Memory_Kind = memory_kind,
    .BERTH_Memory_AddressableByDevices = memory_addressable_by,
    .BERTH_Buffer_Destroy = buffer_destroy,
    .BERTH_Buffer_ElementType = buffer_element_type,
    .BERTH_Buffer_Dimensions = buffer_dimensions,
    .BERTH_Buffer_OnDeviceSizeInBytes = buffer_on_device_size,
    .BERTH_Buffer_Device = buffer_device,
    .BERTH_Buffer_Memory = buffer_memory,
    .BERTH_Buffer_Delete = buffer_delete,
    .BERTH_Buffer_IsDeleted = buffer_is_deleted,
    .BERTH_Buffer_ReadyEvent = buffer_ready_event,
    .BERTH_Buffer_ToHostBuffer = buffer_to_host,
    .BERTH_Buffer_CopyToDevice = buffer_copy_to_device,
    .BERTH_Executable_Destroy = executable_destroy,
    .BERTH_Executable_Name = executable_name,
    .BERTH_Executable_NumReplicas = executable_num_replicas,
    .BERTH_Executable_NumOutputs = executable_num_outputs,
    .BERTH_Executable_OutputElementTypes = executable_output_types,
    .BERTH_Executable_OutputDimensions = executable_output_dims,
    .BERTH_LoadedExecutable_Destroy = loaded_destroy,
    .BERTH_LoadedExecutable_GetExecutable = loaded_get_executable,
    .BERTH_LoadedExecutable_AddressableDevices = loaded_addressable_devices,
    .BERTH_LoadedExecutable_Execute = loaded_execute,
    .BERTH_TopologyDescription_PlatformName = topology_platform_name,
    .BERTH_TopologyDescription_GetDeviceDescriptions = topology_descriptions,
};

/* The one exported symbol. -fvisibility=hidden hides everything else, and
 * the SDK's version script keeps it so; BERTH_PLUGIN_VISIBLE (c_api.h) marks
 * it for export. */
BERTH_PLUGIN_VISIBLE const BERTH_Api* BERTH_GetApi(void) {
  return &kApi;
}
