// LapackCall: one custom call as a LAPACK handler sees it - the frame of
// berth/ext/ffi.h with checks that name the target and the offending
// operand, result or attribute, and typed access to the data.
//
// Every check runs at both stages (PREPARE: types and dims only; EXECUTE:
// the same, then the data), so a call site that does not fit its target
// fails the compile. Matrices are the last two dims of a buffer; the dims
// before them are batch dims, the same for every operand and result of a
// call.
#ifndef BERTH_EXTENSIONS_LAPACK_LAPACK_CALL_HPP_
#define BERTH_EXTENSIONS_LAPACK_LAPACK_CALL_HPP_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "berth/element_type.hpp"
#include "berth/ext/ffi.h"
#include "berth/status.hpp"
#include "fortran.hpp"

namespace berth::ext::lapack {

// The batch and matrix dims of a buffer of rank >= 2.
struct MatrixBatch {
  std::vector<int64_t> batch_dims;
  int64_t batch = 1;  // product of batch_dims
  int64_t rows = 0;
  int64_t cols = 0;

  int64_t matrix_size() const { return rows * cols; }
  // batch_dims followed by `tail`: the dims of a per-matrix array.
  std::vector<int64_t> With(std::initializer_list<int64_t> tail) const;
};

// A batch of symmetric matrices, of which a routine reads the triangle that
// `uplo` names: 'L' the lower one, 'U' the upper.
struct SymmetricBatch : MatrixBatch {
  char uplo = 'L';
};

// The element type a LAPACK routine of T works on.
template <typename T>
constexpr ElementType ElementTypeOf() {
  if constexpr (std::is_same_v<T, float>)
    return ElementType::kF32;
  else if constexpr (std::is_same_v<T, double>)
    return ElementType::kF64;
  else if constexpr (std::is_same_v<T, c64>)
    return ElementType::kC64;
  else if constexpr (std::is_same_v<T, c128>)
    return ElementType::kC128;
  else if constexpr (std::is_same_v<T, lapack_int>)
    return ElementType::kS32;
  else
    static_assert(sizeof(T) == 0, "no element type for T");
}

class LapackCall {
 public:
  explicit LapackCall(const BERTH_Ffi_CallFrame& frame);

  const std::string& target() const { return target_; }
  bool preparing() const { return frame_.stage == BERTH_Ffi_Stage_Prepare; }

  // An error whose message starts with the target.
  Status Error(StatusCode code, std::string_view problem) const;
  Status Invalid(std::string_view problem) const {
    return Error(StatusCode::kInvalidArgument, problem);
  }

  // The call has as many operands and results as `signature` names
  // ("(x) -> (lu, pivots, info)": one and three); the message quotes it.
  Status ExpectSignature(std::string_view signature) const;

  // Operand `index`, named `name` in messages, is a batch of matrices of T.
  Result<MatrixBatch> MatrixOperand(size_t index, std::string_view name, ElementType type) const;
  // The same, for routines that take square matrices only.
  Result<MatrixBatch> SquareMatrixOperand(size_t index, std::string_view name,
                                          ElementType type) const;
  // The same, for routines that read one triangle of symmetric matrices:
  // the one the call's `uplo` attribute names.
  Result<SymmetricBatch> SymmetricMatrixOperand(size_t index, std::string_view name,
                                                ElementType type) const;
  // Operand `index` is one vector of `type` per matrix of `x` (dims: x's batch
  // dims and one more); returns the vectors' length.
  Result<int64_t> VectorOperand(size_t index, std::string_view name, ElementType type,
                                const MatrixBatch& x) const;
  // Operand or result `index` has element type `type` and exactly `dims`.
  Status ExpectOperand(size_t index, std::string_view name, ElementType type,
                       const std::vector<int64_t>& dims) const;
  Status ExpectResult(size_t index, std::string_view name, ElementType type,
                      const std::vector<int64_t>& dims) const;
  // Result `index` has element type `type` and the batch dims of `x` (and
  // any two matrix dims after them).
  Result<MatrixBatch> MatrixResult(size_t index, std::string_view name, ElementType type,
                                   const MatrixBatch& x) const;
  // Each of `dims` fits LAPACK's 32-bit INTEGER.
  Status ExpectLapackSizes(std::initializer_list<int64_t> dims) const;

  // A one-character option JAX writes as a ui8 attribute (uplo = 76 : ui8
  // for 'L'), one of `allowed`.
  Result<char> CharAttribute(std::string_view name, std::string_view allowed) const;

  // An integer attribute (gehrd's `low = 1 : i32`).
  Result<int64_t> IntAttribute(std::string_view name) const;

  template <typename T>
  const T* operand(size_t index) const {
    return static_cast<const T*>(frame_.operands[index].data);
  }
  template <typename T>
  T* result(size_t index) const {
    return static_cast<T*>(frame_.results[index].data);
  }

 private:
  // `buffer` has element type `type` and, when given, exactly `dims`; at
  // EXECUTE, data unless it is empty.
  Status ExpectBuffer(const BERTH_Ffi_Buffer& buffer, std::string_view what, ElementType type,
                      const std::vector<int64_t>* dims) const;
  // `buffer` has type `type`, x's batch dims and `trailing` (1 or 2) more.
  Status ExpectBatched(const BERTH_Ffi_Buffer& buffer, const std::string& what, ElementType type,
                       const MatrixBatch& x, size_t trailing) const;
  const BERTH_NamedValue* FindAttribute(std::string_view name) const;

  const BERTH_Ffi_CallFrame& frame_;
  std::string target_;
};

// "[2, 3, 3]".
std::string DimsToString(const int64_t* dims, size_t count);
inline std::string DimsToString(const std::vector<int64_t>& dims) {
  return DimsToString(dims.data(), dims.size());
}

}  // namespace berth::ext::lapack

#endif  // BERTH_EXTENSIONS_LAPACK_LAPACK_CALL_HPP_
