// Held-out single-device programs with injected shardings: every test
// function of the upstream StableHLO interpreter suite
// (../shared/conformance/stablehlo, written for one device and never for
// the partitioner), with each array its ops make constrained to a random
// tiled layout (@Sharding) over 2 or 4 devices, is partitioned and run on
// every device; the programs' own checks (check.expect_*) must hold on each.
// A program the cpu plugin cannot run as written is left out (that is not
// the partitioner's business); one the partitioner refuses is a failure.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <unordered_map>

#include "berth/spmd/partitioner.hpp"
#include "berth/stablehlo/parser.hpp"
#include "berth/stablehlo/printer.hpp"
#include "program_runner.hpp"

namespace berth {
namespace {

namespace shlo = berth::stablehlo;
using testing::CpuRunner;

// A layout cutting `type` into `n` tiles along one random dimension
// (replicated for scalars), as GSPMD text.
std::string RandomSharding(const shlo::Type& type, int64_t n, std::mt19937_64& rng) {
  const int64_t rank = type.rank();
  if (rank == 0) return "{replicated}";
  const int64_t cut = std::uniform_int_distribution<int64_t>(0, rank - 1)(rng);
  std::string text = "{devices=[";
  for (int64_t d = 0; d < rank; ++d) text += (d ? "," : "") + std::to_string(d == cut ? n : 1);
  return text + "]<=[" + std::to_string(n) + "]}";
}

bool IsArray(const shlo::Type& type) { return type.IsTensor() && type.HasStaticShape() && type.rank() > 0; }

struct Injected {
  std::string text;
  int constraints = 0;
};

// The module with `test` (no arguments, no results) as its public @main and
// a sharding constraint after every op that makes one array; the module's
// other functions private and unchanged.
Injected Inject(const shlo::Module& module, const shlo::Function& test, int64_t n, std::mt19937_64& rng) {
  Injected out;
  out.text = "module attributes {mhlo.num_partitions = " + std::to_string(n) + " : i32} {\n";
  for (const shlo::Function* f : module.functions()) {
    if (f != &test) out.text += shlo::Print(*f, f->name(), shlo::Visibility::kPrivate);
  }
  out.text += "  func.func public @main() {\n";
  std::unordered_map<const shlo::Value*, std::string> names;
  int next = 0;
  for (const shlo::Operation* op : test.entry_block().operations()) {
    shlo::OpRewrite rewrite;
    for (const shlo::Value* operand : op->operands()) rewrite.operand_names.push_back(names.at(operand));
    rewrite.outer_names = names;
    rewrite.result_name = "%v" + std::to_string(next++);
    rewrite.depth = 2;
    out.text += "    " + shlo::Print(*op, rewrite) + "\n";
    for (size_t i = 0; i < op->num_results(); ++i) {
      names[op->result(i)] = op->num_results() == 1 ? rewrite.result_name : rewrite.result_name + "#" + std::to_string(i);
    }
    if (op->num_results() == 1 && IsArray(op->result(0)->type())) {
      const std::string type = op->result(0)->type().ToString();
      const std::string name = "%c" + std::to_string(next++);
      out.text += "    " + name + " = stablehlo.custom_call @Sharding(" + names[op->result(0)] +
                  ") {mhlo.sharding = \"" + RandomSharding(op->result(0)->type(), n, rng) + "\"} : (" + type +
                  ") -> " + type + "\n";
      names[op->result(0)] = name;
      ++out.constraints;
    }
  }
  out.text += "  }\n}\n";
  return out;
}

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(InjectedShardingsTest, TheUpstreamSuiteRunsPartitionedWithRandomLayoutsEverywhere) {
  const char* dir = std::getenv("BERTH_STABLEHLO_CONFORMANCE_DIR");
  ASSERT_NE(dir, nullptr) << "BERTH_STABLEHLO_CONFORMANCE_DIR is not set";
  ASSERT_TRUE(std::filesystem::is_directory(dir)) << dir;
  std::mt19937_64 rng(20261206);
  int files = 0, functions = 0, left_out = 0, constraints = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".mlir") continue;
    ++files;
    const std::string text = ReadFile(entry.path());
    for (const shlo::TestChunk& chunk : shlo::SplitTestFile(text)) {
      const std::string where = entry.path().filename().string() + " chunk " + std::to_string(chunk.index);
      Result<shlo::Module> module = shlo::ParseModule(chunk.text, where, shlo::ParseOptions{.verify = true});
      if (!module.ok()) continue;  // chunks that test parse or verify errors
      for (const shlo::Function* test : module->functions()) {
        if (test->is_declaration() || test->num_arguments() != 0 || test->num_results() != 0) continue;
        if (test->name() != "main" && module->function("main") != nullptr) continue;
        for (int64_t n : {2, 4}) {
          Injected injected = Inject(*module, *test, n, rng);
          SCOPED_TRACE(where + " @" + std::string(test->name()) + " over " + std::to_string(n) + "\n" + injected.text);
          CompileOptions one;
          one.num_partitions = 1;
          Result<std::vector<testing::Literal>> alone = CpuRunner::Get().Run(injected.text, {}, one);
          if (!alone.ok()) {
            ++left_out;  // the plugin cannot run it as written on one device
            if (std::getenv("BERTH_SPMD_SHOW_LEFT_OUT") != nullptr) {
              std::printf("left out: %s @%s: %s\n", where.c_str(), std::string(test->name()).c_str(),
                          alone.status().ToString().c_str());
            }
            break;
          }
          Result<shlo::Module> global = shlo::ParseModule(injected.text, where);
          ASSERT_TRUE(global.ok()) << global.status().ToString();
          Result<spmd::PartitionedProgram> program = spmd::Partition(*global);
          ASSERT_TRUE(program.ok()) << program.status().ToString();
          CompileOptions partitioned;
          partitioned.num_partitions = n;
          partitioned.num_replicas = 1;
          Result<std::vector<std::vector<testing::Literal>>> run =
              CpuRunner::Get().RunAll(program->text, {{}}, partitioned);
          ASSERT_TRUE(run.ok()) << run.status().ToString() << "\n" << program->text;
          ASSERT_EQ(run->size(), static_cast<size_t>(n));
          if (n == 2) ++functions;
          constraints += injected.constraints;
        }
      }
    }
  }
  std::printf("injected shardings: %d files, %d test functions run partitioned over 2 and 4 devices "
              "(%d constraints), %d left out (not runnable on one device)\n",
              files, functions, constraints, left_out);
  EXPECT_GE(files, 100);
  EXPECT_GE(functions, 350);  // 380 on 2026-12-06; the rest need complex, i4, fft, send (issue 19)
}

}  // namespace
}  // namespace berth
