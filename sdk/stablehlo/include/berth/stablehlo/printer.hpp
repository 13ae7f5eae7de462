// Printing a Module as MLIR text that parses back to the same IR.
#ifndef BERTH_STABLEHLO_PRINTER_HPP_
#define BERTH_STABLEHLO_PRINTER_HPP_

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "berth/stablehlo/ir.hpp"
#include "berth/status.hpp"

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

// Printing a module with some ops written as other ops (a lowering such as
// LowerQuantizedTypes). A hook that takes an op writes its replacement
// through this interface, at the op's place and indentation.
class OpPrinter {
 public:
  // The name a value printed so far goes by ("%3", "%arg0", "%7#1").
  virtual std::string NameOf(const Value* value) = 0;
  // A value name not used before ("%5").
  virtual std::string NewName() = 0;
  // Later uses of `value` print `name`.
  virtual void Rename(const Value* value, std::string name) = 0;
  // One op written by the hook (a line without its indentation).
  virtual void AddLine(std::string_view text) = 0;
  // `op` itself with its operands given as `operand_names` of
  // `operand_types` and its results typed `result_types` (one per
  // operand and result); its regions print as usual. Later uses of its
  // results print their new names; returns the first result's name.
  virtual std::string PrintOpAs(const Operation& op, std::span<const std::string> operand_names,
                                std::span<const std::string> operand_types,
                                std::span<const std::string> result_types) = 0;
  // A type as the hooks' `type_text` spells it.
  virtual std::string TypeText(Type type) = 0;

 protected:
  ~OpPrinter() = default;
};

struct PrintHooks {
  // How every type is spelled (signatures, block arguments, operands and
  // results); NULL: Type::ToString.
  std::function<std::string(Type)> type_text;
  // Called for every op (regions' ops too) before it prints: true when
  // the hook has written it; an error ends the printing with it.
  std::function<Result<bool>(const Operation&, OpPrinter&)> op;
  // When set, filled with the op each line of the output belongs to
  // (index 0 = line 1; NULL for module and function lines), so that a
  // diagnostic on the printed text can name the op it came from.
  std::vector<const Operation*>* line_ops = nullptr;
};
Result<std::string> Print(const Module& module, const PrintHooks& hooks);

}  // namespace berth::stablehlo

#endif  // BERTH_STABLEHLO_PRINTER_HPP_
