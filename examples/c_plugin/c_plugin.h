/* Internal to the C plugin: the types its two source files share.
 *
 *   c_plugin.c  the C ABI: BERTH_GetApi, the table, every entry point, the
 *               objects the host holds handles to (errors, events, clients,
 *               devices, memories, buffers, executables), live-object counts
 *   program.c   the backend proper: a hand-written parser for a small
 *               StableHLO subset (MLIR text) and an interpreter for it
 *
 * Nothing here is exported: the library is built with -fvisibility=hidden
 * and the SDK's version script, so BERTH_GetApi is its one dynamic symbol.
 */
#ifndef C_PLUGIN_H_
#define C_PLUGIN_H_

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "berth/c_api.h"

#define CP_NAME "c plugin" /* how messages name this backend */

/* ------------------------------------------------------------------ errors */

/* A new error with a printf-style message. Never returns NULL: when memory
 * runs out it returns a static RESOURCE_EXHAUSTED error whose destroy is a
 * no-op. */
BERTH_Error* cp_error(BERTH_Error_Code code, const char* format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
BERTH_Error* cp_out_of_memory(void);
void cp_error_free(BERTH_Error* error);

/* ----------------------------------------------------------------- storage */

/* The f32 elements of a buffer or of a value during an execution. Immutable
 * once filled; shared by reference count (a buffer, a copy of it on the
 * device, an output that returns an argument, a program constant). */
typedef struct cp_storage {
  atomic_long refs;
  size_t count; /* elements */
  float data[]; /* count of them */
} cp_storage;

cp_storage* cp_storage_new(size_t count); /* refs = 1; NULL when out of memory */
cp_storage* cp_storage_retain(cp_storage* storage);
void cp_storage_release(cp_storage* storage); /* NULL is a no-op */

/* ---------------------------------------------------------------- programs */

#define CP_MAX_RANK 16

typedef struct cp_type {
  int rank;
  int64_t dims[CP_MAX_RANK];
  size_t count; /* product of dims (1 for rank 0) */
} cp_type;

bool cp_type_equal(const cp_type* a, const cp_type* b);
/* "tensor<2x3xf32>" into `out` (at least 32 + 21 * CP_MAX_RANK bytes). */
void cp_type_format(const cp_type* type, char* out, size_t out_size);
#define CP_TYPE_TEXT 400

typedef struct cp_program cp_program;

/* Parses MLIR text (`code`, `size` bytes) of the subset README.md describes.
 * `source_name` names the program in messages ("prog.mlir:3:8").
 * INVALID_ARGUMENT for text that does not parse or breaks the spec,
 * UNIMPLEMENTED naming an op, type or construct outside the subset. */
BERTH_Error* cp_program_parse(const char* code, size_t size, const char* source_name,
                              cp_program** out);
void cp_program_free(cp_program* program);

/* The module's mhlo.num_replicas / mhlo.num_partitions; 0 when absent. */
int64_t cp_program_num_replicas(const cp_program* program);
int64_t cp_program_num_partitions(const cp_program* program);

/* The entry function: `name` (not NUL-terminated, `name_size` bytes) when
 * given, else @main, else the only public function. -1 with *error set. */
int cp_program_find_entry(const cp_program* program, const char* name, size_t name_size,
                          BERTH_Error** error);

const char* cp_function_name(const cp_program* program, int function);
size_t cp_function_num_args(const cp_program* program, int function);
const cp_type* cp_function_arg_type(const cp_program* program, int function, size_t i);
size_t cp_function_num_results(const cp_program* program, int function);
const cp_type* cp_function_result_type(const cp_program* program, int function, size_t i);

/* Runs `function` on `args` (its arguments, types already checked) and
 * fills `results` (cp_function_num_results of them, each new reference the
 * caller releases). Thread-safe: the program is only read. */
BERTH_Error* cp_program_run(const cp_program* program, int function, cp_storage* const* args,
                            cp_storage** results);

/* The ops the interpreter runs, one X(name, opcode, operands) each: the
 * interpreter's table (program.c) and the "supported_ops" attribute
 * (c_plugin.c) are both made from this list, so they cannot disagree. */
#define CP_FOR_EACH_OP(X)             \
  X("stablehlo.abs", OP_ABS, 1)           \
  X("stablehlo.add", OP_ADD, 2)           \
  X("stablehlo.constant", OP_CONSTANT, 0) \
  X("stablehlo.divide", OP_DIVIDE, 2)     \
  X("stablehlo.maximum", OP_MAXIMUM, 2)   \
  X("stablehlo.minimum", OP_MINIMUM, 2)   \
  X("stablehlo.multiply", OP_MULTIPLY, 2) \
  X("stablehlo.negate", OP_NEGATE, 1)     \
  X("stablehlo.subtract", OP_SUBTRACT, 2)

/* ",stablehlo.abs,stablehlo.add,...": skip the first character for the
 * comma-separated list. */
#define CP_OP_LIST_ITEM(name, opcode, operands) "," name
#define CP_SUPPORTED_OPS_LEADING_COMMA CP_FOR_EACH_OP(CP_OP_LIST_ITEM)

#endif /* C_PLUGIN_H_ */
