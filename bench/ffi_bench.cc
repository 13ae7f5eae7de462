// BM_FfiCall: what a manifest-bound C function costs per call over calling it
// directly. Both sides run axpy_f32 from ffi_testlib on one element:
//   BM_FfiCall/berth   through the SDK's plugin::RegisteredHandler::Call, as the cpu
//                      plugin runs a custom call: it builds the EXECUTE frame
//                      and calls BERTH_FfiBinding_Handler (checks, attribute
//                      lookup, result_init copy, ffi_call);
//   BM_FfiCall/direct  the same symbol called through a function pointer.
// The difference of the two times is the binding's cost per call.
#include <benchmark/benchmark.h>
#include <dlfcn.h>

#include <cstring>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

#include "berth/plugin/extensions.hpp"
#include "ffi/ffi_binding.hpp"

namespace {

namespace ffi = berth::ext::ffi;

using AxpyFn = void (*)(int64_t n, float alpha, const float* x, float* y);

constexpr const char* kAxpy = R"([{
  "target": "bench.axpy", "symbol": "axpy_f32", "return": "void",
  "params": ["size:operand:1", "attr:alpha:f32", "operand:0:f32", "result:0:f32"],
  "result_init": {"0": "operand:1"}}])";

// ffi_testlib, opened once; the benchmark skips when it cannot be.
void* TestLibrary(std::string* error) {
  static std::string open_error;
  static void* library = [] {
    void* handle = dlopen(BERTH_FFI_TESTLIB, RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) open_error = std::string("dlopen " BERTH_FFI_TESTLIB ": ") + dlerror();
    return handle;
  }();
  *error = open_error;
  return library;
}

void RunBerth(benchmark::State& state, void* symbol) {
  berth::Result<std::vector<ffi::FunctionSpec>> specs =
      ffi::ParseFfiFunctions(nlohmann::json::parse(kAxpy), "ffi_bench.cc");
  if (!specs.ok()) {
    state.SkipWithError(specs.status().ToString().c_str());
    return;
  }
  berth::Result<std::unique_ptr<ffi::BoundFunction>> bound =
      ffi::BoundFunction::Create(std::move((*specs)[0]), symbol);
  if (!bound.ok()) {
    state.SkipWithError(bound.status().ToString().c_str());
    return;
  }
  float x = 1.0f, y = 2.0f, out = 0.0f;
  const int64_t dims[] = {1};
  const BERTH_Ffi_Buffer operands[] = {{BERTH_Buffer_Type_F32, dims, 1, &x, sizeof(float)},
                                       {BERTH_Buffer_Type_F32, dims, 1, &y, sizeof(float)}};
  const BERTH_Ffi_Buffer results[] = {{BERTH_Buffer_Type_F32, dims, 1, &out, sizeof(float)}};
  BERTH_NamedValue alpha{};
  alpha.struct_size = BERTH_NamedValue_STRUCT_SIZE;
  alpha.name = "alpha";
  alpha.name_size = 5;
  alpha.type = BERTH_NamedValue_Type_Float64;
  alpha.float64_value = 3.0;
  alpha.value_size = 1;
  const berth::plugin::RegisteredHandler handler("bench.axpy", BERTH_FfiBinding_Handler, bound->get(),
                                          nullptr);
  for (auto _ : state) {
    berth::Status status =
        handler.Call(BERTH_Ffi_Stage_Execute, "cpu", operands, results, {&alpha, 1});
    if (!status.ok()) {
      state.SkipWithError(status.ToString().c_str());
      return;
    }
    benchmark::DoNotOptimize(out);
  }
  if (out != 5.0f) state.SkipWithError("axpy through the binding computed a wrong value");
}

void RunDirect(benchmark::State& state, void* symbol) {
  AxpyFn volatile axpy = reinterpret_cast<AxpyFn>(symbol);
  float x = 1.0f, y = 2.0f, out = 0.0f;
  for (auto _ : state) {
    // The same work as result_init + the call: copy y into out, update out.
    out = y;
    axpy(1, 3.0f, &x, &out);
    benchmark::DoNotOptimize(out);
  }
  if (out != 5.0f) state.SkipWithError("axpy called directly computed a wrong value");
}

enum class Path { kBerth, kDirect };

void BM_FfiCall(benchmark::State& state, Path path) {
  std::string error;
  void* library = TestLibrary(&error);
  void* symbol = library != nullptr ? dlsym(library, "axpy_f32") : nullptr;
  if (symbol == nullptr) {
    state.SkipWithError(library == nullptr ? error.c_str() : "axpy_f32 not found in ffi_testlib");
    return;
  }
  if (path == Path::kBerth) RunBerth(state, symbol);
  else RunDirect(state, symbol);
}
BENCHMARK_CAPTURE(BM_FfiCall, berth, Path::kBerth);
BENCHMARK_CAPTURE(BM_FfiCall, direct, Path::kDirect);

}  // namespace
