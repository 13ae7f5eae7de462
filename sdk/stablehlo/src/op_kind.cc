// Names of the op kinds and lookup by name.
#include "berth/stablehlo/op_kind.hpp"

#include <array>
#include <string>
#include <unordered_map>

namespace berth::stablehlo {
namespace {

// In the order of OpKind.
constexpr std::array<std::string_view, kNumOpKinds> kNames = {
    "stablehlo.abs",
    "stablehlo.add",
    "stablehlo.after_all",
    "stablehlo.all_gather",
    "stablehlo.all_reduce",
    "stablehlo.all_to_all",
    "stablehlo.and",
    "stablehlo.atan2",
    "stablehlo.batch_norm_grad",
    "stablehlo.batch_norm_inference",
    "stablehlo.batch_norm_training",
    "stablehlo.bitcast_convert",
    "stablehlo.broadcast",
    "stablehlo.broadcast_in_dim",
    "stablehlo.case",
    "stablehlo.cbrt",
    "stablehlo.ceil",
    "stablehlo.cholesky",
    "stablehlo.clamp",
    "stablehlo.collective_broadcast",
    "stablehlo.collective_permute",
    "stablehlo.collective_reduce",
    "stablehlo.compare",
    "stablehlo.complex",
    "stablehlo.composite",
    "stablehlo.compute_reshape_shape",
    "stablehlo.concatenate",
    "stablehlo.constant",
    "stablehlo.convert",
    "stablehlo.convolution",
    "stablehlo.cosine",
    "stablehlo.count_leading_zeros",
    "stablehlo.create_token",
    "stablehlo.cross-replica-sum",
    "stablehlo.cstr_reshapable",
    "stablehlo.custom_call",
    "stablehlo.divide",
    "stablehlo.dot",
    "stablehlo.dot_general",
    "stablehlo.dynamic_broadcast_in_dim",
    "stablehlo.dynamic_conv",
    "stablehlo.dynamic_gather",
    "stablehlo.dynamic_iota",
    "stablehlo.dynamic_pad",
    "stablehlo.dynamic_reshape",
    "stablehlo.dynamic_slice",
    "stablehlo.dynamic_update_slice",
    "stablehlo.einsum",
    "stablehlo.exponential",
    "stablehlo.exponential_minus_one",
    "stablehlo.fft",
    "stablehlo.floor",
    "stablehlo.gather",
    "stablehlo.get_dimension_size",
    "stablehlo.get_tuple_element",
    "stablehlo.if",
    "stablehlo.imag",
    "stablehlo.infeed",
    "stablehlo.iota",
    "stablehlo.is_finite",
    "stablehlo.log",
    "stablehlo.log_plus_one",
    "stablehlo.logistic",
    "stablehlo.map",
    "stablehlo.maximum",
    "stablehlo.minimum",
    "stablehlo.multiply",
    "stablehlo.negate",
    "stablehlo.not",
    "stablehlo.optimization_barrier",
    "stablehlo.or",
    "stablehlo.outfeed",
    "stablehlo.pad",
    "stablehlo.partition_id",
    "stablehlo.popcnt",
    "stablehlo.power",
    "stablehlo.real",
    "stablehlo.real_dynamic_slice",
    "stablehlo.recv",
    "stablehlo.reduce",
    "stablehlo.reduce_precision",
    "stablehlo.reduce_scatter",
    "stablehlo.reduce_window",
    "stablehlo.remainder",
    "stablehlo.replica_id",
    "stablehlo.reshape",
    "stablehlo.return",
    "stablehlo.reverse",
    "stablehlo.rng",
    "stablehlo.rng_bit_generator",
    "stablehlo.round_nearest_afz",
    "stablehlo.round_nearest_even",
    "stablehlo.rsqrt",
    "stablehlo.scatter",
    "stablehlo.select",
    "stablehlo.select_and_scatter",
    "stablehlo.send",
    "stablehlo.set_dimension_size",
    "stablehlo.shift_left",
    "stablehlo.shift_right_arithmetic",
    "stablehlo.shift_right_logical",
    "stablehlo.sign",
    "stablehlo.sine",
    "stablehlo.slice",
    "stablehlo.sort",
    "stablehlo.sqrt",
    "stablehlo.square",
    "stablehlo.subtract",
    "stablehlo.tan",
    "stablehlo.tanh",
    "stablehlo.torch_index_select",
    "stablehlo.transpose",
    "stablehlo.triangular_solve",
    "stablehlo.tuple",
    "stablehlo.unary_einsum",
    "stablehlo.uniform_dequantize",
    "stablehlo.uniform_quantize",
    "stablehlo.while",
    "stablehlo.xor",
    "func.call",
    "func.return",
    "check.expect_eq_const",
    "check.expect_almost_eq_const",
    "check.expect_eq",
    "check.expect_almost_eq",
    "check.expect_close",
    "check.expect_serialized_eq",
    "interpreter.run_parallel",
    "interpreter.probe",
    "interpreter.print",
    "chlo.acos",
    "chlo.acosh",
    "chlo.asin",
    "chlo.asinh",
    "chlo.atan",
    "chlo.atanh",
    "chlo.bessel_i1e",
    "chlo.conj",
    "chlo.cosh",
    "chlo.sinh",
    "chlo.tan",
    "chlo.digamma",
    "chlo.erf",
    "chlo.erf_inv",
    "chlo.erfc",
    "chlo.is_inf",
    "chlo.is_neg_inf",
    "chlo.is_pos_inf",
    "chlo.lgamma",
    "chlo.square",
    "chlo.next_after",
    "chlo.polygamma",
    "chlo.zeta",
    "chlo.mulhi",
    "chlo.top_k",
    "chlo.scan",
    "chlo.constant",
    "chlo.constant_like",
    "chlo.ragged_dot",
    "chlo.broadcast_add",
    "chlo.broadcast_and",
    "chlo.broadcast_atan2",
    "chlo.broadcast_compare",
    "chlo.broadcast_complex",
    "chlo.broadcast_divide",
    "chlo.broadcast_maximum",
    "chlo.broadcast_minimum",
    "chlo.broadcast_multiply",
    "chlo.broadcast_next_after",
    "chlo.broadcast_or",
    "chlo.broadcast_polygamma",
    "chlo.broadcast_power",
    "chlo.broadcast_remainder",
    "chlo.broadcast_select",
    "chlo.broadcast_shift_left",
    "chlo.broadcast_shift_right_arithmetic",
    "chlo.broadcast_shift_right_logical",
    "chlo.broadcast_subtract",
    "chlo.broadcast_xor",
    "chlo.broadcast_zeta",
    "sdy.mesh",
    "sdy.sharding_constraint",
    "sdy.reshard",
    "sdy.manual_computation",
    "sdy.return",
};

// A static object, not a leaked pointer: a plugin that links this library
// may be unloaded, and its memory must go with it.
const std::unordered_map<std::string_view, OpKind>& NameMap() {
  static const std::unordered_map<std::string_view, OpKind> map = [] {
    std::unordered_map<std::string_view, OpKind> m;
    m.reserve(kNumOpKinds + 4);
    for (int i = 0; i < kNumOpKinds; ++i) m.emplace(kNames[i], static_cast<OpKind>(i));
    m.emplace("return", OpKind::kFuncReturn);
    m.emplace("call", OpKind::kFuncCall);
    return m;
  }();
  return map;
}

}  // namespace

std::string_view OpKindName(OpKind kind) {
  auto i = static_cast<size_t>(kind);
  return i < kNames.size() ? kNames[i] : std::string_view("<invalid op>");
}

std::optional<OpKind> LookupOpKind(std::string_view name) {
  const auto& map = NameMap();
  auto it = map.find(name);
  if (it == map.end()) return std::nullopt;
  return it->second;
}

bool IsTerminator(OpKind kind) {
  return kind == OpKind::kReturn || kind == OpKind::kFuncReturn || kind == OpKind::kSdyReturn;
}

}  // namespace berth::stablehlo
