/* test_c_plugin LIBRARY: the C plugin's own tests, in C, through its
 * BERTH_Api table alone (as a host would call it, without one): the parser's
 * answers (results, INVALID_ARGUMENT and UNIMPLEMENTED with their
 * locations), the ABI rules, strided input, placement in a 2-node job, and
 * that nothing is left alive at the end. `berth conformance` checks the
 * plugin through the real host; this checks what the suite does not reach.
 * Prints one line per failure; exits 1 when any. */
#define _POSIX_C_SOURCE 200809L /* dlopen */
#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "berth/c_api.h"
#include "berth/ext/live_objects.h"

static const BERTH_Api* api;
static int failures;

#define EXPECT(cond, ...)                              \
  do {                                                 \
    if (!(cond)) {                                     \
      failures++;                                      \
      fprintf(stderr, "FAIL line %d: ", __LINE__);     \
      fprintf(stderr, __VA_ARGS__);                    \
      fprintf(stderr, "\n");                           \
    }                                                  \
  } while (0)

/* The error's code (0 for NULL) and its message in `message`; frees it. */
static int take(BERTH_Error* error, char* message, size_t size) {
  if (message != NULL && size > 0) message[0] = '\0';
  if (error == NULL) return 0;
  BERTH_Error_GetCode_Args code = {BERTH_Error_GetCode_Args_STRUCT_SIZE, NULL, error, 0};
  BERTH_Error* code_error = api->BERTH_Error_GetCode(&code);
  BERTH_Error_Message_Args text = {BERTH_Error_Message_Args_STRUCT_SIZE, NULL, error, NULL, 0};
  api->BERTH_Error_Message(&text);
  if (message != NULL && size > 0) {
    snprintf(message, size, "%.*s", (int)text.message_size, text.message);
  }
  BERTH_Error_Destroy_Args destroy = {BERTH_Error_Destroy_Args_STRUCT_SIZE, NULL, error};
  api->BERTH_Error_Destroy(&destroy);
  return code_error == NULL ? (int)code.code : -1;
}

static BERTH_NamedValue int_option(const char* name, int64_t value) {
  BERTH_NamedValue v;
  memset(&v, 0, sizeof v);
  v.struct_size = BERTH_NamedValue_STRUCT_SIZE;
  v.name = name;
  v.name_size = strlen(name);
  v.type = BERTH_NamedValue_Type_Int64;
  v.int64_value = value;
  v.value_size = 1;
  return v;
}

static int create_client(int64_t node_id, int64_t num_nodes, BERTH_Client** client, char* message) {
  BERTH_NamedValue options[2] = {int_option("node_id", node_id), int_option("num_nodes", num_nodes)};
  BERTH_Client_Create_Args args;
  memset(&args, 0, sizeof args);
  args.struct_size = BERTH_Client_Create_Args_STRUCT_SIZE;
  args.options = options;
  args.num_options = 2;
  int code = take(api->BERTH_Client_Create(&args), message, 512);
  *client = args.client;
  return code;
}

static void destroy_client(BERTH_Client* client) {
  BERTH_Client_Destroy_Args args = {BERTH_Client_Destroy_Args_STRUCT_SIZE, NULL, client};
  EXPECT(take(api->BERTH_Client_Destroy(&args), NULL, 0) == 0, "client destroy");
}

/* Compiles `code` (named prog.mlir); returns the error code, message in `message`. */
static int compile(BERTH_Client* client, const char* code, BERTH_LoadedExecutable** out,
                   char* message) {
  BERTH_Program program = {BERTH_Program_STRUCT_SIZE, NULL, "stablehlo", 9, code, strlen(code)};
  BERTH_NamedValue source;
  memset(&source, 0, sizeof source);
  source.struct_size = BERTH_NamedValue_STRUCT_SIZE;
  source.name = "source_name";
  source.name_size = 11;
  source.type = BERTH_NamedValue_Type_String;
  source.string_value = "prog.mlir";
  source.value_size = 9;
  BERTH_CompileOptions options;
  memset(&options, 0, sizeof options);
  options.struct_size = BERTH_CompileOptions_STRUCT_SIZE;
  options.options = &source;
  options.num_options = 1;
  BERTH_Client_Compile_Args args;
  memset(&args, 0, sizeof args);
  args.struct_size = BERTH_Client_Compile_Args_STRUCT_SIZE;
  args.client = client;
  args.program = &program;
  args.options = &options;
  int result = take(api->BERTH_Client_Compile(&args), message, 512);
  *out = args.executable;
  return result;
}

static void destroy_executable(BERTH_LoadedExecutable* executable) {
  BERTH_LoadedExecutable_Destroy_Args args = {BERTH_LoadedExecutable_Destroy_Args_STRUCT_SIZE,
                                              NULL, executable};
  EXPECT(take(api->BERTH_LoadedExecutable_Destroy(&args), NULL, 0) == 0, "executable destroy");
}

static BERTH_Device* local_device(BERTH_Client* client) {
  BERTH_Client_AddressableDevices_Args args;
  memset(&args, 0, sizeof args);
  args.struct_size = BERTH_Client_AddressableDevices_Args_STRUCT_SIZE;
  args.client = client;
  EXPECT(take(api->BERTH_Client_AddressableDevices(&args), NULL, 0) == 0, "addressable devices");
  return args.addressable_devices[0];
}

static BERTH_Buffer* make_buffer(BERTH_Client* client, const float* data, const int64_t* dims,
                                 size_t num_dims, const int64_t* strides) {
  BERTH_Client_BufferFromHostBuffer_Args args;
  memset(&args, 0, sizeof args);
  args.struct_size = BERTH_Client_BufferFromHostBuffer_Args_STRUCT_SIZE;
  args.client = client;
  args.data = data;
  args.type = BERTH_Buffer_Type_F32;
  args.dims = dims;
  args.num_dims = num_dims;
  args.byte_strides = strides;
  args.num_byte_strides = strides != NULL ? num_dims : 0;
  args.device = local_device(client);
  char message[512];
  int code = take(api->BERTH_Client_BufferFromHostBuffer(&args), message, sizeof message);
  EXPECT(code == 0, "buffer from host: %s", message);
  return args.buffer;
}

static void destroy_buffer(BERTH_Buffer* buffer) {
  BERTH_Buffer_Destroy_Args args = {BERTH_Buffer_Destroy_Args_STRUCT_SIZE, NULL, buffer};
  EXPECT(take(api->BERTH_Buffer_Destroy(&args), NULL, 0) == 0, "buffer destroy");
}

static void read_buffer(BERTH_Buffer* buffer, float* out, size_t count) {
  BERTH_Buffer_ToHostBuffer_Args args;
  memset(&args, 0, sizeof args);
  args.struct_size = BERTH_Buffer_ToHostBuffer_Args_STRUCT_SIZE;
  args.src = buffer;
  args.dst = out;
  args.dst_size = count * sizeof(float);
  EXPECT(take(api->BERTH_Buffer_ToHostBuffer(&args), NULL, 0) == 0, "to host");
  BERTH_Event_Destroy_Args destroy = {BERTH_Event_Destroy_Args_STRUCT_SIZE, NULL, args.event};
  EXPECT(take(api->BERTH_Event_Destroy(&destroy), NULL, 0) == 0, "event destroy");
}

/* Runs a one-output program of `count` elements on inputs `a` (and `b`);
 * returns the code; fills `out`. */
static int run(BERTH_Client* client, const char* code, const float* a, const float* b,
               size_t count, float* out, char* message) {
  BERTH_LoadedExecutable* executable = NULL;
  int result = compile(client, code, &executable, message);
  if (result != 0) return result;
  int64_t dims[1] = {(int64_t)count};
  BERTH_Buffer* inputs[2] = {make_buffer(client, a, dims, 1, NULL),
                             b != NULL ? make_buffer(client, b, dims, 1, NULL) : NULL};
  BERTH_Buffer* const* lists[1] = {inputs};
  BERTH_Buffer* outputs[1] = {NULL};
  BERTH_Buffer** output_lists[1] = {outputs};
  BERTH_Event* events[1] = {NULL};
  BERTH_LoadedExecutable_Execute_Args args;
  memset(&args, 0, sizeof args);
  args.struct_size = BERTH_LoadedExecutable_Execute_Args_STRUCT_SIZE;
  args.executable = executable;
  args.argument_lists = lists;
  args.num_devices = 1;
  args.num_args = b != NULL ? 2 : 1;
  args.output_lists = output_lists;
  args.device_complete_events = events;
  result = take(api->BERTH_LoadedExecutable_Execute(&args), message, 512);
  if (result == 0) {
    read_buffer(outputs[0], out, count);
    destroy_buffer(outputs[0]);
    BERTH_Event_Destroy_Args destroy = {BERTH_Event_Destroy_Args_STRUCT_SIZE, NULL, events[0]};
    EXPECT(take(api->BERTH_Event_Destroy(&destroy), NULL, 0) == 0, "event destroy");
  }
  destroy_buffer(inputs[0]);
  if (inputs[1] != NULL) destroy_buffer(inputs[1]);
  destroy_executable(executable);
  return result;
}

static bool same(const float* a, const float* b, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (isnan(a[i]) || isnan(b[i])) {
      if (!isnan(a[i]) || !isnan(b[i])) return false;
    } else if (a[i] != b[i] || signbit(a[i]) != signbit(b[i])) {
      return false;
    }
  }
  return true;
}

static void test_programs(BERTH_Client* client) {
  static const float x[4] = {1, -2, 3.5f, -0.0f}, y[4] = {2, 4, -1, 0};
  float out[4];
  char message[512];
  static const struct {
    const char* code;
    float expected[4];
    bool binary;
  } cases[] = {
      {"func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {\n"
       "  %r = stablehlo.subtract %a, %b : tensor<4xf32>\n  return %r : tensor<4xf32>\n}\n",
       {-1, -6, 4.5f, -0.0f}, true},
      {"func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {\n"
       "  %r = stablehlo.maximum %a, %b : tensor<4xf32>\n  return %r : tensor<4xf32>\n}\n",
       {2, 4, 3.5f, 0.0f}, true},
      {"func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {\n"
       "  %r = stablehlo.minimum %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>\n"
       "  return %r : tensor<4xf32>\n}\n",
       {1, -2, -1, -0.0f}, true},
      {"// generic form, a hex constant (1.0, 2.0, 0.5, -1.0) and properties\n"
       "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n"
       "  %c = \"stablehlo.constant\"() <{value = dense<\"0x0000803F000000400000003F000080BF\"> : "
       "tensor<4xf32>}> : () -> tensor<4xf32>\n"
       "  %r = \"stablehlo.multiply\"(%a, %c) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>\n"
       "  \"func.return\"(%r) : (tensor<4xf32>) -> ()\n}\n",
       {1, -4, 1.75f, 0.0f}, false},
      {"#loc1 = loc(\"f.py\":3:1)\n"
       "module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {\n"
       "  func.func public @main(%arg0: tensor<4xf32> {jax.arg_info = \"x\", mhlo.sharding = "
       "\"{replicated}\"} loc(\"x\")) -> (tensor<4xf32> {jax.result_info = \"\"}) {\n"
       "    %0 = stablehlo.abs %arg0 : tensor<4xf32> loc(#loc3)\n"
       "    %1 = stablehlo.negate %0 : tensor<4xf32>\n"
       "    %cst = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>\n"
       "    %2 = stablehlo.divide %1, %1 : tensor<4xf32>\n"
       "    return %2 : tensor<4xf32>\n  }\n}\n#loc3 = loc(\"f.py\":4:2)\n",
       {1, 1, 1, NAN}, false},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    int code = run(client, cases[i].code, x, cases[i].binary ? y : NULL, 4, out, message);
    EXPECT(code == 0, "case %zu: %s", i, message);
    if (code == 0) {
      EXPECT(same(out, cases[i].expected, 4), "case %zu gave [%g, %g, %g, %g]", i, out[0], out[1],
             out[2], out[3]);
    }
  }
  /* NaN propagates through maximum; maximum(-0, +0) is +0. */
  static const float nan_in[4] = {NAN, 1, -0.0f, 0.0f}, other[4] = {1, NAN, 0.0f, -0.0f};
  int code = run(client, cases[1].code, nan_in, other, 4, out, message);
  EXPECT(code == 0 && isnan(out[0]) && isnan(out[1]) && out[2] == 0 && !signbit(out[2]) &&
             !signbit(out[3]),
         "maximum of NaN and signed zeros: %s [%g %g %g %g]", message, out[0], out[1], out[2],
         out[3]);
}

static void test_refusals(BERTH_Client* client) {
  static const struct {
    const char* code;
    int error;
    const char* must_contain;
  } cases[] = {
      {"func.func @main(%x: tensor<2x3xf32>) -> tensor<3xf32> {\n"
       "  %zero = stablehlo.constant dense<0.0> : tensor<f32>\n"
       "  %r = stablehlo.reduce(%x init: %zero) applies stablehlo.add across dimensions = [0]\n"
       "      : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32>\n"
       "  return %r : tensor<3xf32>\n}\n",
       BERTH_Error_Code_UNIMPLEMENTED, "does not run stablehlo.reduce (prog.mlir:3:8)"},
      {"func.func @main(%x: tensor<6xi32>, %y: tensor<6xi32>) -> tensor<6xi32> {\n"
       "  %r = stablehlo.add %x, %y : tensor<6xi32>\n  return %r : tensor<6xi32>\n}\n",
       BERTH_Error_Code_UNIMPLEMENTED, "element type i32"},
      {"func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {\n  return %x : tensor<?xf32>\n}\n",
       BERTH_Error_Code_UNIMPLEMENTED, "dynamic dimensions"},
      {"func.func @main(%x: tensor<4xf32>) -> {", BERTH_Error_Code_INVALID_ARGUMENT,
       "prog.mlir:1:"},
      {"func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
       "  %r = stablehlo.add %x, %nope : tensor<4xf32>\n  return %r : tensor<4xf32>\n}\n",
       BERTH_Error_Code_INVALID_ARGUMENT, "prog.mlir:2:26: use of undefined value %nope"},
      {"func.func @main(%x: tensor<4xf32>, %y: tensor<2xf32>) -> tensor<4xf32> {\n"
       "  %r = stablehlo.add %x, %y : tensor<4xf32>\n  return %r : tensor<4xf32>\n}\n",
       BERTH_Error_Code_INVALID_ARGUMENT, "operand 1 is tensor<2xf32>"},
      {"func.func @main() -> tensor<3xf32> {\n"
       "  %c = stablehlo.constant dense<[1.0, 2.0]> : tensor<3xf32>\n  return %c : tensor<3xf32>\n}\n",
       BERTH_Error_Code_INVALID_ARGUMENT, "2 elements in dimension 0"},
      {"func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {\n  return %x : tensor<4xf32>\n",
       BERTH_Error_Code_INVALID_ARGUMENT, "prog.mlir:3:"},
      {"func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {\n"
       "  return %x : tensor<4xf32>\n}\n",
       BERTH_Error_Code_INVALID_ARGUMENT, "returns 2"},
  };
  char message[512];
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
    BERTH_LoadedExecutable* executable = NULL;
    int code = compile(client, cases[i].code, &executable, message);
    EXPECT(code == cases[i].error && strstr(message, cases[i].must_contain) != NULL &&
               executable == NULL,
           "refusal %zu: code %d, message '%s'; expected code %d containing '%s'", i, code,
           message, cases[i].error, cases[i].must_contain);
    if (executable != NULL) destroy_executable(executable);
  }
}

static void test_abi_rules(void) {
  char message[512];
  /* A struct smaller than its 1.0 size: INVALID_ARGUMENT naming the
   * function and both sizes, and no client made. */
  BERTH_Client_Create_Args small;
  memset(&small, 0, sizeof small);
  small.struct_size = 8;
  int code = take(api->BERTH_Client_Create(&small), message, sizeof message);
  char size_text[32];
  snprintf(size_text, sizeof size_text, "%zu", (size_t)BERTH_Client_Create_Args_STRUCT_SIZE);
  EXPECT(code == BERTH_Error_Code_INVALID_ARGUMENT && strstr(message, "BERTH_Client_Create") &&
             strstr(message, " 8 ") && strstr(message, size_text) && small.client == NULL,
         "small struct: %d '%s'", code, message);
  /* NULL args and objects. */
  EXPECT(take(api->BERTH_Client_Devices(NULL), message, sizeof message) ==
                 BERTH_Error_Code_INVALID_ARGUMENT && strstr(message, "BERTH_Client_Devices"),
         "NULL args: '%s'", message);
  BERTH_Event_Await_Args await = {BERTH_Event_Await_Args_STRUCT_SIZE, NULL, NULL};
  EXPECT(take(api->BERTH_Event_Await(&await), message, sizeof message) ==
                 BERTH_Error_Code_INVALID_ARGUMENT && strstr(message, "BERTH_Event_Await"),
         "NULL event: '%s'", message);
  /* Reserved options checked, unknown ones refused by name. */
  BERTH_Client* client = NULL;
  code = create_client(2, 2, &client, message);
  EXPECT(code == BERTH_Error_Code_INVALID_ARGUMENT && strstr(message, "node_id") && client == NULL,
         "node_id 2 of 2: %d '%s'", code, message);
  code = create_client(0, 0, &client, message);
  EXPECT(code == BERTH_Error_Code_INVALID_ARGUMENT && strstr(message, "num_nodes"),
         "num_nodes 0: %d '%s'", code, message);
  BERTH_NamedValue unknown = int_option("no_such_option", 1);
  BERTH_Client_Create_Args with_unknown;
  memset(&with_unknown, 0, sizeof with_unknown);
  with_unknown.struct_size = BERTH_Client_Create_Args_STRUCT_SIZE;
  with_unknown.options = &unknown;
  with_unknown.num_options = 1;
  code = take(api->BERTH_Client_Create(&with_unknown), message, sizeof message);
  EXPECT(code == BERTH_Error_Code_INVALID_ARGUMENT && strstr(message, "no_such_option"),
         "unknown option: %d '%s'", code, message);
  /* Element types: another one is UNIMPLEMENTED naming it; a non-type INVALID. */
  EXPECT(create_client(0, 1, &client, message) == 0, "client: %s", message);
  int32_t ints[2] = {1, 2};
  int64_t dims[1] = {2};
  BERTH_Client_BufferFromHostBuffer_Args buffer;
  memset(&buffer, 0, sizeof buffer);
  buffer.struct_size = BERTH_Client_BufferFromHostBuffer_Args_STRUCT_SIZE;
  buffer.client = client;
  buffer.data = ints;
  buffer.type = BERTH_Buffer_Type_S32;
  buffer.dims = dims;
  buffer.num_dims = 1;
  buffer.device = local_device(client);
  code = take(api->BERTH_Client_BufferFromHostBuffer(&buffer), message, sizeof message);
  EXPECT(code == BERTH_Error_Code_UNIMPLEMENTED && strstr(message, "S32"), "S32: %d '%s'", code,
         message);
  buffer.type = 99;
  code = take(api->BERTH_Client_BufferFromHostBuffer(&buffer), message, sizeof message);
  EXPECT(code == BERTH_Error_Code_INVALID_ARGUMENT, "type 99: %d '%s'", code, message);
  /* Another program format. */
  BERTH_Program program = {BERTH_Program_STRUCT_SIZE, NULL, "berth-executable", 16, "x", 1};
  BERTH_Client_Compile_Args compile_args;
  memset(&compile_args, 0, sizeof compile_args);
  compile_args.struct_size = BERTH_Client_Compile_Args_STRUCT_SIZE;
  compile_args.client = client;
  compile_args.program = &program;
  code = take(api->BERTH_Client_Compile(&compile_args), message, sizeof message);
  EXPECT(code == BERTH_Error_Code_UNIMPLEMENTED && strstr(message, "berth-executable"),
         "format: %d '%s'", code, message);
  destroy_client(client);
}

/* A 2x3 argument given with the strides of its 3x2 transpose. */
static void test_strides(BERTH_Client* client) {
  static const float stored[6] = {1, 4, 2, 5, 3, 6}; /* column-major [[1,2,3],[4,5,6]] */
  const int64_t dims[2] = {2, 3}, strides[2] = {4, 8};
  BERTH_Buffer* buffer = make_buffer(client, stored, dims, 2, strides);
  float out[6];
  read_buffer(buffer, out, 6);
  static const float expected[6] = {1, 2, 3, 4, 5, 6};
  EXPECT(same(out, expected, 6), "strided: [%g %g %g %g %g %g]", out[0], out[1], out[2], out[3],
         out[4], out[5]);
  destroy_buffer(buffer);
}

/* Node 1 of 2: a 1-replica program runs only on device 0 (node 0's); a
 * 2-replica one on device 1 here. */
static void test_two_nodes(void) {
  BERTH_Client* client = NULL;
  char message[512];
  EXPECT(create_client(1, 2, &client, message) == 0, "node 1 of 2: %s", message);
  if (client == NULL) return;
  BERTH_Device* device = local_device(client);
  BERTH_Device_GetDescription_Args get = {BERTH_Device_GetDescription_Args_STRUCT_SIZE, NULL,
                                          device, NULL};
  EXPECT(take(api->BERTH_Device_GetDescription(&get), NULL, 0) == 0, "description");
  BERTH_DeviceDescription_Id_Args id = {BERTH_DeviceDescription_Id_Args_STRUCT_SIZE, NULL,
                                        get.device_description, -1};
  EXPECT(take(api->BERTH_DeviceDescription_Id(&id), NULL, 0) == 0 && id.id == 1,
         "node 1's device is %lld", (long long)id.id);
  static const char* const programs[2] = {
      "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
      "  %r = stablehlo.negate %x : tensor<2xf32>\n  return %r : tensor<2xf32>\n}\n",
      "module attributes {mhlo.num_replicas = 2 : i32} {\n"
      "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
      "  %r = stablehlo.negate %x : tensor<2xf32>\n  return %r : tensor<2xf32>\n}\n}\n"};
  for (int replicas = 1; replicas <= 2; ++replicas) {
    BERTH_LoadedExecutable* executable = NULL;
    EXPECT(compile(client, programs[replicas - 1], &executable, message) == 0, "compile: %s",
           message);
    if (executable == NULL) continue;
    BERTH_LoadedExecutable_AddressableDevices_Args devices;
    memset(&devices, 0, sizeof devices);
    devices.struct_size = BERTH_LoadedExecutable_AddressableDevices_Args_STRUCT_SIZE;
    devices.executable = executable;
    EXPECT(take(api->BERTH_LoadedExecutable_AddressableDevices(&devices), NULL, 0) == 0 &&
               devices.num_addressable_devices == (size_t)(replicas - 1),
           "%d replicas: %zu devices here", replicas, devices.num_addressable_devices);
    if (replicas == 1) {
      /* Nothing to run here: zero argument lists (and so no argument count,
       * as berth::Executable passes it) is a success. */
      BERTH_LoadedExecutable_Execute_Args run;
      memset(&run, 0, sizeof run);
      run.struct_size = BERTH_LoadedExecutable_Execute_Args_STRUCT_SIZE;
      run.executable = executable;
      run.num_args = 0;
      EXPECT(take(api->BERTH_LoadedExecutable_Execute(&run), message, sizeof message) == 0,
             "execute on no device: %s", message);
    }
    destroy_executable(executable);
  }
  destroy_client(client);
}

static void test_execute_refusals(BERTH_Client* client) {
  char message[512];
  BERTH_LoadedExecutable* executable = NULL;
  const char* code =
      "func.func @main(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {\n"
      "  %r = stablehlo.add %a, %b : tensor<4xf32>\n  return %r : tensor<4xf32>\n}\n";
  EXPECT(compile(client, code, &executable, message) == 0, "compile: %s", message);
  static const float six[6] = {0};
  const int64_t dims4[1] = {4}, dims6[1] = {6};
  BERTH_Buffer* a = make_buffer(client, six, dims4, 1, NULL);
  BERTH_Buffer* longer = make_buffer(client, six, dims6, 1, NULL);
  BERTH_Buffer* outputs[1] = {NULL};
  BERTH_Buffer** output_lists[1] = {outputs};
  for (int which = 0; which < 3; ++which) {
    BERTH_Buffer* args[2] = {which == 1 ? longer : a, a};
    BERTH_Buffer* const* lists[1] = {args};
    BERTH_LoadedExecutable_Execute_Args run;
    memset(&run, 0, sizeof run);
    run.struct_size = BERTH_LoadedExecutable_Execute_Args_STRUCT_SIZE;
    run.executable = executable;
    run.argument_lists = lists;
    run.num_devices = 1;
    run.num_args = which == 0 ? 1 : 2;
    run.output_lists = output_lists;
    if (which == 2) {
      BERTH_Buffer_Delete_Args del = {BERTH_Buffer_Delete_Args_STRUCT_SIZE, NULL, a};
      EXPECT(take(api->BERTH_Buffer_Delete(&del), NULL, 0) == 0, "delete");
    }
    int result = take(api->BERTH_LoadedExecutable_Execute(&run), message, sizeof message);
    int expected = which == 2 ? BERTH_Error_Code_FAILED_PRECONDITION
                              : BERTH_Error_Code_INVALID_ARGUMENT;
    EXPECT(result == expected && outputs[0] == NULL, "bad execute %d: %d '%s'", which, result,
           message);
  }
  destroy_buffer(a);
  destroy_buffer(longer);
  destroy_executable(executable);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s libberth_c_plugin.so\n", argv[0]);
    return 2;
  }
  void* library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (library == NULL) {
    fprintf(stderr, "%s\n", dlerror());
    return 2;
  }
  BERTH_GetApi_Fn* get_api;
  *(void**)&get_api = dlsym(library, BERTH_GET_API_SYMBOL);
  if (get_api == NULL) {
    fprintf(stderr, "no BERTH_GetApi in %s\n", argv[1]);
    return 2;
  }
  api = get_api();
  BERTH_HostServices services;
  memset(&services, 0, sizeof services);
  services.struct_size = BERTH_HostServices_STRUCT_SIZE;
  BERTH_Plugin_Initialize_Args init = {BERTH_Plugin_Initialize_Args_STRUCT_SIZE, NULL,
                                       BERTH_API_MAJOR, BERTH_API_MINOR, &services};
  EXPECT(take(api->BERTH_Plugin_Initialize(&init), NULL, 0) == 0, "initialize");

  BERTH_Client* client = NULL;
  char message[512];
  EXPECT(create_client(0, 1, &client, message) == 0, "client: %s", message);
  if (client != NULL) {
    test_programs(client);
    test_refusals(client);
    test_strides(client);
    test_execute_refusals(client);
    destroy_client(client);
  }
  test_abi_rules();
  test_two_nodes();

  const BERTH_Extension_Base* extension = api->extension_start;
  while (extension != NULL && extension->type != BERTH_Extension_Type_LiveObjects) {
    extension = extension->next;
  }
  EXPECT(extension != NULL, "no live_objects extension");
  if (extension != NULL) {
    BERTH_LiveObjects_Count_Args live;
    memset(&live, 0, sizeof live);
    live.struct_size = BERTH_LiveObjects_Count_Args_STRUCT_SIZE;
    EXPECT(take(((const BERTH_LiveObjects_Extension*)extension)->count(&live), NULL, 0) == 0,
           "count");
    EXPECT(live.clients == 0 && live.buffers == 0 && live.executables == 0 && live.events == 0,
           "alive at the end: %lld clients, %lld buffers, %lld executables, %lld events",
           (long long)live.clients, (long long)live.buffers, (long long)live.executables,
           (long long)live.events);
  }
  printf("test_c_plugin: %s\n", failures == 0 ? "ok" : "FAILED");
  return failures == 0 ? 0 : 1;
}
