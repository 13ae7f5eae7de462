// Benchmarks of the SPMD partitioner.
//
// BM_Partition: a generated module of 1,000 ops (layers of dot_general,
// broadcast bias add, tanh, a row reduction and its broadcast back,
// elementwise arithmetic) whose arguments are sharded over a 2x4 mesh,
// partitioned per iteration: the per-op rules, the resharding between them
// and the printing of the per-device text. Parsing is not timed.
//
// BM_Reshard/all_to_all vs /gather_slice: a 1024x1024 f32 array cut by rows
// over 4 cpu devices, negated, returned cut by columns, run partitioned
// (Executable::ExecuteSharded). The partitioner moves it with one
// all_to_all; the baseline module asks for the whole array in between (a
// replicated constraint), which is how every move between cut layouts was
// written before: an all_gather to the whole array, then each device's
// slice.
//
// BM_EmbeddingGather/cut_table vs /gather_table: 256 rows looked up in a
// 32768x64 f32 table (8 MiB) cut by vocabulary over 4 cpu devices: each
// device gathers the rows it holds and one all_reduce sums the 256x64
// parts, against the table gathered whole first (a replicated constraint:
// what a gather from a cut table was before).
#include <benchmark/benchmark.h>

#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "berth/spmd/partitioner.hpp"
#include "berth/stablehlo/parser.hpp"
#include "cpu_client_fixture.hpp"
#include "layer_stack_module.hpp"

namespace {

namespace shlo = berth::stablehlo;

// 10 ops per layer (tests/support/layer_stack_module.hpp).
std::string GeneratedModule(int ops) {
  return berth::testing::LayerStackModule({"generated", 64, 128, ops / 10, "{replicated}"});
}

void BM_Partition(benchmark::State& state) {
  berth::Result<shlo::Module> module = shlo::ParseModule(GeneratedModule(1000), "generated.mlir");
  if (!module.ok()) {
    state.SkipWithError(module.status().ToString().c_str());
    return;
  }
  size_t text_bytes = 0;
  for (auto _ : state) {
    berth::Result<berth::spmd::PartitionedProgram> program = berth::spmd::Partition(*module);
    if (!program.ok()) {
      state.SkipWithError(program.status().ToString().c_str());
      return;
    }
    text_bytes = program->text.size();
    benchmark::DoNotOptimize(program->text.data());
  }
  state.counters["ops"] = 1000;
  state.counters["text_bytes"] = static_cast<double>(text_bytes);
}
BENCHMARK(BM_Partition)->Unit(benchmark::kMillisecond);

std::string RowsToColumnsModule(bool through_whole) {
  const std::string t = "tensor<1024x1024xf32>";
  const std::string columns = "{devices=[1,4]<=[4]}";
  return "module @reshard attributes {mhlo.num_partitions = 4 : i32} {\n"
         "  func.func public @main(%a: " + t + " {mhlo.sharding = \"{devices=[4,1]<=[4]}\"}) -> (" + t +
         " {mhlo.sharding = \"" + columns + "\"}) {\n"
         "    %0 = stablehlo.negate %a : " + t + "\n" +
         (through_whole ? "    %1 = stablehlo.custom_call @Sharding(%0) {mhlo.sharding = \"{replicated}\"} : (" + t +
                              ") -> " + t + "\n"
                        : "    %1 = stablehlo.custom_call @Sharding(%0) {mhlo.sharding = \"" + columns + "\"} : (" +
                              t + ") -> " + t + "\n") +
         "    return %1 : " + t + "\n  }\n}\n";
}

// One argument of a sharded run: its type, global dims and host bytes.
struct GlobalArgument {
  berth::ElementType type;
  std::vector<int64_t> dims;
  std::vector<std::byte> bytes;
};

GlobalArgument RandomArgument(berth::ElementType type, std::vector<int64_t> dims, int32_t limit, std::mt19937& rng) {
  GlobalArgument argument{type, std::move(dims), {}};
  int64_t count = 1;
  for (int64_t d : argument.dims) count *= d;
  argument.bytes.resize(static_cast<size_t>(count) * 4);
  for (int64_t i = 0; i < count; ++i) {
    if (type == berth::ElementType::kF32) {
      float value = std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng);
      std::memcpy(argument.bytes.data() + i * 4, &value, 4);
    } else {
      int32_t value = std::uniform_int_distribution<int32_t>(0, limit - 1)(rng);
      std::memcpy(argument.bytes.data() + i * 4, &value, 4);
    }
  }
  return argument;
}

// Runs `text` partitioned over 4 cpu devices per iteration (ExecuteSharded:
// the arguments already split as the executable lays them out).
void RunSharded(benchmark::State& state, const std::string& text, const std::vector<GlobalArgument>& arguments) {
  berth::bench::CpuClientFixture fixture("spmd", {{{"device_count", int64_t{4}}}});
  std::optional<berth::Executable> executable = fixture.CompileOrSkip(state, text);
  if (!executable) return;
  berth::Client& client = fixture.client();
  std::vector<berth::ShardedArray> inputs;
  for (size_t i = 0; i < arguments.size(); ++i) {
    berth::Result<berth::ShardedArray> input = berth::ShardedArray::FromHost(
        client, arguments[i].bytes.data(), arguments[i].bytes.size(), arguments[i].type, arguments[i].dims,
        executable->parameter_shardings()[i].sharding, client.devices());
    if (!input.ok()) {
      state.SkipWithError(input.status().ToString().c_str());
      return;
    }
    inputs.push_back(std::move(input).value());
  }
  std::vector<const berth::ShardedArray*> pointers;
  for (const berth::ShardedArray& input : inputs) pointers.push_back(&input);
  for (auto _ : state) {
    berth::Result<std::vector<berth::ShardedArray>> out = executable->ExecuteSharded(pointers);
    if (!out.ok()) {
      state.SkipWithError(out.status().ToString().c_str());
      return;
    }
    benchmark::DoNotOptimize(out->data());
  }
}

void BM_Reshard(benchmark::State& state) {
  const bool through_whole = state.range(0) == 1;
  state.SetLabel(through_whole ? "gather_slice" : "all_to_all");
  std::mt19937 rng(5);
  const GlobalArgument input = RandomArgument(berth::ElementType::kF32, {1024, 1024}, 0, rng);
  RunSharded(state, RowsToColumnsModule(through_whole), {input});
  state.SetBytesProcessed(state.iterations() * static_cast<int64_t>(input.bytes.size()));
}
BENCHMARK(BM_Reshard)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

// An embedding lookup: 256 rows of a 32768x64 f32 table cut by vocabulary
// over 4 devices, the indices whole, the rows returned whole.
std::string EmbeddingModule(bool table_whole) {
  const std::string t = "tensor<32768x64xf32>";
  return "module @embedding attributes {mhlo.num_partitions = 4 : i32} {\n"
         "  func.func public @main(%t: " + t + " {mhlo.sharding = \"{devices=[4,1]<=[4]}\"}, %i: tensor<256x1xi32>)"
         " -> tensor<256x64xf32> {\n" +
         (table_whole ? "    %w = stablehlo.custom_call @Sharding(%t) {mhlo.sharding = \"{replicated}\"} : (" + t +
                            ") -> " + t + "\n"
                      : "    %w = stablehlo.custom_call @Sharding(%t) {mhlo.sharding = \"{devices=[4,1]<=[4]}\"} : (" +
                            t + ") -> " + t + "\n") +
         "    %r = \"stablehlo.gather\"(%w, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [1], "
         "collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 64>} "
         ": (" + t + ", tensor<256x1xi32>) -> tensor<256x64xf32>\n"
         "    return %r : tensor<256x64xf32>\n  }\n}\n";
}

void BM_EmbeddingGather(benchmark::State& state) {
  const bool table_whole = state.range(0) == 1;
  state.SetLabel(table_whole ? "gather_table" : "cut_table");
  std::mt19937 rng(6);
  RunSharded(state, EmbeddingModule(table_whole),
             {RandomArgument(berth::ElementType::kF32, {32768, 64}, 0, rng),
              RandomArgument(berth::ElementType::kS32, {256, 1}, 32768, rng)});
}
BENCHMARK(BM_EmbeddingGather)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
