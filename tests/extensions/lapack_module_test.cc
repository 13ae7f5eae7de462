// The LAPACK module as a bundled FFI module: its build-tree manifest is
// found by the in-tree `berth` with no environment set, and a call site it
// cannot serve (wrong rank, type or dims, a missing or bad attribute, an
// option jaxlib refuses too) fails the
// compile with a message naming the target and the problem.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "lapack_test_util.hpp"

namespace berth::testing {
namespace {

using ::testing::HasSubstr;

// Compiles `program` on the runner's client; the compile must fail with
// `code` and a message holding each of `parts`.
void ExpectCompileError(const std::string& program, StatusCode code,
                        const std::vector<std::string>& parts) {
  Result<Executable> executable = LapackRunner().client().Compile(program);
  ASSERT_FALSE(executable.ok()) << program;
  EXPECT_EQ(executable.status().code(), code) << executable.status().ToString();
  for (const std::string& part : parts) {
    EXPECT_THAT(executable.status().message(), HasSubstr(part)) << program;
  }
}

const CallValue kMatrix{{3, 3}, "f32", true};
const CallValue kInfo{{}, "i32"};

TEST(LapackModuleTest, OperandOfRankOneIsRefusedNamingTargetAndOperand) {
  ExpectCompileError(
      JaxProgram("lapack_sgetrf_ffi", {{{3}, "f32"}}, {{{3}, "f32"}, {{1}, "i32"}, kInfo}, ""),
      StatusCode::kInvalidArgument, {"lapack_sgetrf_ffi", "operand 0 (x)", "rank >= 2"});
}

TEST(LapackModuleTest, OperandOfTheOtherPrecisionIsRefused) {
  ExpectCompileError(JaxProgram("lapack_sgetrf_ffi", {{{3, 3}, "f64", true}},
                                {{{3, 3}, "f64", true}, {{3}, "i32"}, kInfo}, ""),
                     StatusCode::kInvalidArgument, {"lapack_sgetrf_ffi", "is f64; expected f32"});
}

TEST(LapackModuleTest, ResultOfTheWrongDimsIsRefused) {
  ExpectCompileError(JaxProgram("lapack_dgetrf_ffi", {{{2, 4, 3}, "f64", true}},
                                {{{2, 4, 3}, "f64", true}, {{2, 4}, "i32"}, {{2}, "i32"}}, ""),
                     StatusCode::kInvalidArgument,
                     {"lapack_dgetrf_ffi", "result 1 (pivots) has dims [2, 4]; expected [2, 3]"});
}

TEST(LapackModuleTest, WrongNumberOfResultsIsRefusedWithTheSignature) {
  ExpectCompileError(JaxProgram("lapack_spotrf_ffi", {kMatrix}, {kMatrix}, "uplo = 76 : ui8"),
                     StatusCode::kInvalidArgument,
                     {"lapack_spotrf_ffi", "(x) -> (factor, info)", "the call has 1 and 1"});
}

TEST(LapackModuleTest, MissingAttributeIsRefusedNamingIt) {
  ExpectCompileError(JaxProgram("lapack_spotrf_ffi", {kMatrix}, {kMatrix, kInfo}, ""),
                     StatusCode::kInvalidArgument,
                     {"lapack_spotrf_ffi", "attribute 'uplo' is missing", "'L' (76)"});
}

TEST(LapackModuleTest, AttributeOutsideItsOptionsIsRefused) {
  ExpectCompileError(JaxProgram("lapack_ssyevd_ffi", {kMatrix}, {kMatrix, {{3}, "f32"}, kInfo},
                                "mode = 86 : ui8, uplo = 88 : ui8"),
                     StatusCode::kInvalidArgument, {"lapack_ssyevd_ffi", "attribute 'uplo' is 88"});
}

TEST(LapackModuleTest, NonSquareMatrixIsRefusedWhereSquareIsNeeded) {
  const CallValue wide{{3, 4}, "f32", true};
  ExpectCompileError(JaxProgram("lapack_spotrf_ffi", {wide}, {wide, kInfo}, "uplo = 76 : ui8"),
                     StatusCode::kInvalidArgument, {"lapack_spotrf_ffi", "3 x 4", "square"});
}

TEST(LapackModuleTest, OrgqrWithMoreReflectorsThanColumnsIsRefused) {
  const CallValue tall{{5, 2}, "f32", true};
  ExpectCompileError(JaxProgram("lapack_sorgqr_ffi", {tall, {{3}, "f32"}}, {tall}, ""),
                     StatusCode::kInvalidArgument,
                     {"lapack_sorgqr_ffi", "rows >= columns >= reflectors"});
}

TEST(LapackModuleTest, HessenbergBoundsOutsideTheMatrixAreRefused) {
  ExpectCompileError(JaxProgram("lapack_sgehrd_ffi", {kMatrix}, {kMatrix, {{2}, "f32"}, kInfo},
                                "high = 4 : i32, low = 1 : i32"),
                     StatusCode::kInvalidArgument,
                     {"lapack_sgehrd_ffi", "low = 1, high = 4", "<= 3"});
}

// Complex routines return real eigenvalues and singular values, and every
// geev returns complex eigenvectors: a call site typed otherwise is refused
// naming the result and the type expected.
TEST(LapackModuleTest, ComplexAndGeevResultTypesAreChecked) {
  const CallValue complex_matrix{{3, 3}, "complex<f64>", true};
  ExpectCompileError(JaxProgram("lapack_zheevd_ffi", {complex_matrix},
                                {complex_matrix, {{3}, "complex<f64>"}, kInfo},
                                "mode = 86 : ui8, uplo = 76 : ui8"),
                     StatusCode::kInvalidArgument, {"lapack_zheevd_ffi", "values", "f64"});
  ExpectCompileError(JaxProgram("lapack_sgeev_ffi", {kMatrix},
                                {{{3}, "f32"}, {{3}, "f32"}, kMatrix, kMatrix, kInfo},
                                "compute_left = 86 : ui8, compute_right = 86 : ui8", std::nullopt),
                     StatusCode::kInvalidArgument, {"lapack_sgeev_ffi", "eigvecs_left", "c64"});
}

TEST(LapackModuleTest, RealTargetsItCannotServeAreUnimplementedNamingTheTarget) {
  ExpectCompileError(JaxProgram("lapack_sgees_ffi", {kMatrix},
                                {kMatrix, kMatrix, {{3}, "f32"}, {{3}, "f32"}, kInfo, kInfo},
                                "mode = 86 : ui8, sort = 83 : ui8"),
                     StatusCode::kUnimplemented, {"lapack_sgees_ffi", "sort = 'S'"});
  const CallValue square{{2, 2}, "f32", true};
  ExpectCompileError(JaxProgram("lapack_sgesdd_ffi", {square},
                                {square, {{2}, "f32"}, square, square, kInfo}, "mode = 79 : ui8"),
                     StatusCode::kUnimplemented, {"lapack_sgesdd_ffi", "mode 'O'"});
}

// jnp.linalg.eigh(x) as jax.jit(...).lower(x).as_text() gives it for a
// 2 x 2 f32: the custom call, then the check of info that turns a failed
// matrix into NaN, then the results.
constexpr char kJaxEigh[] = R"(
module @jit_eigh attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x2xf32> {mhlo.layout_mode = "default"}) -> (tensor<2x2xf32> {jax.result_info = "[0]", mhlo.layout_mode = "default"}, tensor<2xf32> {jax.result_info = "[1]", mhlo.layout_mode = "default"}) {
    %0:3 = stablehlo.custom_call @lapack_ssyevd_ffi(%arg0) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>]} : (tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2xf32>, tensor<i32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.compare  EQ, %0#2, %c,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %2 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<i1>) -> tensor<2x2xi1>
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x2xf32>
    %4 = stablehlo.select %2, %0#0, %3 : tensor<2x2xi1>, tensor<2x2xf32>
    %5 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<i1>) -> tensor<2xi1>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2xf32>
    %7 = stablehlo.select %5, %0#1, %6 : tensor<2xi1>, tensor<2xf32>
    return %4, %7 : tensor<2x2xf32>, tensor<2xf32>
  }
}
)";

TEST(LapackModuleTest, EighAsJaxExportsItRunsWithItsInfoCheck) {
  // [[2, 1], [1, 2]]: eigenvalues 1 and 3, eigenvectors (1, -1) and (1, 1) / sqrt(2).
  std::vector<Literal> out = MustRun(kJaxEigh, {Literal::Of<float>({2, 1, 1, 2}, {2, 2})});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_THAT(out[1].Values<float>(),
              ::testing::ElementsAre(::testing::FloatNear(1, 1e-6), ::testing::FloatNear(3, 1e-6)));
  std::vector<float> v = out[0].Values<float>();
  const float half = 0.5f;
  EXPECT_NEAR(v[0] * v[0], half, 1e-6);  // column 0 is (1, -1) / sqrt(2) up to sign
  EXPECT_NEAR(v[0] * v[2], -half, 1e-6);
  EXPECT_NEAR(v[1] * v[3], half, 1e-6);  // column 1 is (1, 1) / sqrt(2) up to sign
}

// The in-tree `berth` finds build/configs/plugins.d/lapack.json by itself
// and runs a program JAX exported for jnp.linalg.cholesky's factorization.
TEST(LapackModuleTest, InTreeBerthRunsACustomCallWithTheBundledModule) {
  TempDir dir;
  const std::string program = JaxProgram("lapack_spotrf_ffi", {{{2, 2}, "f32", true}},
                                         {{{2, 2}, "f32", true}, kInfo}, "uplo = 76 : ui8");
  dir.Write("cholesky.mlir", program);
  CommandResult result =
      RunCommand("env -u BERTH_PLUGIN_PATH -u BERTH_ADD_PLUGIN_PATH " + std::string(BERTH_EXE) +
                 " run " + (dir.path() / "cholesky.mlir").string() +
                 " --arg 'dense<[[4.0, 2.0], [2.0, 5.0]]> : tensor<2x2xf32>' 2>&1");
  EXPECT_EQ(result.exit_code, 0) << result.out;
  // L = [[2, 0], [1, 2]]; the upper triangle keeps x's 2.
  EXPECT_THAT(result.out, HasSubstr("dense<[[2.0, 2.0], [1.0, 2.0]]> : tensor<2x2xf32>"));
  EXPECT_THAT(result.out, HasSubstr("dense<0> : tensor<i32>"));
}

}  // namespace
}  // namespace berth::testing
