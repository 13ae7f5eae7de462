// stablehlo.fft as a generated kernel: one launch per transformed dimension,
// each a one-dimensional discrete Fourier transform along it - one output
// element per thread summing its line's elements times the twiddle factors
// in double - in the cpu plugin's order (kernels_fft.cc): FFT, IFFT and
// RFFT innermost dimension first (RFFT's first pass real to the half
// spectrum), IRFFT its outer dimensions first and the innermost last (the
// half spectrum to real values, extended by Hermitian symmetry, so the
// imaginary parts a real signal cannot have are ignored). Inverse passes
// scale by 1 / length. The passes hand their values on through two complex
// buffers in the kernel's scratch; the last one writes the result.
//
// A direct transform: O(length) work per element and pass, where the cpu
// plugin's kissfft (and cuFFT) take O(log length); exact to a few ulps of
// the sums' magnitude for the lengths programs use, slow for long ones.
#include <string>

#include "codegen/elementwise_codegen.hpp"
#include "codegen/kernel_emitters.hpp"

namespace berth::cuda {

using namespace codegen;  // kernel_emitters.hpp

namespace {

using stablehlo::FftType;

// The shape the complex passes work on: the operand's (FFT, IFFT, IRFFT's
// half spectrum) or the result's (RFFT's half spectrum).
stablehlo::Type WorkingType(const Operation& op) {
  return *op.fft_type() == FftType::kRfft ? op.result(0)->type() : op.operand(0)->type();
}

}  // namespace

Status CheckFft(const Operation& op) {
  if (op.kind() != OpKind::kFft || op.num_operands() != 1 || op.num_results() != 1)
    return Unsupported(op, "not an fft of one operand");
  const std::optional<FftType> type = op.fft_type();
  if (!type) return Unsupported(op, "it has no fft_type");
  const stablehlo::Type operand = op.operand(0)->type(), result = op.result(0)->type();
  BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, operand));
  BERTH_RETURN_IF_ERROR(CheckGeneratedType(op, result));
  const std::span<const int64_t> lengths = op.GetI64Array("fft_length");
  if (lengths.empty() || static_cast<int64_t>(lengths.size()) > operand.rank() ||
      operand.rank() != result.rank()) {
    return Unsupported(op, "its fft_length must name 1 to rank trailing dimensions");
  }
  const bool complex_in = *type != FftType::kRfft, complex_out = *type != FftType::kIrfft;
  auto is = [](ElementType t, bool complex) {
    return complex ? t == ElementType::kComplex64 || t == ElementType::kComplex128
                   : t == ElementType::kF32 || t == ElementType::kF64;
  };
  if (!is(operand.element_type(), complex_in) || !is(result.element_type(), complex_out) ||
      (stablehlo::BitWidth(operand.element_type()) / (complex_in ? 2 : 1)) !=
          (stablehlo::BitWidth(result.element_type()) / (complex_out ? 2 : 1))) {
    return Unsupported(op, "its operand and result types do not fit its fft_type");
  }
  // The transformed dimensions: fft_length, but the half spectrum's.
  const int64_t rank = operand.rank();
  const size_t k = lengths.size();
  for (size_t j = 0; j < k; ++j) {
    const int64_t d = rank - static_cast<int64_t>(k) + static_cast<int64_t>(j);
    const int64_t n = lengths[j];
    const bool last = j + 1 == k;
    const int64_t in = last && *type == FftType::kIrfft ? n / 2 + 1 : n;
    const int64_t out = last && *type == FftType::kRfft ? n / 2 + 1 : n;
    if (n < 0 || operand.dim(d) != in || result.dim(d) != out)
      return Unsupported(op, "its fft_length does not fit its operand and result");
  }
  for (int64_t d = 0; d < rank - static_cast<int64_t>(k); ++d) {
    if (operand.dim(d) != result.dim(d))
      return Unsupported(op, "its batch dimensions differ between operand and result");
  }
  return OkStatus();
}

int64_t FftThreads(const Operation& op, int64_t& scratch_bytes) {
  const stablehlo::Type working = WorkingType(op);
  scratch_bytes = 2 * working.NumElements() *
                  static_cast<int64_t>(stablehlo::StorageBytes(working.element_type()));
  return std::max(working.NumElements(), op.result(0)->type().NumElements());
}

Result<std::string> codegen::EmitFftKernel(const FusedKernel& kernel) {
  const Operation& op = *kernel.root;
  BERTH_RETURN_IF_ERROR(CheckFft(op));
  const FftType type = *op.fft_type();
  const stablehlo::Type operand = op.operand(0)->type(), result = op.result(0)->type();
  const stablehlo::Type working = WorkingType(op);
  const std::span<const int64_t> lengths = op.GetI64Array("fft_length");
  const int64_t rank = operand.rank();
  const size_t k = lengths.size();
  const std::string complex = StorageType(working.element_type());
  const bool wide = working.element_type() == ElementType::kComplex128;
  const std::string part = wide ? "double" : "float";

  std::string body = "    " + complex + "* const bufs[2] = {(" + complex + "*)scratch, (" +
                     complex + "*)(scratch + " +
                     std::to_string(working.NumElements() *
                                    static_cast<int64_t>(StorageBytes(working.element_type()))) +
                     "LL)};\n";
  body += "    const double two_pi = 6.283185307179586476925286766559;\n";
  // Pass p transforms dimension `d` (innermost first; IRFFT's innermost last).
  for (size_t p = 0; p < k; ++p) {
    const size_t j = type == FftType::kIrfft ? (p + 1 < k ? k - 2 - p : k - 1) : k - 1 - p;
    const int64_t d = rank - static_cast<int64_t>(k) + static_cast<int64_t>(j);
    const int64_t n = lengths[j];
    const bool first = p == 0, last = p + 1 == k;
    const bool real_in = first && type == FftType::kRfft;
    const bool real_out = last && type == FftType::kIrfft;
    const bool inverse = type == FftType::kIfft || type == FftType::kIrfft;
    const stablehlo::Type in_type = first ? operand : working;
    const stablehlo::Type out_type = last ? result : working;
    const std::string src = first ? "in0" : "bufs[" + std::to_string((p - 1) % 2) + "]";
    const std::string dst = last ? "out0" : "bufs[" + std::to_string(p % 2) + "]";
    body += "    if (pass == " + std::to_string(p) + "LL && i < " +
            std::to_string(out_type.NumElements()) + "LL) {\n";
    std::vector<int64_t> all(static_cast<size_t>(rank));
    for (size_t a = 0; a < all.size(); ++a) all[a] = static_cast<int64_t>(a);
    std::vector<std::string> index(all.size());
    EmitDecompose("i", all, out_type.shape(), "p" + std::to_string(p) + "_", "      ", body, index);
    const std::string k_name = index[static_cast<size_t>(d)];
    index[static_cast<size_t>(d)] = "0";
    const std::string stride =
        std::to_string(RowMajorStrides(in_type.shape())[static_cast<size_t>(d)]);
    body += "      const berth_s64 base = " + LinearIndex(index, in_type.shape()) + ";\n";
    body += "      double re = 0.0, im = 0.0;\n";
    // The line's elements m = 0 .. n-1 (c2r: the Hermitian extension of the
    // n / 2 + 1 stored ones).
    body += "      for (berth_s64 m = 0; m < " + std::to_string(n) + "LL; ++m) {\n";
    if (real_in) {
      body +=
          "        const double xr = (double)" + src + "[base + m * " + stride + "LL], xi = 0.0;\n";
    } else if (real_out) {
      const std::string half = std::to_string(n / 2 + 1);
      body += "        const berth_s64 at = m < " + half + "LL ? m : " + std::to_string(n) +
              "LL - m;\n";
      body += "        const " + complex + " x = " + src + "[base + at * " + stride + "LL];\n";
      body += "        const double xr = (double)x.re, xi = m < " + half +
              "LL ? (double)x.im : -(double)x.im;\n";
    } else {
      body += "        const " + complex + " x = " + src + "[base + m * " + stride + "LL];\n";
      body += "        const double xr = (double)x.re, xi = (double)x.im;\n";
    }
    // w = exp(-+ 2 pi i (k m mod n) / n): the product reduced exactly first.
    body += "        const double angle = " + std::string(inverse ? "" : "-") +
            "two_pi * (double)((" + k_name + " * m) % " + std::to_string(std::max<int64_t>(n, 1)) +
            "LL) / " + std::to_string(std::max<int64_t>(n, 1)) + ".0;\n";
    body += "        const double c = cos(angle), s = sin(angle);\n";
    body += "        re += xr * c - xi * s;\n";
    body += "        im += xr * s + xi * c;\n      }\n";
    if (inverse) {
      body += "      re = re / " + std::to_string(std::max<int64_t>(n, 1)) + ".0;\n";
      body += "      im = im / " + std::to_string(std::max<int64_t>(n, 1)) + ".0;\n";
    }
    if (real_out) {
      body += "      " + dst + "[i] = (" + part + ")re;\n";
    } else {
      body += "      " + dst + "[i].re = (" + part + ")re;\n";
      body += "      " + dst + "[i].im = (" + part + ")im;\n";
    }
    body += "    }\n";
  }
  return WrapKernel(kernel.name, KernelParams(kernel), body);
}

}  // namespace berth::cuda
