// stablehlo.convolution and stablehlo.dynamic_conv (the same op with its
// padding given as a tensor operand).
//
// Lowered onto matrix products (im2col). The operands are first brought to
// canonical layouts, whatever their dimension numbers:
//
//   lhs    [batch, spatial..., feature]            (lhs_c; [batch, feature,
//          spatial...] when A is packed by columns, see ChoosePath)
//   kernel [spatial..., input feature, output feature]   (rhs_c; window
//          reversal is applied when the input is gathered, not here)
//   result [batch, spatial..., feature]            (out_c, then moved to
//          the result's own layout)
//
// with spatial dims in the order of the dimension numbers' spatial lists.
// For each group (feature_group_count or batch_group_count, at most one of
// them above 1) the result columns of the group are the product
//
//   out_c[r, g*Og + j] = sum over p of A(r, p) * rhs_c[p, g*Og + j]
//
// where row r is (batch, output position) and column p of A is (window
// position, input feature of the group): A(r, p) is the lhs element that
// window position lands on in the padded, base-dilated lhs, or 0 where it
// lands on padding or a dilation hole (the spec's pad with zero: a 0 times
// an infinity there is NaN, as the spec's dot product gives). A is packed
// in chunks of rows that fit the L2 cache (im2col), row-major from an NHWC
// lhs or column-major from an NCHW one (ChoosePath); a 1x1 window with unit
// strides, dilation and no padding reads the lhs in place. Many narrow
// feature groups (depthwise
// and grouped convolutions) skip the per-group products: each output row is
// a sequence of fma steps across all groups at once (isa::Kernels::fma_rows_*),
// in the same order, so with the same bits (GroupedRows).
//
// Arithmetic by element types, the rules of dot_general (kernels_dot.cc):
// - any float (operands or result): f64 when one of them is f64, else f32,
//   through the selected ISA variant's GEMM (isa/gemm.hpp). Each result
//   element is one fma chain from +0 over p in order: window positions in
//   row-major order of the kernel's spatial dims (spatial dims in the order
//   of the dimension numbers), then input features. Chunking and threads
//   split rows and groups only, never p, so every CPU, ISA level and thread
//   count gives the same bits. f16/bf16 are widened and the result rounded
//   once;
// - integers: exact, wrapping in the result type (operands are converted to
//   it first); i1: or over and;
// - complex (any operand or result): complex<f64> when one of them has f64
//   parts, else complex<f32>; four real convolutions of the parts, combined
//   per element (ComputeComplex).
// precision_config is accepted and ignored (the CPU computes at the
// precision above).
#include <algorithm>
#include <complex>
#include <cstring>

#include "interpreter/data_movement.hpp"
#include "interpreter/parallel.hpp"
#include "interpreter/reduction.hpp"
#include "interpreter/strided_copy.hpp"
#include "isa/isa.hpp"

namespace berth::cpu {
namespace {

using stablehlo::OpKind;

// Bytes of packed lhs rows (im2col) per task: one chunk of rows stays in
// the L2 cache while the GEMM walks over it.
constexpr int64_t kChunkBytes = int64_t{256} << 10;
// Fewest and most rows per chunk: each chunk packs the kernel again inside
// the GEMM, which is cheap only over enough rows.
constexpr int64_t kMinChunkRows = 96;
constexpr int64_t kMaxChunkRows = 4096;
// When few chunks would run at once, chunks are instead taken one after the
// other, each spread over the pool by the GEMM; they may then hold this
// many bytes.
constexpr int64_t kLargeChunkBytes = int64_t{32} << 20;
// Products with fewer multiply-adds than this run on the calling thread.
constexpr int64_t kMinParallelWork = int64_t{1} << 16;
// Feature groups run as rows of fma steps across the groups (GroupedRows)
// from this many groups, when each has fewer output features than this.
constexpr int64_t kMinRowGroups = 8;
constexpr int64_t kMaxRowGroupOutputs = 16;
// im2col by columns needs at least this many output positions along the
// last spatial dim (the runs each column copies); by rows copies runs of
// the group's input features, worth it from this many (ChoosePath).
constexpr int64_t kMinColumnRun = 8;
constexpr int64_t kMinRowRun = 32;

// The op's attributes, checked against its operands.
struct ConvParams {
  int64_t spatial = 0;  // number of spatial dims
  std::vector<int64_t> lhs_perm;     // lhs dims in canonical order
  std::vector<int64_t> rhs_perm;     // kernel dims in canonical order
  std::vector<int64_t> result_perm;  // result dims in canonical order
  std::vector<int64_t> strides, lhs_dilation, rhs_dilation, pad_low, pad_high;
  std::vector<bool> reversal;
  int64_t feature_groups = 1;
  int64_t batch_groups = 1;

  // Sizes, from the operands.
  int64_t batch = 0, features = 0;  // lhs
  std::vector<int64_t> in_size;     // lhs spatial sizes
  std::vector<int64_t> window;      // kernel spatial sizes
  int64_t kernel_in = 0, kernel_out = 0;
  int64_t out_batch = 0;
  std::vector<int64_t> out_size;
  std::vector<int64_t> result_dims;  // in the result's own layout

  int64_t groups() const { return feature_groups * batch_groups; }
  int64_t group_out() const { return kernel_out / groups(); }
};

// `dims` are `rank` distinct dims in [0, rank).
Status CheckPermutation(const std::vector<int64_t>& dims, int64_t rank, std::string_view what) {
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  if (static_cast<int64_t>(dims.size()) != rank) {
    return InvalidArgumentError(std::string(what) + " " + DimsString(dims) + " must name each of " +
                                std::to_string(rank) + " dims once");
  }
  for (int64_t d : dims) {
    if (d < 0 || d >= rank || seen[static_cast<size_t>(d)]) {
      return InvalidArgumentError(std::string(what) + " " + DimsString(dims) +
                                  " must name each of " + std::to_string(rank) + " dims once");
    }
    seen[static_cast<size_t>(d)] = true;
  }
  return OkStatus();
}

// An i64 array attribute with one positive entry per spatial dim, all 1
// when absent.
Status ReadWindowArray(const stablehlo::Operation& op, std::string_view name, int64_t spatial,
                       std::vector<int64_t>& out) {
  if (!op.has_attr(name)) {
    out.assign(static_cast<size_t>(spatial), 1);
    return OkStatus();
  }
  std::span<const int64_t> v = op.GetI64Array(name);
  if (static_cast<int64_t>(v.size()) != spatial) {
    return InvalidArgumentError(std::string(name) + " needs " + std::to_string(spatial) +
                                " entries (one per spatial dim), has " + std::to_string(v.size()));
  }
  out.assign(v.begin(), v.end());
  for (int64_t x : out) {
    if (x <= 0) return InvalidArgumentError(std::string(name) + " must be positive, is " + DimsString(out));
  }
  return OkStatus();
}

// Number of windows along one spatial dim (the spec's num_windows), or -1
// when the sizes overflow.
int64_t NumWindows(int64_t in, int64_t lhs_dilation, int64_t low, int64_t high, int64_t window,
                   int64_t rhs_dilation, int64_t stride) {
  using Wide = __int128;
  Wide dilated = in == 0 ? 0 : Wide(in - 1) * lhs_dilation + 1;
  Wide padded = dilated + low + high;
  Wide dilated_window = window == 0 ? 0 : Wide(window - 1) * rhs_dilation + 1;
  if (padded <= 0 || dilated_window > padded) return 0;
  Wide n = (padded - dilated_window) / stride + 1;
  return n > Wide(INT64_MAX) ? -1 : static_cast<int64_t>(n);
}

Result<ConvParams> ReadParams(const KernelCall& call) {
  const stablehlo::Operation& op = call.op;
  const bool dynamic = op.kind() == OpKind::kDynamicConv;
  if (call.operands.size() != (dynamic ? 3u : 2u)) {
    return InvalidArgumentError(std::string("takes ") + (dynamic ? "3" : "2") + " operands");
  }
  const stablehlo::ConvDimensionNumbers* dn = op.conv_dimension_numbers();
  if (dn == nullptr) return InvalidArgumentError("has no dimension_numbers");
  const Tensor& lhs = call.operands[0];
  const Tensor& rhs = call.operands[1];
  ConvParams p;
  p.spatial = static_cast<int64_t>(dn->input_spatial_dimensions.size());
  const int64_t rank = p.spatial + 2;
  if (lhs.rank() != rank || rhs.rank() != rank ||
      static_cast<int64_t>(dn->kernel_spatial_dimensions.size()) != p.spatial ||
      static_cast<int64_t>(dn->output_spatial_dimensions.size()) != p.spatial ||
      call.op.result(0)->type().rank() != rank) {
    return InvalidArgumentError("lhs, rhs and result must have rank " + std::to_string(rank) +
                                " (spatial dims + 2)");
  }
  p.lhs_perm = {dn->input_batch_dimension};
  p.lhs_perm.insert(p.lhs_perm.end(), dn->input_spatial_dimensions.begin(),
                    dn->input_spatial_dimensions.end());
  p.lhs_perm.push_back(dn->input_feature_dimension);
  p.rhs_perm = dn->kernel_spatial_dimensions;
  p.rhs_perm.push_back(dn->kernel_input_feature_dimension);
  p.rhs_perm.push_back(dn->kernel_output_feature_dimension);
  p.result_perm = {dn->output_batch_dimension};
  p.result_perm.insert(p.result_perm.end(), dn->output_spatial_dimensions.begin(),
                       dn->output_spatial_dimensions.end());
  p.result_perm.push_back(dn->output_feature_dimension);
  BERTH_RETURN_IF_ERROR(CheckPermutation(p.lhs_perm, rank, "input dimension numbers"));
  BERTH_RETURN_IF_ERROR(CheckPermutation(p.rhs_perm, rank, "kernel dimension numbers"));
  BERTH_RETURN_IF_ERROR(CheckPermutation(p.result_perm, rank, "output dimension numbers"));

  BERTH_RETURN_IF_ERROR(ReadWindowArray(op, "window_strides", p.spatial, p.strides));
  BERTH_RETURN_IF_ERROR(ReadWindowArray(op, "lhs_dilation", p.spatial, p.lhs_dilation));
  BERTH_RETURN_IF_ERROR(ReadWindowArray(op, "rhs_dilation", p.spatial, p.rhs_dilation));
  p.reversal.assign(static_cast<size_t>(p.spatial), false);
  if (op.has_attr("window_reversal")) {
    std::span<const int64_t> v = op.GetI64Array("window_reversal");
    if (static_cast<int64_t>(v.size()) != p.spatial) {
      return InvalidArgumentError("window_reversal needs " + std::to_string(p.spatial) +
                                  " entries (one per spatial dim), has " + std::to_string(v.size()));
    }
    for (size_t i = 0; i < v.size(); ++i) p.reversal[i] = v[i] != 0;
  }
  std::vector<std::pair<int64_t, int64_t>> padding;
  if (dynamic) {
    const Tensor& pad = call.operands[2];
    if (pad.rank() != 2 || pad.dims()[0] != p.spatial || pad.dims()[1] != 2) {
      return InvalidArgumentError("padding operand must be a tensor<" + std::to_string(p.spatial) +
                                  "x2x...> of integers, is " + pad.TypeString());
    }
    BERTH_ASSIGN_OR_RETURN(std::vector<int64_t> flat, ReadIndices(pad, "padding"));
    for (size_t i = 0; i + 1 < flat.size(); i += 2) padding.emplace_back(flat[i], flat[i + 1]);
  } else if (op.has_attr("padding")) {
    padding = op.GetPairs("padding");
    if (static_cast<int64_t>(padding.size()) != p.spatial) {
      return InvalidArgumentError("padding must be a tensor<" + std::to_string(p.spatial) +
                                  "x2xi64>");
    }
  } else {
    padding.assign(static_cast<size_t>(p.spatial), {0, 0});
  }
  for (const auto& [low, high] : padding) {
    p.pad_low.push_back(low);
    p.pad_high.push_back(high);
  }
  p.feature_groups = op.GetInt("feature_group_count").value_or(1);
  p.batch_groups = op.GetInt("batch_group_count").value_or(1);
  if (p.feature_groups <= 0 || p.batch_groups <= 0) {
    return InvalidArgumentError("feature_group_count and batch_group_count must be positive");
  }
  if (p.feature_groups > 1 && p.batch_groups > 1) {
    return InvalidArgumentError("feature_group_count and batch_group_count cannot both exceed 1");
  }

  auto lhs_dim = [&](size_t i) { return lhs.dims()[static_cast<size_t>(p.lhs_perm[i])]; };
  auto rhs_dim = [&](size_t i) { return rhs.dims()[static_cast<size_t>(p.rhs_perm[i])]; };
  const size_t s = static_cast<size_t>(p.spatial);
  p.batch = lhs_dim(0);
  p.features = lhs_dim(s + 1);
  for (size_t i = 0; i < s; ++i) {
    p.in_size.push_back(lhs_dim(i + 1));
    p.window.push_back(rhs_dim(i));
  }
  p.kernel_in = rhs_dim(s);
  p.kernel_out = rhs_dim(s + 1);
  if (p.features % p.feature_groups != 0 || p.features / p.feature_groups != p.kernel_in) {
    return InvalidArgumentError("kernel input feature size " + std::to_string(p.kernel_in) +
                                " must be the input feature size " + std::to_string(p.features) +
                                " / feature_group_count " + std::to_string(p.feature_groups));
  }
  if (p.batch % p.batch_groups != 0) {
    return InvalidArgumentError("input batch size " + std::to_string(p.batch) +
                                " is not divisible by batch_group_count " +
                                std::to_string(p.batch_groups));
  }
  if (p.kernel_out % p.groups() != 0) {
    return InvalidArgumentError("kernel output feature size " + std::to_string(p.kernel_out) +
                                " is not divisible by the group count " +
                                std::to_string(p.groups()));
  }
  p.out_batch = p.batch / p.batch_groups;
  for (size_t i = 0; i < s; ++i) {
    int64_t n = NumWindows(p.in_size[i], p.lhs_dilation[i], p.pad_low[i], p.pad_high[i],
                           p.window[i], p.rhs_dilation[i], p.strides[i]);
    if (n < 0) return InvalidArgumentError("output size overflows along spatial dim " + std::to_string(i));
    p.out_size.push_back(n);
  }
  p.result_dims.assign(static_cast<size_t>(rank), 0);
  p.result_dims[static_cast<size_t>(p.result_perm[0])] = p.out_batch;
  for (size_t i = 0; i < s; ++i) p.result_dims[static_cast<size_t>(p.result_perm[i + 1])] = p.out_size[i];
  p.result_dims[static_cast<size_t>(p.result_perm[s + 1])] = p.kernel_out;
  BERTH_RETURN_IF_ERROR(CheckResultDims(call, 0, p.result_dims));
  return p;
}

// The inverse of PermuteDims: `t` (canonical) laid out with dims `dims`, where
// dim i of `t` is dim perm[i] of the result.
Result<Tensor> FromCanonical(const Tensor& t, const std::vector<int64_t>& perm,
                             std::vector<int64_t> dims, ThreadPool* pool) {
  if (IsIdentityPermutation(perm)) return t;
  std::vector<int64_t> out_strides = RowMajorStrides(dims);
  std::vector<int64_t> dst_strides;
  for (int64_t d : perm) dst_strides.push_back(out_strides[static_cast<size_t>(d)]);
  BERTH_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(t.type(), std::move(dims)));
  StridedCopy copy(ElementBytes(t.type()), t.dims(), dst_strides, RowMajorStrides(t.dims()));
  copy.RunParallel(pool, out.bytes(), t.bytes());
  return out;
}

// How a convolution is computed (ChoosePath).
enum class Path : uint8_t {
  kDirect,       // 1x1 window, nothing moves: A is the lhs itself
  kGroupedRows,  // many narrow feature groups: fma rows across the groups
  kRows,         // im2col, A's rows packed from an lhs laid out [b, spatial..., f]
  kColumns,      // im2col, A's columns packed from an lhs laid out [b, f, spatial...]
};

// Where the window positions of each output position land in the lhs.
struct WindowTables {
  // Per spatial dim i: for output position o and window position k, entry
  // o * window[i] + k is the lhs element offset along dim i (index times
  // the lhs layout's stride), or -1 on padding or a dilation hole.
  std::vector<std::vector<int64_t>> offsets;
  int64_t batch_stride = 0;    // of the lhs layout
  int64_t feature_stride = 0;  // 1, or the spatial size when channel-major
  int64_t positions = 1;       // window positions (product of window sizes)
  int64_t out_positions = 1;   // output positions per batch element

  // Row r of the product (batch element x output position): points at[i] at
  // the table entries of its output position along spatial dim i (and sets
  // o[i] to that position when `o` is given); returns the batch element.
  int64_t Locate(const ConvParams& p, int64_t r, const int64_t** at, int64_t* o = nullptr) const {
    int64_t rest = r % out_positions;
    for (size_t i = offsets.size(); i-- > 0;) {
      const int64_t position = rest % p.out_size[i];
      rest /= p.out_size[i];
      if (o != nullptr) o[i] = position;
      at[i] = offsets[i].data() + position * p.window[i];
    }
    return r / out_positions;
  }
};

// The lhs offset of window position k (one index per spatial dim) summed
// over the first `dims` spatial dims of the entries `at` (from Locate);
// false when one of them is padding or a dilation hole.
bool TapOffset(const std::vector<const int64_t*>& at, const std::vector<int64_t>& k, size_t dims,
               int64_t* offset) {
  int64_t sum = 0;
  bool valid = true;
  for (size_t i = 0; i < dims; ++i) {
    const int64_t x = at[i][k[i]];
    valid = valid && x >= 0;
    sum += x;
  }
  *offset = sum;
  return valid;
}

// Steps k to the next window position, in row-major window order.
void NextTap(std::vector<int64_t>& k, const std::vector<int64_t>& window) {
  for (size_t i = k.size(); i-- > 0;) {
    if (++k[i] < window[i]) break;
    k[i] = 0;
  }
}

// The tables for an lhs laid out [b, spatial..., f], or [b, f, spatial...]
// when `channel_major`.
WindowTables MakeTables(const ConvParams& p, bool channel_major) {
  WindowTables t;
  std::vector<int64_t> lhs_dims = {p.batch};
  if (channel_major) lhs_dims.push_back(p.features);
  lhs_dims.insert(lhs_dims.end(), p.in_size.begin(), p.in_size.end());
  if (!channel_major) lhs_dims.push_back(p.features);
  const std::vector<int64_t> strides = RowMajorStrides(lhs_dims);
  const size_t first_spatial = channel_major ? 2 : 1;
  t.batch_stride = strides[0];
  t.feature_stride = channel_major ? strides[1] : 1;
  for (size_t i = 0; i < static_cast<size_t>(p.spatial); ++i) {
    const int64_t window = p.window[i];
    std::vector<int64_t> table(static_cast<size_t>(p.out_size[i] * window));
    using Wide = __int128;
    const Wide dilated = p.in_size[i] == 0 ? 0 : Wide(p.in_size[i] - 1) * p.lhs_dilation[i] + 1;
    for (int64_t o = 0; o < p.out_size[i]; ++o) {
      for (int64_t k = 0; k < window; ++k) {
        // Window reversal reads the window backwards against the kernel.
        const int64_t tap = p.reversal[i] ? window - 1 - k : k;
        const Wide q = Wide(o) * p.strides[i] + Wide(tap) * p.rhs_dilation[i] - p.pad_low[i];
        const bool valid = q >= 0 && q < dilated && q % p.lhs_dilation[i] == 0;
        table[static_cast<size_t>(o * window + k)] =
            valid ? static_cast<int64_t>(q / p.lhs_dilation[i]) * strides[first_spatial + i] : -1;
      }
    }
    t.offsets.push_back(std::move(table));
    t.positions *= window;
    t.out_positions *= p.out_size[i];
  }
  return t;
}

// A's rows [r0, r1) of one group, where the product reads them.
template <typename T>
struct RowsOfA {
  const T* a;
  int64_t row_stride;
  int64_t col_stride;
};

// One group's product, for rows [r0, r1) of out_c (row = batch element x
// output position).
template <typename T>
struct GroupProduct {
  const ConvParams& p;
  const WindowTables& tables;
  const T* lhs;  // lhs_c, laid out as `path` needs
  const T* rhs;  // rhs_c
  T* out;        // out_c
  Path path = Path::kRows;
  int64_t depth = 0;  // columns of A: window positions x group input features

  int64_t rows() const { return p.out_batch * tables.out_positions; }
  int64_t batch_offset(int64_t g) const { return p.batch_groups > 1 ? g * p.out_batch : 0; }
  int64_t feature_offset(int64_t g) const {
    return p.feature_groups > 1 ? g * p.kernel_in * tables.feature_stride : 0;
  }

  // A's rows [r0, r1) for group g: in place (kDirect), else packed into
  // `scratch`, which holds `chunk` rows.
  RowsOfA<T> Rows(int64_t g, int64_t r0, int64_t r1, T* scratch, int64_t chunk) const {
    if (path == Path::kDirect) {
      return {lhs + (batch_offset(g) * tables.out_positions + r0) * p.features + feature_offset(g),
              p.features, 1};
    }
    Pack(g, r0, r1, scratch, r0, chunk);
    if (path == Path::kColumns) return {scratch, 1, chunk};
    return {scratch, depth, 1};
  }

  // Packs A's rows [r0, r1) into the scratch of the chunk that starts at
  // row `first` and holds `chunk` rows: row-major (kRows) or column-major
  // (kColumns).
  void Pack(int64_t g, int64_t r0, int64_t r1, T* scratch, int64_t first, int64_t chunk) const {
    if (path == Path::kColumns) {
      PackColumns(g, r0, r1, scratch + (r0 - first), chunk);
    } else {
      PackRows(g, r0, r1, scratch + (r0 - first) * depth);
    }
  }

  // im2col: row r of A is (batch n, output position o); its columns are
  // the group's input features at each window position, in row-major
  // window order. The lhs is [b, spatial..., f]: each window position's
  // features are one contiguous run.
  void PackRows(int64_t g, int64_t r0, int64_t r1, T* a) const {
    const size_t s = static_cast<size_t>(p.spatial);
    const int64_t cg = p.kernel_in;
    std::vector<const int64_t*> at(s);
    std::vector<int64_t> k(s);
    for (int64_t r = r0; r < r1; ++r, a += depth) {
      const int64_t n = tables.Locate(p, r, at.data());
      const T* base = lhs + (batch_offset(g) + n) * tables.batch_stride + feature_offset(g);
      std::fill(k.begin(), k.end(), 0);
      T* dst = a;
      for (int64_t t = 0; t < tables.positions; ++t, dst += cg) {
        int64_t offset;
        if (TapOffset(at, k, s, &offset)) {
          std::memcpy(dst, base + offset, static_cast<size_t>(cg) * sizeof(T));
        } else {
          std::fill_n(dst, cg, T{});
        }
        NextTap(k, p.window);
      }
    }
  }

  // The same A stored column-major (column p at a + p * ld), from an lhs
  // laid out [b, f, spatial...] whose last spatial dim has unit stride and
  // no base dilation: along a run of output positions that differ only in
  // that dim, each column reads one contiguous run of the lhs.
  void PackColumns(int64_t g, int64_t r0, int64_t r1, T* a, int64_t ld) const {
    const size_t s = static_cast<size_t>(p.spatial);
    const size_t last = s - 1;
    const int64_t cg = p.kernel_in;
    const int64_t out_last = p.out_size[last], in_last = p.in_size[last];
    std::vector<const int64_t*> at(s);
    std::vector<int64_t> o(s), k(s);
    for (int64_t r = r0; r < r1;) {
      const int64_t n = tables.Locate(p, r, at.data(), o.data());
      // The run: output positions o[last] .. o[last] + len - 1 of this row.
      const int64_t len = std::min(r1 - r, out_last - o[last]);
      T* column = a + (r - r0);
      const T* base = lhs + (batch_offset(g) + n) * tables.batch_stride + feature_offset(g);
      std::fill(k.begin(), k.end(), 0);
      for (int64_t t = 0; t < tables.positions; ++t) {
        int64_t offset;
        const bool valid = TapOffset(at, k, last, &offset);
        // Output position x of the run reads lhs position x + shift.
        const int64_t tap = p.reversal[last] ? p.window[last] - 1 - k[last] : k[last];
        const int64_t shift = tap * p.rhs_dilation[last] - p.pad_low[last];
        const int64_t lo = valid ? std::clamp(-shift, o[last], o[last] + len) : o[last] + len;
        const int64_t hi = valid ? std::clamp(in_last - shift, lo, o[last] + len) : lo;
        for (int64_t c = 0; c < cg; ++c) {
          T* dst = column + (t * cg + c) * ld;
          std::fill_n(dst, lo - o[last], T{});
          if (hi > lo) {
            std::memcpy(dst + (lo - o[last]), base + (c * tables.feature_stride + offset + shift + lo),
                        static_cast<size_t>(hi - lo) * sizeof(T));
          }
          std::fill_n(dst + (hi - o[last]), o[last] + len - hi, T{});
        }
        NextTap(k, p.window);
      }
      r += len;
    }
  }

  // out_c rows [r0, r1), the group's columns, from A's rows.
  Status Multiply(int64_t g, int64_t r0, int64_t r1, const RowsOfA<T>& rows_of_a,
                  ThreadPool* pool) const {
    const int64_t og = p.group_out();
    const int64_t ldb = p.kernel_out;
    const T* b = rhs + g * og;
    T* c = out + r0 * ldb + g * og;
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      isa::GemmProblem<T> problem;
      problem.m = r1 - r0;
      problem.n = og;
      problem.k = depth;
      problem.a = rows_of_a.a;
      problem.a_row_stride = rows_of_a.row_stride;
      problem.a_col_stride = rows_of_a.col_stride;
      problem.b = b;
      problem.b_row_stride = ldb;
      problem.b_col_stride = 1;
      problem.c = c;
      problem.c_row_stride = ldb;
      problem.c_col_stride = 1;
      if constexpr (std::is_same_v<T, float>) {
        return isa::Active().gemm_f32(problem, pool);
      } else {
        return isa::Active().gemm_f64(problem, pool);
      }
    } else {
      ExactRows(rows_of_a.a, rows_of_a.row_stride, r1 - r0, b, c, pool);
      return OkStatus();
    }
  }

  // Integers exact (wrapping), i1 or over and.
  void ExactRows(const T* a, int64_t a_stride, int64_t rows, const T* b, T* c,
                 ThreadPool* pool) const {
    using W = typename detail::ExactAccumulator<T>::type;
    const int64_t og = p.group_out();
    const int64_t ldb = p.kernel_out;
    const int64_t per_row = std::max<int64_t>(1, depth * og);
    ParallelFor(pool, rows, std::max<int64_t>(1, kMinParallelWork / per_row),
                [&](int64_t begin, int64_t end) {
                  std::vector<W> acc(static_cast<size_t>(og));
                  for (int64_t r = begin; r < end; ++r) {
                    std::fill(acc.begin(), acc.end(), W{});
                    const T* arow = a + r * a_stride;
                    for (int64_t q = 0; q < depth; ++q) {
                      const T* brow = b + q * ldb;
                      if constexpr (std::is_same_v<T, bool>) {
                        if (!arow[q]) continue;
                        for (int64_t j = 0; j < og; ++j) acc[j] = acc[j] || brow[j];
                      } else {
                        const W x = static_cast<W>(arow[q]);
                        if (x == 0) continue;
                        for (int64_t j = 0; j < og; ++j) {
                          acc[j] = static_cast<W>(acc[j] + x * static_cast<W>(brow[j]));
                        }
                      }
                    }
                    T* crow = c + r * ldb;
                    for (int64_t j = 0; j < og; ++j) crow[j] = static_cast<T>(acc[j]);
                  }
                });
  }
};

// Feature groups too narrow for products of their own (few output features
// per group, many groups: depthwise and grouped convolutions) run as rows of
// fma steps across the groups. With the features reordered so that the
// group is the fastest dim (input [.., input feature of the group, group],
// kernel [window, input feature, output feature of the group, group],
// output [row, output feature of the group, group]), each output row is,
// for each window position t, input feature c and output feature k of the
// group, one fma step of the G elements of (k, *) against the input's
// (c, *) at t and the kernel's (t, c, k, *): the chain of every element
// over (t, c) in order from +0, as the products would be (p = t * Cg + c),
// so the same bits as the GEMM path.
template <typename T>
Status GroupedRows(const ConvParams& p, const WindowTables& tables, const Tensor& lhs_c,
                   const Tensor& rhs_c, Tensor& out_c, ThreadPool* pool) {
  const isa::Kernels& kernels = isa::Active();
  const size_t s = static_cast<size_t>(p.spatial);
  const int64_t groups = p.feature_groups;
  const int64_t cg = p.kernel_in;
  const int64_t og = p.group_out();
  const int64_t width = p.kernel_out;  // = og * groups
  const int64_t rows = p.out_batch * tables.out_positions;
  const int64_t pixels = lhs_c.num_elements() / std::max<int64_t>(1, p.features);  // batch x spatial
  const size_t bytes = sizeof(T);
  // Feature f = g * cg + c of the lhs to [c, g]; output feature o = g * og + k
  // of the kernel to [k, g]; the result back from [k, g].
  Tensor lhs_g = lhs_c, rhs_g = rhs_c, out_g = out_c;
  if (cg > 1) {
    BERTH_ASSIGN_OR_RETURN(lhs_g, Tensor::Allocate(lhs_c.type(), {pixels, cg, groups}));
    const int64_t sizes[] = {pixels, cg, groups};
    const int64_t dst[] = {cg * groups, groups, 1};
    const int64_t src[] = {p.features, 1, cg};
    StridedCopy(bytes, sizes, dst, src).RunParallel(pool, lhs_g.bytes(), lhs_c.bytes());
  }
  if (og > 1) {
    const int64_t steps = tables.positions * cg;
    BERTH_ASSIGN_OR_RETURN(rhs_g, Tensor::Allocate(rhs_c.type(), {steps, og, groups}));
    const int64_t sizes[] = {steps, og, groups};
    const int64_t dst[] = {width, groups, 1};
    const int64_t src[] = {width, 1, og};
    StridedCopy(bytes, sizes, dst, src).RunParallel(pool, rhs_g.bytes(), rhs_c.bytes());
    BERTH_ASSIGN_OR_RETURN(out_g, Tensor::Allocate(out_c.type(), {rows, og, groups}));
  }
  const T* lhs = lhs_g.data<T>();
  const T* rhs = rhs_g.data<T>();
  T* out = out_g.data<T>();
  const std::vector<T> zeros(static_cast<size_t>(std::max<int64_t>(p.features, 1)), T{});
  // One window position: its cg input rows against the kernel's cg x og rows.
  auto fma_rows = [&](const T* a, const T* b, T* c) {
    if constexpr (std::is_same_v<T, float>) {
      kernels.fma_rows_f32(a, b, c, cg, og, groups);
    } else {
      kernels.fma_rows_f64(a, b, c, cg, og, groups);
    }
  };
  const int64_t per_row = std::max<int64_t>(1, tables.positions * cg * width);
  ParallelFor(pool, rows, std::max<int64_t>(1, kMinParallelWork / per_row),
              [&](int64_t begin, int64_t end) {
                std::vector<const int64_t*> at(s);
                std::vector<int64_t> k(s);
                for (int64_t r = begin; r < end; ++r) {
                  const int64_t n = tables.Locate(p, r, at.data());
                  const T* base = lhs + n * tables.batch_stride;
                  T* acc = out + r * width;
                  std::fill_n(acc, width, T{});
                  std::fill(k.begin(), k.end(), 0);
                  for (int64_t t = 0; t < tables.positions; ++t) {
                    int64_t offset;
                    const bool valid = TapOffset(at, k, s, &offset);
                    fma_rows(valid ? base + offset : zeros.data(), rhs + t * cg * width, acc);
                    NextTap(k, p.window);
                  }
                }
              });
  if (og > 1) {
    const int64_t sizes[] = {rows, og, groups};
    const int64_t dst[] = {width, 1, og};
    const int64_t src[] = {width, groups, 1};
    StridedCopy(bytes, sizes, dst, src).RunParallel(pool, out_c.bytes(), out_g.bytes());
  }
  return OkStatus();
}

// How to compute: products unless the groups are many and narrow; A in
// place for a 1x1 window that moves nothing; else im2col. By columns when
// the last spatial dim gives long contiguous runs (unit stride, no base
// dilation) and either the lhs already has its features before its spatial
// dims (NCHW: laying it out [b, f, spatial...] moves whole rows) or the
// group's features are too few for the runs of packing by rows (measured on
// 8x112x112x3 -> 64, 3x3: 2.7x faster; on NCHW 8x64x56x56 -> 64: 1.25x);
// by rows otherwise (NHWC with 64 features: 5% faster than transposing the
// input). Integers always by rows.
Path ChoosePath(const ConvParams& p, bool is_float) {
  if (is_float && p.feature_groups >= kMinRowGroups && p.group_out() < kMaxRowGroupOutputs) {
    return Path::kGroupedRows;
  }
  bool direct = true;
  for (size_t i = 0; i < static_cast<size_t>(p.spatial); ++i) {
    direct = direct && p.window[i] == 1 && p.strides[i] == 1 && p.lhs_dilation[i] == 1 &&
             p.pad_low[i] == 0 && p.out_size[i] == p.in_size[i];
  }
  if (direct) return Path::kDirect;
  if (!is_float || p.spatial == 0) return Path::kRows;
  const size_t last = static_cast<size_t>(p.spatial) - 1;
  const int64_t feature_dim = p.lhs_perm.back();
  const bool features_first = std::all_of(p.lhs_perm.begin() + 1, p.lhs_perm.end() - 1,
                                          [&](int64_t d) { return d > feature_dim; });
  if (p.strides[last] == 1 && p.lhs_dilation[last] == 1 && p.out_size[last] >= kMinColumnRun &&
      (features_first || p.kernel_in < kMinRowRun)) {
    return Path::kColumns;
  }
  return Path::kRows;
}

template <typename T>
Status Compute(const ConvParams& p, Path path, const Tensor& lhs_c, const Tensor& rhs_c,
               Tensor& out_c, ThreadPool* pool) {
  WindowTables tables = MakeTables(p, path == Path::kColumns);
  constexpr bool kGemm = std::is_same_v<T, float> || std::is_same_v<T, double>;
  if constexpr (kGemm) {
    if (path == Path::kGroupedRows) {
      if (out_c.num_elements() * tables.positions * p.kernel_in < kMinParallelWork) pool = nullptr;
      return GroupedRows<T>(p, tables, lhs_c, rhs_c, out_c, pool);
    }
  }
  GroupProduct<T> product{p, tables, lhs_c.data<T>(), rhs_c.data<T>(), out_c.data<T>()};
  product.path = path;
  product.depth = tables.positions * p.kernel_in;
  const int64_t rows = product.rows();
  const int64_t groups = p.groups();
  const int64_t og = p.group_out();
  if (product.depth == 0) {
    std::fill_n(out_c.data<T>(), out_c.num_elements(), T{});
    return OkStatus();
  }
  const bool direct = path == Path::kDirect;
  const int64_t work = rows * product.depth * og * groups;
  if (work < kMinParallelWork) pool = nullptr;
  const int64_t workers = pool != nullptr ? static_cast<int64_t>(pool->size()) + 1 : 1;
  const int64_t row_bytes = product.depth * static_cast<int64_t>(sizeof(T));

  // Rows per chunk, and whether chunks run concurrently (each on one
  // thread) or one after the other (each spread over the pool).
  int64_t chunk = std::clamp(kChunkBytes / row_bytes, kMinChunkRows, kMaxChunkRows);
  bool concurrent = true;
  if (direct) {
    // One product per group over all rows, split over the pool inside.
    chunk = rows;
    concurrent = false;
  } else if (kGemm && groups * ((rows + chunk - 1) / chunk) < 2 * workers) {
    concurrent = false;
    chunk = std::max<int64_t>(1, kLargeChunkBytes / row_bytes);
  } else if (!kGemm && groups * ((rows + chunk - 1) / chunk) < 4 * workers) {
    // Exact products have no kernel packing to amortize: smaller chunks.
    chunk = std::max<int64_t>(1, (rows * groups + 4 * workers - 1) / (4 * workers));
  }
  chunk = std::min(chunk, rows);
  const int64_t chunks = (rows + chunk - 1) / chunk;
  const int64_t scratch_rows = direct ? 0 : chunk;

  if (!concurrent) {
    BERTH_ASSIGN_OR_RETURN(Tensor scratch, Tensor::Allocate(out_c.type(), {scratch_rows, product.depth}));
    for (int64_t g = 0; g < groups; ++g) {
      for (int64_t r0 = 0; r0 < rows; r0 += chunk) {
        const int64_t r1 = std::min(rows, r0 + chunk);
        RowsOfA<T> a{};
        if (direct) {
          a = product.Rows(g, r0, r1, nullptr, chunk);
        } else {
          T* packed = scratch.data<T>();
          ParallelFor(pool, r1 - r0, std::max<int64_t>(1, (1 << 16) / product.depth),
                      [&](int64_t begin, int64_t end) {
                        product.Pack(g, r0 + begin, r0 + end, packed, r0, chunk);
                      });
          a = path == Path::kColumns ? RowsOfA<T>{packed, 1, chunk}
                                     : RowsOfA<T>{packed, product.depth, 1};
        }
        BERTH_RETURN_IF_ERROR(product.Multiply(g, r0, r1, a, pool));
      }
    }
    return OkStatus();
  }

  // One task per (group, chunk of rows), each on one thread; a failed
  // allocation is reported once.
  const int64_t tasks = groups * chunks;
  std::vector<Status> status(static_cast<size_t>(tasks));
  ParallelFor(pool, tasks, 1, [&](int64_t begin, int64_t end) {
    Result<Tensor> scratch = Tensor::Allocate(out_c.type(), {scratch_rows, product.depth});
    if (!scratch.ok()) {
      status[static_cast<size_t>(begin)] = scratch.status();
      return;
    }
    for (int64_t task = begin; task < end; ++task) {
      const int64_t g = task / chunks;
      const int64_t r0 = task % chunks * chunk;
      const int64_t r1 = std::min(rows, r0 + chunk);
      RowsOfA<T> a = product.Rows(g, r0, r1, scratch->template data<T>(), chunk);
      status[static_cast<size_t>(task)] = product.Multiply(g, r0, r1, a, nullptr);
    }
  });
  for (const Status& s : status) BERTH_RETURN_IF_ERROR(s);
  return OkStatus();
}

// The real or imaginary parts of a complex tensor, as a tensor of R.
template <typename R>
Result<Tensor> ComplexPart(const Tensor& t, bool imaginary) {
  BERTH_ASSIGN_OR_RETURN(
      Tensor part,
      Tensor::Allocate(sizeof(R) == 4 ? ElementType::kF32 : ElementType::kF64, t.dims()));
  const auto* in = t.data<std::complex<R>>();
  R* out = part.data<R>();
  for (int64_t i = 0; i < t.num_elements(); ++i) out[i] = imaginary ? in[i].imag() : in[i].real();
  return part;
}

// A complex convolution as four real ones on the fast paths:
// (a + ib) * (c + id) = (a*c - b*d) + i (a*d + b*c), each real product one
// fma chain as above, then one subtraction and one addition per element.
template <typename R>
Status ComputeComplex(const ConvParams& p, Path path, const Tensor& lhs_c, const Tensor& rhs_c,
                      Tensor& out_c, ThreadPool* pool) {
  BERTH_ASSIGN_OR_RETURN(Tensor a, ComplexPart<R>(lhs_c, false));
  BERTH_ASSIGN_OR_RETURN(Tensor b, ComplexPart<R>(lhs_c, true));
  BERTH_ASSIGN_OR_RETURN(Tensor c, ComplexPart<R>(rhs_c, false));
  BERTH_ASSIGN_OR_RETURN(Tensor d, ComplexPart<R>(rhs_c, true));
  Tensor products[4];
  const Tensor* factors[4][2] = {{&a, &c}, {&b, &d}, {&a, &d}, {&b, &c}};
  for (int i = 0; i < 4; ++i) {
    BERTH_ASSIGN_OR_RETURN(products[i], Tensor::Allocate(a.type(), out_c.dims()));
    BERTH_RETURN_IF_ERROR(Compute<R>(p, path, *factors[i][0], *factors[i][1], products[i], pool));
  }
  auto* out = out_c.data<std::complex<R>>();
  const R* ac = products[0].data<R>();
  const R* bd = products[1].data<R>();
  const R* ad = products[2].data<R>();
  const R* bc = products[3].data<R>();
  for (int64_t i = 0; i < out_c.num_elements(); ++i) out[i] = {ac[i] - bd[i], ad[i] + bc[i]};
  return OkStatus();
}

Status Convolution(KernelCall& call) {
  BERTH_ASSIGN_OR_RETURN(ConvParams p, ReadParams(call));
  const Tensor& lhs = call.operands[0];
  const Tensor& rhs = call.operands[1];
  ThreadPool* pool = call.ctx.pool();
  const ElementType result_type = call.op.result(0)->type().element_type();
  BERTH_ASSIGN_OR_RETURN(const ElementType compute, ProductComputeType(call));

  std::vector<int64_t> out_dims = {p.out_batch};
  out_dims.insert(out_dims.end(), p.out_size.begin(), p.out_size.end());
  out_dims.push_back(p.kernel_out);
  BERTH_ASSIGN_OR_RETURN(Tensor out_c, Tensor::Allocate(compute, out_dims));
  if (out_c.num_elements() > 0) {
    // Complex products run on their parts, in f32 or f64.
    const Path path = ChoosePath(p, stablehlo::IsFloat(compute) || stablehlo::IsComplex(compute));
    std::vector<int64_t> lhs_perm = p.lhs_perm;
    if (path == Path::kColumns) {
      // [b, f, spatial...]
      lhs_perm.pop_back();
      lhs_perm.insert(lhs_perm.begin() + 1, p.lhs_perm.back());
    }
    BERTH_ASSIGN_OR_RETURN(Tensor lhs_converted, ConvertTensor(lhs, compute, pool));
    BERTH_ASSIGN_OR_RETURN(Tensor lhs_c, PermuteDims(lhs_converted, lhs_perm, pool));
    BERTH_ASSIGN_OR_RETURN(Tensor rhs_converted, ConvertTensor(rhs, compute, pool));
    BERTH_ASSIGN_OR_RETURN(Tensor rhs_c, PermuteDims(rhs_converted, p.rhs_perm, pool));
    Status status =
        DispatchElementTypeOrComplex(compute, call.op.name(), [&]<typename T>() -> Status {
          if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
            return InternalError("f16/bf16 products are computed in f32");
          } else if constexpr (kIsComplex<T>) {
            return ComputeComplex<typename T::value_type>(p, path, lhs_c, rhs_c, out_c, pool);
          } else {
            return Compute<T>(p, path, lhs_c, rhs_c, out_c, pool);
          }
        });
    BERTH_RETURN_IF_ERROR(status);
  }
  BERTH_ASSIGN_OR_RETURN(Tensor converted, ConvertTensor(out_c, result_type, pool));
  BERTH_ASSIGN_OR_RETURN(Tensor result, FromCanonical(converted, p.result_perm, p.result_dims, pool));
  call.results.push_back(std::move(result));
  return OkStatus();
}

}  // namespace

void RegisterConvolutionKernels(KernelRegistry& registry) {
  registry.Register({{OpKind::kConvolution, Convolution}, {OpKind::kDynamicConv, Convolution}});
}

}  // namespace berth::cpu
