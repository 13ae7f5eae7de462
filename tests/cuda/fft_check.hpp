// Checking fft kernels without the cpu plugin (whose kissfft sums in
// another order): each returned fft of an argument against the transform
// computed again here in long double by the definition - one-dimensional
// discrete Fourier sums along each transformed dimension, RFFT keeping the
// half spectrum, IRFFT extending each innermost line by Hermitian symmetry.
// Shared by the host-compiled kernels' test and the GPU's.
#ifndef BERTH_TESTS_CUDA_FFT_CHECK_HPP_
#define BERTH_TESTS_CUDA_FFT_CHECK_HPP_

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "berth/stablehlo/ir.hpp"
#include "family_check.hpp"

namespace berth::cuda::testing {

using LongComplex = std::complex<long double>;

// Arguments for fft families: every real number (a complex number's parts
// too) uniform in [-1, 1].
inline std::vector<berth::testing::Literal> TransformArguments(const stablehlo::Block& block,
                                                               uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  return ArgumentsOf(block, [&](ElementType type, size_t count) {
    const ElementType part = IsComplexElement(type) ? stablehlo::ComplexComponentType(type) : type;
    const size_t parts = IsComplexElement(type) ? 2 * count : count;
    std::vector<std::byte> bytes(parts * ElementBytes(part));
    for (size_t e = 0; e < parts; ++e)
      StoreDouble(part, uniform(rng), bytes.data() + e * ElementBytes(part));
    return bytes;
  });
}

// Element e of a real or complex argument, as a long double complex number.
inline LongComplex ComplexAt(ElementType type, const std::byte* data, size_t e) {
  if (!IsComplexElement(type)) return {ElementAsDouble(type, data + e * ElementBytes(type)), 0.0L};
  const ElementType part = stablehlo::ComplexComponentType(type);
  const size_t size = ElementBytes(part);
  return {ElementAsDouble(part, data + 2 * e * size),
          ElementAsDouble(part, data + (2 * e + 1) * size)};
}

// The one-dimensional transform of `values` (dims `shape`) along `d`,
// each line of length `n` out (inverse: + sign, scaled by 1 / n); the
// input line holds shape[d] values, read as the Hermitian extension of a
// half spectrum when `hermitian`.
inline std::vector<LongComplex> TransformAlongDim(const std::vector<LongComplex>& values,
                                                  std::vector<int64_t>& shape, size_t d, int64_t n,
                                                  bool inverse, bool hermitian) {
  const int64_t in_n = shape[d];
  int64_t outer = 1, inner = 1;
  for (size_t a = 0; a < d; ++a) outer *= shape[a];
  for (size_t a = d + 1; a < shape.size(); ++a) inner *= shape[a];
  std::vector<LongComplex> out(static_cast<size_t>(outer * n * inner));
  const long double pi = 3.141592653589793238462643383279502884L;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      auto at = [&](int64_t m) { return values[static_cast<size_t>((o * in_n + m) * inner + in)]; };
      for (int64_t k = 0; k < n; ++k) {
        LongComplex sum = 0;
        for (int64_t m = 0; m < (hermitian ? n : in_n); ++m) {
          const LongComplex x = !hermitian || m < in_n ? at(m) : std::conj(at(n - m));
          const long double angle = (inverse ? 2 : -2) * pi *
                                    static_cast<long double>((k * m) % n) /
                                    static_cast<long double>(n);
          sum += x * LongComplex(std::cos(angle), std::sin(angle));
        }
        out[static_cast<size_t>((o * n + k) * inner + in)] =
            inverse ? sum / static_cast<long double>(n) : sum;
      }
    }
  }
  shape[d] = n;
  return out;
}

// Checks each returned fft of an argument (`results[j]`, dense storage)
// against its transform computed in long double: each real part within
// 8 x the format's epsilon x the sum of the input's magnitudes (scaled by
// 1 / the transform's size for inverses) - a wrong twiddle, index or
// scale is off by about the values themselves. Reports up to 20
// mismatches; returns their count.
inline int CheckTransforms(const std::string& family, const stablehlo::Block& block,
                           const std::vector<berth::testing::Literal>& args,
                           const std::vector<std::vector<std::byte>>& results) {
  int mismatches = 0;
  for (size_t j = 0; j < block.terminator()->num_operands(); ++j) {
    const stablehlo::Operation* op = block.terminator()->operand(j)->defining_op();
    if (op == nullptr || op->kind() != stablehlo::OpKind::kFft ||
        !op->operand(0)->IsBlockArgument()) {
      ADD_FAILURE() << family << ": result " << j << " is not an fft of an argument";
      ++mismatches;
      continue;
    }
    const stablehlo::FftType type = *op->fft_type();
    const stablehlo::Type in_type = op->operand(0)->type(), out_type = op->result(0)->type();
    const std::span<const int64_t> lengths = op->GetI64Array("fft_length");
    const size_t rank = static_cast<size_t>(in_type.rank()), k = lengths.size();
    const std::vector<std::byte>& input = args[op->operand(0)->index()].bytes;
    std::vector<LongComplex> values(static_cast<size_t>(in_type.NumElements()));
    long double magnitude = 0;
    for (size_t e = 0; e < values.size(); ++e) {
      values[e] = ComplexAt(in_type.element_type(), input.data(), e);
      magnitude += std::abs(values[e]);
    }
    std::vector<int64_t> shape(in_type.shape().begin(), in_type.shape().end());
    const bool inverse = type == stablehlo::FftType::kIfft || type == stablehlo::FftType::kIrfft;
    int64_t size = 1;
    for (int64_t n : lengths) size *= n;
    // The op's passes: innermost first; IRFFT's innermost last.
    for (size_t p = 0; p < k; ++p) {
      const size_t i =
          type == stablehlo::FftType::kIrfft ? (p + 1 < k ? k - 2 - p : k - 1) : k - 1 - p;
      const size_t d = rank - k + i;
      const bool real_out = type == stablehlo::FftType::kIrfft && p + 1 == k;
      values = TransformAlongDim(values, shape, d, lengths[i], inverse, real_out);
      if (type == stablehlo::FftType::kRfft && p == 0) {
        // Keep the half spectrum of the innermost lines.
        const int64_t n = lengths[i], half = n / 2 + 1;
        std::vector<LongComplex> kept;
        for (size_t e = 0; e < values.size(); ++e) {
          if (static_cast<int64_t>(e) % n < half) kept.push_back(values[e]);
        }
        values = std::move(kept);
        shape[d] = half;
      }
    }
    const ElementType out = out_type.element_type();
    const ElementType part = IsComplexElement(out) ? stablehlo::ComplexComponentType(out) : out;
    const long double epsilon = part == ElementType::kF64 ? 0x1p-52L : 0x1p-23L;
    const long double tolerance =
        8 * epsilon * std::max<long double>(1, magnitude / (inverse ? size : 1));
    for (size_t e = 0; e < values.size(); ++e) {
      const LongComplex got = ComplexAt(out, results[j].data(), e);
      const LongComplex want = IsComplexElement(out) ? values[e] : LongComplex(values[e].real(), 0);
      if (std::abs(got.real() - want.real()) <= tolerance &&
          std::abs(got.imag() - want.imag()) <= tolerance) {
        continue;
      }
      if (++mismatches > 20) continue;
      ADD_FAILURE() << family << ": fft (line " << op->location().line << ", "
                    << out_type.ToString() << ") element " << e << ": got ("
                    << static_cast<double>(got.real()) << ", " << static_cast<double>(got.imag())
                    << "), the transform is (" << static_cast<double>(want.real()) << ", "
                    << static_cast<double>(want.imag()) << "), tolerance "
                    << static_cast<double>(tolerance);
    }
  }
  return mismatches;
}

}  // namespace berth::cuda::testing

#endif  // BERTH_TESTS_CUDA_FFT_CHECK_HPP_
