// Printing a Module as MLIR text that parses back to the same IR.
#ifndef BERTH_STABLEHLO_PRINTER_HPP_
#define BERTH_STABLEHLO_PRINTER_HPP_

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "berth/stablehlo/ir.hpp"

namespace berth::stablehlo {

// Modules and functions print in their usual form, ops in the generic form
// (`%0 = "stablehlo.add"(%arg0, %arg1) : (...) -> ...`). Dense literals with
// more than 256 elements print as little-endian hex blobs (`dense<"0x...">`).
std::string Print(const Module& module);
std::string Print(const Operation& op);
// One function as Print(Module) prints it, under `name` and with
// `visibility` when given (the SPMD partitioner keeps a global program as a
// private function beside the per-device entry).
std::string Print(const Function& function, std::optional<std::string_view> name = std::nullopt,
                  std::optional<Visibility> visibility = std::nullopt);
std::string Print(Type type);

// How to print one op into another function (the SPMD partitioner's
// per-device ops): its operands' names and types, its results' name and
// types, replaced; empty lists keep the op's own types. Values its regions
// use from outside the op are named by `outer_names`; values and block
// arguments its regions define are named `%<inner_prefix>N` and
// `%<inner_prefix>aN`, so that they cannot clash with the caller's names.
struct OpRewrite {
  std::vector<std::string> operand_names;
  std::vector<std::string> operand_types;
  std::string result_name;  // "%v7"; printed "%v7:2" for two results
  std::vector<std::string> result_types;
  std::unordered_map<const Value*, std::string> outer_names;
  std::string inner_prefix = "r";
  int depth = 0;  // the op's indentation, in steps of two spaces, for its regions
};
std::string Print(const Operation& op, const OpRewrite& rewrite);

}  // namespace berth::stablehlo

#endif  // BERTH_STABLEHLO_PRINTER_HPP_
