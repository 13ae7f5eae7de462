// Everything of the StableHLO program library: parse, verify, walk, print.
#ifndef BERTH_STABLEHLO_STABLEHLO_HPP_
#define BERTH_STABLEHLO_STABLEHLO_HPP_

#include "berth/stablehlo/attributes.hpp"
#include "berth/stablehlo/bytecode.hpp"
#include "berth/stablehlo/ir.hpp"
#include "berth/stablehlo/op_kind.hpp"
#include "berth/stablehlo/parser.hpp"
#include "berth/stablehlo/printer.hpp"
#include "berth/stablehlo/quantization.hpp"
#include "berth/stablehlo/types.hpp"
#include "berth/stablehlo/verifier.hpp"

#endif  // BERTH_STABLEHLO_STABLEHLO_HPP_
