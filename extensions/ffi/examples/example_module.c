/* An example FFI extension module, in plain C against berth/ext/ffi.h.
 *
 * It gives two custom-call targets:
 * - example.softplus, a typed handler exported through BERTH_Ffi_GetModule:
 *   out = log(1 + exp(beta * x)) / beta for an f32 tensor, `beta` an
 *   optional attribute (default 1);
 * - example.clamp, the plain C function example_clamp_f32 below, which has
 *   no Berth code at all: the module's manifest (example_module.json.in)
 *   binds it through libffi.
 * See README.md next to this file for building, loading and calling it. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "berth/ext/ffi.h"

#if defined(_WIN32)
#define EXAMPLE_EXPORT __declspec(dllexport)
#else
#define EXAMPLE_EXPORT __attribute__((visibility("default")))
#endif

static BERTH_Error_Code Fail(BERTH_Ffi_CallFrame* frame, BERTH_Error_Code code,
                             const char* message) {
  frame->report_error(frame->error_context, message, strlen(message));
  return code;
}

static int SameDims(const BERTH_Ffi_Buffer* a, const BERTH_Ffi_Buffer* b) {
  if (a->num_dims != b->num_dims) return 0;
  for (size_t i = 0; i < a->num_dims; ++i) {
    if (a->dims[i] != b->dims[i]) return 0;
  }
  return 1;
}

static double FloatAttribute(const BERTH_Ffi_CallFrame* frame, const char* name, double fallback) {
  for (size_t i = 0; i < frame->num_attributes; ++i) {
    const BERTH_NamedValue* value = &frame->attributes[i];
    if (value->name_size != strlen(name) || memcmp(value->name, name, value->name_size) != 0) {
      continue;
    }
    if (value->type == BERTH_NamedValue_Type_Float64) return value->float64_value;
    if (value->type == BERTH_NamedValue_Type_Int64) return (double)value->int64_value;
  }
  return fallback;
}

static BERTH_Error_Code Softplus(BERTH_Ffi_CallFrame* frame) {
  if (frame->num_operands != 1 || frame->num_results != 1) {
    return Fail(frame, BERTH_Error_Code_INVALID_ARGUMENT,
                "example.softplus takes one operand and returns one result");
  }
  const BERTH_Ffi_Buffer* in = &frame->operands[0];
  const BERTH_Ffi_Buffer* out = &frame->results[0];
  if (in->element_type != BERTH_Buffer_Type_F32 || out->element_type != BERTH_Buffer_Type_F32 ||
      !SameDims(in, out)) {
    return Fail(frame, BERTH_Error_Code_INVALID_ARGUMENT,
                "example.softplus maps an f32 tensor to an f32 tensor of the same shape");
  }
  double beta = FloatAttribute(frame, "beta", 1.0);
  if (!(beta > 0.0)) {
    return Fail(frame, BERTH_Error_Code_INVALID_ARGUMENT, "example.softplus: beta must be > 0");
  }
  if (frame->stage == BERTH_Ffi_Stage_Prepare) return BERTH_Error_Code_OK;
  const float* x = (const float*)in->data;
  float* y = (float*)out->data;
  size_t n = in->size_in_bytes / sizeof(float);
  for (size_t i = 0; i < n; ++i) {
    double scaled = beta * (double)x[i];
    /* log1p(exp(s)) without overflow for large s. */
    double soft = scaled > 30.0 ? scaled : log1p(exp(scaled));
    y[i] = (float)(soft / beta);
  }
  return BERTH_Error_Code_OK;
}

/* Plain C: y[i] = min(max(x[i], lo), hi). Bound by the manifest. */
EXAMPLE_EXPORT void example_clamp_f32(int64_t n, const float* x, float lo, float hi, float* y) {
  for (int64_t i = 0; i < n; ++i) {
    float v = x[i] < lo ? lo : x[i];
    y[i] = v > hi ? hi : v;
  }
}

static const BERTH_Ffi_ModuleHandler kHandlers[] = {
    {"example.softplus", Softplus, NULL},
};

static const BERTH_Ffi_Module kModule = {
    BERTH_Ffi_Module_STRUCT_SIZE,
    BERTH_FFI_EXTENSION_VERSION,
    kHandlers,
    sizeof(kHandlers) / sizeof(kHandlers[0]),
};

EXAMPLE_EXPORT const BERTH_Ffi_Module* BERTH_Ffi_GetModule(void) { return &kModule; }
