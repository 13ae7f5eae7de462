/* Berth `phase_compile` extension: a plugin's compiler run one named phase at
 * a time, with its intermediates handed back as bytes.
 *
 * A plugin lists its phases in order, each with a name and the formats of its
 * input and its output (the cpu plugin: `verify` stablehlo -> stablehlo,
 * `partition` stablehlo -> stablehlo-partitioned, `plan` stablehlo-partitioned
 * -> cpu-plan). The first phase's input format is a program format
 * BERTH_Client_Compile takes; every later phase takes the output format of the
 * phase before it. The host may run any contiguous range of phases on a program
 * or on an earlier phase's output, and loads the last output with
 * BERTH_Client_Compile, whose program `format` is that output's format (a
 * plugin with this extension compiles each of its phases' output formats: the
 * phases after it run first).
 *
 * Compile options are BERTH_CompileOptions, the same for every phase of one
 * compile and for the final load. Outputs are handed to a host callback while
 * the call runs, so no bytes are owned across the ABI. The host wraps each
 * intermediate it keeps with the plugin, its versions and a fingerprint
 * (docs/phase-compile.md); a plugin checks what it reads all the same and
 * answers INVALID_ARGUMENT / DATA_LOSS for bytes it cannot fully check.
 *
 * This header is C11 and C++20 clean; it depends only on berth/c_api.h.
 */
#ifndef BERTH_EXT_PHASE_COMPILE_H_
#define BERTH_EXT_PHASE_COMPILE_H_

#include "berth/c_api.h"

/* 1: the first. */
#define BERTH_PHASE_COMPILE_EXTENSION_VERSION 1

#ifdef __cplusplus
extern "C" {
#endif

/* One phase. The strings are owned by the plugin and live as long as it. */
typedef struct BERTH_PhaseCompile_Phase {
  size_t struct_size;
  const char* name; /* e.g. "partition" */
  size_t name_size;
  const char* input_format; /* e.g. "stablehlo" */
  size_t input_format_size;
  const char* output_format; /* e.g. "stablehlo-partitioned" */
  size_t output_format_size;
  /* The output is text a person can read (a tool writes it as it is). */
  bool output_is_text;
} BERTH_PhaseCompile_Phase;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_PhaseCompile_Phase, output_is_text)

typedef struct BERTH_PhaseCompile_ListPhases_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Client* client;
  /* out: the phases in the order they run; each entry has its own
   * struct_size. Owned by the plugin, valid as long as it is loaded. */
  const BERTH_PhaseCompile_Phase* const* phases;
  size_t num_phases; /* out */
} BERTH_PhaseCompile_ListPhases_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_PhaseCompile_ListPhases_Args, num_phases)

/* The client's phases. Since: phase_compile 1. */
typedef BERTH_Error* BERTH_PhaseCompile_ListPhases(BERTH_PhaseCompile_ListPhases_Args* args);

/* Receives a phase's output; the bytes are borrowed for the call (copy them).
 * Called once per successful RunPhase, on the thread that called it. */
typedef void BERTH_PhaseCompile_WriteOutput(void* output_context, const char* data, size_t size);

typedef struct BERTH_PhaseCompile_RunPhase_Args {
  size_t struct_size;
  BERTH_Extension_Base* extension_start;
  BERTH_Client* client;
  const char* phase; /* a name ListPhases gave; borrowed */
  size_t phase_size;
  /* The input; its format must be the phase's input format. Borrowed. */
  const BERTH_Program* input;
  const BERTH_CompileOptions* options; /* borrowed; NULL means defaults */
  BERTH_PhaseCompile_WriteOutput* write_output; /* never NULL */
  void* output_context;
} BERTH_PhaseCompile_RunPhase_Args;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_PhaseCompile_RunPhase_Args, output_context)

/* Runs one phase. NOT_FOUND for a phase the plugin does not have;
 * INVALID_ARGUMENT naming both formats for an input of another format; else
 * the errors a compile of the input would give. Since: phase_compile 1. */
typedef BERTH_Error* BERTH_PhaseCompile_RunPhase(BERTH_PhaseCompile_RunPhase_Args* args);

/* What a plugin puts in its chain (type BERTH_Extension_Type_PhaseCompile). */
typedef struct BERTH_PhaseCompile_Extension {
  BERTH_Extension_Base base;
  int32_t version; /* BERTH_PHASE_COMPILE_EXTENSION_VERSION */
  BERTH_PhaseCompile_ListPhases* list_phases;
  BERTH_PhaseCompile_RunPhase* run_phase;
} BERTH_PhaseCompile_Extension;
BERTH_DEFINE_STRUCT_TRAITS(BERTH_PhaseCompile_Extension, run_phase)

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* BERTH_EXT_PHASE_COMPILE_H_ */
