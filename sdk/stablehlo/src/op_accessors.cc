// Typed accessors for op attributes, so executors never re-parse text.
#include "berth/stablehlo/ir.hpp"

namespace berth::stablehlo {
namespace {

template <typename E>
std::optional<E> EnumOf(const Operation& op, std::string_view name, EnumKind kind) {
  auto* a = op.attr_as<EnumAttr>(name);
  if (!a || a->enum_kind() != kind) return std::nullopt;
  return static_cast<E>(a->value());
}

}  // namespace

std::optional<int64_t> Operation::GetInt(std::string_view name) const {
  if (auto* a = attr_as<IntegerAttr>(name)) return a->value();
  return std::nullopt;
}

std::optional<double> Operation::GetFloat(std::string_view name) const {
  const Attribute* a = attr(name);
  if (!a) return std::nullopt;
  if (auto* f = a->dyn_cast<FloatAttr>()) return f->value();
  if (auto* i = a->dyn_cast<IntegerAttr>()) return static_cast<double>(i->value());
  return std::nullopt;
}

bool Operation::GetBool(std::string_view name, bool fallback) const {
  const Attribute* a = attr(name);
  if (!a) return fallback;
  if (auto* b = a->dyn_cast<BoolAttr>()) return b->value();
  if (a->isa<UnitAttr>()) return true;
  if (auto* i = a->dyn_cast<IntegerAttr>()) return i->value() != 0;
  return fallback;
}

std::string_view Operation::GetString(std::string_view name) const {
  if (auto* s = attr_as<StringAttr>(name)) return s->value();
  return {};
}

std::span<const int64_t> Operation::GetI64Array(std::string_view name) const {
  if (auto* a = attr_as<DenseArrayAttr>(name)) return a->ints();
  return {};
}

const DenseElementsAttr* Operation::GetDense(std::string_view name) const {
  return attr_as<DenseElementsAttr>(name);
}

std::string_view Operation::GetSymbol(std::string_view name) const {
  if (auto* s = attr_as<SymbolRefAttr>(name)) return s->name();
  return {};
}

std::vector<std::pair<int64_t, int64_t>> Operation::GetPairs(std::string_view name) const {
  std::vector<std::pair<int64_t, int64_t>> out;
  const DenseElementsAttr* d = GetDense(name);
  if (!d || d->type().rank() != 2 || d->type().dim(1) != 2 || d->num_elements() > (1 << 24)) {
    return out;
  }
  std::vector<int64_t> v = d->ToInt64Vector();
  for (size_t i = 0; i + 1 < v.size(); i += 2) out.emplace_back(v[i], v[i + 1]);
  return out;
}

std::optional<ComparisonDirection> Operation::comparison_direction() const {
  return EnumOf<ComparisonDirection>(*this, "comparison_direction",
                                     EnumKind::kComparisonDirection);
}

std::optional<ComparisonType> Operation::compare_type() const {
  return EnumOf<ComparisonType>(*this, "compare_type", EnumKind::kComparisonType);
}

std::vector<Precision> Operation::precision_config() const {
  std::vector<Precision> out;
  auto* a = attr_as<ArrayAttr>("precision_config");
  if (!a) return out;
  for (const Attribute* e : a->elements()) {
    auto* p = e->dyn_cast<EnumAttr>();
    out.push_back(p && p->enum_kind() == EnumKind::kPrecision ? static_cast<Precision>(p->value())
                                                              : Precision::kDefault);
  }
  return out;
}

const DotDimensionNumbers* Operation::dot_dimension_numbers() const {
  auto* a = attr_as<DotDimensionNumbersAttr>("dot_dimension_numbers");
  return a ? &a->value() : nullptr;
}

const GatherDimensionNumbers* Operation::gather_dimension_numbers() const {
  auto* a = attr_as<GatherDimensionNumbersAttr>("dimension_numbers");
  return a ? &a->value() : nullptr;
}

const ScatterDimensionNumbers* Operation::scatter_dimension_numbers() const {
  auto* a = attr_as<ScatterDimensionNumbersAttr>("scatter_dimension_numbers");
  return a ? &a->value() : nullptr;
}

const ConvDimensionNumbers* Operation::conv_dimension_numbers() const {
  auto* a = attr_as<ConvDimensionNumbersAttr>("dimension_numbers");
  return a ? &a->value() : nullptr;
}

const DotAlgorithm* Operation::dot_algorithm() const {
  auto* a = attr_as<DotAlgorithmAttr>("algorithm");
  return a ? &a->value() : nullptr;
}

const RaggedDotDimensionNumbers* Operation::ragged_dot_dimension_numbers() const {
  auto* a = attr_as<RaggedDotDimensionNumbersAttr>("ragged_dot_dimension_numbers");
  return a ? &a->value() : nullptr;
}

std::optional<ChannelHandle> Operation::channel_handle() const {
  if (auto* a = attr_as<ChannelHandleAttr>("channel_handle")) return a->value();
  return std::nullopt;
}

std::vector<std::vector<int64_t>> Operation::replica_groups() const {
  std::vector<std::vector<int64_t>> out;
  const DenseElementsAttr* d = GetDense("replica_groups");
  if (!d || d->type().rank() != 2 || d->num_elements() > (1 << 24)) return out;
  int64_t rows = d->type().dim(0);
  int64_t cols = d->type().dim(1);
  std::vector<int64_t> v = d->ToInt64Vector();
  for (int64_t r = 0; r < rows; ++r) {
    out.emplace_back(v.begin() + r * cols, v.begin() + (r + 1) * cols);
  }
  return out;
}

std::optional<FftType> Operation::fft_type() const {
  return EnumOf<FftType>(*this, "fft_type", EnumKind::kFftType);
}

std::optional<RngDistribution> Operation::rng_distribution() const {
  return EnumOf<RngDistribution>(*this, "rng_distribution", EnumKind::kRngDistribution);
}

std::optional<RngAlgorithm> Operation::rng_algorithm() const {
  return EnumOf<RngAlgorithm>(*this, "rng_algorithm", EnumKind::kRngAlgorithm);
}

std::optional<Transpose> Operation::transpose_a() const {
  return EnumOf<Transpose>(*this, "transpose_a", EnumKind::kTranspose);
}

std::string_view Operation::callee() const {
  if (kind_ == OpKind::kComposite) return GetSymbol("decomposition");
  return GetSymbol("callee");
}

std::string_view Operation::call_target_name() const { return GetString("call_target_name"); }

bool Operation::torch_index_select_as_gather(GatherDimensionNumbers& numbers,
                                             std::vector<int64_t>& slice_sizes) const {
  if (num_operands() != 2) return false;
  const Type input = operand(0)->type(), index = operand(1)->type();
  const int64_t dim = GetInt("dim").value_or(-1), batch = GetInt("batch_dims").value_or(0);
  if (dim < 0 || dim >= input.rank() || batch < 0 || batch > dim || batch > index.rank()) {
    return false;
  }
  numbers = GatherDimensionNumbers();
  for (int64_t d = 0; d < batch; ++d) {
    numbers.operand_batching_dims.push_back(d);
    numbers.start_indices_batching_dims.push_back(d);
  }
  numbers.collapsed_slice_dims = {dim};
  numbers.start_index_map = {dim};
  numbers.index_vector_dim = index.rank();
  for (int64_t d = batch; d < dim; ++d) numbers.offset_dims.push_back(d);
  for (int64_t d = dim + 1; d < input.rank(); ++d)
    numbers.offset_dims.push_back(d + index.rank() - batch - 1);
  slice_sizes.assign(input.shape().begin(), input.shape().end());
  for (int64_t d = 0; d < batch; ++d) slice_sizes[static_cast<size_t>(d)] = 1;
  slice_sizes[static_cast<size_t>(dim)] = 1;
  return true;
}

std::vector<int64_t> Operation::chlo_broadcast_dimensions(size_t i) const {
  if (i >= num_operands() || num_results() == 0) return {};
  Type operand_type = operand(i)->type();
  Type result_type = result(0)->type();
  if (!operand_type.IsTensor() || !result_type.IsTensor() ||
      operand_type.rank() > result_type.rank()) return {};
  const int64_t rank = operand_type.rank();
  const int64_t result_rank = result_type.rank();
  // broadcast_dimensions applies to the lower-rank operand of a binary op.
  if (kind_ != OpKind::kChloBroadcastSelect && num_operands() == 2 && has_attr("broadcast_dimensions")) {
    Type other = operand(1 - i)->type();
    if (other.IsTensor() && rank < other.rank()) {
      std::span<const int64_t> dims = GetI64Array("broadcast_dimensions");
      if (static_cast<int64_t>(dims.size()) != rank) return {};
      for (int64_t d : dims) {
        if (d < 0 || d >= result_rank) return {};
      }
      return std::vector<int64_t>(dims.begin(), dims.end());
    }
  }
  std::vector<int64_t> out(static_cast<size_t>(rank));
  for (int64_t d = 0; d < rank; ++d) out[static_cast<size_t>(d)] = result_rank - rank + d;
  return out;
}

}  // namespace berth::stablehlo
