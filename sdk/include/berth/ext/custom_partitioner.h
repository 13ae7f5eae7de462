/* Berth `custom_partitioner` extension: how the SDK's SPMD partitioner cuts a
 * custom call it cannot see into.
 *
 * A sharded program (sdk/spmd) is partitioned op by op; a custom call is
 * opaque to the partitioner, so by default it runs whole on every device, its
 * operands gathered. A *rule* registered for the call's target tells the
 * partitioner what to do instead, in the spirit of JAX's custom_partitioning:
 *
 *   infer_result_shardings   operands' shardings in, results' shardings out
 *                            (propagation forwards);
 *   propagate_user_sharding  the sharding a user of the result asks for
 *                            (a sharding constraint or the entry's result
 *                            sharding) in, the results' shardings out
 *                            (propagation backwards);
 *   partition                operands' and results' shardings in, the
 *                            per-shard computation out: StableHLO text of a
 *                            module whose @main takes each operand's shard
 *                            and returns each result's shard, plus the
 *                            operand shardings it wants (the partitioner
 *                            reshards to them) and the result shardings its
 *                            shards make up.
 *
 * Payloads are Berth's text forms: types as `tensor<8x16xf32>` (the global
 * types), shardings as GSPMD strings (`{devices=[2,1]<=[2]}`, `{replicated}`,
 * berth/spmd/gspmd.hpp). Each callback returns a code and reports a failure
 * through report_error; a failing rule fails the compile naming the target
 * and the callback, never the process.
 *
 * Rules belong to a client and are registered by the application (through
 * the host's Client API) or by custom_partitioner extension modules: shared
 * libraries exporting BERTH_CustomPartitioner_GetModule. Each registration
 * carries an identity: the SHA-256 of bytes that stand for the rule's content
 * (a module: its library file and the target; an application: the text it
 * gives), so an executable partitioned with a rule names it by content, not
 * by address, and stays cacheable across processes.
 *
 * This header is C11 and C++20 clean; it depends on berth/c_api.h and
 * berth/ext/ffi.h (for ReportError and ReleaseData).
 */
#ifndef BERTH_EXT_CUSTOM_PARTITIONER_H_
#define BERTH_EXT_CUSTOM_PARTITIONER_H_

#include "berth/c_api.h"
#include "berth/ext/ffi.h"

/* 1: the first. */
#define BERTH_CUSTOM_PARTITIONER_EXTENSION_VERSION 1

/* Length of an identity: SHA-256, 64 lower-case hex digits. */
#define BERTH_CUSTOM_PARTITIONER_IDENTITY_SIZE 64

#ifdef __cplusplus
extern "C" {
#endif

/* One operand or result of the call site. */
typedef struct BERTH_CustomPartitioner_Value {
  const char* type; /* the global type, "tensor<16x8xf32>"; borrowed */
  size_t type_size;
  /* GSPMD text, borrowed. Operands: the layout the value arrives in.
   * Results: empty for infer_result_shardings; the user's sharding for
   * propagate_user_sharding (empty for results no user constrains); the
   * chosen sharding for partition. */
  const char* sharding;
  size_t sharding_size;
} BERTH_CustomPartitioner_Value;

/* Where a callback puts its answers. */
typedef int32_t BERTH_CustomPartitioner_Slot;
enum BERTH_CustomPartitioner_Slot_Values {
  BERTH_CustomPartitioner_Slot_ResultSharding = 0,  /* index: the result */
  BERTH_CustomPartitioner_Slot_OperandSharding = 1, /* index: the operand (partition) */
  BERTH_CustomPartitioner_Slot_Computation = 2,     /* index 0 (partition) */
};

/* Sets one answer (the text is copied; setting it again replaces it).
 * Answers not set keep their defaults: a result's sharding replicated
 * (infer), the user's (propagate) or as chosen (partition); an operand's as
 * it arrives. */
typedef void BERTH_CustomPartitioner_SetAnswer(void* answer_context,
                                               BERTH_CustomPartitioner_Slot slot, size_t index,
                                               const char* text, size_t text_size);

typedef struct BERTH_CustomPartitioner_Call {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  const char* target; /* borrowed: the call_target_name */
  size_t target_size;
  /* The custom call's attributes, as the ffi extension passes them. */
  const BERTH_NamedValue* attributes;
  size_t num_attributes;
  const BERTH_CustomPartitioner_Value* operands;
  size_t num_operands;
  const BERTH_CustomPartitioner_Value* results;
  size_t num_results;
  int64_t num_partitions; /* devices the program is partitioned over */
  void* rule_data;        /* as registered */
  BERTH_CustomPartitioner_SetAnswer* set_answer; /* never NULL */
  void* answer_context;
  BERTH_Ffi_ReportError* report_error; /* never NULL */
  void* error_context;
} BERTH_CustomPartitioner_Call;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_CustomPartitioner_Call, error_context)

/* Returns BERTH_Error_Code_OK, or a code after (optionally) report_error.
 * Runs on the thread that compiles; must not throw. */
typedef BERTH_Error_Code BERTH_CustomPartitioner_Callback(BERTH_CustomPartitioner_Call* call);

/* A rule for one target. */
typedef struct BERTH_CustomPartitioner_Rule {
  size_t struct_size;
  const char* target; /* borrowed for the registration; copied */
  size_t target_size;
  /* May be NULL: the results are replicated. */
  BERTH_CustomPartitioner_Callback* infer_result_shardings;
  /* May be NULL: users' shardings are not followed backwards. */
  BERTH_CustomPartitioner_Callback* propagate_user_sharding;
  /* Required. */
  BERTH_CustomPartitioner_Callback* partition;
  void* rule_data;
} BERTH_CustomPartitioner_Rule;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_CustomPartitioner_Rule, rule_data)

typedef struct BERTH_CustomPartitioner_Register_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Client* client;
  const BERTH_CustomPartitioner_Rule* rule; /* borrowed for the call */
  /* BERTH_CUSTOM_PARTITIONER_IDENTITY_SIZE hex digits (the host computes
   * them); borrowed, copied. */
  const char* identity;
  size_t identity_size;
  /* May be NULL. Called with rule_data once the client drops the rule
   * (unregistered, client destroyed, or the registration failed). */
  BERTH_Ffi_ReleaseData* release_data;
  uint64_t handle; /* out: names the registration to Unregister */
} BERTH_CustomPartitioner_Register_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_CustomPartitioner_Register_Args, handle)

/* Adds the rule to the client; programs compiled afterwards use it.
 * ALREADY_EXISTS when the target has a rule; INVALID_ARGUMENT for an empty
 * target, a NULL partition callback or a malformed identity. Since:
 * custom_partitioner 1. */
typedef BERTH_Error* BERTH_CustomPartitioner_Register(BERTH_CustomPartitioner_Register_Args* args);

typedef struct BERTH_CustomPartitioner_Unregister_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Client* client;
  uint64_t handle; /* as Register returned it */
} BERTH_CustomPartitioner_Unregister_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_CustomPartitioner_Unregister_Args, handle)

/* Removes the rule; executables compiled with it keep what it produced.
 * NOT_FOUND for a handle the client does not hold (already unregistered).
 * Since: custom_partitioner 1. */
typedef BERTH_Error* BERTH_CustomPartitioner_Unregister(
    BERTH_CustomPartitioner_Unregister_Args* args);

/* What a plugin puts in its chain (type BERTH_Extension_Type_CustomPartitioner). */
typedef struct BERTH_CustomPartitioner_Extension {
  BERTH_Extension_Base base;
  int32_t version; /* BERTH_CUSTOM_PARTITIONER_EXTENSION_VERSION */
  BERTH_CustomPartitioner_Register* register_rule;
  BERTH_CustomPartitioner_Unregister* unregister_rule;
} BERTH_CustomPartitioner_Extension;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_CustomPartitioner_Extension, unregister_rule)

/* --------------------- custom_partitioner extension modules ---------------- */

/* What BERTH_CustomPartitioner_GetModule returns; static, owned by the
 * module. Its rules' rule_data are static and never released. */
typedef struct BERTH_CustomPartitioner_Module {
  size_t struct_size;
  int32_t version; /* BERTH_CUSTOM_PARTITIONER_EXTENSION_VERSION */
  const BERTH_CustomPartitioner_Rule* rules;
  size_t num_rules;
} BERTH_CustomPartitioner_Module;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_CustomPartitioner_Module, num_rules)

/* Exported (C linkage) by a custom_partitioner module. */
typedef const BERTH_CustomPartitioner_Module* BERTH_CustomPartitioner_GetModule_Fn(void);
#define BERTH_CUSTOM_PARTITIONER_GET_MODULE_SYMBOL "BERTH_CustomPartitioner_GetModule"

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* BERTH_EXT_CUSTOM_PARTITIONER_H_ */
