// Chains of elementwise ops as one generated CUDA C kernel: every op of the
// chain computed per element in registers, one read of each input and one
// write of each output per element.
//
// Element types: pred, signed and unsigned 8/16/32/64-bit integers, f16,
// bf16, f32, f64. The narrow (i2/i4, f8/f6/f4) and complex types are not
// generated yet (CheckFusible says UNIMPLEMENTED naming op and type).
#ifndef BERTH_PLUGINS_CUDA_CODEGEN_ELEMENTWISE_CODEGEN_HPP_
#define BERTH_PLUGINS_CUDA_CODEGEN_ELEMENTWISE_CODEGEN_HPP_

#include <cstdint>
#include <string>
#include <vector>

#include "berth/element_type.hpp"
#include "berth/stablehlo/ir.hpp"
#include "berth/status.hpp"

namespace berth::cuda {

// A value read through data movement: `source` (a kernel input; NULL when
// the chain ends in an iota, which computes its values) seen through the
// view ops of `chain`, the one producing `value` first, each reading the
// next one's result. The kernel loads `value`'s element i from the source
// element the chain maps i to: no copy of the moved data is made.
struct ViewRead {
  const stablehlo::Value* value = nullptr;
  const stablehlo::Value* source = nullptr;
  std::vector<const stablehlo::Operation*> chain;
};

// One kernel: `ops` in program order over `num_elements` elements. Inputs are
// the values the ops read from memory (a rank-0 input is read once and used
// for every element), directly or through `views`; outputs are the op
// results (or views: a view returned is written out) used after it.
struct FusedKernel {
  std::string name;  // the kernel's extern "C" symbol
  std::vector<const stablehlo::Value*> inputs;
  std::vector<const stablehlo::Value*> outputs;
  std::vector<const stablehlo::Operation*> ops;
  std::vector<ViewRead> views;
  int64_t num_elements = 0;
  // What the kernel computes; every family but kElementwise has no `ops`
  // and is the one op `root`, its operands (or their views' sources) the
  // inputs and its results the outputs.
  //   kReduce: reduce or reduce_window (CheckReduce); the init values are
  //     inputs too. Each thread computes one output element, combining the
  //     reduced (or window's) elements in row-major order with the body's ops
  //     (long float rows: in blocks, two launches, BlockedReduceThreads).
  //   kMove: concatenate, pad, dynamic_slice, dynamic_update_slice, gather
  //     (CheckMove); each element loaded from the operand (or the padding
  //     value) it comes from; start indices are read per element and
  //     clamped as the cpu plugin does.
  //   kDot: dot_general (CheckDot); each thread one output element, the
  //     products over the contracting dimensions summed in row-major order
  //     in the result's type (f16/bf16 in float, rounded once at the end).
  //   kConvolution: convolution (CheckConvolution); each thread one output
  //     element, the products over window positions and the group's input
  //     features summed in the cpu plugin's order and arithmetic.
  //   kSolve: triangular_solve (CheckTriangularSolve); each thread solves
  //     for one column (left_side) or row of the result of one batch element
  //     by substitution; num_elements counts those vectors.
  //   kScatter: scatter (CheckScatter); each thread (ScatterThreads) copies
  //     its slice of the inputs to the outputs, then applies the updates
  //     that land in it, in order.
  //   kSelectAndScatter: select_and_scatter (CheckSelectAndScatter); each
  //     thread computes one result element: the init value, then the
  //     source elements whose windows select it scattered in, in order.
  //   kRandomBits: rng_bit_generator (CheckRandomBits); each thread runs
  //     the generator on one counter (RandomBitsThreads), thread 0 also
  //     writes the new state.
  //   kSort: sort (CheckSort); each thread sorts one row (SortThreads) of
  //     every operand together by insertion with the comparator's ops; rows
  //     longer than kInsertionSortMaxLength instead by a stable merge sort
  //     of `launches` (SortLaunches), one thread per element.
  //   kTopK: chlo.top_k (CheckTopK); each thread keeps the k largest of one
  //     row, in order, in the results (TopKThreads).
  //   kCollective: a collective op (CheckCollective: all_reduce,
  //     all_gather, reduce_scatter, all_to_all, collective_permute,
  //     collective_broadcast, collective_reduce) as the `members` program
  //     instances of a process group meet it on one device (interpreter.
  //     run_parallel; a program running alone is a group of one). Inputs:
  //     operand `collective_operand` of each member, in group order (then,
  //     for a dynamic-root collective_broadcast, each member's root
  //     operand); outputs: that result of each member. Each thread one
  //     element of one member's result (num_elements = members x result
  //     elements); `member_sources`: for collective_permute and a static
  //     collective_broadcast, the member each one takes its value from (-1:
  //     zeros).
  //   kFft: stablehlo.fft (CheckFft); `launches` one per transformed
  //     dimension, each a direct transform along it, one output element
  //     per thread (FftThreads), through two buffers in the scratch.
  //   kChloBroadcast: a chlo.broadcast_* op (CheckChloBroadcast); each
  //     thread one result element, its operands' elements loaded where the
  //     implicit broadcast maps it.
  //   kBatchNorm: batch_norm_inference, _training, _grad (CheckBatchNorm);
  //     per feature and per element launches (BatchNormThreads).
  //   kCholesky: cholesky (CheckCholesky); each thread factors one matrix
  //     in its part of the scratch (CholeskyThreads), one launch.
  //   kRaggedDot: chlo.ragged_dot (CheckRaggedDot); each thread one
  //     output element, its group found from the group sizes.
  //   kScan: chlo.scan (CheckScan); each thread one element of the slices,
  //     scanning its positions along the dimension in order.
  //   kBitcast: a bitcast_convert that is not elementwise (CheckBitcast:
  //     other widths, halves, i1, narrow types); each thread writes one
  //     byte (or one i1 or narrow integer element) of the result from the
  //     operand's stored bytes (BitcastThreads).
  enum class Family {
    kElementwise,
    kReduce,
    kMove,
    kDot,
    kConvolution,
    kSolve,
    kScatter,
    kSelectAndScatter,
    kRandomBits,
    kSort,
    kBitcast,
    kTopK,
    kCollective,
    kFft,
    kScan,
    kRaggedDot,
    kCholesky,
    kBatchNorm,
    kChloBroadcast
  };
  Family family = Family::kElementwise;
  const stablehlo::Operation* root = nullptr;
  // Empty: the kernel is launched once. Otherwise it is launched once per
  // entry, in order, on the same stream, with that entry as its parameter
  // `pass` and `scratch`, `scratch_bytes` of device memory the launches
  // share (parameters after the outputs: `char* scratch, berth_s64 pass`).
  std::vector<int64_t> launches;
  int64_t scratch_bytes = 0;
  // kCollective (see above).
  int64_t members = 1;
  size_t collective_operand = 0;
  std::vector<int64_t> member_sources;
};

// The buffer element types the generated kernels hold and compute on (the
// plugin attribute `element_types`, which `berth conformance` tests).
std::vector<berth::ElementType> GeneratedBufferTypes();

// Whether `kind` is an elementwise op the code generator knows.
bool IsGeneratedElementwiseKind(stablehlo::OpKind kind);

// Whether `kind` is data movement the code generator folds into loads:
// transpose, broadcast_in_dim, reshape, slice, reverse, iota.
bool IsViewKind(stablehlo::OpKind kind);

// OK when `type`, a type of a value `op` reads or makes, is one the
// generated kernels hold: a statically shaped tensor of a supported element
// type. Otherwise UNIMPLEMENTED naming the op, its location and the type.
Status CheckGeneratedType(const stablehlo::Operation& op, stablehlo::Type type);

// OK when `op` (of a view kind) can be folded: static shapes of a supported
// element type, its attributes present. Otherwise UNIMPLEMENTED naming it.
Status CheckView(const stablehlo::Operation& op);

// OK when `op` can be generated: an elementwise kind the code generator
// knows, statically shaped tensors of the supported element types, operands
// of the result's shape or rank 0 (clamp, select). Otherwise UNIMPLEMENTED
// naming the op, its location and what is missing.
Status CheckFusible(const stablehlo::Operation& op);

// OK when `op` is a stablehlo.reduce or reduce_window the code generator
// can run: static shapes of supported types, operands of one shape, rank-0
// init values, a body of elementwise ops on rank-0 values of the operands'
// types, window attributes of one positive value per dimension. Otherwise
// UNIMPLEMENTED naming it and what is missing.
Status CheckReduce(const stablehlo::Operation& op);

// OK when `op` is data movement the code generator writes as a kernel of
// its own - concatenate, pad, dynamic_slice, dynamic_update_slice, gather -
// and can run: static shapes of supported types, its attributes present and
// fitting its operands (pad's padding value and the dynamic ops' start
// indices rank 0; start indices integers). Otherwise UNIMPLEMENTED naming it.
Status CheckMove(const stablehlo::Operation& op);

// OK when `op` is a dot_general the code generator can run: static shapes
// of supported types, dimension numbers (a dot algorithm and the
// precision config are ignored, as on the cpu plugin). Otherwise
// UNIMPLEMENTED naming it.
Status CheckDot(const stablehlo::Operation& op);

// OK when `op` is a chlo.ragged_dot the code generator can run: real or
// integer operands, integer group sizes, one lhs ragged dimension with an
// rhs group dimension exactly when it is a free one. Otherwise
// UNIMPLEMENTED (INVALID_ARGUMENT for group sizes that do not fit).
Status CheckRaggedDot(const stablehlo::Operation& op);

// OK when `op` is a stablehlo.convolution the code generator can run:
// static shapes of supported types, dimension numbers naming each dimension
// once (the verifier has checked the rest). dynamic_conv is UNIMPLEMENTED.
Status CheckConvolution(const stablehlo::Operation& op);

// OK when `op` is a triangular_solve the code generator can run: static
// shapes of f32 or f64, a batch of square matrices matching b. Otherwise
// UNIMPLEMENTED naming it.
Status CheckTriangularSolve(const stablehlo::Operation& op);

// Whether `kind` is one of CHLO's implicitly broadcasting elementwise ops
// (chlo.broadcast_add ... chlo.broadcast_zeta).
bool IsChloBroadcastKind(stablehlo::OpKind kind);

// OK when `op` is a chlo.broadcast_* op the code generator can run: types
// it holds, each operand's dimensions mapping to the result's
// (chlo_broadcast_dimensions) with sizes 1 or the result's, and its
// elementwise kind defined on them. Otherwise UNIMPLEMENTED (INVALID_ARGUMENT
// for operands that do not broadcast to the result).
Status CheckChloBroadcast(const stablehlo::Operation& op);

// OK when `op` is a batch_norm_inference, batch_norm_training or
// batch_norm_grad the code generator can run: float operands of the shapes
// its kind takes, a feature_index and an epsilon. Otherwise UNIMPLEMENTED.
Status CheckBatchNorm(const stablehlo::Operation& op);

// The threads of a batch_norm kernel's launches (`launches`: training 0 to
// 2, grad 0 and 1, inference one) and its scratch of per-feature doubles.
int64_t BatchNormThreads(const stablehlo::Operation& op, std::vector<int64_t>& launches,
                         int64_t& scratch_bytes);

// OK when `op` is a cholesky the code generator can run: a batch of square
// matrices of f16, bf16, f32, f64 or complex numbers. Otherwise
// UNIMPLEMENTED.
Status CheckCholesky(const stablehlo::Operation& op);

// The threads of a cholesky kernel (one per matrix) and, in
// `scratch_bytes`, their work matrices in double (complex<double>).
int64_t CholeskyThreads(const stablehlo::Operation& op, int64_t& scratch_bytes);

// OK when `op` is a scatter the code generator can run: static shapes of
// supported types, integer indices, dimension numbers fitting its operands,
// an update computation of elementwise ops on the inputs' and updates'
// element types. Otherwise UNIMPLEMENTED naming it.
Status CheckScatter(const stablehlo::Operation& op);

// OK when `op` is a select_and_scatter the code generator can run: static
// shapes of one supported element type, window dimensions and strides of one
// positive value per dimension, select and scatter regions of elementwise
// ops on two elements (select returning i1). Otherwise UNIMPLEMENTED.
Status CheckSelectAndScatter(const stablehlo::Operation& op);

// OK when `op` is an rng_bit_generator the code generator can run: a rank-1
// state of 32- or 64-bit integers holding the words its algorithm takes
// (THREE_FRY 2, PHILOX and DEFAULT 2 or 3), an output of 8-, 16-, 32- or
// 64-bit elements of a supported type. A state or output the op cannot
// take is INVALID_ARGUMENT with the cpu plugin's words.
Status CheckRandomBits(const stablehlo::Operation& op);

// The threads an rng_bit_generator kernel runs: the generator blocks it
// uses (at least one, which writes the new state).
int64_t RandomBitsThreads(const stablehlo::Operation& op);

// OK when `op` is a sort the code generator can run: operands of one shape
// and supported types, a dimension of theirs, a comparator of elementwise
// ops taking two elements of each operand and returning an i1. Otherwise
// UNIMPLEMENTED naming it.
Status CheckSort(const stablehlo::Operation& op);

// The threads a sort kernel runs: one per row along its dimension.
int64_t SortThreads(const stablehlo::Operation& op);

// Float rows of at least 2 * kFoldBlock elements that a reduce folds in
// lanes fold in blocks of kFoldBlock, as the cpu plugin folds them
// (isa/reduce_loops.cc there).
inline constexpr int64_t kFoldBlock = int64_t{1} << 14;

// For a reduce whose rows fold in blocks: the threads of its two launches -
// pass 0, one per block of every row, writes the blocks' parts to the
// scratch; pass 1, one per result, folds them in order - and, in
// `scratch_bytes`, the parts' size. 0 for every other reduce (one launch, a
// thread per result).
int64_t BlockedReduceThreads(const stablehlo::Operation& op, int64_t& scratch_bytes);

// Rows up to this long sort by insertion, one thread per row; longer ones
// by merging (SortLaunches).
inline constexpr int64_t kInsertionSortMaxLength = 16;

// The launches of a sort by merging (see EmitSortKernel): 0 copies the
// operands into the results; then 2w + d merges the sorted runs of w
// elements into runs of 2w, from the results into the scratch (d = 0) or
// back (d = 1), for w = 1, 2, 4 ... below the row length; a last 1 copies
// the scratch back when the runs end there. `scratch_bytes` gets the
// scratch's size: a copy of every operand, each 16-byte aligned.
std::vector<int64_t> SortLaunches(const stablehlo::Operation& op, int64_t& scratch_bytes);

// The threads a scatter kernel runs: one per slice of the results, an index
// along each window dimension that gets no start index (whose destination
// index is the window offset) - slices no two positions' windows share, so
// each thread applies its updates in the cpu plugin's order. 1 when an
// indexed dimension has a window wider than 1 (windows may then overlap).
int64_t ScatterThreads(const stablehlo::Operation& op);

// OK when `op` is a chlo.top_k the code generator can run: a real,
// non-narrow operand of rank >= 1, k within its last dimension, integer
// indices. Otherwise UNIMPLEMENTED (INVALID_ARGUMENT for a k that does not fit).
Status CheckTopK(const stablehlo::Operation& op);

// The threads a top_k kernel runs: one per row (the last dimension).
int64_t TopKThreads(const stablehlo::Operation& op);

// OK when `op` is a chlo.scan the code generator can run: inputs and
// outputs of one shape, carries and every value of its body of the slices'
// shape (that shape without `dimension`), a body of elementwise ops - so
// each element of the slices scans alone. Otherwise UNIMPLEMENTED.
Status CheckScan(const stablehlo::Operation& op);

// OK when `op` is an fft the code generator can run: FFT and IFFT of
// complex numbers, RFFT of f32/f64 to the half spectrum, IRFFT back, over
// 1 to rank trailing dimensions whose lengths fit the operand and result.
// Otherwise UNIMPLEMENTED naming what does not fit.
Status CheckFft(const stablehlo::Operation& op);

// The threads each launch of an fft kernel runs (the larger of the complex
// working shape's and the result's elements) and, in `scratch_bytes`, its
// two buffers of the working shape.
int64_t FftThreads(const stablehlo::Operation& op, int64_t& scratch_bytes);

// Whether `kind` is a collective op the code generator runs as a
// kCollective kernel.
bool IsCollectiveKind(stablehlo::OpKind kind);

// OK when `op` is a collective the code generator can run for a group of
// `members` instances (see FusedKernel::Family::kCollective): static shapes
// of supported types, a reduction body of elementwise ops on two elements,
// dimensions fitting the group (all_gather's result `members` times its
// operand along all_gather_dim, reduce_scatter's operand `members` times
// its result, all_to_all's split_count `members`). UNIMPLEMENTED naming
// what is missing; INVALID_ARGUMENT for dimensions that do not fit.
Status CheckCollective(const stablehlo::Operation& op, int64_t members);

// The data operands of collective `op` (a dynamic-root collective_broadcast's
// last operand is its root).
size_t CollectiveDataOperands(const stablehlo::Operation& op);

// OK when `op` is a bitcast_convert the code generator can run as a kernel
// of its own: supported types holding the same bits, narrow types only of
// one width. Otherwise UNIMPLEMENTED (INVALID_ARGUMENT for mismatched sizes).
Status CheckBitcast(const stablehlo::Operation& op);

// The threads a bitcast kernel runs (see FusedKernel::Family::kBitcast).
int64_t BitcastThreads(const stablehlo::Operation& op);

// The kernel's whole CUDA C translation unit (prelude included):
//   extern "C" __global__ void <name>(const I0* in0, ..., O0* out0, ..., long long n)
// with each parameter in its element type's storage (f16/bf16 as 16-bit
// patterns, pred as one byte), a grid-stride loop over n elements.
Result<std::string> EmitFusedKernel(const FusedKernel& kernel);

}  // namespace berth::cuda

#endif  // BERTH_PLUGINS_CUDA_CODEGEN_ELEMENTWISE_CODEGEN_HPP_
