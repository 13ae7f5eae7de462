// Checks for ops with regions or symbol references: reduce, reduce_window,
// select_and_scatter, sort, map, scatter, gather, while, if, case, call,
// composite, optimization_barrier, interpreter.run_parallel and
// sdy.manual_computation.
#include <algorithm>

#include "src/verifier_impl.hpp"

namespace berth::stablehlo::detail {
namespace {

bool Contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

Status SortedUnique(const Operation& op, const std::vector<int64_t>& v, std::string_view what) {
  for (size_t i = 1; i < v.size(); ++i) {
    if (v[i] <= v[i - 1]) return OpError(op, std::string(what) + " " + Str(v) + " must be sorted and unique");
  }
  return OkStatus();
}

Status Unique(const Operation& op, const std::vector<int64_t>& a, const std::vector<int64_t>& b,
              std::string_view what) {
  std::vector<int64_t> all = a;
  all.insert(all.end(), b.begin(), b.end());
  std::sort(all.begin(), all.end());
  if (std::adjacent_find(all.begin(), all.end()) != all.end()) {
    return OpError(op, std::string(what) + " must not repeat dimensions");
  }
  return OkStatus();
}

// Inputs 0..n-1 share one shape.
Status SameShapes(const Operation& op, size_t first, size_t n, std::string_view what) {
  for (size_t i = first; i < first + n; ++i) {
    BERTH_RETURN_IF_ERROR(ExpectTensorOperand(op, i));
    if (!ShapesCompatible(OperandType(op, i).shape(), OperandType(op, first).shape())) {
      return OpError(op, std::string(what) + " must all have the same shape; " +
                             Str(OperandType(op, i)) + " differs from " +
                             Str(OperandType(op, first)));
    }
  }
  return OkStatus();
}

// The region takes 2N scalars and returns N; returns the element types Ei.
Status ReducerBody(const Operation& op, size_t region, size_t n, std::vector<ElementType>* elems) {
  BERTH_RETURN_IF_ERROR(ExpectScalarRegion(op, region, 2 * n, n));
  const Block& block = RegionBlock(op, region);
  std::vector<Type> ret = ReturnTypes(block);
  elems->clear();
  for (size_t i = 0; i < n; ++i) {
    ElementType e = ret[i].element_type();
    if (block.argument(i)->type().element_type() != e ||
        block.argument(i + n)->type().element_type() != e) {
      return OpError(op, "reducer arguments #" + std::to_string(i) + " and #" +
                             std::to_string(i + n) + " must have the element type it returns (" +
                             std::string(ElementTypeName(e)) + ")");
    }
    elems->push_back(e);
  }
  return OkStatus();
}

// Reduce's and reduce_window's operands: n inputs of one shape, then their n
// init values; n results. Returns n.
Result<size_t> InputsWithInits(const Operation& op) {
  if (op.num_operands() == 0 || op.num_operands() % 2 != 0) {
    return OpError(op, "expects as many init values as inputs");
  }
  size_t n = op.num_operands() / 2;
  BERTH_RETURN_IF_ERROR(ExpectResults(op, n));
  BERTH_RETURN_IF_ERROR(SameShapes(op, 0, n, "inputs"));
  return n;
}

Status Reduce(const Operation& op) {
  BERTH_ASSIGN_OR_RETURN(size_t n, InputsWithInits(op));
  Type in = OperandType(op, 0);
  std::vector<int64_t> dims;
  BERTH_RETURN_IF_ERROR(GetI64ArrayAttr(op, "dimensions", true, &dims));
  BERTH_RETURN_IF_ERROR(ExpectDimsInRange(op, dims, in.rank(), "dimensions"));
  std::vector<ElementType> elems;
  BERTH_RETURN_IF_ERROR(ReducerBody(op, 0, n, &elems));
  std::vector<int64_t> expected;
  std::vector<bool> reduced = DimMask(dims, in.rank());
  for (int64_t d = 0; d < in.rank(); ++d) {
    if (!reduced[d]) expected.push_back(in.dim(d));
  }
  for (size_t i = 0; i < n; ++i) {
    Type init = OperandType(op, n + i);
    if (!IsRank0Tensor(init) || init.element_type() != elems[i]) {
      return OpError(op, "init value #" + std::to_string(i) + " must be tensor<" +
                             std::string(ElementTypeName(elems[i])) + ">, is " + Str(init));
    }
    BERTH_RETURN_IF_ERROR(ExpectResultShape(op, i, expected));
    if (ResultType(op, i).element_type() != elems[i]) {
      return OpError(op, "result #" + std::to_string(i) + " element type must be " +
                             std::string(ElementTypeName(elems[i])));
    }
  }
  return OkStatus();
}

// Window sizes after dilation and padding, as reduce_window defines them.
std::vector<int64_t> WindowedShape(std::span<const int64_t> shape, const std::vector<int64_t>& window,
                                   const std::vector<int64_t>& strides,
                                   const std::vector<int64_t>& base_dil,
                                   const std::vector<int64_t>& win_dil,
                                   const std::vector<std::pair<int64_t, int64_t>>& padding) {
  std::vector<int64_t> out(shape.size());
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == kDynamic) {
      out[i] = kDynamic;
      continue;
    }
    Wide dilated = shape[i] == 0 ? 0 : Wide(shape[i] - 1) * base_dil[i] + 1;
    Wide padded = dilated + padding[i].first + padding[i].second;
    Wide dilated_window = Wide(window[i] - 1) * win_dil[i] + 1;
    out[i] = Narrow((padded <= 0 || dilated_window > padded)
                        ? 0
                        : (padded - dilated_window) / strides[i] + 1);
  }
  return out;
}

Status WindowAttrs(const Operation& op, int64_t rank, std::vector<int64_t>* window,
                   std::vector<int64_t>* strides, std::vector<int64_t>* base_dil,
                   std::vector<int64_t>* win_dil,
                   std::vector<std::pair<int64_t, int64_t>>* padding) {
  BERTH_RETURN_IF_ERROR(GetI64ArrayAttr(op, "window_dimensions", true, window));
  bool has;
  BERTH_RETURN_IF_ERROR(GetI64ArrayAttr(op, "window_strides", false, strides, &has));
  if (!has) strides->assign(static_cast<size_t>(rank), 1);
  BERTH_RETURN_IF_ERROR(GetI64ArrayAttr(op, "base_dilations", false, base_dil, &has));
  if (!has) base_dil->assign(static_cast<size_t>(rank), 1);
  BERTH_RETURN_IF_ERROR(GetI64ArrayAttr(op, "window_dilations", false, win_dil, &has));
  if (!has) win_dil->assign(static_cast<size_t>(rank), 1);
  size_t r = static_cast<size_t>(rank);
  if (window->size() != r || strides->size() != r || base_dil->size() != r || win_dil->size() != r) {
    return OpError(op, "window attributes need one entry per dimension (" + std::to_string(rank) + ")");
  }
  for (size_t i = 0; i < r; ++i) {
    if ((*window)[i] <= 0 || (*strides)[i] <= 0 || (*base_dil)[i] <= 0 || (*win_dil)[i] <= 0) {
      return OpError(op, "window dimensions, strides and dilations must be positive");
    }
  }
  padding->assign(r, {0, 0});
  if (op.has_attr("padding")) {
    const DenseElementsAttr* p = op.GetDense("padding");
    if (!p || p->type().rank() != 2 || p->type().dim(0) != rank || p->type().dim(1) != 2 ||
        !IsInteger(p->element_type())) {
      return OpError(op, "padding must be a tensor<" + std::to_string(rank) + "x2xi64>");
    }
    *padding = op.GetPairs("padding");
  }
  return OkStatus();
}

Status ReduceWindow(const Operation& op) {
  BERTH_ASSIGN_OR_RETURN(size_t n, InputsWithInits(op));
  Type in = OperandType(op, 0);
  std::vector<int64_t> window, strides, base_dil, win_dil;
  std::vector<std::pair<int64_t, int64_t>> padding;
  BERTH_RETURN_IF_ERROR(WindowAttrs(op, in.rank(), &window, &strides, &base_dil, &win_dil, &padding));
  std::vector<ElementType> elems;
  BERTH_RETURN_IF_ERROR(ReducerBody(op, 0, n, &elems));
  std::vector<int64_t> expected = WindowedShape(in.shape(), window, strides, base_dil, win_dil, padding);
  for (size_t i = 0; i < n; ++i) {
    if (!IsRank0Tensor(OperandType(op, n + i))) {
      return OpError(op, "init value #" + std::to_string(i) + " must be a rank-0 tensor");
    }
    BERTH_RETURN_IF_ERROR(ExpectResultShape(op, i, expected));
  }
  return OkStatus();
}

Status SelectAndScatter(const Operation& op) {
  BERTH_RETURN_IF_ERROR(ExpectTensorOperands(op, 3));
  Type operand = OperandType(op, 0);
  Type source = OperandType(op, 1);
  if (source.element_type() != operand.element_type()) {
    return OpError(op, "source must have the operand's element type");
  }
  if (!IsRank0Tensor(OperandType(op, 2))) return OpError(op, "init_value must be a rank-0 tensor");
  std::vector<int64_t> window, strides, base_dil, win_dil;
  std::vector<std::pair<int64_t, int64_t>> padding;
  BERTH_RETURN_IF_ERROR(
      WindowAttrs(op, operand.rank(), &window, &strides, &base_dil, &win_dil, &padding));
  std::vector<int64_t> expected =
      WindowedShape(operand.shape(), window, strides, base_dil, win_dil, padding);
  if (!ShapesCompatible(source.shape(), expected)) {
    return OpError(op, "source shape " + Str(source.shape()) + " must be the window count " +
                           Str(expected));
  }
  BERTH_RETURN_IF_ERROR(ExpectScalarRegion(op, 0, 2, 1));
  if (ReturnTypes(RegionBlock(op, 0))[0].element_type() != ElementType::kI1) {
    return OpError(op, "select must return tensor<i1>");
  }
  BERTH_RETURN_IF_ERROR(ExpectScalarRegion(op, 1, 2, 1));
  if (!TypesCompatible(ResultType(op, 0), operand)) {
    return OpError(op, "result type must match the operand type");
  }
  return OkStatus();
}

Status Sort(const Operation& op) {
  BERTH_RETURN_IF_ERROR(ExpectMinOperands(op, 1));
  size_t n = op.num_operands();
  BERTH_RETURN_IF_ERROR(ExpectResults(op, n));
  BERTH_RETURN_IF_ERROR(SameShapes(op, 0, n, "inputs"));
  int64_t rank = OperandType(op, 0).rank();
  int64_t dim = -1;
  BERTH_RETURN_IF_ERROR(GetIntAttr(op, "dimension", false, &dim));
  if (dim < -rank || dim >= rank) {
    return OpError(op, "dimension " + std::to_string(dim) + " is outside [" +
                           std::to_string(-rank) + ", " + std::to_string(rank) + ")");
  }
  BERTH_RETURN_IF_ERROR(ExpectScalarRegion(op, 0, 2 * n, 1));
  const Block& block = RegionBlock(op, 0);
  for (size_t i = 0; i < n; ++i) {
    ElementType e = OperandType(op, i).element_type();
    if (block.argument(2 * i)->type().element_type() != e ||
        block.argument(2 * i + 1)->type().element_type() != e) {
      return OpError(op, "comparator arguments #" + std::to_string(2 * i) + " and #" +
                             std::to_string(2 * i + 1) + " must be tensor<" +
                             std::string(ElementTypeName(e)) + ">");
    }
    if (!TypesCompatible(ResultType(op, i), OperandType(op, i))) {
      return OpError(op, "result #" + std::to_string(i) + " must have the type of input #" +
                             std::to_string(i));
    }
  }
  if (ReturnTypes(block)[0].element_type() != ElementType::kI1) {
    return OpError(op, "comparator must return tensor<i1>");
  }
  return OkStatus();
}

Status Map(const Operation& op) {
  BERTH_RETURN_IF_ERROR(ExpectMinOperands(op, 1));
  BERTH_RETURN_IF_ERROR(ExpectResults(op, 1));
  size_t n = op.num_operands();
  BERTH_RETURN_IF_ERROR(SameShapes(op, 0, n, "inputs"));
  Type in = OperandType(op, 0);
  std::vector<int64_t> dims;
  BERTH_RETURN_IF_ERROR(GetI64ArrayAttr(op, "dimensions", true, &dims));
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims.size() != static_cast<size_t>(in.rank()) || dims[i] != static_cast<int64_t>(i)) {
      return OpError(op, "dimensions must be [0, ..., rank - 1], are " + Str(dims));
    }
  }
  if (dims.size() != static_cast<size_t>(in.rank())) {
    return OpError(op, "dimensions must be [0, ..., rank - 1], are " + Str(dims));
  }
  BERTH_RETURN_IF_ERROR(ExpectScalarRegion(op, 0, n, 1));
  const Block& block = RegionBlock(op, 0);
  for (size_t i = 0; i < n; ++i) {
    if (block.argument(i)->type().element_type() != OperandType(op, i).element_type()) {
      return OpError(op, "computation argument #" + std::to_string(i) +
                             " must have the element type of input #" + std::to_string(i));
    }
  }
  BERTH_RETURN_IF_ERROR(ExpectResultShape(op, 0, in.shape()));
  if (ResultType(op, 0).element_type() != ReturnTypes(block)[0].element_type()) {
    return OpError(op, "result element type must be what the computation returns");
  }
  return OkStatus();
}

// The dimension numbers gather and scatter share, under each op's names.
struct IndexedDims {
  const std::vector<int64_t>& window;            // offset_dims, update_window_dims
  const std::vector<int64_t>& dropped;           // collapsed_slice_dims, inserted_window_dims
  const std::vector<int64_t>& operand_batching;  // operand_batching_dims, input_batching_dims
  const std::vector<int64_t>& indices_batching;  // start_indices_batching_dims, ...
  const std::vector<int64_t>& index_map;         // start_index_map, scatter_dims_to_operand_dims
  int64_t index_vector_dim;
};
struct IndexedDimNames {
  std::string_view window, dropped, operand_batching, indices_batching, index_map;
  std::string_view operand, indices;
};
constexpr IndexedDimNames kGatherNames{"offset_dims",           "collapsed_slice_dims",
                                       "operand_batching_dims", "start_indices_batching_dims",
                                       "start_index_map",       "operand",
                                       "start_indices"};
constexpr IndexedDimNames kScatterNames{"update_window_dims",
                                        "inserted_window_dims",
                                        "input_batching_dims",
                                        "scatter_indices_batching_dims",
                                        "scatter_dims_to_operand_dims",
                                        "input",
                                        "scatter_indices"};

// Checks what gather and scatter require alike of their dimension numbers and
// returns the rank of gather's result (scatter's updates).
Result<int64_t> CheckIndexedDims(const Operation& op, Type operand, Type indices,
                                 const IndexedDims& d, const IndexedDimNames& name) {
  const int64_t r = operand.rank();
  const int64_t s = indices.rank();
  const std::string_view ops = name.operand;
  std::string n0(name.window), n1(name.dropped), n2(name.operand_batching),
      n3(name.indices_batching), n4(name.index_map);
  if (static_cast<int64_t>(d.window.size() + d.dropped.size() + d.operand_batching.size()) != r) {
    return OpError(op, n0 + ", " + n1 + " and " + n2 + " must together cover the " +
                           std::string(ops) + " rank " + std::to_string(r));
  }
  if (d.index_vector_dim < 0 || d.index_vector_dim > s) {
    return OpError(op, "index_vector_dim " + std::to_string(d.index_vector_dim) +
                           " is outside [0, " + std::to_string(s) + "]");
  }
  BERTH_RETURN_IF_ERROR(SortedUnique(op, d.window, n0));
  BERTH_RETURN_IF_ERROR(SortedUnique(op, d.dropped, n1));
  BERTH_RETURN_IF_ERROR(SortedUnique(op, d.operand_batching, n2));
  BERTH_RETURN_IF_ERROR(Unique(op, d.dropped, d.operand_batching, n1 + " and " + n2));
  BERTH_RETURN_IF_ERROR(ExpectDimsInRange(op, d.dropped, r, n1));
  BERTH_RETURN_IF_ERROR(ExpectDimsInRange(op, d.operand_batching, r, n2));
  BERTH_RETURN_IF_ERROR(ExpectDimsInRange(op, d.indices_batching, s, n3));
  if (Contains(d.indices_batching, d.index_vector_dim)) {
    return OpError(op, "index_vector_dim must not be a " + n3.substr(0, n3.size() - 1));
  }
  if (d.operand_batching.size() != d.indices_batching.size()) {
    return OpError(op, n2 + " and " + n3 + " differ in size");
  }
  for (size_t i = 0; i < d.operand_batching.size(); ++i) {
    if (!DimsCompatible(operand.dim(d.operand_batching[i]), indices.dim(d.indices_batching[i]))) {
      return OpError(op, "batching dimension sizes of " + std::string(ops) + " and " +
                             std::string(name.indices) + " differ");
    }
  }
  int64_t index_size = d.index_vector_dim < s ? indices.dim(d.index_vector_dim) : 1;
  if (!DimsCompatible(static_cast<int64_t>(d.index_map.size()), index_size)) {
    return OpError(op, n4 + " " + Str(d.index_map) + " must have " + std::to_string(index_size) +
                           " entries");
  }
  BERTH_RETURN_IF_ERROR(ExpectDimsInRange(op, d.index_map, r, n4));
  BERTH_RETURN_IF_ERROR(Unique(op, d.index_map, d.operand_batching, n4 + " and " + n2));
  return static_cast<int64_t>(d.window.size()) + s - (d.index_vector_dim < s ? 1 : 0);
}

// The sizes of `indices` but its index_vector_dim: gather's batch dimensions,
// scatter's update scatter dimensions.
std::vector<int64_t> IndexBatchSizes(Type indices, int64_t index_vector_dim) {
  std::vector<int64_t> sizes;
  for (int64_t i = 0; i < indices.rank(); ++i) {
    if (i != index_vector_dim) sizes.push_back(indices.dim(i));
  }
  return sizes;
}

Status Gather(const Operation& op) {
  bool dynamic = op.kind() == OpKind::kDynamicGather;
  BERTH_RETURN_IF_ERROR(OneTensorInOut(op, dynamic ? 3 : 2));
  const GatherDimensionNumbers* dn = op.gather_dimension_numbers();
  if (!dn) return OpError(op, "requires a #stablehlo.gather dimension_numbers attribute");
  Type operand = OperandType(op, 0);
  Type indices = OperandType(op, 1);
  Type result = ResultType(op, 0);
  if (!IsInteger(indices.element_type())) return OpError(op, "start_indices must be integers");
  if (result.element_type() != operand.element_type()) {
    return OpError(op, "result element type must match the operand's");
  }
  int64_t r = operand.rank();
  BERTH_ASSIGN_OR_RETURN(
      int64_t result_rank,
      CheckIndexedDims(op, operand, indices,
                       {dn->offset_dims, dn->collapsed_slice_dims, dn->operand_batching_dims,
                        dn->start_indices_batching_dims, dn->start_index_map, dn->index_vector_dim},
                       kGatherNames));
  if (result.rank() != result_rank) {
    return OpError(op, "result must have rank " + std::to_string(result_rank) + ", is " +
                       Str(result));
  }
  BERTH_RETURN_IF_ERROR(ExpectDimsInRange(op, dn->offset_dims, result_rank, "offset_dims"));
  if (dynamic) return OkStatus();
  std::vector<int64_t> sizes;
  BERTH_RETURN_IF_ERROR(GetI64ArrayAttr(op, "slice_sizes", true, &sizes));
  if (static_cast<int64_t>(sizes.size()) != r) {
    return OpError(op, "slice_sizes " + Str(sizes) + " needs " + std::to_string(r) + " entries");
  }
  std::vector<bool> collapsed = DimMask(dn->collapsed_slice_dims, r);
  std::vector<bool> batching = DimMask(dn->operand_batching_dims, r);
  for (int64_t i = 0; i < r; ++i) {
    int64_t d = operand.dim(i);
    if (sizes[i] < 0 || (d != kDynamic && sizes[i] > d)) {
      return OpError(op, "slice_sizes " + Str(sizes) + " exceed the operand shape " +
                             Str(operand.shape()));
    }
    if ((collapsed[i] || batching[i]) && sizes[i] > 1) {
      return OpError(op, "slice_sizes of collapsed and batching dimensions must be 0 or 1");
    }
  }
  std::vector<int64_t> batch_sizes = IndexBatchSizes(indices, dn->index_vector_dim);
  std::vector<int64_t> offset_sizes;
  for (int64_t i = 0; i < r; ++i) {
    if (!collapsed[i] && !batching[i]) offset_sizes.push_back(sizes[i]);
  }
  std::vector<int64_t> expected(static_cast<size_t>(result_rank));
  std::vector<bool> offset = DimMask(dn->offset_dims, result_rank);
  size_t b = 0, o = 0;
  for (int64_t i = 0; i < result_rank; ++i) {
    expected[i] = offset[i] ? offset_sizes[o++] : batch_sizes[b++];
  }
  return ExpectResultShape(op, 0, expected);
}

Status Scatter(const Operation& op) {
  size_t total = op.num_operands();
  if (total < 3 || (total - 1) % 2 != 0) {
    return OpError(op, "expects inputs, scatter_indices and as many updates as inputs");
  }
  size_t n = (total - 1) / 2;
  BERTH_RETURN_IF_ERROR(ExpectResults(op, n));
  const ScatterDimensionNumbers* dn = op.scatter_dimension_numbers();
  if (!dn) return OpError(op, "requires a #stablehlo.scatter scatter_dimension_numbers attribute");
  BERTH_RETURN_IF_ERROR(SameShapes(op, 0, n, "inputs"));
  BERTH_RETURN_IF_ERROR(ExpectTensorOperand(op, n));
  BERTH_RETURN_IF_ERROR(SameShapes(op, n + 1, n, "updates"));
  Type input = OperandType(op, 0);
  Type indices = OperandType(op, n);
  Type updates = OperandType(op, n + 1);
  if (!IsInteger(indices.element_type())) return OpError(op, "scatter_indices must be integers");
  int64_t r = input.rank();
  int64_t u = updates.rank();
  BERTH_ASSIGN_OR_RETURN(
      int64_t expected_rank,
      CheckIndexedDims(op, input, indices,
                       {dn->update_window_dims, dn->inserted_window_dims, dn->input_batching_dims,
                        dn->scatter_indices_batching_dims, dn->scatter_dims_to_operand_dims,
                        dn->index_vector_dim},
                       kScatterNames));
  if (u != expected_rank) {
    return OpError(op, "updates must have rank " + std::to_string(expected_rank) + ", have " +
                           Str(updates));
  }
  BERTH_RETURN_IF_ERROR(ExpectDimsInRange(op, dn->update_window_dims, u, "update_window_dims"));
  std::vector<int64_t> scatter_sizes = IndexBatchSizes(indices, dn->index_vector_dim);
  std::vector<int64_t> window_bounds;
  std::vector<bool> inserted = DimMask(dn->inserted_window_dims, r);
  std::vector<bool> batching = DimMask(dn->input_batching_dims, r);
  for (int64_t i = 0; i < r; ++i) {
    if (!inserted[i] && !batching[i]) window_bounds.push_back(input.dim(i));
  }
  std::vector<bool> window = DimMask(dn->update_window_dims, u);
  size_t sc = 0, w = 0;
  for (int64_t i = 0; i < u; ++i) {
    int64_t d = updates.dim(i);
    if (window[i]) {
      int64_t bound = window_bounds[w++];
      if (d != kDynamic && bound != kDynamic && d > bound) {
        return OpError(op, "update window dimension " + std::to_string(i) + " (size " +
                               std::to_string(d) + ") exceeds the input's " +
                               std::to_string(bound));
      }
    } else if (!DimsCompatible(d, scatter_sizes[sc++])) {
      return OpError(op, "update scatter dimension " + std::to_string(i) +
                             " must match scatter_indices " + Str(indices));
    }
  }
  std::vector<ElementType> elems;
  BERTH_RETURN_IF_ERROR(ReducerBody(op, 0, n, &elems));
  for (size_t i = 0; i < n; ++i) {
    if (!ShapesCompatible(ResultType(op, i).shape(), OperandType(op, i).shape()) ||
        ResultType(op, i).element_type() != elems[i]) {
      return OpError(op, "result #" + std::to_string(i) + " must have the shape of input #" +
                             std::to_string(i) + " and the element type the body returns");
    }
  }
  return OkStatus();
}

Status RegionResultsMatch(const Operation& op, size_t region, std::string_view what) {
  std::vector<Type> ret = ReturnTypes(RegionBlock(op, region));
  if (ret.size() != op.num_results()) {
    return OpError(op, std::string(what) + " returns " + std::to_string(ret.size()) +
                           " value(s); the op has " + std::to_string(op.num_results()) + " result(s)");
  }
  for (size_t i = 0; i < ret.size(); ++i) {
    if (!TypesCompatible(ret[i], ResultType(op, i))) {
      return OpError(op, std::string(what) + " returns " + Str(ret[i]) + " for result #" +
                             std::to_string(i) + " of type " + Str(ResultType(op, i)));
    }
  }
  if (RegionBlock(op, region).num_arguments() != 0) {
    return OpError(op, std::string(what) + " must not take arguments");
  }
  return OkStatus();
}

Status While(const Operation& op) {
  size_t n = op.num_operands();
  BERTH_RETURN_IF_ERROR(ExpectResults(op, n));
  for (size_t i = 0; i < n; ++i) {
    if (!TypesCompatible(OperandType(op, i), ResultType(op, i))) {
      return OpError(op, "result #" + std::to_string(i) + " must have the operand's type " +
                             Str(OperandType(op, i)));
    }
  }
  for (size_t r = 0; r < 2; ++r) {
    const Block& block = RegionBlock(op, r);
    const char* name = r == 0 ? "cond" : "body";
    if (block.num_arguments() != n) {
      return OpError(op, std::string(name) + " must take " + std::to_string(n) + " argument(s)");
    }
    for (size_t i = 0; i < n; ++i) {
      if (!TypesCompatible(block.argument(i)->type(), OperandType(op, i))) {
        return OpError(op, std::string(name) + " argument #" + std::to_string(i) +
                               " must have type " + Str(OperandType(op, i)));
      }
    }
  }
  std::vector<Type> cond = ReturnTypes(RegionBlock(op, 0));
  if (cond.size() != 1 || !IsRank0Tensor(cond[0]) || cond[0].element_type() != ElementType::kI1) {
    return OpError(op, "cond must return a single tensor<i1>");
  }
  std::vector<Type> body = ReturnTypes(RegionBlock(op, 1));
  if (body.size() != n) {
    return OpError(op, "body must return " + std::to_string(n) + " value(s), returns " +
                           std::to_string(body.size()));
  }
  for (size_t i = 0; i < n; ++i) {
    if (!TypesCompatible(body[i], OperandType(op, i))) {
      return OpError(op, "body returns " + Str(body[i]) + " for operand #" + std::to_string(i) +
                             " of type " + Str(OperandType(op, i)));
    }
  }
  return OkStatus();
}

Status If(const Operation& op) {
  BERTH_RETURN_IF_ERROR(ExpectOperands(op, 1));
  Type pred = OperandType(op, 0);
  if (!IsRank0Tensor(pred) || pred.element_type() != ElementType::kI1) {
    return OpError(op, "pred must be tensor<i1>, is " + Str(pred));
  }
  BERTH_RETURN_IF_ERROR(RegionResultsMatch(op, 0, "true_branch"));
  return RegionResultsMatch(op, 1, "false_branch");
}

Status Case(const Operation& op) {
  BERTH_RETURN_IF_ERROR(ExpectOperands(op, 1));
  Type index = OperandType(op, 0);
  if (!IsRank0Tensor(index) || index.element_type() != ElementType::kSI32) {
    return OpError(op, "index must be tensor<i32>, is " + Str(index));
  }
  for (size_t r = 0; r < op.num_regions(); ++r) {
    BERTH_RETURN_IF_ERROR(RegionResultsMatch(op, r, "branch #" + std::to_string(r)));
  }
  return OkStatus();
}

// sdy.manual_computation: one body block argument per operand and one
// returned value per result, each of the same element type and rank (the
// body's are each device's shards); the shardings as the generic form
// writes them (their contents are read by the partitioner).
Status ManualComputation(const Operation& op) {
  auto opaque = [&](std::string_view name, std::string_view prefix) -> Status {
    const auto* attr = op.attr_as<OpaqueAttr>(name);
    if (attr == nullptr || !attr->text().starts_with(prefix)) {
      return OpError(op, "needs '" + std::string(name) + " = " + std::string(prefix) + "...>'");
    }
    return OkStatus();
  };
  BERTH_RETURN_IF_ERROR(opaque("in_shardings", "#sdy.sharding_per_value<"));
  BERTH_RETURN_IF_ERROR(opaque("out_shardings", "#sdy.sharding_per_value<"));
  BERTH_RETURN_IF_ERROR(opaque("manual_axes", "#sdy<manual_axes"));
  const Block& body = op.region(0).entry_block();
  const Operation& ret = *body.operations().back();
  if (body.arguments().size() != op.num_operands() || ret.num_operands() != op.num_results()) {
    return OpError(op, "has " + std::to_string(op.num_operands()) + " operand(s) and " +
                           std::to_string(op.num_results()) + " result(s) but its body takes " +
                           std::to_string(body.arguments().size()) + " and returns " +
                           std::to_string(ret.num_operands()));
  }
  auto local_of = [&](Type global, Type local, const std::string& what) -> Status {
    if (!global.IsTensor() || !local.IsTensor() || global.element_type() != local.element_type() ||
        global.rank() != local.rank()) {
      return OpError(op, what + " " + Str(local) + " is no shard of " + Str(global));
    }
    return OkStatus();
  };
  for (size_t i = 0; i < op.num_operands(); ++i) {
    BERTH_RETURN_IF_ERROR(
        local_of(OperandType(op, i), body.argument(i)->type(), "body argument #" + std::to_string(i)));
  }
  for (size_t i = 0; i < op.num_results(); ++i) {
    BERTH_RETURN_IF_ERROR(local_of(ResultType(op, i), ret.operand(i)->type(), "returned value #" + std::to_string(i)));
  }
  return OkStatus();
}

// Operands and results of `op` against the signature of `f`.
Status MatchSignature(const Operation& op, const Function& f, bool exact) {
  std::span<const Type> inputs = f.argument_types();
  std::span<const Type> results = f.result_types();
  if (inputs.size() != op.num_operands() || results.size() != op.num_results()) {
    return OpError(op, "has " + std::to_string(op.num_operands()) + " operand(s) and " +
                           std::to_string(op.num_results()) + " result(s) but @" +
                           std::string(f.name()) + " takes " + std::to_string(inputs.size()) +
                           " and returns " + std::to_string(results.size()));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    Type t = OperandType(op, i);
    if (exact ? t != inputs[i] : !TypesCompatible(t, inputs[i])) {
      return OpError(op, "operand #" + std::to_string(i) + " has type " + Str(t) + " but @" +
                             std::string(f.name()) + " takes " + Str(inputs[i]));
    }
  }
  for (size_t i = 0; i < results.size(); ++i) {
    Type t = ResultType(op, i);
    if (exact ? t != results[i] : !TypesCompatible(t, results[i])) {
      return OpError(op, "result #" + std::to_string(i) + " has type " + Str(t) + " but @" +
                             std::string(f.name()) + " returns " + Str(results[i]));
    }
  }
  return OkStatus();
}

// The function that the op's symbol attribute `attr` names; `verb` says
// what the op does with it ("calls '@f', which is not defined").
Result<const Function*> NamedFunction(const Operation& op, const Module& module,
                                      std::string_view attr, std::string_view verb) {
  std::string_view callee = op.GetSymbol(attr);
  if (callee.empty()) return OpError(op, "requires a '" + std::string(attr) + "' symbol reference");
  const Function* f = module.function(callee);
  if (!f) {
    return OpError(op, std::string(verb) + " '@" + std::string(callee) + "', which is not defined");
  }
  return f;
}

Status Call(const Operation& op, const Module& module) {
  BERTH_ASSIGN_OR_RETURN(const Function* f, NamedFunction(op, module, "callee", "calls"));
  return MatchSignature(op, *f, /*exact=*/true);
}

Status Composite(const Operation& op, const Module& module) {
  auto* name = op.attr_as<StringAttr>("name");
  if (!name || name->value().empty()) return OpError(op, "requires a non-empty 'name' string");
  BERTH_ASSIGN_OR_RETURN(const Function* f,
                         NamedFunction(op, module, "decomposition", "decomposes into"));
  return MatchSignature(op, *f, /*exact=*/false);
}

Status RunParallel(const Operation& op, const Module& module) {
  auto* programs = op.attr_as<ArrayAttr>("programs");
  if (!programs || programs->size() == 0) {
    return OpError(op, "requires 'programs': a non-empty array of arrays of functions");
  }
  std::vector<const Function*> functions;
  size_t width = 0;
  for (size_t r = 0; r < programs->size(); ++r) {
    auto* row = (*programs)[r]->dyn_cast<ArrayAttr>();
    if (!row || row->size() == 0) return OpError(op, "'programs' rows must be non-empty arrays");
    if (r == 0) width = row->size();
    if (row->size() != width) return OpError(op, "'programs' rows must have the same length");
    for (const Attribute* e : row->elements()) {
      auto* sym = e->dyn_cast<SymbolRefAttr>();
      if (!sym) return OpError(op, "'programs' entries must be function references");
      const Function* f = module.function(sym->name());
      if (!f) return OpError(op, "runs '@" + std::string(sym->name()) + "', which is not defined");
      functions.push_back(f);
    }
  }
  size_t arg = 0, res = 0;
  for (const Function* f : functions) {
    for (Type t : f->argument_types()) {
      if (arg >= op.num_operands() || !TypesCompatible(OperandType(op, arg), t)) {
        return OpError(op, "operands do not match the arguments of the programs it runs");
      }
      ++arg;
    }
    for (Type t : f->result_types()) {
      if (res >= op.num_results() || !TypesCompatible(ResultType(op, res), t)) {
        return OpError(op, "results do not match the results of the programs it runs");
      }
      ++res;
    }
  }
  if (arg != op.num_operands() || res != op.num_results()) {
    return OpError(op, "takes " + std::to_string(op.num_operands()) + " operand(s) and " +
                           std::to_string(op.num_results()) + " result(s) but its programs take " +
                           std::to_string(arg) + " and return " + std::to_string(res));
  }
  return OkStatus();
}

}  // namespace

// chlo.scan(inputs) inits(inits) dimension = d { body }: the body takes a
// slice of each input (dimension d dropped) and the carries, and returns
// a slice of each output and the new carries; the results are the outputs
// (slices stacked along d) and the final carries. operandSegmentSizes
// splits the operands.
Status Scan(const Operation& op) {
  std::span<const int64_t> segments = op.GetI64Array("operandSegmentSizes");
  if (segments.size() != 2 || segments[0] < 0 || segments[1] < 0 ||
      static_cast<size_t>(segments[0] + segments[1]) != op.num_operands()) {
    return OpError(op, "requires operandSegmentSizes = array<i32: inputs, inits> covering its " +
                           std::to_string(op.num_operands()) + " operands");
  }
  const size_t num_inputs = static_cast<size_t>(segments[0]);
  const size_t num_inits = static_cast<size_t>(segments[1]);
  if (op.num_results() < num_inits) {
    return OpError(op, "has fewer results than inits (" + std::to_string(num_inits) + ")");
  }
  const size_t num_outputs = op.num_results() - num_inits;
  int64_t dim = -1;
  BERTH_RETURN_IF_ERROR(GetIntAttr(op, "dimension", true, &dim));
  for (size_t i = 0; i < num_inputs + num_outputs; ++i) {
    Type t = i < num_inputs ? OperandType(op, i) : ResultType(op, i - num_inputs);
    if (!t.IsTensor() || dim < 0 || dim >= t.rank()) {
      return OpError(op, "dimension " + std::to_string(dim) + " is not a dimension of " + Str(t));
    }
  }
  const Block& body = RegionBlock(op, 0);
  if (body.num_arguments() != op.num_operands()) {
    return OpError(op, "body takes " + std::to_string(body.num_arguments()) +
                           " arguments; expected one per input and init (" +
                           std::to_string(op.num_operands()) + ")");
  }
  std::vector<Type> returned = ReturnTypes(body);
  if (returned.size() != op.num_results()) {
    return OpError(op, "body returns " + std::to_string(returned.size()) +
                           " values; expected one per output and carry (" +
                           std::to_string(op.num_results()) + ")");
  }
  for (size_t i = 0; i < num_inits; ++i) {
    Type init = OperandType(op, num_inputs + i);
    if (!TypesCompatible(init, ResultType(op, num_outputs + i)) ||
        !TypesCompatible(init, returned[num_outputs + i])) {
      return OpError(op, "carry #" + std::to_string(i) + " must keep the init's type " + Str(init));
    }
  }
  return OkStatus();
}

Status VerifyRegionOp(const Operation& op, const Module& module) {
  switch (op.kind()) {
    case OpKind::kReduce: return Reduce(op);
    case OpKind::kReduceWindow: return ReduceWindow(op);
    case OpKind::kSelectAndScatter: return SelectAndScatter(op);
    case OpKind::kSort: return Sort(op);
    case OpKind::kMap: return Map(op);
    case OpKind::kGather:
    case OpKind::kDynamicGather: return Gather(op);
    case OpKind::kScatter: return Scatter(op);
    case OpKind::kWhile: return While(op);
    case OpKind::kIf: return If(op);
    case OpKind::kCase: return Case(op);
    case OpKind::kFuncCall: return Call(op, module);
    case OpKind::kComposite: return Composite(op, module);
    case OpKind::kInterpreterRunParallel: return RunParallel(op, module);
    case OpKind::kChloScan: return Scan(op);
    case OpKind::kSdyManualComputation: return ManualComputation(op);
    case OpKind::kOptimizationBarrier: {
      BERTH_RETURN_IF_ERROR(ExpectResults(op, op.num_operands()));
      for (size_t i = 0; i < op.num_operands(); ++i) {
        if (!TypesCompatible(OperandType(op, i), ResultType(op, i))) {
          return OpError(op, "result #" + std::to_string(i) + " must have the operand's type");
        }
      }
      return OkStatus();
    }
    default: return OkStatus();
  }
}

}  // namespace berth::stablehlo::detail
