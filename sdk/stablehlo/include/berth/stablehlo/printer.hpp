// Printing a Module as MLIR text that parses back to the same IR.
#ifndef BERTH_STABLEHLO_PRINTER_HPP_
#define BERTH_STABLEHLO_PRINTER_HPP_

#include <optional>
#include <string>
#include <string_view>

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

}  // namespace berth::stablehlo

#endif  // BERTH_STABLEHLO_PRINTER_HPP_
