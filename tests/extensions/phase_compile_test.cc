// The phase_compile extension: the cpu plugin's phases one at a time through
// files on disk give what the one-shot compile gives, on the whole upstream
// suite and the bundled examples; every refusal the issue lists; a plugin
// without the extension (the `good` fixture) is UNIMPLEMENTED; serialized
// executables are cpu-plans, and the 1.0 payloads of earlier releases still
// load.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "abi_version/executable_file.hpp"
#include "berth/stablehlo/parser.hpp"
#include "extension_test_util.hpp"
#include "phase_compile/intermediate_file.hpp"
#include "program_runner.hpp"

namespace berth {
namespace {

using ::testing::HasSubstr;

const std::string kProgram = testing::TanhSumProgram(5, "multiply");

constexpr char kSharded[] = R"(
module @sharded attributes {mhlo.num_partitions = 2 : i32} {
  func.func @main(%x: tensor<8x4xf32> {mhlo.sharding = "{devices=[2,1]<=[2]}"}) -> (tensor<8x4xf32> {mhlo.sharding = "{devices=[2,1]<=[2]}"}) {
    %y = stablehlo.multiply %x, %x : tensor<8x4xf32>
    return %y : tensor<8x4xf32>
  }
}
)";

class PhaseCompileTest : public testing::ExtensionTest {
 protected:
  Client& cpu8() {
    if (!cpu8_) {
      Result<Client> client = host().CreateClient("cpu", {{{"device_count", int64_t{8}}}});
      EXPECT_TRUE(client.ok()) << client.status().ToString();
      cpu8_.emplace(std::move(client).value());
    }
    return *cpu8_;
  }

  static CompileIntermediate ProgramOf(std::string_view text) { return {"", "stablehlo", true, std::string(text)}; }

  // The phases one at a time, each output written to a file and read back
  // from it; the last one's output.
  Result<CompileIntermediate> ThroughFiles(Client& client, std::string_view program, const CompileOptions& options) {
    BERTH_ASSIGN_OR_RETURN(std::vector<CompilePhase> phases, client.CompilePhases());
    CompileIntermediate current = ProgramOf(program);
    for (const CompilePhase& phase : phases) {
      BERTH_ASSIGN_OR_RETURN(std::vector<CompileIntermediate> out, client.RunCompilePhases(current, phase.name, options));
      if (out.size() != 1) return InternalError("one phase gave " + std::to_string(out.size()) + " outputs");
      const std::filesystem::path file = dir_.Write("phase-" + phase.name, client.WriteIntermediate(out[0]));
      std::ifstream in(file, std::ios::binary);
      const std::string bytes((std::istreambuf_iterator<char>(in)), {});
      BERTH_ASSIGN_OR_RETURN(current, client.ReadIntermediate(bytes, file.string()));
    }
    return current;
  }

  // kProgram's last intermediate on cpu() when its phases stop after
  // `until` ("": all of them).
  Result<CompileIntermediate> LastIntermediate(std::string_view until) {
    BERTH_ASSIGN_OR_RETURN(std::vector<CompileIntermediate> run, cpu().RunCompilePhases(ProgramOf(kProgram), until));
    return run.back();
  }

  // cpu() refuses `bytes` (read as `name`) as an intermediate: `code`, and
  // a message that contains `fragment`.
  void ExpectReadRefused(const std::string& bytes, const std::string& name, StatusCode code,
                         std::string_view fragment) {
    Result<CompileIntermediate> read = cpu().ReadIntermediate(bytes, name);
    ASSERT_FALSE(read.ok());
    EXPECT_EQ(read.status().code(), code);
    EXPECT_THAT(read.status().message(), HasSubstr(std::string(fragment)));
  }

  std::optional<Client> cpu8_;
};

TEST_F(PhaseCompileTest, TheCpuPluginListsItsPhasesInOrder) {
  ASSERT_TRUE(cpu().HasExtension(BERTH_Extension_Type_PhaseCompile));
  Result<std::vector<CompilePhase>> phases = cpu().CompilePhases();
  ASSERT_TRUE(phases.ok()) << phases.status().ToString();
  ASSERT_EQ(phases->size(), 3u);
  EXPECT_EQ((*phases)[0].name, "verify");
  EXPECT_EQ((*phases)[1].name, "partition");
  EXPECT_EQ((*phases)[2].name, "plan");
  EXPECT_EQ((*phases)[1].input_format, "stablehlo");
  EXPECT_EQ((*phases)[1].output_format, "stablehlo-partitioned");
  EXPECT_EQ((*phases)[2].output_format, "cpu-plan");
  EXPECT_TRUE((*phases)[1].output_is_text);
  EXPECT_FALSE((*phases)[2].output_is_text);
}

TEST_F(PhaseCompileTest, APluginWithoutTheExtensionIsUnimplemented) {
  Client good = GoodWithout(BERTH_Extension_Type_PhaseCompile);
  Result<std::vector<CompilePhase>> phases = good.CompilePhases();
  ASSERT_FALSE(phases.ok());
  EXPECT_EQ(phases.status().code(), StatusCode::kUnimplemented);
  EXPECT_THAT(phases.status().message(), HasSubstr("good"));
  EXPECT_THAT(phases.status().message(), HasSubstr("phase_compile"));
  EXPECT_EQ(good.RunCompilePhases(ProgramOf(kProgram), "").status().code(), StatusCode::kUnimplemented);
}

TEST_F(PhaseCompileTest, EveryPhaseOutputLoadsAndRunsLikeTheOneShotCompile) {
  Buffer x = F32(cpu(), {0.1f, -0.2f, 0.3f, 1.5f, -2, 0, 3, 4, 5, -6, 7, 8, 0.5f, -0.5f, 2}, {5, 3});
  Buffer y = F32(cpu(), {0.5f, 0.25f, -1}, {3});
  Result<Executable> one_shot = cpu().Compile(kProgram);
  ASSERT_TRUE(one_shot.ok()) << one_shot.status().ToString();
  Result<std::vector<Buffer>> expected = Run(*one_shot, {&x, &y});
  ASSERT_TRUE(expected.ok());
  Result<std::vector<CompileIntermediate>> outputs = cpu().RunCompilePhases(ProgramOf(kProgram), "");
  ASSERT_TRUE(outputs.ok()) << outputs.status().ToString();
  ASSERT_EQ(outputs->size(), 3u);
  for (const CompileIntermediate& output : *outputs) {
    SCOPED_TRACE(output.phase);
    CompileOptions options;
    options.format = output.format;
    Result<Executable> loaded = cpu().Compile(output.bytes, options);
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
    Result<std::vector<Buffer>> actual = Run(*loaded, {&x, &y});
    ASSERT_TRUE(actual.ok());
    for (size_t i = 0; i < 2; ++i) EXPECT_EQ(Read((*actual)[i]), Read((*expected)[i]));
  }
  // Text phases are MLIR a person can read; the plan is binary.
  EXPECT_THAT((*outputs)[0].bytes, HasSubstr("stablehlo.tanh"));
  EXPECT_TRUE((*outputs)[0].text);
  EXPECT_FALSE((*outputs)[2].text);
}

TEST_F(PhaseCompileTest, ThePartitionPhaseCarriesTheLayoutsToTheExecutable) {
  Result<Executable> one_shot = cpu8().Compile(kSharded);
  ASSERT_TRUE(one_shot.ok()) << one_shot.status().ToString();
  Result<CompileIntermediate> plan = ThroughFiles(cpu8(), kSharded, {});
  ASSERT_TRUE(plan.ok()) << plan.status().ToString();
  CompileOptions options;
  options.format = plan->format;
  Result<Executable> loaded = cpu8().Compile(plan->bytes, options);
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  const std::vector<ValueSharding>& expected = one_shot->parameter_shardings();
  const std::vector<ValueSharding>& actual = loaded->parameter_shardings();
  ASSERT_EQ(actual.size(), 1u);
  ASSERT_EQ(expected.size(), 1u);
  EXPECT_EQ(actual[0].sharding, expected[0].sharding);
  EXPECT_EQ(actual[0].global_dims, expected[0].global_dims);
  EXPECT_EQ(loaded->addressable_devices().size(), 2u);
  EXPECT_EQ(loaded->output_dims(), one_shot->output_dims());
}

// ------------------------------------------------------------------ refusals

TEST_F(PhaseCompileTest, AnUnknownPhaseIsRefusedNamingThePhases) {
  Result<std::vector<CompileIntermediate>> run = cpu().RunCompilePhases(ProgramOf(kProgram), "optimize");
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(run.status().message(), HasSubstr("no compile phase 'optimize'"));
  EXPECT_THAT(run.status().message(), HasSubstr("verify, partition, plan"));
}

TEST_F(PhaseCompileTest, ARangeThatDoesNotConnectIsRefusedBeforeAnythingRuns) {
  Result<std::vector<CompileIntermediate>> partitioned = cpu().RunCompilePhases(ProgramOf(kProgram), "partition");
  ASSERT_TRUE(partitioned.ok()) << partitioned.status().ToString();
  Result<std::vector<CompileIntermediate>> back = cpu().RunCompilePhases(partitioned->back(), "verify");
  ASSERT_FALSE(back.ok());
  EXPECT_EQ(back.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(back.status().message(), HasSubstr("do not connect"));
  // The last phase's output has nothing after it.
  Result<std::vector<CompileIntermediate>> all = cpu().RunCompilePhases(ProgramOf(kProgram), "");
  ASSERT_TRUE(all.ok());
  Result<std::vector<CompileIntermediate>> after = cpu().RunCompilePhases(all->back(), "");
  ASSERT_FALSE(after.ok());
  EXPECT_THAT(after.status().message(), HasSubstr("no phase follows it"));
  // A broken program fails in the phase that reads it, named.
  Result<std::vector<CompileIntermediate>> broken = cpu().RunCompilePhases(ProgramOf("func.func @main( {"), "");
  ASSERT_FALSE(broken.ok());
  EXPECT_THAT(broken.status().message(), HasSubstr("compile phase 'verify'"));
}

TEST_F(PhaseCompileTest, AnInputOfTheWrongFormatIsRefusedNamingBothFormats) {
  CompileIntermediate wrong{"", "cpu-plan", false, "BERTHCPUPLAN1\n"};
  Result<std::vector<CompileIntermediate>> run = cpu().RunCompilePhases(wrong, "plan");
  ASSERT_FALSE(run.ok());
  EXPECT_EQ(run.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(run.status().message(), HasSubstr("reads 'stablehlo', not 'cpu-plan'"));
  // An intermediate claiming a format its phase does not write.
  CompileIntermediate liar{"partition", "cpu-plan", false, "x"};
  run = cpu().RunCompilePhases(liar, "plan");
  ASSERT_FALSE(run.ok());
  EXPECT_THAT(run.status().message(), HasSubstr("writes 'stablehlo-partitioned'"));
}

TEST_F(PhaseCompileTest, AnotherPluginsOrVersionsIntermediateIsRefused) {
  Result<CompileIntermediate> partitioned = LastIntermediate("partition");
  ASSERT_TRUE(partitioned.ok()) << partitioned.status().ToString();
  Result<ext::phase_compile::IntermediateFile> decoded =
      ext::phase_compile::DecodeIntermediate(cpu().WriteIntermediate(*partitioned), "f");
  ASSERT_TRUE(decoded.ok());
  ext::phase_compile::IntermediateHeader other = decoded->header;
  other.plugin = "gpu";
  ExpectReadRefused(ext::phase_compile::EncodeIntermediate(other, decoded->payload), "other.mlir",
                    StatusCode::kFailedPrecondition, "plugin 'gpu'");
  other = decoded->header;
  other.platform_version = "0.0.1-old";
  Result<CompileIntermediate> read =
      cpu().ReadIntermediate(ext::phase_compile::EncodeIntermediate(other, decoded->payload), "old.mlir");
  ASSERT_FALSE(read.ok());
  EXPECT_THAT(read.status().message(), HasSubstr("do not cross compiler versions"));
}

TEST_F(PhaseCompileTest, ATruncatedOrBitFlippedIntermediateIsRefused) {
  Result<CompileIntermediate> planned = LastIntermediate("");
  ASSERT_TRUE(planned.ok()) << planned.status().ToString();
  const std::string file = cpu().WriteIntermediate(*planned);
  ExpectReadRefused(file.substr(0, file.size() - 7), "cut.plan", StatusCode::kDataLoss, "cut.plan");
  std::mt19937 rng(5);
  for (int trial = 0; trial < 400; ++trial) {
    std::string flipped = file;
    size_t at = rng() % flipped.size();
    flipped[at] = static_cast<char>(flipped[at] ^ (1 << (rng() % 8)));
    EXPECT_FALSE(cpu().ReadIntermediate(flipped, "flipped").ok()) << "byte " << at;
  }
  // Bytes that pass the container but are not a plan: the plugin refuses them.
  CompileOptions options;
  options.format = "cpu-plan";
  std::string plan = planned->bytes;
  for (size_t n : {size_t{0}, size_t{10}, plan.size() / 2, plan.size() - 1}) {
    Result<Executable> loaded = cpu().Compile(plan.substr(0, n), options);
    ASSERT_FALSE(loaded.ok()) << n;
    EXPECT_EQ(loaded.status().code(), StatusCode::kInvalidArgument) << loaded.status().ToString();
  }
}

TEST_F(PhaseCompileTest, APlanLoadedWithOtherOptionsIsRefused) {
  Result<std::vector<CompileIntermediate>> run = cpu8().RunCompilePhases(ProgramOf(kSharded), "");
  ASSERT_TRUE(run.ok()) << run.status().ToString();
  CompileOptions options;
  options.format = "cpu-plan";
  options.num_partitions = 4;
  Result<Executable> loaded = cpu8().Compile(run->back().bytes, options);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(loaded.status().message(), HasSubstr("num_partitions"));
}

// ------------------------------------------------------ serialized executables

TEST_F(PhaseCompileTest, ExecutablesSerializeAsPlansAndReleaseOnePayloadsStillLoad) {
  Result<Executable> source = cpu().Compile(kProgram);
  ASSERT_TRUE(source.ok());
  Result<std::string> bytes = source->Serialize();
  ASSERT_TRUE(bytes.ok());
  Result<ext::abi_version::ExecutableFile> file = ext::abi_version::DecodeExecutableFile(*bytes, "new");
  ASSERT_TRUE(file.ok());
  EXPECT_EQ(file->header.executable, (ext::abi_version::AbiVersionNumber{1, 1}));
  EXPECT_TRUE(file->payload.starts_with("BERTHCPUPLAN1\n"));

  // Executable ABI 1.0: the source and options as JSON, compiled again.
  ext::abi_version::ExecutableFileHeader old = file->header;
  old.executable = {1, 0};
  nlohmann::json payload = {{"format", "berth-cpu-executable"}, {"source", kProgram}, {"entry_name", ""},
                            {"num_replicas", 0}, {"num_partitions", 0}, {"device_assignment", nlohmann::json::array()},
                            {"options", nlohmann::json::object()}};
  Result<Executable> loaded = cpu().Deserialize(ext::abi_version::EncodeExecutableFile(old, payload.dump()), "old");
  ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  Buffer x = F32(cpu(), std::vector<float>(15, 0.5f), {5, 3});
  Buffer y = F32(cpu(), {1, 2, 3}, {3});
  Result<std::vector<Buffer>> a = Run(*source, {&x, &y});
  Result<std::vector<Buffer>> b = Run(*loaded, {&x, &y});
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(Read((*a)[1]), Read((*b)[1]));
}

// ---------------------------------------------------------- the command line

TEST_F(PhaseCompileTest, TheCommandLineListsStopsResumesAndRunsPhases) {
  testing::TempDir dir;
  testing::ScopedEnv path("BERTH_PLUGIN_PATH", dir_.path().string());
  auto berth = [](const std::string& args) { return testing::RunCommand(std::string(BERTH_EXE) + " " + args + " 2>&1"); };
  const std::string examples = std::string(BERTH_SOURCE_ROOT) + "/configs/examples/";
  const std::string arg = " --arg 'dense<[[1.0, 2.0, 3.0, 4.0], [0.5, -1.0, 0.0, 2.0]]> : tensor<2x4xf32>'";

  testing::CommandResult listed = berth("compile " + examples + "mlp.mlir --list-phases --json");
  nlohmann::json phases = nlohmann::json::parse(listed.out, nullptr, false);
  ASSERT_TRUE(phases.is_object()) << listed.out;
  ASSERT_EQ(phases["phases"].size(), 3u);
  EXPECT_EQ(phases["phases"][1], (nlohmann::json{{"name", "partition"}, {"input", "stablehlo"},
                                                 {"output", "stablehlo-partitioned"}}));

  // A sharded program stopped after `partition`, resumed to `plan`, written
  // as an executable; the partitioned text runs on global arguments like the
  // source.
  const std::string part = (dir / "p.mlir").string(), plan = (dir / "p.plan").string(),
                    bexe = (dir / "p.bexe").string();
  ASSERT_EQ(berth("compile " + examples + "sharded_mlp.mlir --until partition -o " + part).exit_code, 0);
  testing::CommandResult resumed = berth("compile --from " + part + " --until plan -o " + plan);
  ASSERT_EQ(resumed.exit_code, 0) << resumed.out;
  EXPECT_THAT(resumed.out, HasSubstr("cpu-plan, the output of phase 'plan'"));
  testing::CommandResult executable = berth("compile --from " + plan + " -o " + bexe);
  ASSERT_EQ(executable.exit_code, 0) << executable.out;
  testing::CommandResult source = berth("run " + examples + "sharded_mlp.mlir" + arg);
  testing::CommandResult from_part = berth("run " + part + arg);
  ASSERT_EQ(source.exit_code, 0) << source.out;
  ASSERT_EQ(from_part.exit_code, 0) << from_part.out;
  EXPECT_EQ(from_part.out, source.out);
  // The one-device mlp through a binary plan runs like its source.
  const std::string mlp_plan = (dir / "mlp.plan").string();
  ASSERT_EQ(berth("compile " + examples + "mlp.mlir --until plan -o " + mlp_plan).exit_code, 0);
  EXPECT_EQ(berth("run " + mlp_plan + arg).out, berth("run " + examples + "mlp.mlir" + arg).out);

  testing::CommandResult unknown = berth("compile " + examples + "mlp.mlir --until optimize -o " + plan);
  EXPECT_NE(unknown.exit_code, 0);
  EXPECT_THAT(unknown.out, HasSubstr("no compile phase 'optimize'"));
  testing::CommandResult good = berth("compile " + examples + "mlp.mlir --list-phases --plugin good");
  EXPECT_NE(good.exit_code, 0);
  EXPECT_THAT(good.out, HasSubstr("phases are unavailable"));
}

// ------------------------------------------------ the suite through the phases

std::vector<std::filesystem::path> Programs() {
  std::vector<std::filesystem::path> files;
  const char* dirs[] = {std::getenv("BERTH_STABLEHLO_CONFORMANCE_DIR"), BERTH_EXAMPLES_DIR};
  for (const char* dir : dirs) {
    if (dir == nullptr || !std::filesystem::is_directory(dir)) continue;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (entry.path().extension() == ".mlir") files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// Seeded values for an argument of `type` (a static tensor).
Result<testing::Literal> RandomArgument(stablehlo::Type type, std::mt19937& rng) {
  if (!type.IsTensor() || !type.HasStaticShape()) return UnimplementedError("argument " + type.ToString());
  testing::Literal literal;
  literal.dims.assign(type.shape().begin(), type.shape().end());
  const int64_t n = type.NumElements();
  std::uniform_real_distribution<float> value(-2, 2);
  switch (type.element_type()) {
    case stablehlo::ElementType::kF32: {
      std::vector<float> v(static_cast<size_t>(n));
      for (float& f : v) f = value(rng);
      return testing::Literal::Of(v, literal.dims);
    }
    case stablehlo::ElementType::kSI32: {
      std::vector<int32_t> v(static_cast<size_t>(n));
      for (int32_t& i : v) i = static_cast<int32_t>(rng() % 200) - 100;
      return testing::Literal::Of(v, literal.dims);
    }
    default:
      return UnimplementedError("argument " + type.ToString());
  }
}

TEST_F(PhaseCompileTest, TheSuiteAndTheExamplesRunTheSameThroughPhaseFilesOnDisk) {
  const std::vector<std::filesystem::path> files = Programs();
  if (files.size() < 3) GTEST_SKIP() << "BERTH_STABLEHLO_CONFORMANCE_DIR is not a folder of .mlir files";
  Client& client = cpu8();
  std::mt19937 rng(20261206);
  int runs = 0, both_refused = 0, examples = 0;
  for (const std::filesystem::path& path : files) {
    std::ifstream in(path, std::ios::binary);
    const std::string text((std::istreambuf_iterator<char>(in)), {});
    for (const stablehlo::TestChunk& chunk : stablehlo::SplitTestFile(text)) {
      Result<stablehlo::Module> module =
          stablehlo::ParseModule(chunk.text, path.string(), stablehlo::ParseOptions{.verify = true});
      if (!module.ok() || module->entry_function() == nullptr) continue;  // chunks that test parse errors
      const std::string where = path.filename().string() + " chunk " + std::to_string(chunk.index);
      SCOPED_TRACE(where);
      std::vector<testing::Literal> args;
      bool runnable = true;
      for (stablehlo::Type type : module->entry_function()->argument_types()) {
        Result<testing::Literal> arg = RandomArgument(type, rng);
        if (!arg.ok()) runnable = false;
        if (arg.ok()) args.push_back(std::move(arg).value());
      }
      if (!runnable) continue;
      const bool sharded = module->num_partitions().value_or(1) > 1 || module->num_replicas().value_or(1) > 1;
      CompileOptions options;
      options.options["source_name"] = path.string();
      // The one-shot compile, and the phases through files.
      auto run = [&](std::string_view code, const CompileOptions& o) -> Result<std::vector<std::vector<testing::Literal>>> {
        BERTH_ASSIGN_OR_RETURN(Executable executable, client.Compile(code, o));
        const std::vector<Device>& devices = executable.addressable_devices();
        std::vector<std::vector<Buffer>> buffers(devices.size());
        std::vector<std::vector<const Buffer*>> lists(devices.size());
        for (size_t d = 0; d < devices.size(); ++d) {
          for (const testing::Literal& arg : args) {
            BERTH_ASSIGN_OR_RETURN(Buffer b, client.BufferFromHost(arg.bytes.data(), arg.type, arg.dims, devices[d]));
            buffers[d].push_back(std::move(b));
          }
          for (const Buffer& b : buffers[d]) lists[d].push_back(&b);
        }
        BERTH_ASSIGN_OR_RETURN(ExecuteResult result, executable.Execute(lists));
        std::vector<std::vector<testing::Literal>> out(devices.size());
        for (size_t d = 0; d < devices.size(); ++d) {
          BERTH_RETURN_IF_ERROR(result.completion[d].Await());
          for (const Buffer& b : result.outputs[d]) {
            testing::Literal literal{b.element_type(), b.dims(), {}};
            BERTH_ASSIGN_OR_RETURN(literal.bytes, b.ToHostBytes());
            out[d].push_back(std::move(literal));
          }
        }
        return out;
      };
      Result<std::vector<std::vector<testing::Literal>>> expected = run(chunk.text, options);
      Result<CompileIntermediate> plan = ThroughFiles(client, chunk.text, options);
      Result<std::vector<std::vector<testing::Literal>>> actual = plan.status();
      if (plan.ok()) {
        CompileOptions load = options;
        load.format = plan->format;
        actual = run(plan->bytes, load);
      }
      if (!expected.ok()) {
        // What the one-shot compile or run refuses, the phases refuse too.
        EXPECT_FALSE(actual.ok()) << expected.status().ToString();
        if (!actual.ok()) {
          EXPECT_EQ(actual.status().code(), expected.status().code()) << actual.status().ToString();
        }
        ++both_refused;
        continue;
      }
      ASSERT_TRUE(actual.ok()) << actual.status().ToString();
      ASSERT_EQ(actual->size(), expected->size());
      for (size_t d = 0; d < expected->size(); ++d) {
        ASSERT_EQ((*actual)[d].size(), (*expected)[d].size());
        for (size_t o = 0; o < (*expected)[d].size(); ++o) {
          EXPECT_EQ((*actual)[d][o].type, (*expected)[d][o].type);
          EXPECT_EQ((*actual)[d][o].dims, (*expected)[d][o].dims);
          EXPECT_TRUE((*actual)[d][o].bytes == (*expected)[d][o].bytes) << "output " << o << " of device " << d;
        }
      }
      ++runs;
      if (path.parent_path() == std::filesystem::path(BERTH_EXAMPLES_DIR)) ++examples;
      (void)sharded;
    }
  }
  std::printf("phases through files: %d programs ran alike (%d examples), %d refused alike\n", runs, examples,
              both_refused);
  // `berth check` passes 375 of the suite's 524 chunks (bench/README.md);
  // sharded_mlp.mlir takes each device's shard, so the global arguments
  // given here are refused alike.
  EXPECT_GE(runs, 350);
  EXPECT_GE(examples, 2);
}

}  // namespace
}  // namespace berth
