// libFuzzer target for the sharding parsers: any input gives a value or a
// Status, never a crash, hang or sanitizer report. The first byte picks the
// parser (GSPMD, Shardy sharding, mesh, XLA's round-trip meshes
// dictionary); what parses is printed and parsed again, and must come back
// equal (a difference is reported as a crash). Shardy shardings are also
// laid out on a fixed 2x2x3 mesh; the round-trip dictionary is read from a
// module's xla.sdy.meshes attribute, with the argument's xla.sdy.sharding
// naming its first mesh.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "berth/spmd/entry_shardings.hpp"
#include "berth/spmd/gspmd.hpp"
#include "berth/spmd/mesh.hpp"
#include "berth/spmd/shardy.hpp"
#include "berth/stablehlo/parser.hpp"

namespace {

[[noreturn]] void Fail(const char* what, const std::string& text) {
  std::fprintf(stderr, "%s: %s\n", what, text.c_str());
  __builtin_trap();
}

// `text` as the body of an MLIR string literal: quotes, backslashes and
// bytes outside printable ASCII as \XX.
std::string Escaped(std::string_view text) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : text) {
    if (c == '"' || c == '\\' || c < 0x20 || c > 0x7e) {
      out += '\\';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace berth::spmd;
  if (size == 0) return 0;
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 4) {
    case 0: {
      berth::Result<Sharding> sharding = ParseGspmdSharding(text);
      if (!sharding.ok()) return 0;
      std::string printed = PrintGspmdSharding(*sharding);
      berth::Result<Sharding> again = ParseGspmdSharding(printed);
      if (!again.ok() || !(*again == *sharding)) Fail("GSPMD round trip differs", printed);
      break;
    }
    case 1: {
      berth::Result<ShardySharding> sharding = ParseShardySharding(text);
      if (!sharding.ok()) return 0;
      std::string printed = PrintShardySharding(*sharding);
      berth::Result<ShardySharding> again = ParseShardySharding(printed);
      if (!again.ok() || !(*again == *sharding)) Fail("Shardy round trip differs", printed);
      static const Mesh mesh = *ParseMesh("<[\"x\"=2, \"y\"=2, \"z\"=3]>");
      berth::Result<Sharding> layout = ToSharding(*sharding, mesh);
      (void)layout;
      break;
    }
    case 3: {
      const std::string module_text =
          "module attributes {mhlo.frontend_attributes = {xla.sdy.meshes = \"" + Escaped(text) +
          "\"}} {\n func.func @main(%a: tensor<4x6xf32> {mhlo.frontend_attributes = {xla.sdy.sharding = "
          "\"#sdy.sharding<@m, [{\\\"x\\\"}, {}]>\"}}) -> tensor<4x6xf32> {\n"
          "  return %a : tensor<4x6xf32>\n }\n}\n";
      berth::Result<berth::stablehlo::Module> module = berth::stablehlo::ParseModule(module_text, "fuzz.mlir");
      if (!module.ok()) Fail("the wrapping module does not parse", module_text);
      berth::Result<EntryShardings> entry = ReadEntryShardings(*module);
      (void)entry;
      break;
    }
    default: {
      berth::Result<Mesh> mesh = ParseMesh(text);
      if (!mesh.ok()) return 0;
      berth::Result<Mesh> again = ParseMesh(mesh->ToString());
      if (!again.ok() || !(*again == *mesh)) Fail("mesh round trip differs", mesh->ToString());
      break;
    }
  }
  return 0;
}
