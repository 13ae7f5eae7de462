// Printing a Module as MLIR text that parses back to the same IR.
#ifndef BERTH_STABLEHLO_PRINTER_HPP_
#define BERTH_STABLEHLO_PRINTER_HPP_

#include <string>

#include "berth/stablehlo/ir.hpp"

namespace berth::stablehlo {

// Modules and functions print in their usual form, ops in the generic form
// (`%0 = "stablehlo.add"(%arg0, %arg1) : (...) -> ...`). Dense literals with
// more than 256 elements print as little-endian hex blobs (`dense<"0x...">`).
std::string Print(const Module& module);
std::string Print(const Operation& op);
std::string Print(Type type);

}  // namespace berth::stablehlo

#endif  // BERTH_STABLEHLO_PRINTER_HPP_
