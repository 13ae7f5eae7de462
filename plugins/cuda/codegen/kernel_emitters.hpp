// The code generator's emitters, shared by its kernel families
// (elementwise, reduction, movement and linalg codegen): element types as
// CUDA C sees them, expressions of elementwise ops, loads through views,
// index arithmetic and the kernel wrapper; and each family's kernel emitter,
// for EmitFusedKernel. Internal to the cuda plugin's code generator.
#ifndef BERTH_PLUGINS_CUDA_CODEGEN_KERNEL_EMITTERS_HPP_
#define BERTH_PLUGINS_CUDA_CODEGEN_KERNEL_EMITTERS_HPP_

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "codegen/elementwise_codegen.hpp"

namespace berth::cuda::codegen {

using stablehlo::ElementType;
using stablehlo::Operation;
using stablehlo::OpKind;

// The kind of value an element type is, for choosing an expression.
enum class Class { kBool, kSigned, kUnsigned, kFloat, kComplex, kNone };

Class ClassOf(ElementType type);

inline bool IsHalf(ElementType type) {
  return type == ElementType::kF16 || type == ElementType::kBF16;
}

// i2, i4, ui2, ui4: held one per byte, sign- or zero-extended, computed in
// 8 bits and wrapped to their width after every op.
bool IsNarrowInteger(ElementType type);

// The f8, f6 and f4 formats: held as their bits one per byte, computed in
// float and rounded to the format after every op.
bool IsNarrowFloat(ElementType type);

// A narrow float format's template arguments for the prelude's
// berth_narrow_to_f32 / berth_f64_to_narrow: "E, M, BIAS, NAN_RULE"; empty
// for f8E8M0FNU (its own functions) and every other type.
std::string NarrowFloatFormat(ElementType type);

// Whether values of `type` are rounded (or wrapped) to it after every op:
// f16, bf16 and the narrow types, which compute in a wider type.
bool RoundsAfterEachOp(ElementType type);

// How an element is held in device memory.
const char* StorageType(ElementType type);

// What it is computed in.
const char* ComputeType(ElementType type);

// An element read from storage (`element`, an lvalue) as its compute value.
std::string Load(ElementType type, const std::string& element);

// A compute value as its storage.
std::string Store(ElementType type, const std::string& value);

// A value computed in the compute type, rounded (narrow integers: wrapped) to
// `type` when RoundsAfterEachOp.
std::string RoundTo(ElementType type, const std::string& value);

inline std::string Call(const std::string& fn, const std::string& a) { return fn + "(" + a + ")"; }

std::string Call(const std::string& fn, const std::string& a, const std::string& b);

std::string Infix(const std::string& a, const char* op, const std::string& b);

// "stablehlo.op at FILE:LINE:COL".
std::string Where(const Operation& op);

// UNIMPLEMENTED "the cuda plugin cannot generate <Where>: <why>".
Status Unsupported(const Operation& op, const std::string& why);

// convert: `a` (computed as ComputeType(from)) as a `to` compute value.
std::string ConvertExpression(ElementType from, ElementType to, const std::string& a);

// Float-only ops that are one function of the operand.
const char* FloatFunctionOf(OpKind kind);

// The elementwise kind a chlo.broadcast_* kind computes as (chlo.broadcast_add:
// add, ...); every other kind itself.
OpKind ElementwiseKindOf(OpKind kind);

// The expression of `op` over its operands' compute values, in the
// result's compute type (before rounding to a half type).
Result<std::string> OpExpression(const Operation& op, const std::vector<std::string>& args);

inline bool IsRankZeroOf(stablehlo::Type type) { return type.IsTensor() && type.rank() == 0; }

std::vector<int64_t> RowMajorStrides(std::span<const int64_t> shape);

// The row-major element index, in `shape`, of the multi-index whose
// dimensions `index` spells (one expression each).
std::string LinearIndex(const std::vector<std::string>& index, std::span<const int64_t> shape);

// Code computing, from the element index `at` of `view.value`, the source's
// element index (`index` gets its name) or, for an iota chain, the iota's
// value as an i64 (`iota` gets its name). Each step names its multi-index
// "<prefix><step>_<dim>".
std::string EmitViewIndex(const ViewRead& view, const std::string& at, const std::string& prefix,
                          std::string& index, std::string& iota);

// The kernel's parameters but the element count: each input
// (`const T* inK`), then each output (`T* outJ`), in their storage types;
// then, for a kernel of several launches, `char* scratch, berth_s64 pass`.
std::string KernelParams(const FusedKernel& kernel);

// The translation unit: the prelude, `helpers` (device functions of one
// family), then the kernel `name` with `params` (and the element count n)
// running `body` in a grid-stride loop over the element index i.
std::string WrapKernel(const std::string& name, const std::string& params, const std::string& body,
                       std::string_view helpers = {});

// Appends `ops` (elementwise, checked) to `body` as locals v<next>...,
// reading `names` and recording their results there.
Status EmitOps(const std::string& kernel, std::span<const Operation* const> ops,
               const std::string& indent,
               std::unordered_map<const stablehlo::Value*, std::string>& names, int& next,
               std::string& body);

// EmitOps of the ops of `block` but its terminator (a region's body).
Status EmitBlockOps(const std::string& kernel, const stablehlo::Block& block,
                    const std::string& indent,
                    std::unordered_map<const stablehlo::Value*, std::string>& names, int& next,
                    std::string& body);

// Declares <prefix><k> = the index along dimension dims[k] of `shape` of
// position `linear` in the row-major order over those dimensions, and
// records each name at at[dims[k]].
void EmitDecompose(const std::string& linear, std::span<const int64_t> dims,
                   std::span<const int64_t> shape, const std::string& prefix,
                   const std::string& indent, std::string& body, std::vector<std::string>& at);

// Declares <prefix><d> = the index along each dimension d of `shape` of
// the kernel's element i; their names.
std::vector<std::string> EmitResultIndex(std::span<const int64_t> shape, const std::string& prefix,
                                         std::string& body);

// Appends to `body` (at `indent`) code setting `target` (declared, of
// `type`'s compute type) to the element of `value` at `index` (one
// expression per dimension): from its kernel input, or through its view
// (whose iota computes the value). `reads` numbers the locals.
Status EmitElementLoad(const FusedKernel& kernel, const stablehlo::Value* value,
                       const std::vector<std::string>& index, const std::string& target,
                       ElementType type, const std::string& indent, int& reads, std::string& body);

// The parameter ("in<k>") of kernel input `value`; INVALID_ARGUMENT naming
// the kernel when it is not one (the planner writes out what a family needs
// in memory).
Result<std::string> InputParam(const FusedKernel& kernel, const stablehlo::Value* value);

// The integers of `value` when a stablehlo.constant of an integer type
// makes it (row-major, sign- or zero-extended); nullopt otherwise.
std::optional<std::vector<int64_t>> ConstantIntegers(const stablehlo::Value* value);

// `op`'s integer array attribute `name`, or - for the dynamic forms of
// gather, pad and convolution - the constant operand standing for it:
// real_dynamic_slice's start_indices, limit_indices and strides (operands
// 1 to 3), dynamic_gather's slice_sizes (operand 2), dynamic_pad's
// edge_padding_low, edge_padding_high and interior_padding (operands 2 to
// 4), dynamic_conv's padding (operand 2, its pairs flattened). nullopt when
// that operand is not a constant.
std::optional<std::vector<int64_t>> StaticArray(const Operation& op, std::string_view name);

// StaticArray of "padding" as (low, high) pairs; empty when absent.
std::vector<std::pair<int64_t, int64_t>> StaticPadding(const Operation& op);

// OK when `op`'s window_dimensions, and those of `optional` it has, hold one
// positive value per dimension of `rank`, and its padding (if any) one pair
// per dimension. Otherwise UNIMPLEMENTED naming the attribute.
Status CheckWindowAttributes(const Operation& op, int64_t rank,
                             std::initializer_list<const char*> optional);

// Each kernel family's CUDA C translation unit for `kernel` (see
// FusedKernel): reduction_codegen.cc, movement_codegen.cc, linalg_codegen.cc.
Result<std::string> EmitReduceKernel(const FusedKernel& kernel);
Result<std::string> EmitReduceWindowKernel(const FusedKernel& kernel);
Result<std::string> EmitScanKernel(const FusedKernel& kernel);
Result<std::string> EmitMoveKernel(const FusedKernel& kernel);
Result<std::string> EmitBitcastKernel(const FusedKernel& kernel);
Result<std::string> EmitScatterKernel(const FusedKernel& kernel);
Result<std::string> EmitSelectAndScatterKernel(const FusedKernel& kernel);
Result<std::string> EmitDotKernel(const FusedKernel& kernel);
Result<std::string> EmitRaggedDotKernel(const FusedKernel& kernel);
Result<std::string> EmitConvolutionKernel(const FusedKernel& kernel);
Result<std::string> EmitSolveKernel(const FusedKernel& kernel);       // solver_codegen.cc
Result<std::string> EmitCholeskyKernel(const FusedKernel& kernel);    // solver_codegen.cc
Result<std::string> EmitBatchNormKernel(const FusedKernel& kernel);   // batch_norm_codegen.cc
Result<std::string> EmitChloBroadcastKernel(const FusedKernel& kernel);  // elementwise_codegen.cc
Result<std::string> EmitRandomBitsKernel(const FusedKernel& kernel);  // random_codegen.cc
Result<std::string> EmitSortKernel(const FusedKernel& kernel);        // sort_codegen.cc
Result<std::string> EmitTopKKernel(const FusedKernel& kernel);        // sort_codegen.cc
Result<std::string> EmitCollectiveKernel(const FusedKernel& kernel);  // collective_codegen.cc
Result<std::string> EmitFftKernel(const FusedKernel& kernel);         // fft_codegen.cc

}  // namespace berth::cuda::codegen

#endif  // BERTH_PLUGINS_CUDA_CODEGEN_KERNEL_EMITTERS_HPP_
