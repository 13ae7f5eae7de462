// Internal: helpers shared by the verifier files, and the per-family entry
// points that VerifyOp dispatches to.
#ifndef BERTH_STABLEHLO_SRC_VERIFIER_IMPL_HPP_
#define BERTH_STABLEHLO_SRC_VERIFIER_IMPL_HPP_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "berth/status.hpp"
#include "berth/stablehlo/ir.hpp"

namespace berth::stablehlo::detail {

// "FILE:LINE:COL: error: 'stablehlo.add' op <message>".
Status OpError(const Operation& op, std::string_view message);

std::string Str(Type type);
std::string Str(std::span<const int64_t> values);
inline std::string Str(const std::vector<int64_t>& values) {
  return Str(std::span<const int64_t>(values));
}

// Shape arithmetic is done wide and narrowed with clamping, so attribute
// values near the int64 limits give a mismatch, never an overflow.
__extension__ typedef __int128 Wide;
inline int64_t Narrow(Wide v) {
  if (v > INT64_MAX) return INT64_MAX;
  if (v < INT64_MIN + 1) return INT64_MIN + 1;  // INT64_MIN is kDynamic
  return static_cast<int64_t>(v);
}

inline bool DimsCompatible(int64_t a, int64_t b) { return a == kDynamic || b == kDynamic || a == b; }
// Same rank and every dimension compatible (`?` matches anything).
bool ShapesCompatible(std::span<const int64_t> a, std::span<const int64_t> b);
// Tensors: same element type and compatible shapes; other types: equal.
bool TypesCompatible(Type a, Type b);
bool IsRank0Tensor(Type t);

Type OperandType(const Operation& op, size_t i);
Type ResultType(const Operation& op, size_t i);

Status ExpectOperands(const Operation& op, size_t n);
Status ExpectMinOperands(const Operation& op, size_t n);
Status ExpectResults(const Operation& op, size_t n);
// Operand / result `i` is a tensor.
Status ExpectTensorOperand(const Operation& op, size_t i);
// Exactly `n` operands, every one a tensor, and one result.
Status ExpectTensorOperands(const Operation& op, size_t n);
Status ExpectTensorResult(const Operation& op, size_t i);
// Exactly `operands` operands and one result, all tensors.
Status OneTensorInOut(const Operation& op, size_t operands);
// The result shape must be compatible with `expected` (kDynamic = any).
Status ExpectResultShape(const Operation& op, size_t i, std::span<const int64_t> expected);
// `dims` lie in [0, rank) (and are unique when asked).
Status ExpectDimsInRange(const Operation& op, std::span<const int64_t> dims, int64_t rank,
                         std::string_view what, bool unique = true);
// mask[d] is true for each d of `dims` that lies in [0, rank).
std::vector<bool> DimMask(std::span<const int64_t> dims, int64_t rank);

// An i64 array attribute, required or optional.
Status GetI64ArrayAttr(const Operation& op, std::string_view name, bool required,
                       std::vector<int64_t>* out, bool* present = nullptr);
Status GetIntAttr(const Operation& op, std::string_view name, bool required, int64_t* out);
// A required integer attribute naming a dimension in [0, rank).
Result<int64_t> DimensionAttr(const Operation& op, std::string_view name, int64_t rank);

// The one block of region `i`; ops with regions have exactly one block
// (checked before the op-specific checks run).
const Block& RegionBlock(const Operation& op, size_t i);
// Types returned by the terminator of `block`.
std::vector<Type> ReturnTypes(const Block& block);
// The region's block takes `count` rank-0 tensor arguments and returns
// `returns` rank-0 tensors.
Status ExpectScalarRegion(const Operation& op, size_t region, size_t args, size_t returns);

// Per-family checks; each returns OK for kinds it does not know.
Status VerifyElementwiseOp(const Operation& op);
Status VerifyShapeOp(const Operation& op);
Status VerifyLinalgOp(const Operation& op);
Status VerifyRegionOp(const Operation& op, const Module& module);
Status VerifyMiscOp(const Operation& op, const Module& module);

}  // namespace berth::stablehlo::detail

#endif  // BERTH_STABLEHLO_SRC_VERIFIER_IMPL_HPP_
