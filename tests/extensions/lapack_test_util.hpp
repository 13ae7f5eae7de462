// Helpers of the LAPACK module's tests: a cpu runner whose host finds the
// bundled module's build-tree manifest, programs written the way JAX exports
// jnp.linalg (one custom call with mhlo.backend_config, column-major
// operand_layouts and result_layouts, the first result aliasing an
// operand), seeded random matrices, and the row-major arithmetic the checks
// use (each test reconstructs its input from the factors it got back).
#ifndef BERTH_TESTS_EXTENSIONS_LAPACK_TEST_UTIL_HPP_
#define BERTH_TESTS_EXTENSIONS_LAPACK_TEST_UTIL_HPP_

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <fstream>
#include <limits>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "lapack_types.hpp"
#include "program_runner.hpp"

namespace berth::testing {

// The cpu runner of this process, its host finding the module through the
// manifest configs/ writes for the build tree.
inline CpuRunner& LapackRunner() {
  static CpuRunner* runner = [] {
    std::ifstream in(BERTH_LAPACK_MANIFEST);
    std::stringstream text;
    text << in.rdbuf();
    return new CpuRunner({{"lapack.json", text.str()}});
  }();
  return *runner;
}

// The matrix sizes every routine is tested at: around the 4-, 8- and
// 16-lane vector widths, 1 and empty.
inline const std::vector<int64_t> kSizes = {0, 1, 2, 3, 7, 8, 9, 16, 17, 33};
// Every size of kSizes with each batch shape tried at it: no batch dims,
// one, and, for the small sizes, two and an empty batch.
inline std::vector<std::pair<int64_t, std::vector<int64_t>>> SizesAndBatches() {
  std::vector<std::pair<int64_t, std::vector<int64_t>>> shapes;
  for (int64_t n : kSizes) {
    const std::vector<std::vector<int64_t>> batches =
        n > 9 ? std::vector<std::vector<int64_t>>{{}, {2}}
              : std::vector<std::vector<int64_t>>{{}, {3}, {2, 2}, {0}};
    for (const std::vector<int64_t>& batch : batches) shapes.emplace_back(n, batch);
  }
  return shapes;
}

using ext::lapack::c128;
using ext::lapack::c64;
using ext::lapack::kIsComplex;
using ext::lapack::Real;

// The type the checks compute in: double, or complex<double>.
template <typename T>
using Wide = std::conditional_t<kIsComplex<T>, c128, double>;

template <typename T>
Wide<T> ToWide(T value) {
  return static_cast<Wide<T>>(value);
}
template <typename T>
T Conj(T value) {
  if constexpr (kIsComplex<T>) {
    return std::conj(value);
  } else {
    return value;
  }
}

template <typename T>
constexpr const char* MlirType() {
  if constexpr (std::is_same_v<T, float>) return "f32";
  if constexpr (std::is_same_v<T, double>) return "f64";
  if constexpr (std::is_same_v<T, c64>) return "complex<f32>";
  return "complex<f64>";
}
// The LAPACK type prefix: s, d, c, z.
template <typename T>
constexpr char Prefix() {
  if constexpr (std::is_same_v<T, float>) return 's';
  if constexpr (std::is_same_v<T, double>) return 'd';
  if constexpr (std::is_same_v<T, c64>) return 'c';
  return 'z';
}
// Routine names that differ between real and complex types.
template <typename T>
std::string Target(const char* real_routine, const char* complex_routine) {
  return std::string("lapack_") + Prefix<T>() + (kIsComplex<T> ? complex_routine : real_routine) +
         "_ffi";
}

// One operand or result of a custom call: dims, element type, and whether
// JAX gives it a matrix layout (the last two dims column-major) or a
// vector/scalar one.
struct CallValue {
  std::vector<int64_t> dims;
  std::string element;
  bool matrix = false;
};

inline std::vector<int64_t> Concat(std::vector<int64_t> a, const std::vector<int64_t>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

inline std::string TensorType(const CallValue& value) {
  std::string text = "tensor<";
  for (int64_t dim : value.dims) text += std::to_string(dim) + "x";
  return text + value.element + ">";
}

// minor_to_major as jaxlib writes it: (r-2, r-1, r-3, ..., 0) for a matrix,
// (r-1, ..., 0) otherwise.
inline std::string JaxLayout(const CallValue& value) {
  const int64_t rank = static_cast<int64_t>(value.dims.size());
  std::vector<int64_t> order;
  if (value.matrix) {
    order = {rank - 2, rank - 1};
    for (int64_t d = rank - 3; d >= 0; --d) order.push_back(d);
  } else {
    for (int64_t d = rank - 1; d >= 0; --d) order.push_back(d);
  }
  std::string text = "dense<";
  if (order.size() == 1) {
    text += std::to_string(order[0]);
  } else if (order.size() > 1) {
    text += "[";
    for (size_t i = 0; i < order.size(); ++i) text += (i ? ", " : "") + std::to_string(order[i]);
    text += "]";
  }
  return text + "> : tensor<" + std::to_string(order.size()) + "xindex>";
}

inline std::string TypeList(const std::vector<CallValue>& values) {
  std::string text;
  for (size_t i = 0; i < values.size(); ++i) text += (i ? ", " : "") + TensorType(values[i]);
  return text;
}

// `%<name>:<count> = stablehlo.custom_call @target(<operands>) {...}` as
// jaxlib's lowering writes it; `backend_config` is the text inside
// mhlo.backend_config's braces (`uplo = 76 : ui8`); `aliased` the operand
// the first result aliases, when any.
inline std::string JaxCustomCall(const std::string& name, const std::string& target,
                                 const std::vector<std::string>& operand_names,
                                 const std::vector<CallValue>& operands,
                                 const std::vector<CallValue>& results,
                                 const std::string& backend_config,
                                 std::optional<int> aliased = 0) {
  std::string text = "  %" + name +
                     (results.size() > 1 ? ":" + std::to_string(results.size()) : "") +
                     " = stablehlo.custom_call @" + target + "(";
  for (size_t i = 0; i < operand_names.size(); ++i) text += (i ? ", %" : "%") + operand_names[i];
  text += ") {api_version = 4 : i32, mhlo.backend_config = {" + backend_config +
          "}, operand_layouts = [";
  for (size_t i = 0; i < operands.size(); ++i) text += (i ? ", " : "") + JaxLayout(operands[i]);
  text += "]";
  if (aliased) {
    text += ", output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = "
            "[0], operand_index = " +
            std::to_string(*aliased) + ", operand_tuple_indices = []>]";
  }
  text += ", result_layouts = [";
  for (size_t i = 0; i < results.size(); ++i) text += (i ? ", " : "") + JaxLayout(results[i]);
  text += "]} : (" + TypeList(operands) + ") -> (" + TypeList(results) + ")\n";
  return text;
}

// A program whose arguments are the call's operands and whose results are
// the call's results.
inline std::string JaxProgram(const std::string& target, const std::vector<CallValue>& operands,
                              const std::vector<CallValue>& results,
                              const std::string& backend_config, std::optional<int> aliased = 0) {
  std::string text = "func.func public @main(";
  std::vector<std::string> names;
  for (size_t i = 0; i < operands.size(); ++i) {
    names.push_back("arg" + std::to_string(i));
    text += (i ? ", %" : "%") + names.back() + ": " + TensorType(operands[i]);
  }
  text += ") -> (" + TypeList(results) + ") {\n";
  text += JaxCustomCall("0", target, names, operands, results, backend_config, aliased);
  text += "  return ";
  for (size_t i = 0; i < results.size(); ++i) {
    text += (i ? ", %0" : "%0") + (results.size() > 1 ? "#" + std::to_string(i) : "");
  }
  text += " : " + TypeList(results) + "\n}\n";
  return text;
}

inline int64_t Product(const std::vector<int64_t>& dims) {
  int64_t product = 1;
  for (int64_t dim : dims) product *= dim;
  return product;
}

// Uniform values in [-1, 1) from a seed.
// (Complex values: both parts so.)
template <typename T>
std::vector<T> RandomValues(int64_t count, uint32_t seed) {
  std::mt19937 engine(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<T> values(count);
  for (T& value : values) {
    if constexpr (kIsComplex<T>) {
      const double re = uniform(engine);
      value = T(static_cast<Real<T>>(re), static_cast<Real<T>>(uniform(engine)));
    } else {
      value = static_cast<T>(uniform(engine));
    }
  }
  return values;
}

// Row-major m x k times k x n, accumulated in double (complex<double>).
template <typename T>
std::vector<Wide<T>> MatMul(const T* a, const T* b, int64_t m, int64_t k, int64_t n) {
  std::vector<Wide<T>> out(m * n, Wide<T>{0});
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t p = 0; p < k; ++p) {
      const Wide<T> a_ip = ToWide(a[i * k + p]);
      for (int64_t j = 0; j < n; ++j) out[i * n + j] += a_ip * ToWide(b[p * n + j]);
    }
  }
  return out;
}

template <typename T>
std::vector<T> Transpose(const T* a, int64_t rows, int64_t cols) {
  std::vector<T> out(rows * cols);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) out[c * rows + r] = a[r * cols + c];
  }
  return out;
}

// The conjugate transpose (the transpose, for real T).
template <typename T>
std::vector<T> Adjoint(const T* a, int64_t rows, int64_t cols) {
  std::vector<T> out(rows * cols);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) out[c * rows + r] = Conj(a[r * cols + c]);
  }
  return out;
}

template <typename T>
double FrobeniusNorm(const T* a, int64_t count) {
  double sum = 0;
  for (int64_t i = 0; i < count; ++i) sum += std::norm(ToWide(a[i]));
  return std::sqrt(sum);
}

// The largest |a[i] - b[i]|.
template <typename A, typename B>
double MaxDifference(const A* a, const B* b, int64_t count) {
  double worst = 0;
  for (int64_t i = 0; i < count; ++i)
    worst = std::max(worst, static_cast<double>(std::abs(ToWide(a[i]) - ToWide(b[i]))));
  return worst;
}

// How far a reconstruction of an n-sized problem may stray: n * eps * norm,
// with a constant that leaves room for LAPACK's backward-error bounds.
template <typename T>
double Tolerance(int64_t n, double norm) {
  return 32.0 * static_cast<double>(std::max<int64_t>(n, 1)) *
         std::numeric_limits<Real<T>>::epsilon() * std::max(norm, 1.0);
}

// Q^H Q = I for the rows x cols row-major q (orthonormal columns).
template <typename T>
void ExpectOrthonormalColumns(const T* q, int64_t rows, int64_t cols, const std::string& what) {
  std::vector<T> qh = Adjoint(q, rows, cols);
  std::vector<Wide<T>> gram = MatMul(qh.data(), q, cols, rows, cols);
  std::vector<Wide<T>> identity(cols * cols, Wide<T>{0});
  for (int64_t d = 0; d < cols; ++d) identity[d * cols + d] = Wide<T>{1};
  EXPECT_LE(MaxDifference(gram.data(), identity.data(), cols * cols),
            Tolerance<T>(std::max(rows, cols), std::sqrt(static_cast<double>(cols))))
      << what << ": Q^H Q is not the identity";
}

// A product of the factors of the n x n matrix x (row-major), rebuilt
// within Tolerance; `what` names the matrix, `product_name` the product
// ("L L^T").
template <typename T>
void ExpectRebuilds(const std::vector<Wide<T>>& product, const T* x, int64_t n,
                    const std::string& what, const std::string& product_name) {
  EXPECT_LE(MaxDifference(product.data(), x, n * n), Tolerance<T>(n, FrobeniusNorm(x, n * n)))
      << what << ": " << product_name << " differs from x";
}

// q m q^H rebuilds the n x n matrix x (q m rounded to T first), and q's
// columns are orthonormal; `q_name` names q and m in messages ("Q T").
template <typename T>
void ExpectOrthogonalSimilarity(const T* q, const T* m, const T* x, int64_t n,
                                const std::string& what, const std::string& q_name) {
  std::vector<Wide<T>> qm_product = MatMul(q, m, n, n, n);
  std::vector<T> qm(qm_product.begin(), qm_product.end());
  std::vector<T> q_adjoint = Adjoint(q, n, n);
  ExpectRebuilds(MatMul(qm.data(), q_adjoint.data(), n, n, n), x, n, what,
                 q_name + " " + q_name.substr(0, 1) + "^H");
  ExpectOrthonormalColumns(q, n, n, what);
}

// Runs `program` on `args`, failing the test on any error.
inline std::vector<Literal> MustRun(const std::string& program, const std::vector<Literal>& args) {
  Result<std::vector<Literal>> out = LapackRunner().Run(program, args);
  EXPECT_TRUE(out.ok()) << out.status().ToString() << "\n" << program;
  return out.ok() ? std::move(out).value() : std::vector<Literal>();
}

inline std::string DimsText(const std::vector<int64_t>& dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i) text += (i ? ", " : "") + std::to_string(dims[i]);
  return text + "]";
}

// Calls check(n, batch, uplo, seed) for every size and batch and both
// triangles, 'L' then 'U', the seed counting up from `seed`.
template <typename F>
void ForEverySizeAndTriangle(uint32_t seed, F&& check) {
  for (const auto& [n, batch] : SizesAndBatches()) {
    for (char uplo : {'L', 'U'}) check(n, batch, uplo, seed++);
  }
}

using RealTypes = ::testing::Types<float, double>;
using LapackTypes = ::testing::Types<float, double, c64, c128>;

}  // namespace berth::testing

#endif  // BERTH_TESTS_EXTENSIONS_LAPACK_TEST_UTIL_HPP_
