// Berth's binary form of a parsed module ("stablehlo-bytecode"): what the text
// says — functions, ops, types, attributes, value names and source locations —
// laid out so that reading it back needs no lexing, no name lookup and no
// type inference. A plugin stores a verified module this way (the cpu
// plugin's `cpu-plan` intermediates and serialized executables) and loads it
// again in a fraction of the time parsing the text takes.
//
// Layout (all integers LEB128 varints, signed ones zigzag-coded):
//   "BSHLOBC1"  magic and format version
//   strings     count, then each as size + bytes (names, symbol paths)
//   types       count, then each: kind byte + fields; refers to strings and
//               to earlier types only
//   attributes  count, then each: kind byte + fields; refers to strings,
//               types and earlier attributes only
//   module      name, attributes, top-level ops, functions; each function:
//               name, visibility, type, argument/result attribute
//               dictionaries, attributes, location, body
//   blocks      arguments (type, name), then ops: kind, location, operands
//               (as positions in the values visible at that point: the
//               enclosing blocks' arguments and earlier results, so a value
//               can only be used where the text could name it), result types,
//               result name, attributes, regions
// It is not MLIR's bytecode, and it is versioned with this library: a reader
// takes only the version it writes.
#ifndef BERTH_STABLEHLO_BYTECODE_HPP_
#define BERTH_STABLEHLO_BYTECODE_HPP_

#include <string>
#include <string_view>

#include "berth/stablehlo/ir.hpp"
#include "berth/status.hpp"

namespace berth::stablehlo {

// The first bytes of every module written by WriteBytecode.
inline constexpr std::string_view kBytecodeMagic = "BSHLOBC1";

std::string WriteBytecode(const Module& module);

struct BytecodeReadOptions {
  // Run the verifier on the module read. A module written from a verified
  // one verifies; leave this off only for bytes whose integrity is known
  // (a fingerprinted container the plugin itself wrote).
  bool verify = true;
};

// Reads bytes written by WriteBytecode. Every count, index, size and enum
// value is checked against the input before it is used: malformed bytes are
// INVALID_ARGUMENT ("stablehlo bytecode: ..." with the byte offset), never a
// crash. `filename` becomes the module's filename (locations name it).
Result<Module> ReadBytecode(std::string_view bytes, std::string_view filename,
                            const BytecodeReadOptions& options = {});

}  // namespace berth::stablehlo

#endif  // BERTH_STABLEHLO_BYTECODE_HPP_
