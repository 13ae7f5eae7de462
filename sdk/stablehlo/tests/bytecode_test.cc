// WriteBytecode / ReadBytecode: the binary form reads back to the module it
// was written from (the whole conformance suite does so in
// conformance_test), and bytes that are not such a module — truncated at any
// point, bit-flipped anywhere, of another version — are refused with an
// error, never a crash.
#include <random>

#include "tests/test_util.hpp"

namespace berth::stablehlo {
namespace {

using testing::MustParse;

constexpr std::string_view kProgram = R"mlir(
module @m attributes {mhlo.num_partitions = 1 : i32} {
  func.func @main(%a: tensor<4xf32> {jax.arg_info = "a"}, %i: tensor<i32>) -> (tensor<4xf32>, tensor<i32>) {
    %c = stablehlo.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
    %s = stablehlo.add %a, %c : tensor<4xf32>
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %sum = stablehlo.reduce(%s init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    %r = stablehlo.broadcast_in_dim %sum, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %w:2 = stablehlo.while(%x = %i, %y = %r) : tensor<i32>, tensor<4xf32>
     cond {
      %lim = stablehlo.constant dense<3> : tensor<i32>
      %lt = stablehlo.compare LT, %x, %lim, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %one = stablehlo.constant dense<1> : tensor<i32>
      %n = stablehlo.add %x, %one : tensor<i32>
      %m = stablehlo.multiply %y, %s : tensor<4xf32>
      stablehlo.return %n, %m : tensor<i32>, tensor<4xf32>
    }
    %t = stablehlo.transpose %w#1, dims = [0] : (tensor<4xf32>) -> tensor<4xf32>
    return %t, %w#0 : tensor<4xf32>, tensor<i32>
  }
}
)mlir";

TEST(BytecodeTest, ReadsBackTheSameModuleWithNamesAndLocations) {
  Module m = MustParse(kProgram);
  std::string bytes = WriteBytecode(m);
  EXPECT_EQ(std::string_view(bytes).substr(0, kBytecodeMagic.size()), kBytecodeMagic);
  Result<Module> read = ReadBytecode(bytes, "again.mlir");
  ASSERT_TRUE(read.ok()) << read.status().ToString();
  std::string diff;
  EXPECT_TRUE(StructurallyEqual(m, *read, &diff)) << diff;
  EXPECT_EQ(Print(*read), Print(m));
  EXPECT_EQ(read->name(), "m");
  EXPECT_EQ(read->filename(), "again.mlir");
  const Operation& add = *read->entry_function()->entry_block().operations()[1];
  EXPECT_EQ(add.location().file, "again.mlir");
  EXPECT_EQ(add.location().line, m.entry_function()->entry_block().operations()[1]->location().line);
  // Written again, the same bytes.
  EXPECT_EQ(WriteBytecode(*read), bytes);
}

TEST(BytecodeTest, RefusesEveryTruncation) {
  std::string bytes = WriteBytecode(MustParse(kProgram));
  for (size_t n = 0; n < bytes.size(); ++n) {
    Result<Module> read = ReadBytecode(std::string_view(bytes).substr(0, n), "cut");
    EXPECT_FALSE(read.ok()) << "a prefix of " << n << " of " << bytes.size() << " bytes was read";
    if (!read.ok()) {
      EXPECT_EQ(read.status().code(), StatusCode::kInvalidArgument) << read.status().ToString();
    }
  }
}

TEST(BytecodeTest, BitFlipsGiveAModuleThatVerifiesOrAnError) {
  const std::string bytes = WriteBytecode(MustParse(kProgram));
  std::mt19937 rng(17);
  int refused = 0;
  for (int trial = 0; trial < 4000; ++trial) {
    std::string flipped = bytes;
    size_t at = rng() % flipped.size();
    flipped[at] = static_cast<char>(flipped[at] ^ (1 << (rng() % 8)));
    Result<Module> read = ReadBytecode(flipped, "flipped");
    if (!read.ok()) {
      ++refused;
      EXPECT_FALSE(read.status().message().empty());
    }
  }
  EXPECT_GT(refused, 1000);
}

TEST(BytecodeTest, RefusesAnotherVersionAndTrailingBytes) {
  std::string bytes = WriteBytecode(MustParse(kProgram));
  std::string other = bytes;
  other[kBytecodeMagic.size() - 1] = '2';
  Result<Module> read = ReadBytecode(other, "v2");
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.status().message().find("not stablehlo bytecode"), std::string::npos) << read.status().ToString();
  read = ReadBytecode(bytes + "x", "trailing");
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.status().message().find("1 bytes after the module"), std::string::npos) << read.status().ToString();
}

TEST(BytecodeTest, ALiteralOfTheWrongSizeIsRefused) {
  // A dense literal whose bytes do not match its type would be read out of
  // bounds by every kernel: the reader checks it even without verifying.
  Module m = MustParse("func.func @main() -> tensor<3xi32> {\n"
                       "  %c = stablehlo.constant dense<[1, 2, 3]> : tensor<3xi32>\n"
                       "  return %c : tensor<3xi32>\n}\n");
  std::string bytes = WriteBytecode(m);
  // The 12 data bytes are preceded by their size (12).
  const std::string data("\x01\x00\x00\x00\x02\x00\x00\x00\x03\x00\x00\x00", 12);
  size_t at = bytes.find(data);
  ASSERT_NE(at, std::string::npos);
  ASSERT_EQ(bytes[at - 1], 12);
  std::string shorter = bytes.substr(0, at - 1) + '\x08' + bytes.substr(at, 8) + bytes.substr(at + 12);
  Result<Module> read = ReadBytecode(shorter, "short", BytecodeReadOptions{.verify = false});
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.status().message().find("holds 8 bytes"), std::string::npos) << read.status().ToString();
}

}  // namespace
}  // namespace berth::stablehlo
