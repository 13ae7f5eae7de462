// stablehlo.sort as a generated kernel, stable either way - so for a
// comparator that is a strict weak ordering (as the spec asks of a sort) in
// the order of the cpu plugin's stable merge sort, whatever `is_stable`
// says:
// - rows up to kInsertionSortMaxLength: one thread per row (the 1-D slice
//   along `dimension`) copies the row of each operand to the results, then
//   sorts them together by insertion, each element moved left past every
//   element the comparator region says it comes before;
// - longer rows: a merge sort of log2(length) launches (SortLaunches), one
//   thread per element, each launch merging pairs of sorted runs between
//   the results and a scratch copy: an element of a left run lands after
//   the partner run's elements that come before it, one of a right run
//   after the partner's elements it does not come before (binary searches
//   with the comparator), so equal elements keep their order.
// A CUB radix sort for plain keys is not written.
#include <algorithm>

#include "codegen/kernel_emitters.hpp"

namespace berth::cuda {

using namespace codegen;  // kernel_emitters.hpp

Status CheckSort(const Operation& op) {
  if (op.kind() != OpKind::kSort || op.num_operands() == 0 ||
      op.num_results() != op.num_operands() || op.num_regions() != 1) {
    return Unsupported(op, "not operands, as many results and a comparator region");
  }
  const stablehlo::Type first = op.operand(0)->type();
  for (size_t j = 0; j < op.num_operands(); ++j) {
    BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, op.operand(j)->type()));
    BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, op.result(j)->type()));
    if (!std::ranges::equal(op.operand(j)->type().shape(), first.shape()) ||
        op.result(j)->type() != op.operand(j)->type()) {
      return Unsupported(op, "its operands must share one shape, each result its operand's type");
    }
  }
  const int64_t dimension = op.GetInt("dimension").value_or(-1);
  if (dimension < 0 || dimension >= first.rank()) {
    return Unsupported(op, "its dimension is not a dimension of the operands");
  }
  const stablehlo::Region& region = op.region(0);
  if (region.blocks().size() != 1) return Unsupported(op, "its comparator must be one block");
  const stablehlo::Block& comparator = region.entry_block();
  if (comparator.num_arguments() != 2 * op.num_operands() || comparator.terminator() == nullptr ||
      comparator.terminator()->num_operands() != 1 ||
      comparator.terminator()->operand(0)->type().element_type() != ElementType::kI1) {
    return Unsupported(op,
                       "its comparator must take two elements of each operand and return an i1");
  }
  for (size_t a = 0; a < comparator.num_arguments(); ++a) {
    if (comparator.argument(a)->type().element_type() != op.operand(a / 2)->type().element_type()) {
      return Unsupported(op, "its comparator's arguments must be its operands' element types");
    }
  }
  for (const Operation* inner : comparator.operations()) {
    if (inner == comparator.terminator()) continue;
    BERTH_RETURN_IF_ERROR(CheckFusible(*inner).WithContext("in the comparator of " + Where(op)));
  }
  return OkStatus();
}

Status CheckTopK(const Operation& op) {
  if (op.kind() != OpKind::kChloTopK || op.num_operands() != 1 || op.num_results() != 2)
    return Unsupported(op, "not an operand, values and indices");
  const stablehlo::Type in = op.operand(0)->type(), values = op.result(0)->type(),
                        indices = op.result(1)->type();
  for (stablehlo::Type type : {in, values, indices})
    BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, type));
  const ElementType element = in.element_type();
  if (ClassOf(element) == Class::kComplex || IsNarrowFloat(element) || IsNarrowInteger(element) ||
      !stablehlo::IsInteger(indices.element_type()) || IsNarrowInteger(indices.element_type())) {
    return Unsupported(op, "top_k of " + in.ToString() + " with indices " + indices.ToString() +
                               " is not generated (the cpu plugin's types: real, non-narrow)");
  }
  const int64_t k = op.GetInt("k").value_or(-1);
  if (in.rank() < 1 || k < 0 || k > in.dim(in.rank() - 1) || values.element_type() != element ||
      values.rank() != in.rank() || values.dim(values.rank() - 1) != k ||
      values.NumElements() != indices.NumElements()) {
    return InvalidArgumentError(Where(op) + ": k = " + std::to_string(k) + " does not fit " +
                                in.ToString() + " -> " + values.ToString() + ", " +
                                indices.ToString());
  }
  return OkStatus();
}

int64_t TopKThreads(const Operation& op) {
  const stablehlo::Type in = op.operand(0)->type();
  const int64_t n = in.dim(in.rank() - 1);
  return n > 0 ? in.NumElements() / n : 0;
}

int64_t SortThreads(const Operation& op) {
  const stablehlo::Type type = op.operand(0)->type();
  const int64_t length = type.dim(op.GetInt("dimension").value_or(0));
  return length > 0 ? type.NumElements() / length : 0;
}

std::vector<int64_t> SortLaunches(const Operation& op, int64_t& scratch_bytes) {
  const stablehlo::Type type = op.operand(0)->type();
  const int64_t length = type.dim(op.GetInt("dimension").value_or(0));
  std::vector<int64_t> launches = {0};
  bool in_scratch = false;
  for (int64_t width = 1; width < length; width *= 2) {
    launches.push_back(2 * width + (in_scratch ? 1 : 0));
    in_scratch = !in_scratch;
  }
  if (in_scratch) launches.push_back(1);
  scratch_bytes = 0;
  for (const stablehlo::Value* operand : op.operands()) {
    const int64_t bytes =
        operand->type().NumElements() *
        static_cast<int64_t>(stablehlo::StorageBytes(operand->type().element_type()));
    scratch_bytes += (bytes + 15) / 16 * 16;
  }
  return launches;
}

namespace codegen {

namespace {

// The merge sort's launches (see SortLaunches and the file comment): one
// thread per element; the row's other indices and the element's position
// `j` come from the element index.
Result<std::string> EmitMergeSortKernel(const FusedKernel& kernel) {
  const Operation& op = *kernel.root;
  const stablehlo::Type type = op.operand(0)->type();
  const int64_t dimension = *op.GetInt("dimension");
  const int64_t length = type.dim(dimension);
  const size_t rank = static_cast<size_t>(type.rank()), n = op.num_operands();
  std::string body;
  std::vector<int64_t> all(rank);
  for (size_t d = 0; d < rank; ++d) all[d] = static_cast<int64_t>(d);
  std::vector<std::string> at(rank);
  EmitDecompose("i", all, type.shape(), "s", "    ", body, at);
  const std::string j = at[static_cast<size_t>(dimension)];
  // Element k of this row, as a linear index.
  auto element = [&](const std::string& k) {
    std::vector<std::string> index = at;
    index[static_cast<size_t>(dimension)] = k;
    return LinearIndex(index, type.shape());
  };
  // Each operand's scratch copy, and where a launch reads and writes.
  int64_t offset = 0;
  for (size_t o = 0; o < n; ++o) {
    const ElementType t = op.operand(o)->type().element_type();
    const std::string id = std::to_string(o), storage = StorageType(t);
    body += "    " + storage + "* const copy" + id + " = (" + storage + "*)(scratch + " +
            std::to_string(offset) + "LL);\n";
    body += "    const " + storage + "* const from" + id + " = (pass & 1) ? copy" + id + " : out" +
            id + ";\n";
    body +=
        "    " + storage + "* const to" + id + " = (pass & 1) ? out" + id + " : copy" + id + ";\n";
    const int64_t bytes = type.NumElements() * static_cast<int64_t>(stablehlo::StorageBytes(t));
    offset += (bytes + 15) / 16 * 16;
  }
  body += "    const berth_s64 width = pass >> 1;\n";
  body += "    const berth_s64 here = " + element(j) + ";\n";
  body += "    if (width == 0) {\n";  // 0: the operands in; 1: the scratch back
  for (size_t o = 0; o < n; ++o) {
    BERTH_ASSIGN_OR_RETURN(const std::string input, InputParam(kernel, op.operand(o)));
    const std::string id = std::to_string(o);
    body +=
        "      out" + id + "[here] = (pass & 1) ? copy" + id + "[here] : " + input + "[here];\n";
  }
  body += "      continue;\n    }\n";
  const std::string count = std::to_string(length) + "LL";
  body += "    const berth_s64 run = " + j + " / width;\n";
  body += "    const berth_s64 partner = (run ^ 1) * width;\n";
  body += "    const berth_s64 base = (run & ~1LL) * width;\n";
  body += "    berth_s64 lo = 0;\n";
  body += "    if (partner < " + count + ") {\n";
  body += "      const berth_s64 partner_length = " + count + " - partner < width ? " + count +
          " - partner : width;\n";
  body += "      const bool left = (run & 1) == 0;\n";
  const stablehlo::Block& comparator = op.region(0).entry_block();
  for (size_t o = 0; o < n; ++o) {
    const ElementType t = op.operand(o)->type().element_type();
    const std::string id = std::to_string(o);
    body += "      const " + std::string(ComputeType(t)) + " self" + id + " = " +
            Load(t, "from" + id + "[here]") + ";\n";
  }
  body += "      berth_s64 hi = partner_length;\n";
  body += "      while (lo < hi) {\n";
  body += "        const berth_s64 mid = lo + (hi - lo) / 2;\n";
  body += "        const berth_s64 there = " + element("partner + mid") + ";\n";
  std::unordered_map<const stablehlo::Value*, std::string> names;
  for (size_t o = 0; o < n; ++o) {
    const ElementType t = op.operand(o)->type().element_type();
    const std::string id = std::to_string(o), compute = ComputeType(t);
    body += "        const " + compute + " other" + id + " = " + Load(t, "from" + id + "[there]") +
            ";\n";
    // A left element asks comparator(other, self), a right one
    // comparator(self, other).
    body += "        const " + compute + " first" + id + " = left ? other" + id + " : self" + id +
            ";\n";
    body += "        const " + compute + " second" + id + " = left ? self" + id + " : other" + id +
            ";\n";
    names[comparator.argument(2 * o)] = "first" + id;
    names[comparator.argument(2 * o + 1)] = "second" + id;
  }
  int next = 0;
  BERTH_RETURN_IF_ERROR(EmitBlockOps(kernel.name, comparator, "        ", names, next, body));
  // Left: the partner's elements that come before self are a prefix; right:
  // those self does not come before.
  body += "        const bool before = " + names.at(comparator.terminator()->operand(0)) + ";\n";
  body += "        if (left == before) lo = mid + 1; else hi = mid;\n";
  body += "      }\n";
  body += "    }\n";
  body +=
      "    const berth_s64 target = " + element("base + (" + j + " - run * width) + lo") + ";\n";
  for (size_t o = 0; o < n; ++o) {
    const std::string id = std::to_string(o);
    body += "    to" + id + "[target] = from" + id + "[here];\n";
  }
  return WrapKernel(kernel.name, KernelParams(kernel), body);
}

}  // namespace

Result<std::string> EmitSortKernel(const FusedKernel& kernel) {
  const Operation& op = *kernel.root;
  BERTH_RETURN_IF_ERROR(CheckSort(op));

  if (!kernel.launches.empty()) return EmitMergeSortKernel(kernel);
  const stablehlo::Type type = op.operand(0)->type();
  const int64_t dimension = *op.GetInt("dimension");
  const int64_t length = type.dim(dimension);
  const size_t rank = static_cast<size_t>(type.rank()), n = op.num_operands();
  std::string params = KernelParams(kernel), body;
  // The row's position in the other dimensions; element k of the row is at
  // index `at` with `at[dimension]` = k.
  std::vector<int64_t> others;
  for (size_t d = 0; d < rank; ++d) {
    if (static_cast<int64_t>(d) != dimension) others.push_back(static_cast<int64_t>(d));
  }
  std::vector<std::string> at(rank);
  EmitDecompose("i", others, type.shape(), "s", "    ", body, at);
  // Element k of the row in buffer `array` (an input or a result).
  auto element = [&](const std::string& array, const std::string& k) {
    std::vector<std::string> index = at;
    index[static_cast<size_t>(dimension)] = k;
    return array + "[" + LinearIndex(index, type.shape()) + "]";
  };
  const std::string count = std::to_string(length) + "LL";
  // Elements move as their stored bits (NaN payloads kept, as the cpu
  // plugin moves them); the comparator reads their values. The planner
  // writes out operands that are views, so each is an input.
  std::vector<std::string> inputs;
  for (size_t j = 0; j < n; ++j) {
    BERTH_ASSIGN_OR_RETURN(const std::string input, InputParam(kernel, op.operand(j)));
    inputs.push_back(input);
  }
  body += "    for (berth_s64 k = 0; k < " + count + "; ++k) {\n";
  for (size_t j = 0; j < n; ++j) {
    body += "      " + element("out" + std::to_string(j), "k") + " = " + element(inputs[j], "k") +
            ";\n";
  }
  body += "    }\n";
  // Insertion: element k moves left while the comparator puts it before
  // the element there.
  const stablehlo::Block& comparator = op.region(0).entry_block();
  std::unordered_map<const stablehlo::Value*, std::string> names;
  int next = 0;
  body += "    for (berth_s64 k = 1; k < " + count + "; ++k) {\n";
  for (size_t j = 0; j < n; ++j) {
    const ElementType type_j = op.operand(j)->type().element_type();
    const std::string out = "out" + std::to_string(j), id = std::to_string(j);
    body += "      const " + std::string(StorageType(type_j)) + " moving" + id + " = " +
            element(out, "k") + ";\n";
    body += "      const " + std::string(ComputeType(type_j)) + " key" + id + " = " +
            Load(type_j, "moving" + id) + ";\n";
    names[comparator.argument(2 * j)] = "key" + id;
  }
  body += "      berth_s64 p = k;\n      for (; p > 0; --p) {\n";
  for (size_t j = 0; j < n; ++j) {
    const ElementType type_j = op.operand(j)->type().element_type();
    const std::string id = std::to_string(j);
    body += "        const " + std::string(ComputeType(type_j)) + " before" + id + " = " +
            Load(type_j, element("out" + id, "p - 1")) + ";\n";
    names[comparator.argument(2 * j + 1)] = "before" + id;
  }
  BERTH_RETURN_IF_ERROR(EmitBlockOps(kernel.name, comparator, "        ", names, next, body));
  body += "        if (!(" + names.at(comparator.terminator()->operand(0)) + ")) break;\n";
  for (size_t j = 0; j < n; ++j) {
    const std::string out = "out" + std::to_string(j);
    body += "        " + element(out, "p") + " = " + element(out, "p - 1") + ";\n";
  }
  body += "      }\n";
  for (size_t j = 0; j < n; ++j) {
    const std::string id = std::to_string(j);
    body += "      " + element("out" + id, "p") + " = moving" + id + ";\n";
  }
  body += "    }\n";
  return WrapKernel(kernel.name, params, body);
}

// chlo.top_k, one thread per row: the row's elements in index order, each
// inserted into the descending list kept in the results (values as stored
// bits, indices) if it comes before its last entry - larger first, floats
// by totalOrder (NaNs first, +0 before -0), equal ones in index order, the
// cpu plugin's strict order, so the k kept are unique.
Result<std::string> EmitTopKKernel(const FusedKernel& kernel) {
  const Operation& op = *kernel.root;
  BERTH_RETURN_IF_ERROR(CheckTopK(op));
  BERTH_ASSIGN_OR_RETURN(const std::string input, InputParam(kernel, op.operand(0)));
  const stablehlo::Type in = op.operand(0)->type();
  const ElementType element = in.element_type(), index = op.result(1)->type().element_type();
  const int64_t n = in.dim(in.rank() - 1), k = *op.GetInt("k");
  const std::string t = ComputeType(element);
  // The order key of a compute value: totalOrder bits for floats.
  auto key = [&](const std::string& value) {
    return ClassOf(element) == Class::kFloat ? "berth_total_key(" + value + ")" : value;
  };
  const std::string rows_n = std::to_string(n) + "LL", kept_k = std::to_string(k) + "LL";
  std::string body;
  body += "    const " + std::string(StorageType(element)) + "* row = " + input + " + i * " +
          rows_n + ";\n";
  body += "    " + std::string(StorageType(element)) + "* values = out0 + i * " + kept_k + ";\n";
  body += "    " + std::string(StorageType(index)) + "* indices = out1 + i * " + kept_k + ";\n";
  body += "    berth_s64 count = 0;\n";
  body += "    for (berth_s64 j = 0; j < " + rows_n + "; ++j) {\n";
  body += "      const " + t + " x = " + Load(element, "row[j]") + ";\n";
  body += "      const auto x_key = " + key("x") + ";\n";
  // Where j goes: after every kept entry that comes before it (a larger
  // key, or an equal key: an earlier index).
  body += "      berth_s64 p = count;\n";
  body += "      while (p > 0) {\n";
  body += "        const " + t + " y = " + Load(element, "values[p - 1]") + ";\n";
  body += "        if (!(x_key > " + key("y") + ")) break;\n";
  body += "        --p;\n";
  body += "      }\n";
  body += "      if (p >= " + kept_k + ") continue;\n";
  body += "      const berth_s64 last = count < " + kept_k + " ? count : " + kept_k + " - 1;\n";
  body += "      for (berth_s64 q = last; q > p; --q) {\n";
  body += "        values[q] = values[q - 1];\n";
  body += "        indices[q] = indices[q - 1];\n";
  body += "      }\n";
  body += "      values[p] = row[j];\n";
  body += "      indices[p] = (" + std::string(StorageType(index)) + ")j;\n";
  body += "      if (count < " + kept_k + ") ++count;\n";
  body += "    }\n";
  return WrapKernel(kernel.name, KernelParams(kernel), body);
}

}  // namespace codegen

}  // namespace berth::cuda
