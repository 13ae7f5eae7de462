/* Berth `ffi` extension: custom-call handlers by target name.
 *
 * A program's `stablehlo.custom_call @target(...)` runs the handler registered
 * under `target` with the client that compiles the program. A handler gets a
 * call frame (operand and result buffers with element type, dims and data,
 * and the custom call's attributes as typed values) and returns a code.
 *
 * Every handler is called twice per custom call site: once at compile time
 * (stage PREPARE: buffers carry types and dims, `data` is NULL) so it can
 * reject operands or attributes it cannot take - the compile then fails with
 * its message - and then once per execution (stage EXECUTE).
 *
 * A backend plugin offers the extension by putting a BERTH_Ffi_Extension in
 * its table's chain. Handlers come from the application (through the host's
 * Client API) and from FFI extension modules: shared libraries that export
 * BERTH_Ffi_GetModule (typed handlers) and/or whose manifest binds plain C
 * functions, which the host calls through libffi (extensions/ffi/README.md).
 *
 * This header is C11 and C++20 clean; it depends only on berth/c_api.h.
 */
#ifndef BERTH_EXT_FFI_H_
#define BERTH_EXT_FFI_H_

#include "berth/c_api.h"

/* Version of this extension's structs and functions; bumped when a field or
 * function is appended. 1: the first. */
#define BERTH_FFI_EXTENSION_VERSION 1

#ifdef __cplusplus
extern "C" {
#endif

typedef int32_t BERTH_Ffi_Stage;
enum BERTH_Ffi_Stage_Values {
  BERTH_Ffi_Stage_Prepare = 0, /* compile time: no data */
  BERTH_Ffi_Stage_Execute = 1,
};

/* One operand or result of a custom call. */
typedef struct BERTH_Ffi_Buffer {
  BERTH_Buffer_Type element_type;
  const int64_t* dims; /* borrowed for the call; num_dims of them */
  size_t num_dims;
  /* Dense major-to-minor, borrowed for the call. NULL at the PREPARE stage.
   * Operands are read-only; results are written by the handler. */
  void* data;
  size_t size_in_bytes;
} BERTH_Ffi_Buffer;

/* Tells the caller why the call failed; the message is copied. */
typedef void BERTH_Ffi_ReportError(void* error_context, const char* message,
                                   size_t message_size);

typedef struct BERTH_Ffi_CallFrame {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Ffi_Stage stage;
  const char* target; /* borrowed for the call: the call_target_name */
  size_t target_size;
  const char* platform; /* borrowed: the client's platform, e.g. "cpu" */
  size_t platform_size;
  const BERTH_Ffi_Buffer* operands; /* borrowed for the call */
  size_t num_operands;
  const BERTH_Ffi_Buffer* results; /* borrowed; handler writes their data */
  size_t num_results;
  /* The custom call's attributes other than call_target_name, with the
   * entries of a `backend_config` dictionary (or `mhlo.backend_config`, as
   * JAX writes it) flattened in (a backend_config string stays one String
   * attribute "backend_config"). Integers are Int64,
   * floats Float64, bools Bool, strings String, integer arrays Int64List.
   * Borrowed for the call. */
  const BERTH_NamedValue* attributes;
  size_t num_attributes;
  void* handler_data; /* as registered */
  BERTH_Ffi_ReportError* report_error; /* never NULL */
  void* error_context;                 /* pass to report_error */
} BERTH_Ffi_CallFrame;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Ffi_CallFrame, error_context)

/* Returns BERTH_Error_Code_OK, or a code after (optionally) report_error.
 * May run on any thread, concurrently for different call sites; must not
 * throw. */
typedef BERTH_Error_Code BERTH_Ffi_Handler(BERTH_Ffi_CallFrame* frame);

/* Frees handler_data when the client that holds the handler is destroyed. */
typedef void BERTH_Ffi_ReleaseData(void* handler_data);

typedef struct BERTH_Ffi_RegisterHandler_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Client* client;
  const char* target; /* borrowed for the call; copied */
  size_t target_size;
  BERTH_Ffi_Handler* handler;
  void* handler_data; /* owned by the registrant until release_data */
  /* May be NULL. Called once the client drops the handler (client destroyed,
   * or the registration failed). */
  BERTH_Ffi_ReleaseData* release_data;
} BERTH_Ffi_RegisterHandler_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Ffi_RegisterHandler_Args, release_data)

/* Adds a handler for `target` to the client; programs compiled afterwards can
 * call it. ALREADY_EXISTS when the target has a handler (built-in targets
 * included). Since: ffi 1. */
typedef BERTH_Error* BERTH_Ffi_RegisterHandler(BERTH_Ffi_RegisterHandler_Args* args);

/* What a plugin puts in its chain (type BERTH_Extension_Type_Ffi). */
typedef struct BERTH_Ffi_Extension {
  BERTH_Extension_Base base;
  int32_t version; /* BERTH_FFI_EXTENSION_VERSION the plugin was built with */
  BERTH_Ffi_RegisterHandler* register_handler;
} BERTH_Ffi_Extension;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Ffi_Extension, register_handler)

/* ------------------------ FFI extension modules ---------------------------- */

typedef struct BERTH_Ffi_ModuleHandler {
  const char* target; /* NUL-terminated, static */
  BERTH_Ffi_Handler* handler;
  void* handler_data; /* static; never released */
} BERTH_Ffi_ModuleHandler;

/* What BERTH_Ffi_GetModule returns; static, owned by the module. */
typedef struct BERTH_Ffi_Module {
  size_t struct_size;
  int32_t version; /* BERTH_FFI_EXTENSION_VERSION the module was built with */
  const BERTH_Ffi_ModuleHandler* handlers;
  size_t num_handlers;
} BERTH_Ffi_Module;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_Ffi_Module, num_handlers)

/* Exported (C linkage) by an FFI module with typed handlers. A module that
 * only binds plain C functions through its manifest need not export it. */
typedef const BERTH_Ffi_Module* BERTH_Ffi_GetModule_Fn(void);
#define BERTH_FFI_GET_MODULE_SYMBOL "BERTH_Ffi_GetModule"

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* BERTH_EXT_FFI_H_ */
