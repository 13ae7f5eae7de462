// stablehlo.fft (FFT, IFFT, RFFT, IRFFT over 1 to 3 innermost dimensions)
// against a direct discrete Fourier transform computed here in long double,
// on seeded random inputs: lengths 1, 2, odd and prime lengths, powers of
// two and multiples of 4 (kissfft's real-input fast path), batch
// dimensions, empty tensors; round trips; and the refusals.
#include <complex>
#include <numbers>
#include <random>

#include "kernel_test_util.hpp"

namespace berth::testing {
namespace {

using c64 = std::complex<float>;
using c128 = std::complex<double>;
using cld = std::complex<long double>;

std::string Dims(const std::vector<int64_t>& dims) {
  std::string out;
  for (int64_t d : dims) out += std::to_string(d) + "x";
  return out;
}

template <typename C>
std::string Element() {
  return std::is_same_v<C, c64> ? "complex<f32>" : "complex<f64>";
}

template <typename C>
std::vector<C> Random(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-1, 1);
  std::vector<C> out(n);
  for (C& v : out) {
    double re = dist(rng);
    v = C(static_cast<typename C::value_type>(re), static_cast<typename C::value_type>(dist(rng)));
  }
  return out;
}

int64_t Count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

// The direct DFT of `data` (row-major, `dims`) along dimension `d`, in
// place: X[k] = sum_j x[j] e^(-+2 pi i j k / n), divided by n when inverse.
void DftAlong(std::vector<cld>& data, const std::vector<int64_t>& dims, size_t d, bool inverse) {
  const int64_t n = dims[d];
  int64_t inner = 1;
  for (size_t i = d + 1; i < dims.size(); ++i) inner *= dims[i];
  const int64_t outer = Count(dims) / std::max<int64_t>(1, n * inner);
  const long double sign = inverse ? 1.0L : -1.0L;
  std::vector<cld> line(static_cast<size_t>(n));
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      cld* base = data.data() + o * n * inner + in;
      for (int64_t k = 0; k < n; ++k) {
        cld sum = 0;
        for (int64_t j = 0; j < n; ++j) {
          long double angle = sign * 2 * std::numbers::pi_v<long double> *
                              static_cast<long double>((j * k) % n) / n;
          sum += base[j * inner] * cld(std::cos(angle), std::sin(angle));
        }
        line[static_cast<size_t>(k)] = inverse ? sum / static_cast<long double>(n) : sum;
      }
      for (int64_t k = 0; k < n; ++k) base[k * inner] = line[static_cast<size_t>(k)];
    }
  }
}

template <typename C>
std::vector<cld> Widen(const std::vector<C>& v) {
  std::vector<cld> out;
  for (C x : v) out.emplace_back(x.real(), x.imag());
  return out;
}

// Max |got - want| over elements must stay below `tolerance` times the
// transform's scale (the sum of |x|, a bound on every output).
template <typename C>
void ExpectNear(const std::vector<C>& got, const std::vector<cld>& want, long double scale,
                const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  const long double tolerance =
      (std::is_same_v<C, c64> ? 1e-6L : 1e-14L) * std::max<long double>(1, scale);
  for (size_t i = 0; i < got.size(); ++i) {
    long double error = std::abs(cld(got[i].real(), got[i].imag()) - want[i]);
    ASSERT_LE(error, tolerance) << what << " element " << i << ": got (" << got[i].real() << ", "
                                << got[i].imag() << "), want ("
                                << static_cast<double>(want[i].real()) << ", "
                                << static_cast<double>(want[i].imag()) << ")";
  }
}

std::string FftProgram(const std::string& type, const std::vector<int64_t>& lengths,
                       const std::string& in_type, const std::string& out_type) {
  std::string list;
  for (size_t i = 0; i < lengths.size(); ++i) list += (i ? ", " : "") + std::to_string(lengths[i]);
  return "func.func @main(%a: " + in_type + ") -> " + out_type +
         " {\n  %0 = stablehlo.fft %a, type = " + type + ", length = [" + list + "] : (" + in_type +
         ") -> " + out_type + "\n  return %0 : " + out_type + "\n}\n";
}

// FFT or IFFT of random values with `dims`, over the last lengths.size().
template <typename C>
void CheckComplex(bool inverse, const std::vector<int64_t>& dims, size_t k, uint32_t seed) {
  std::vector<int64_t> lengths(dims.end() - static_cast<std::ptrdiff_t>(k), dims.end());
  std::vector<C> in = Random<C>(static_cast<size_t>(Count(dims)), seed);
  std::string type = "tensor<" + Dims(dims) + Element<C>() + ">";
  std::string what = std::string(inverse ? "IFFT" : "FFT") + " " + type;
  std::vector<Literal> out = RunProgram(FftProgram(inverse ? "IFFT" : "FFT", lengths, type, type),
                                        {Literal::Of(in, dims)});
  ASSERT_EQ(out.size(), 1u) << what;
  std::vector<cld> want = Widen(in);
  for (size_t i = 0; i < k; ++i) DftAlong(want, dims, dims.size() - 1 - i, inverse);
  long double scale = static_cast<long double>(Count(lengths));
  ExpectNear(out[0].Values<C>(), want, inverse ? 1 : scale, what);
}

TEST(CpuFftTest, FftAndIfftMatchTheDirectTransform) {
  uint32_t seed = 1;
  for (int64_t n : {1, 2, 3, 4, 5, 8, 12, 17, 64, 100, 243}) {
    for (bool inverse : {false, true}) {
      CheckComplex<c64>(inverse, {3, n}, 1, seed++);
      CheckComplex<c128>(inverse, {n}, 1, seed++);
    }
  }
  for (bool inverse : {false, true}) {
    CheckComplex<c64>(inverse, {2, 3, 5}, 2, seed++);
    CheckComplex<c128>(inverse, {4, 6}, 2, seed++);
    CheckComplex<c128>(inverse, {2, 3, 4, 5}, 3, seed++);
    CheckComplex<c64>(inverse, {1, 7, 1}, 3, seed++);
  }
}

// RFFT: the first n / 2 + 1 values of the DFT of the real input.
template <typename R>
void CheckRealForward(const std::vector<int64_t>& dims, size_t k, uint32_t seed) {
  using C = std::complex<R>;
  std::vector<int64_t> lengths(dims.end() - static_cast<std::ptrdiff_t>(k), dims.end());
  std::vector<C> random = Random<C>(static_cast<size_t>(Count(dims)), seed);
  std::vector<R> in;
  for (C v : random) in.push_back(v.real());
  std::vector<int64_t> out_dims = dims;
  out_dims.back() = dims.back() / 2 + 1;
  std::string in_type = "tensor<" + Dims(dims) + (std::is_same_v<R, float> ? "f32" : "f64") + ">";
  std::string out_type = "tensor<" + Dims(out_dims) + Element<C>() + ">";
  std::vector<Literal> out =
      RunProgram(FftProgram("RFFT", lengths, in_type, out_type), {Literal::Of(in, dims)});
  ASSERT_EQ(out.size(), 1u) << in_type;
  std::vector<cld> full;
  for (R v : in) full.emplace_back(v, 0);
  for (size_t i = 0; i < k; ++i) DftAlong(full, dims, dims.size() - 1 - i, false);
  std::vector<cld> want;
  const int64_t n = dims.back(), half = out_dims.back();
  for (int64_t row = 0; row < Count(dims) / n; ++row) {
    for (int64_t j = 0; j < half; ++j) want.push_back(full[static_cast<size_t>(row * n + j)]);
  }
  ExpectNear(out[0].Values<C>(), want, static_cast<long double>(Count(lengths)), "RFFT " + in_type);
}

// IRFFT: the real signal whose spectrum is Hermitian with the given half;
// computed as the inverse DFT of the full spectrum (the conjugate mirror
// filled in), real part. The input is the RFFT of a real signal, so the
// imaginary parts IRFFT ignores are (close to) zero.
template <typename R>
void CheckRealInverse(const std::vector<int64_t>& dims, size_t k, uint32_t seed) {
  using C = std::complex<R>;
  std::vector<int64_t> lengths(dims.end() - static_cast<std::ptrdiff_t>(k), dims.end());
  std::vector<C> random = Random<C>(static_cast<size_t>(Count(dims)), seed);
  std::vector<cld> spectrum;
  for (C v : random) spectrum.emplace_back(v.real(), 0);
  for (size_t i = 0; i < k; ++i) DftAlong(spectrum, dims, dims.size() - 1 - i, false);
  std::vector<int64_t> in_dims = dims;
  const int64_t n = dims.back(), half = n / 2 + 1;
  in_dims.back() = half;
  std::vector<C> in;
  for (int64_t row = 0; row < Count(dims) / n; ++row) {
    for (int64_t j = 0; j < half; ++j) {
      cld v = spectrum[static_cast<size_t>(row * n + j)];
      in.emplace_back(static_cast<R>(v.real()), static_cast<R>(v.imag()));
    }
  }
  std::string in_type = "tensor<" + Dims(in_dims) + Element<C>() + ">";
  std::string out_type = "tensor<" + Dims(dims) + (std::is_same_v<R, float> ? "f32" : "f64") + ">";
  std::vector<Literal> out =
      RunProgram(FftProgram("IRFFT", lengths, in_type, out_type), {Literal::Of(in, in_dims)});
  ASSERT_EQ(out.size(), 1u) << in_type;
  // The reference, from the (rounded) half the kernel saw: the inverse
  // along the outer transformed dimensions, then the innermost one's
  // Hermitian completion and inverse.
  std::vector<cld> full(static_cast<size_t>(Count(dims)));
  std::vector<cld> half_data = Widen(in);
  for (size_t i = 1; i < k; ++i) DftAlong(half_data, in_dims, in_dims.size() - 1 - i, true);
  for (int64_t row = 0; row < Count(dims) / n; ++row) {
    for (int64_t j = 0; j < n; ++j) {
      cld v = j < half ? half_data[static_cast<size_t>(row * half + j)]
                       : std::conj(half_data[static_cast<size_t>(row * half + (n - j))]);
      full[static_cast<size_t>(row * n + j)] = v;
    }
  }
  DftAlong(full, dims, dims.size() - 1, true);
  std::vector<R> got = out[0].Values<R>();
  std::vector<C> got_complex;
  for (R v : got) got_complex.emplace_back(v, 0);
  std::vector<cld> want;
  for (cld v : full) want.emplace_back(v.real(), 0);
  long double scale = 0;
  for (cld v : Widen(in)) scale += std::abs(v);
  ExpectNear(got_complex, want, scale / static_cast<long double>(Count(lengths)),
             "IRFFT " + in_type);
}

TEST(CpuFftTest, RfftAndIrfftMatchTheDirectTransform) {
  uint32_t seed = 100;
  for (int64_t n : {1, 2, 3, 4, 5, 6, 8, 12, 17, 64, 100}) {
    CheckRealForward<float>({2, n}, 1, seed++);
    CheckRealForward<double>({n}, 1, seed++);
    CheckRealInverse<float>({2, n}, 1, seed++);
    CheckRealInverse<double>({n}, 1, seed++);
  }
  CheckRealForward<float>({3, 4, 6}, 2, seed++);
  CheckRealForward<double>({2, 3, 5}, 3, seed++);
  CheckRealInverse<float>({3, 4, 6}, 2, seed++);
  CheckRealInverse<double>({2, 3, 5}, 3, seed++);
  CheckRealInverse<double>({5, 8}, 2, seed++);
}

TEST(CpuFftTest, InverseUndoesForward) {
  std::vector<double> x;
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> dist(-1, 1);
  for (int i = 0; i < 6 * 10; ++i) x.push_back(dist(rng));
  std::vector<Literal> out = RunProgram(R"(
func.func @main(%x: tensor<6x10xf64>) -> (tensor<6x10xf64>, tensor<6x10xcomplex<f64>>) {
  %s = stablehlo.fft %x, type = RFFT, length = [6, 10] : (tensor<6x10xf64>) -> tensor<6x6xcomplex<f64>>
  %y = stablehlo.fft %s, type = IRFFT, length = [6, 10] : (tensor<6x6xcomplex<f64>>) -> tensor<6x10xf64>
  %c = stablehlo.convert %x : (tensor<6x10xf64>) -> tensor<6x10xcomplex<f64>>
  %f = stablehlo.fft %c, type = FFT, length = [6, 10] : (tensor<6x10xcomplex<f64>>) -> tensor<6x10xcomplex<f64>>
  %z = stablehlo.fft %f, type = IFFT, length = [6, 10] : (tensor<6x10xcomplex<f64>>) -> tensor<6x10xcomplex<f64>>
  return %y, %z : tensor<6x10xf64>, tensor<6x10xcomplex<f64>>
}
)",
                                        {Literal::Of(x, {6, 10})});
  ASSERT_EQ(out.size(), 2u);
  std::vector<double> y = out[0].Values<double>();
  std::vector<c128> z = out[1].Values<c128>();
  for (size_t i = 0; i < x.size(); ++i) {
    EXPECT_NEAR(y[i], x[i], 1e-14) << i;
    EXPECT_NEAR(z[i].real(), x[i], 1e-14) << i;
    EXPECT_NEAR(z[i].imag(), 0, 1e-14) << i;
  }
}

TEST(CpuFftTest, EmptyBatchGivesEmptyResult) {
  std::vector<Literal> out = RunProgram(R"(
func.func @main(%x: tensor<0x8xcomplex<f32>>) -> tensor<0x8xcomplex<f32>> {
  %0 = stablehlo.fft %x, type = FFT, length = [8] : (tensor<0x8xcomplex<f32>>) -> tensor<0x8xcomplex<f32>>
  return %0 : tensor<0x8xcomplex<f32>>
}
)",
                                        {Literal::Of<c64>({}, {0, 8})});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].dims, (std::vector<int64_t>{0, 8}));
}

TEST(CpuFftTest, LargeTransformSplitsAcrossThreadsLikeOneLine) {
  // 64 lines of 4096: the parallel split gives each line what one line alone gets.
  std::vector<c64> in = Random<c64>(64 * 4096, 3);
  std::vector<Literal> all = RunProgram(
      FftProgram("FFT", {4096}, "tensor<64x4096xcomplex<f32>>", "tensor<64x4096xcomplex<f32>>"),
      {Literal::Of(in, {64, 4096})});
  ASSERT_EQ(all.size(), 1u);
  std::vector<c64> got = all[0].Values<c64>();
  for (int64_t row : {0, 37, 63}) {
    std::vector<c64> line(in.begin() + row * 4096, in.begin() + (row + 1) * 4096);
    std::vector<Literal> one = RunProgram(
        FftProgram("FFT", {4096}, "tensor<4096xcomplex<f32>>", "tensor<4096xcomplex<f32>>"),
        {Literal::Of(line, {4096})});
    ASSERT_EQ(one.size(), 1u);
    std::vector<c64> expected = one[0].Values<c64>();
    for (int64_t j = 0; j < 4096; ++j)
      ASSERT_EQ(got[static_cast<size_t>(row * 4096 + j)], expected[static_cast<size_t>(j)]);
  }
}

TEST(CpuFftTest, MismatchedOperandsAreRefused) {
  // The verifier or the kernel: INVALID_ARGUMENT naming what does not fit.
  Status rfft_of_complex =
      RunExpectingError(FftProgram("RFFT", {4}, "tensor<4xcomplex<f32>>", "tensor<3xcomplex<f32>>"),
                        {Literal::Of<c64>({{1, 0}, {2, 0}, {3, 0}, {4, 0}}, {4})});
  EXPECT_EQ(rfft_of_complex.code(), StatusCode::kInvalidArgument) << rfft_of_complex.ToString();
  Status wrong_length =
      RunExpectingError(FftProgram("FFT", {8}, "tensor<4xcomplex<f32>>", "tensor<4xcomplex<f32>>"),
                        {Literal::Of<c64>({{1, 0}, {2, 0}, {3, 0}, {4, 0}}, {4})});
  EXPECT_EQ(wrong_length.code(), StatusCode::kInvalidArgument) << wrong_length.ToString();
  EXPECT_THAT(wrong_length.message(), HasSubstr("fft_length"));
}

}  // namespace
}  // namespace berth::testing
