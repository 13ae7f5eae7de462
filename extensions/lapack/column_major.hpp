// Between the frame's layout and LAPACK's.
//
// A handler sees every buffer dense and major-to-minor (berth/ext/ffi.h),
// whatever the custom call's operand_layouts / result_layouts say: those
// describe the physical layout XLA gives the kernel (column-major matrices,
// batch dims outermost), and Berth's cpu plugin keeps tensors row-major. So
// the module copies each matrix into a column-major workspace before the
// routine and back afterwards; LAPACK overwrites its input, so a copy was
// needed anyway, and it is O(n^2) next to the routine's O(n^3).
#ifndef BERTH_EXTENSIONS_LAPACK_COLUMN_MAJOR_HPP_
#define BERTH_EXTENSIONS_LAPACK_COLUMN_MAJOR_HPP_

#include <algorithm>
#include <complex>
#include <cstdint>
#include <vector>

#include "fortran.hpp"

namespace berth::ext::lapack {

// Copies the rows x cols row-major matrix `from` into column-major `to`
// (leading dim `rows`).
template <typename T>
void ToColumnMajor(const T* from, int64_t rows, int64_t cols, T* to) {
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) to[c * rows + r] = from[r * cols + c];
  }
}

// Copies the rows x cols column-major matrix `from` (leading dim `rows`)
// into row-major `to`.
template <typename T>
void FromColumnMajor(const T* from, int64_t rows, int64_t cols, T* to) {
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) to[r * cols + c] = from[c * rows + r];
  }
}

// For each of the `batch` rows x cols row-major matrices of `in`: copies it
// into a column-major workspace, calls `routine(workspace, i)` (i the
// matrix's index), and copies the workspace into the same matrix of `out`.
template <typename T, typename Routine>
void InColumnMajor(const T* in, T* out, int64_t batch, int64_t rows, int64_t cols,
                   Routine routine) {
  const int64_t size = rows * cols;
  std::vector<T> workspace(size);
  for (int64_t i = 0; i < batch; ++i) {
    ToColumnMajor(in + i * size, rows, cols, workspace.data());
    routine(workspace.data(), i);
    FromColumnMajor(workspace.data(), rows, cols, out + i * size);
  }
}

// LAPACK's leading dimension for `rows` rows: at least 1, even for an empty
// matrix.
inline lapack_int LeadingDim(int64_t rows) {
  return static_cast<lapack_int>(std::max<int64_t>(rows, 1));
}

// An m x n column-major matrix as LAPACK takes it: its sizes and leading
// dimension (lda).
struct FortranShape {
  lapack_int m;
  lapack_int n;
  lapack_int lda;
};
inline FortranShape FortranShapeOf(int64_t rows, int64_t cols) {
  return {static_cast<lapack_int>(rows), static_cast<lapack_int>(cols), LeadingDim(rows)};
}

// The optimal workspace a routine reported for a query (lwork = -1), as a
// count of at least 1.
template <typename T>
lapack_int WorkspaceSize(T reported) {
  return std::max<lapack_int>(static_cast<lapack_int>(std::real(reported)), 1);
}

// Asks a routine for its optimal workspace: `query(optimal, lwork)` calls it
// with *lwork = -1, and the routine writes the size into *optimal.
template <typename T, typename Query>
lapack_int QueryWorkspace(Query query) {
  T optimal{};
  const lapack_int lwork = -1;
  query(&optimal, &lwork);
  return WorkspaceSize(optimal);
}

}  // namespace berth::ext::lapack

#endif  // BERTH_EXTENSIONS_LAPACK_COLUMN_MAJOR_HPP_
