#include "lapack_call.hpp"

#include <algorithm>
#include <limits>
#include <utility>

namespace berth::ext::lapack {

std::vector<int64_t> MatrixBatch::With(std::initializer_list<int64_t> tail) const {
  std::vector<int64_t> dims = batch_dims;
  dims.insert(dims.end(), tail.begin(), tail.end());
  return dims;
}

std::string DimsToString(const int64_t* dims, size_t count) {
  std::string text = "[";
  for (size_t i = 0; i < count; ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(dims[i]);
  }
  return text + "]";
}

namespace {

// "operand 0 (x)".
std::string Describe(std::string_view kind, size_t index, std::string_view name) {
  return std::string(kind) + " " + std::to_string(index) + " (" + std::string(name) + ")";
}

}  // namespace

LapackCall::LapackCall(const BERTH_Ffi_CallFrame& frame)
    : frame_(frame), target_(frame.target, frame.target_size) {}

Status LapackCall::Error(StatusCode code, std::string_view problem) const {
  return Status(code, target_ + ": " + std::string(problem));
}

namespace {

// How many names the parenthesised list starting at `open` holds: "()" none,
// "(a, b)" two.
size_t CountNames(std::string_view signature, size_t open) {
  const size_t close = signature.find(')', open);
  if (open == std::string_view::npos || close == std::string_view::npos) return 0;
  const std::string_view names = signature.substr(open + 1, close - open - 1);
  if (names.find_first_not_of(' ') == std::string_view::npos) return 0;
  return 1 + static_cast<size_t>(std::count(names.begin(), names.end(), ','));
}

}  // namespace

Status LapackCall::ExpectSignature(std::string_view signature) const {
  const size_t operands = CountNames(signature, signature.find('('));
  const size_t results = CountNames(signature, signature.find('(', signature.find("->")));
  if (frame_.num_operands == operands && frame_.num_results == results) return OkStatus();
  return Invalid("takes " + std::to_string(operands) + " operands and returns " +
                 std::to_string(results) + " results " + std::string(signature) +
                 "; the call has " + std::to_string(frame_.num_operands) + " and " +
                 std::to_string(frame_.num_results));
}

Status LapackCall::ExpectBuffer(const BERTH_Ffi_Buffer& buffer, std::string_view what,
                                ElementType type, const std::vector<int64_t>* dims) const {
  const auto actual = static_cast<ElementType>(buffer.element_type);
  if (actual != type) {
    return Invalid(std::string(what) + " is " + std::string(ElementTypeName(actual)) +
                   "; expected " + std::string(ElementTypeName(type)));
  }
  if (dims != nullptr &&
      (buffer.num_dims != dims->size() || !std::equal(dims->begin(), dims->end(), buffer.dims))) {
    return Invalid(std::string(what) + " has dims " + DimsToString(buffer.dims, buffer.num_dims) +
                   "; expected " + DimsToString(*dims));
  }
  int64_t elements = 1;
  for (size_t i = 0; i < buffer.num_dims; ++i) elements *= buffer.dims[i];
  if (!preparing() && elements > 0 && buffer.data == nullptr) {
    return Invalid(std::string(what) + " has no data");
  }
  return OkStatus();
}

Result<MatrixBatch> LapackCall::MatrixOperand(size_t index, std::string_view name,
                                              ElementType type) const {
  const BERTH_Ffi_Buffer& buffer = frame_.operands[index];
  const std::string what = Describe("operand", index, name);
  if (buffer.num_dims < 2) {
    return Invalid(what + " has dims " + DimsToString(buffer.dims, buffer.num_dims) +
                   "; expected a matrix or a batch of matrices (rank >= 2)");
  }
  BERTH_RETURN_IF_ERROR(ExpectBuffer(buffer, what, type, nullptr));
  MatrixBatch batch;
  batch.batch_dims.assign(buffer.dims, buffer.dims + buffer.num_dims - 2);
  for (int64_t dim : batch.batch_dims) batch.batch *= dim;
  batch.rows = buffer.dims[buffer.num_dims - 2];
  batch.cols = buffer.dims[buffer.num_dims - 1];
  BERTH_RETURN_IF_ERROR(ExpectLapackSizes({batch.rows, batch.cols}));
  return batch;
}

Result<MatrixBatch> LapackCall::SquareMatrixOperand(size_t index, std::string_view name,
                                                    ElementType type) const {
  BERTH_ASSIGN_OR_RETURN(MatrixBatch x, MatrixOperand(index, name, type));
  if (x.rows == x.cols) return x;
  return Invalid(std::string(name) + " has " + std::to_string(x.rows) + " x " +
                 std::to_string(x.cols) + " matrices; this routine takes square ones");
}

Result<SymmetricBatch> LapackCall::SymmetricMatrixOperand(size_t index, std::string_view name,
                                                          ElementType type) const {
  BERTH_ASSIGN_OR_RETURN(MatrixBatch square, SquareMatrixOperand(index, name, type));
  BERTH_ASSIGN_OR_RETURN(char uplo, CharAttribute("uplo", "LU"));
  return SymmetricBatch{std::move(square), uplo};
}

Result<int64_t> LapackCall::VectorOperand(size_t index, std::string_view name, ElementType type,
                                          const MatrixBatch& x) const {
  const BERTH_Ffi_Buffer& buffer = frame_.operands[index];
  BERTH_RETURN_IF_ERROR(ExpectBatched(buffer, Describe("operand", index, name), type, x, 1));
  return buffer.dims[buffer.num_dims - 1];
}

Status LapackCall::ExpectOperand(size_t index, std::string_view name, ElementType type,
                                 const std::vector<int64_t>& dims) const {
  return ExpectBuffer(frame_.operands[index], Describe("operand", index, name), type, &dims);
}

Status LapackCall::ExpectResult(size_t index, std::string_view name, ElementType type,
                                const std::vector<int64_t>& dims) const {
  return ExpectBuffer(frame_.results[index], Describe("result", index, name), type, &dims);
}

Result<MatrixBatch> LapackCall::MatrixResult(size_t index, std::string_view name, ElementType type,
                                             const MatrixBatch& x) const {
  const BERTH_Ffi_Buffer& buffer = frame_.results[index];
  BERTH_RETURN_IF_ERROR(ExpectBatched(buffer, Describe("result", index, name), type, x, 2));
  MatrixBatch batch = x;
  batch.rows = buffer.dims[buffer.num_dims - 2];
  batch.cols = buffer.dims[buffer.num_dims - 1];
  return batch;
}

Status LapackCall::ExpectBatched(const BERTH_Ffi_Buffer& buffer, const std::string& what,
                                 ElementType type, const MatrixBatch& x, size_t trailing) const {
  if (buffer.num_dims != x.batch_dims.size() + trailing ||
      !std::equal(x.batch_dims.begin(), x.batch_dims.end(), buffer.dims)) {
    return Invalid(what + " has dims " + DimsToString(buffer.dims, buffer.num_dims) +
                   "; expected the batch dims " + DimsToString(x.batch_dims) + " followed by " +
                   (trailing == 1 ? "one vector dim" : "two matrix dims"));
  }
  return ExpectBuffer(buffer, what, type, nullptr);
}

Status LapackCall::ExpectLapackSizes(std::initializer_list<int64_t> dims) const {
  for (int64_t dim : dims) {
    if (dim > std::numeric_limits<lapack_int>::max()) {
      return Error(StatusCode::kUnimplemented,
                   "matrix dim " + std::to_string(dim) +
                       " does not fit LAPACK's 32-bit INTEGER (the module calls LP64 LAPACK)");
    }
  }
  return OkStatus();
}

const BERTH_NamedValue* LapackCall::FindAttribute(std::string_view name) const {
  for (size_t i = 0; i < frame_.num_attributes; ++i) {
    const BERTH_NamedValue& value = frame_.attributes[i];
    if (std::string_view(value.name, value.name_size) == name) return &value;
  }
  return nullptr;
}

Result<int64_t> LapackCall::IntAttribute(std::string_view name) const {
  const BERTH_NamedValue* value = FindAttribute(name);
  if (value == nullptr) {
    return Invalid("attribute '" + std::string(name) + "' is missing; expected an integer");
  }
  if (value->type != BERTH_NamedValue_Type_Int64) {
    return Invalid("attribute '" + std::string(name) + "' is not an integer");
  }
  return value->int64_value;
}

Result<char> LapackCall::CharAttribute(std::string_view name, std::string_view allowed) const {
  std::string choices;
  for (char option : allowed) {
    if (!choices.empty()) choices += ", ";
    choices += "'" + std::string(1, option) + "' (" + std::to_string(int{option}) + ")";
  }
  const BERTH_NamedValue* value = FindAttribute(name);
  if (value == nullptr) {
    return Invalid("attribute '" + std::string(name) + "' is missing; expected one of " + choices +
                   " as a ui8 in mhlo.backend_config");
  }
  if (value->type != BERTH_NamedValue_Type_Int64) {
    return Invalid("attribute '" + std::string(name) + "' is not an integer; expected one of " +
                   choices);
  }
  for (char option : allowed) {
    if (value->int64_value == option) return option;
  }
  return Invalid("attribute '" + std::string(name) + "' is " + std::to_string(value->int64_value) +
                 "; expected one of " + choices);
}

}  // namespace berth::ext::lapack
