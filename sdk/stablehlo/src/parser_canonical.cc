// One IR for every spelling: integer-list attributes written as
// dense<[...]> : tensor<Nxi64> or [1, 2] become array<i64: ...>, boolean
// lists become array<i1: ...>, so pretty and generic forms (old and new)
// give identical attributes.
#include <array>

#include "src/parser_impl.hpp"

namespace berth::stablehlo::detail {
namespace {

constexpr std::array<std::string_view, 21> kI64ArrayNames = {
    "base_dilations",     "broadcast_dimensions", "broadcast_sizes",
    "dimensions",         "edge_padding_high",    "edge_padding_low",
    "fft_length",         "interior_padding",     "known_expanding_dimensions",
    "known_nonexpanding_dimensions", "lhs_dilation", "limit_indices",
    "permutation",        "rhs_dilation",         "slice_sizes",
    "start_indices",      "strides",              "window_dilations",
    "window_dimensions",  "window_strides",       "known_non_expanding_dimensions",
};

// Splats larger than this stay dense literals (the verifier rejects them).
constexpr int64_t kMaxExpanded = int64_t{1} << 20;

bool IsI64ArrayName(OpKind kind, std::string_view name) {
  // dynamic_slice / real_dynamic_slice take start indices as operands.
  if (name == "start_indices" || name == "limit_indices" || name == "strides") {
    return kind == OpKind::kSlice;
  }
  for (std::string_view n : kI64ArrayNames) {
    if (n == name) return true;
  }
  return false;
}

}  // namespace

Status Parser::Canonicalize(OpState& st) {
  for (NamedAttribute& a : st.attrs) {
    if (a.name == "window_reversal") {
      if (auto* dense = a.value->dyn_cast<DenseElementsAttr>()) {
        if (dense->type().rank() == 1 && IsBool(dense->element_type()) &&
            dense->num_elements() <= kMaxExpanded) {
          a.value = b_.Make<DenseArrayAttr>(ElementType::kI1, dense->ToInt64Vector(),
                                            std::vector<double>{});
        }
      }
      continue;
    }
    if (!IsI64ArrayName(st.kind, a.name)) continue;
    if (auto* dense = a.value->dyn_cast<DenseElementsAttr>()) {
      ElementType e = dense->element_type();
      if (dense->type().rank() == 1 && (IsInteger(e) || e == ElementType::kIndex) &&
          dense->num_elements() <= kMaxExpanded) {
        a.value = MakeI64Array(dense->ToInt64Vector());
      }
    } else if (auto* array = a.value->dyn_cast<ArrayAttr>()) {
      std::vector<int64_t> values;
      bool all_ints = true;
      for (const Attribute* e : array->elements()) {
        auto* i = e->dyn_cast<IntegerAttr>();
        if (!i) {
          all_ints = false;
          break;
        }
        values.push_back(i->value());
      }
      if (all_ints) a.value = MakeI64Array(std::move(values));
    } else if (auto* dense_array = a.value->dyn_cast<DenseArrayAttr>()) {
      if (dense_array->element_type() != ElementType::kSI64 &&
          IsInteger(dense_array->element_type())) {
        a.value = MakeI64Array(std::vector<int64_t>(dense_array->ints().begin(),
                                                    dense_array->ints().end()));
      }
    }
  }
  return OkStatus();
}

}  // namespace berth::stablehlo::detail
