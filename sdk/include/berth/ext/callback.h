/* Berth `callback` extension: host callbacks a running program calls, and
 * event callbacks (execution finished, execution failed, plugin fatal error).
 *
 * A program calls a host callback with
 *   stablehlo.custom_call @berth.host_callback(%a, %b) {callback = "NAME"}
 * The callback registered under NAME on the client gets the same call frame
 * as an FFI handler (berth/ext/ffi.h), at the PREPARE stage when the program
 * is compiled (an unknown NAME fails the compile) and at EXECUTE time with
 * the operands' data and result buffers to fill.
 *
 * This header is C11 and C++20 clean; it depends on berth/c_api.h and
 * berth/ext/ffi.h (for the call frame).
 */
#ifndef BERTH_EXT_CALLBACK_H_
#define BERTH_EXT_CALLBACK_H_

#include "berth/c_api.h"
#include "berth/ext/ffi.h"

/* 1: the first. */
#define BERTH_CALLBACK_EXTENSION_VERSION 1

/* The custom-call target of host callbacks. */
#define BERTH_HOST_CALLBACK_TARGET "berth.host_callback"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct BERTH_Callback_RegisterHostCallback_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Client* client;
  const char* name; /* borrowed for the call; copied */
  size_t name_size;
  BERTH_Ffi_Handler* callback;
  void* callback_data;                /* owned by the registrant */
  BERTH_Ffi_ReleaseData* release_data; /* may be NULL; see ffi.h */
} BERTH_Callback_RegisterHostCallback_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Callback_RegisterHostCallback_Args, release_data)

/* ALREADY_EXISTS when NAME is taken. Since: callback 1. */
typedef BERTH_Error* BERTH_Callback_RegisterHostCallback(
    BERTH_Callback_RegisterHostCallback_Args* args);

typedef int32_t BERTH_Callback_EventKind;
enum BERTH_Callback_EventKind_Values {
  BERTH_Callback_EventKind_ExecutionFinished = 1,
  BERTH_Callback_EventKind_ExecutionFailed = 2,
  BERTH_Callback_EventKind_PluginFatal = 3,
};

typedef struct BERTH_Callback_Event {
  size_t struct_size;
  BERTH_Callback_EventKind kind;
  const char* executable_name; /* borrowed for the call; empty for PluginFatal */
  size_t executable_name_size;
  int64_t device_id;           /* the device that ran it; -1 when none */
  BERTH_Error_Code code;       /* OK for ExecutionFinished */
  const char* message;         /* borrowed for the call */
  size_t message_size;
} BERTH_Callback_Event;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Callback_Event, message_size)

/* Runs on a plugin thread once per event; must not block or call back into
 * the client. */
typedef void BERTH_Callback_EventFn(const BERTH_Callback_Event* event, void* user_data);

typedef struct BERTH_Callback_RegisterEventCallback_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Client* client;
  BERTH_Callback_EventFn* callback;
  void* user_data;                      /* owned by the registrant */
  BERTH_Ffi_ReleaseData* release_data;  /* may be NULL */
} BERTH_Callback_RegisterEventCallback_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Callback_RegisterEventCallback_Args, release_data)

/* Adds an event callback to the client (several may be added; each sees
 * every event). Since: callback 1. */
typedef BERTH_Error* BERTH_Callback_RegisterEventCallback(
    BERTH_Callback_RegisterEventCallback_Args* args);

/* What a plugin puts in its chain (type BERTH_Extension_Type_Callback). */
typedef struct BERTH_Callback_Extension {
  BERTH_Extension_Base base;
  int32_t version; /* BERTH_CALLBACK_EXTENSION_VERSION */
  BERTH_Callback_RegisterHostCallback* register_host_callback;
  BERTH_Callback_RegisterEventCallback* register_event_callback;
} BERTH_Callback_Extension;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Callback_Extension, register_event_callback)

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* BERTH_EXT_CALLBACK_H_ */
