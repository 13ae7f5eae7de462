// Internal: text spelling helpers shared by the printer files.
#ifndef BERTH_STABLEHLO_SRC_PRINTER_IMPL_HPP_
#define BERTH_STABLEHLO_SRC_PRINTER_IMPL_HPP_

#include <span>
#include <string>
#include <string_view>

#include "berth/stablehlo/attributes.hpp"

namespace berth::stablehlo::detail {

void AppendAttribute(std::string& out, const Attribute& attr);
void AppendAttrDict(std::string& out, std::span<const NamedAttribute> attrs);
void AppendDense(std::string& out, const DenseElementsAttr& dense);
void AppendFloat(std::string& out, double value, ElementType type);
void AppendString(std::string& out, std::string_view value);
void AppendSymbol(std::string& out, std::string_view name);

}  // namespace berth::stablehlo::detail

#endif  // BERTH_STABLEHLO_SRC_PRINTER_IMPL_HPP_
