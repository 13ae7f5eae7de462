// libFuzzer target for the sharding parsers: any input gives a value or a
// Status, never a crash, hang or sanitizer report. The first byte picks the
// parser (GSPMD, Shardy sharding, mesh); what parses is printed and parsed
// again, and must come back equal (a difference is reported as a crash).
// Shardy shardings are also laid out on a fixed 2x2x3 mesh.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string_view>

#include "berth/spmd/gspmd.hpp"
#include "berth/spmd/mesh.hpp"
#include "berth/spmd/shardy.hpp"

namespace {

[[noreturn]] void Fail(const char* what, const std::string& text) {
  std::fprintf(stderr, "%s: %s\n", what, text.c_str());
  __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace berth::spmd;
  if (size == 0) return 0;
  std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 3) {
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
