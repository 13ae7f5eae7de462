// Gathering kernels: gather, dynamic_gather (slice sizes from an operand)
// and torch_index_select (a gather along one dimension).
//
// For every batch position (an index of start_indices without its
// index_vector_dim) the kernel computes where the slice starts in the
// operand (start indices clamped so the slice fits, plus the batching
// dimensions' positions) and copies the slice window with a prepared
// StridedCopy; batch positions are split across the thread pool.
#include <algorithm>

#include "interpreter/data_movement.hpp"
#include "interpreter/element_types.hpp"
#include "interpreter/parallel.hpp"
#include "interpreter/strided_copy.hpp"

namespace berth::cpu {
namespace {

using stablehlo::GatherDimensionNumbers;
using stablehlo::OpKind;

Status RunGather(KernelCall& call, const Tensor& operand, const Tensor& indices,
                 const GatherDimensionNumbers& dn, std::span<const int64_t> slice_sizes) {
  BERTH_RETURN_IF_ERROR(CheckSupported(operand.type(), call.op.name()));
  const int64_t r = operand.rank();
  const int64_t s = indices.rank();
  const std::vector<int64_t>& od = operand.dims();
  const std::vector<int64_t>& sd = indices.dims();
  const int64_t ivd = dn.index_vector_dim;

  // ---- checks against the actual shapes (the verifier saw only types)
  if (static_cast<int64_t>(slice_sizes.size()) != r) {
    return InvalidArgumentError("slice_sizes " + DimsString(slice_sizes) + " needs " +
                                std::to_string(r) + " entries");
  }
  for (int64_t d = 0; d < r; ++d) {
    if (slice_sizes[d] < 0 || slice_sizes[d] > od[d]) {
      return InvalidArgumentError("slice_sizes " + DimsString(slice_sizes) +
                                  " exceed the operand " + operand.TypeString());
    }
  }
  if (ivd < 0 || ivd > s) {
    return InvalidArgumentError("index_vector_dim " + std::to_string(ivd) + " is outside [0, " +
                                std::to_string(s) + "]");
  }
  const int64_t index_count = ivd < s ? sd[ivd] : 1;
  if (static_cast<int64_t>(dn.start_index_map.size()) != index_count) {
    return InvalidArgumentError("start_index_map " + DimsString(dn.start_index_map) + " must have " +
                                std::to_string(index_count) + " entries");
  }
  std::vector<bool> not_window(static_cast<size_t>(r));
  BERTH_RETURN_IF_ERROR(CheckDims(dn.collapsed_slice_dims, r, not_window, "collapsed_slice_dims"));
  BERTH_RETURN_IF_ERROR(CheckDims(dn.operand_batching_dims, r, not_window,
                                  "collapsed_slice_dims and operand_batching_dims"));
  std::vector<bool> mapped(static_cast<size_t>(r));
  for (int64_t d : dn.operand_batching_dims) mapped[d] = true;
  BERTH_RETURN_IF_ERROR(CheckDims(dn.start_index_map, r, mapped,
                                  "start_index_map and operand_batching_dims"));
  std::vector<bool> index_taken(static_cast<size_t>(s) + 1);
  index_taken[ivd] = true;
  BERTH_RETURN_IF_ERROR(CheckDims(dn.start_indices_batching_dims, s, index_taken,
                                  "start_indices_batching_dims (and index_vector_dim)"));
  if (dn.operand_batching_dims.size() != dn.start_indices_batching_dims.size()) {
    return InvalidArgumentError("operand_batching_dims and start_indices_batching_dims differ in size");
  }
  for (size_t i = 0; i < dn.operand_batching_dims.size(); ++i) {
    if (od[dn.operand_batching_dims[i]] != sd[dn.start_indices_batching_dims[i]]) {
      return InvalidArgumentError("batching dimension sizes of the operand " + operand.TypeString() +
                                  " and start_indices " + indices.TypeString() + " differ");
    }
  }
  std::vector<int64_t> window_dims;  // operand dims the offset dims walk
  for (int64_t d = 0; d < r; ++d) {
    if (!not_window[d]) {
      window_dims.push_back(d);
    } else if (slice_sizes[d] > 1) {
      return InvalidArgumentError("slice_sizes of collapsed and batching dimensions must be 0 or 1");
    }
  }
  std::vector<int64_t> batch_dims;  // dims of start_indices except index_vector_dim
  for (int64_t d = 0; d < s; ++d) {
    if (d != ivd) batch_dims.push_back(d);
  }
  const int64_t out_rank = static_cast<int64_t>(window_dims.size() + batch_dims.size());
  if (dn.offset_dims.size() != window_dims.size() ||
      !std::is_sorted(dn.offset_dims.begin(), dn.offset_dims.end())) {
    return InvalidArgumentError("offset_dims " + DimsString(dn.offset_dims) +
                                " must be sorted, one per operand dimension that is neither "
                                "collapsed nor batching");
  }
  std::vector<bool> is_offset(static_cast<size_t>(out_rank));
  BERTH_RETURN_IF_ERROR(CheckDims(dn.offset_dims, out_rank, is_offset, "offset_dims"));

  // ---- result shape: offset dims take the window sizes, the others the
  // batch sizes, each in order
  std::vector<int64_t> out_dims(static_cast<size_t>(out_rank));
  std::vector<int64_t> out_batch_dims;
  for (int64_t d = 0, w = 0, b = 0; d < out_rank; ++d) {
    if (is_offset[d]) {
      out_dims[d] = slice_sizes[window_dims[w++]];
    } else {
      out_dims[d] = sd[batch_dims[b++]];
      out_batch_dims.push_back(d);
    }
  }
  BERTH_ASSIGN_OR_RETURN(Tensor out, AllocateResult(call, 0, out_dims));
  if (out.num_elements() == 0) {
    call.results.push_back(std::move(out));
    return OkStatus();
  }
  for (int64_t d = 0; d < r; ++d) {
    if (not_window[d] && slice_sizes[d] == 0) {
      return InvalidArgumentError("slice size 0 in collapsed or batching dimension " +
                                  std::to_string(d) + " leaves nothing to gather");
    }
  }
  BERTH_ASSIGN_OR_RETURN(std::vector<int64_t> index_values, ReadIndices(indices, "start_indices"));

  const std::vector<int64_t> out_strides = RowMajorStrides(out_dims);
  const std::vector<int64_t> op_strides = RowMajorStrides(od);
  const std::vector<int64_t> idx_strides = RowMajorStrides(sd);
  const int64_t index_step = ivd < s ? idx_strides[ivd] : 0;

  // The window: offset dims of the result against window dims of the operand.
  std::vector<int64_t> win_sizes, win_dst, win_src;
  for (size_t w = 0; w < window_dims.size(); ++w) {
    win_sizes.push_back(slice_sizes[window_dims[w]]);
    win_dst.push_back(out_strides[dn.offset_dims[w]]);
    win_src.push_back(op_strides[window_dims[w]]);
  }
  const size_t eb = ElementBytes(operand.type());
  const StridedCopy window(eb, win_sizes, win_dst, win_src);

  // Batch positions: per batch dim its size and strides in the result, in
  // start_indices and (for batching dims) in the operand.
  const size_t nb = batch_dims.size();
  std::vector<int64_t> b_size(nb), b_out(nb), b_idx(nb), b_op(nb, 0);
  int64_t num_batch = 1;
  for (size_t k = 0; k < nb; ++k) {
    b_size[k] = sd[batch_dims[k]];
    b_out[k] = out_strides[out_batch_dims[k]];
    b_idx[k] = idx_strides[batch_dims[k]];
    num_batch *= b_size[k];
  }
  for (size_t i = 0; i < dn.start_indices_batching_dims.size(); ++i) {
    int64_t d_start = dn.start_indices_batching_dims[i];
    size_t k = static_cast<size_t>(d_start < ivd ? d_start : d_start - 1);
    b_op[k] = op_strides[dn.operand_batching_dims[i]];
  }
  // Per entry of the index vector: operand stride and largest start.
  std::vector<int64_t> map_stride(dn.start_index_map.size()), map_max(dn.start_index_map.size());
  for (size_t j = 0; j < dn.start_index_map.size(); ++j) {
    int64_t d = dn.start_index_map[j];
    map_stride[j] = op_strides[d];
    map_max[j] = od[d] - slice_sizes[d];
  }

  const std::byte* src = operand.bytes();
  std::byte* dst = out.bytes();
  const int64_t ebi = static_cast<int64_t>(eb);
  const int64_t window_elements = std::max<int64_t>(1, window.num_elements());
  const bool split_windows = num_batch < 4;
  auto run_positions = [&](int64_t begin, int64_t end) {
    std::vector<int64_t> pos(nb);
    int64_t out_off = 0, idx_off = 0, op_off = 0, rest = begin;
    for (size_t k = nb; k-- > 0;) {
      pos[k] = rest % b_size[k];
      rest /= b_size[k];
      out_off += pos[k] * b_out[k];
      idx_off += pos[k] * b_idx[k];
      op_off += pos[k] * b_op[k];
    }
    for (int64_t p = begin; p < end; ++p) {
      int64_t src_off = op_off;
      for (size_t j = 0; j < map_stride.size(); ++j) {
        int64_t start = index_values[static_cast<size_t>(idx_off + static_cast<int64_t>(j) * index_step)];
        src_off += std::clamp<int64_t>(start, 0, map_max[j]) * map_stride[j];
      }
      if (split_windows) {
        window.RunParallel(call.ctx.pool(), dst + out_off * ebi, src + src_off * ebi);
      } else {
        window.Run(dst + out_off * ebi, src + src_off * ebi);
      }
      for (size_t k = nb; k-- > 0;) {
        out_off += b_out[k];
        idx_off += b_idx[k];
        op_off += b_op[k];
        if (++pos[k] < b_size[k]) break;
        pos[k] = 0;
        out_off -= b_out[k] * b_size[k];
        idx_off -= b_idx[k] * b_size[k];
        op_off -= b_op[k] * b_size[k];
      }
    }
  };
  if (split_windows) {
    run_positions(0, num_batch);
  } else {
    ParallelFor(call.ctx.pool(), num_batch, std::max<int64_t>(1, (int64_t{1} << 14) / window_elements),
                run_positions);
  }
  call.results.push_back(std::move(out));
  return OkStatus();
}

Status Gather(KernelCall& call) {
  const GatherDimensionNumbers* dn = call.op.gather_dimension_numbers();
  if (dn == nullptr) return InvalidArgumentError("has no gather dimension_numbers");
  return RunGather(call, call.operands[0], call.operands[1], *dn, call.op.GetI64Array("slice_sizes"));
}

Status DynamicGather(KernelCall& call) {
  const GatherDimensionNumbers* dn = call.op.gather_dimension_numbers();
  if (dn == nullptr) return InvalidArgumentError("has no gather dimension_numbers");
  BERTH_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, ReadIndices(call.operands[2], "slice_sizes"));
  return RunGather(call, call.operands[0], call.operands[1], *dn, sizes);
}

// torch_index_select(input, index, dim, batch_dims): result[b, p, i, q] =
// input[b, p, index[b, i], q], the first batch_dims dimensions shared by
// input and index. Out-of-range indices clamp as in gather.
Status TorchIndexSelect(KernelCall& call) {
  GatherDimensionNumbers dn;
  std::vector<int64_t> sizes;
  if (!call.op.torch_index_select_as_gather(dn, sizes)) {
    return InvalidArgumentError("dim and batch_dims must satisfy 0 <= batch_dims <= dim < rank "
                                "and batch_dims <= the index rank");
  }
  // The slice sizes of the input as it is (its type's dims may be dynamic).
  const Tensor& input = call.operands[0];
  sizes = input.dims();
  for (int64_t d : dn.operand_batching_dims) sizes[static_cast<size_t>(d)] = 1;
  sizes[static_cast<size_t>(dn.collapsed_slice_dims[0])] = 1;
  return RunGather(call, input, call.operands[1], dn, sizes);
}

}  // namespace

void RegisterGatherKernels(KernelRegistry& registry) {
  registry.Register({{OpKind::kGather, Gather},
                     {OpKind::kDynamicGather, DynamicGather},
                     {OpKind::kTorchIndexSelect, TorchIndexSelect}});
}

}  // namespace berth::cpu
