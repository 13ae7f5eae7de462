// libFuzzer target for the intermediate reader: any bytes give a file or an
// error, never a crash; a file read is written again and reads back equal.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "phase_compile/intermediate_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace berth::ext::phase_compile;
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  berth::Result<IntermediateFile> file = DecodeIntermediate(bytes, "fuzz");
  if (!file.ok()) return 0;
  berth::Result<IntermediateFile> again = DecodeIntermediate(EncodeIntermediate(file->header, file->payload), "again");
  if (!again.ok() || again->payload != file->payload || again->header.format != file->header.format) __builtin_trap();
  return 0;
}
