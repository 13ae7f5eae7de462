// stablehlo.fft: FFT and IFFT (complex to complex), RFFT (real to the half
// spectrum, n / 2 + 1 complex values) and IRFFT (half spectrum to real),
// over the innermost len(fft_length) dimensions (1 to 3), on Eigen's FFT
// module (its kissfft backend: mixed radix, any length, in the precision of
// the element type). A multi-dimensional transform is one-dimensional
// transforms along each of its dimensions, innermost first (RFFT) or last
// (IRFFT, whose innermost step makes the real result). IFFT and IRFFT scale
// by 1 / (product of fft_length). Lines along a dimension are split across
// the client's threads. An Eigen::FFT keeps a plan (twiddle factors, one
// sine and cosine per point to compute) per length and is not thread-safe:
// a task borrows one from a pool (FftPool) and gives it back, so plans
// outlive executions.
#include <unsupported/Eigen/FFT>

#include <algorithm>
#include <complex>
#include <cstring>
#include <memory>
#include <mutex>
#include <type_traits>
#include <vector>

#include "interpreter/data_movement.hpp"
#include "interpreter/element_types.hpp"
#include "interpreter/kernel.hpp"
#include "interpreter/parallel.hpp"

namespace berth::cpu {
namespace {

using stablehlo::FftType;

// Lines of at least this many elements in total make one parallel task.
constexpr int64_t kMinTaskElements = 1 << 14;

// Eigen::FFT objects (each with the plans of the lengths it transformed)
// lent to one task at a time. An object that has seen 16 lengths starts
// afresh and the pool keeps at most 8, so the plans held stay bounded; the
// pool is a static of the plugin, gone when the plugin unloads (no
// thread_local: a caller's thread would pin the plugin in memory).
template <typename R>
class FftPool {
 public:
  struct Entry {
    Eigen::FFT<R> fft;
    std::vector<int64_t> lengths;
    bool half_spectrum = false;
  };

  // An FFT for length `n`: the real-input one (HalfSpectrum) or the other.
  std::unique_ptr<Entry> Take(int64_t n, bool half_spectrum) {
    std::unique_ptr<Entry> entry;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      for (auto it = free_.begin(); it != free_.end(); ++it) {
        if ((*it)->half_spectrum != half_spectrum) continue;
        entry = std::move(*it);
        free_.erase(it);
        break;
      }
    }
    if (!entry) {
      entry = std::make_unique<Entry>();
      entry->half_spectrum = half_spectrum;
      if (half_spectrum) entry->fft.SetFlag(Eigen::FFT<R>::HalfSpectrum);
    }
    if (std::find(entry->lengths.begin(), entry->lengths.end(), n) == entry->lengths.end()) {
      if (entry->lengths.size() >= 16) {
        entry->fft = Eigen::FFT<R>();
        if (half_spectrum) entry->fft.SetFlag(Eigen::FFT<R>::HalfSpectrum);
        entry->lengths.clear();
      }
      entry->lengths.push_back(n);
    }
    return entry;
  }

  void Give(std::unique_ptr<Entry> entry) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (free_.size() < 8) free_.push_back(std::move(entry));
  }

  static FftPool& Get() {
    static FftPool pool;
    return pool;
  }

 private:
  std::mutex mutex_;
  std::vector<std::unique_ptr<Entry>> free_;
};

// One task's borrowed FFT, given back when the task ends.
template <typename R>
class BorrowedFft {
 public:
  BorrowedFft(int64_t n, bool half_spectrum) : entry_(FftPool<R>::Get().Take(n, half_spectrum)) {}
  ~BorrowedFft() { FftPool<R>::Get().Give(std::move(entry_)); }
  BorrowedFft(const BorrowedFft&) = delete;
  BorrowedFft& operator=(const BorrowedFft&) = delete;
  Eigen::FFT<R>& operator*() { return entry_->fft; }

 private:
  std::unique_ptr<typename FftPool<R>::Entry> entry_;
};

int64_t Product(std::span<const int64_t> dims) {
  int64_t p = 1;
  for (int64_t d : dims) p *= d;
  return p;
}

// Where the lines along dimension `d` of a row-major tensor of `dims` lie:
// line l (of outer * inner) starts at (l / inner) * n * inner + l % inner
// and steps by `inner`.
struct Lines {
  Lines(const std::vector<int64_t>& dims, size_t d)
      : n(dims[d]),
        inner(Product(std::span(dims).subspan(d + 1))),
        count(Product(std::span(dims).first(d)) * inner) {}
  int64_t Start(int64_t line) const { return (line / inner) * n * inner + line % inner; }
  int64_t MinLinesPerTask() const {
    return std::max<int64_t>(1, kMinTaskElements / std::max<int64_t>(1, n));
  }

  int64_t n;
  int64_t inner;
  int64_t count;
};

// The complex transform (forward, or inverse scaled by 1 / n) along
// dimension `d`: reads `src`, writes `dst` (which may be `src`).
template <typename R>
void TransformAlong(const std::complex<R>* src, std::complex<R>* dst,
                    const std::vector<int64_t>& dims, size_t d, bool inverse, ThreadPool* pool) {
  using C = std::complex<R>;
  const Lines lines(dims, d);
  if (lines.count == 0) return;
  if (lines.n <= 1) {
    // Length 1 (or 0): the identity, scale 1 included.
    if (src != dst) std::memcpy(dst, src, static_cast<size_t>(Product(dims)) * sizeof(C));
    return;
  }
  ParallelFor(pool, lines.count, lines.MinLinesPerTask(), [&](int64_t begin, int64_t end) {
    BorrowedFft<R> borrowed(lines.n, false);
    Eigen::FFT<R>& fft = *borrowed;
    const size_t n = static_cast<size_t>(lines.n);
    std::vector<C> in(n), out(n);
    for (int64_t line = begin; line < end; ++line) {
      const int64_t start = lines.Start(line);
      const C* from = src + start;
      C* to = dst + start;
      if (lines.inner == 1 && from != to) {
        if (inverse)
          fft.inv(to, from, lines.n);
        else
          fft.fwd(to, from, lines.n);
        continue;
      }
      for (size_t k = 0; k < n; ++k) in[k] = from[static_cast<int64_t>(k) * lines.inner];
      if (inverse)
        fft.inv(out.data(), in.data(), lines.n);
      else
        fft.fwd(out.data(), in.data(), lines.n);
      for (size_t k = 0; k < n; ++k) to[static_cast<int64_t>(k) * lines.inner] = out[k];
    }
  });
}

// RFFT (kInverse false) or IRFFT along the innermost dimension, of length
// n = dims.back() on the real side and n / 2 + 1 on the complex one: RFFT
// reads real `src` with `dims` and writes the half spectrum; IRFFT reads
// the half spectrum and writes real values scaled by 1 / n, ignoring the
// imaginary parts a real signal cannot have (the first value's, and the
// last one's for even n).
template <typename R, bool kInverse>
void RealAlongInnermost(const void* src, void* dst, const std::vector<int64_t>& dims,
                        ThreadPool* pool) {
  using C = std::complex<R>;
  using In = std::conditional_t<kInverse, C, R>;
  using Out = std::conditional_t<kInverse, R, C>;
  const Lines lines(dims, dims.size() - 1);
  const int64_t half = lines.n / 2 + 1;
  if (lines.count == 0 || lines.n == 0) return;
  const int64_t in_length = kInverse ? half : lines.n;
  const int64_t out_length = kInverse ? lines.n : half;
  ParallelFor(pool, lines.count, lines.MinLinesPerTask(), [&](int64_t begin, int64_t end) {
    BorrowedFft<R> borrowed(lines.n, true);
    Eigen::FFT<R>& fft = *borrowed;
    for (int64_t line = begin; line < end; ++line) {
      const In* from = static_cast<const In*>(src) + line * in_length;
      Out* to = static_cast<Out*>(dst) + line * out_length;
      if constexpr (kInverse) {
        if (lines.n == 1)
          to[0] = from[0].real();
        else
          fft.inv(to, from, lines.n);
      } else {
        if (lines.n == 1)
          to[0] = C(from[0], R(0));
        else
          fft.fwd(to, from, lines.n);
      }
    }
  });
}

const char* FftTypeName(FftType type) {
  switch (type) {
    case FftType::kFft: return "FFT";
    case FftType::kIfft: return "IFFT";
    case FftType::kRfft: return "RFFT";
    case FftType::kIrfft: return "IRFFT";
  }
  return "?";
}

// Checks the operand against fft_type and fft_length; returns the result's
// dims.
Result<std::vector<int64_t>> ResultDims(FftType type, const Tensor& operand,
                                        std::span<const int64_t> lengths) {
  const std::string name = FftTypeName(type);
  const ElementType element = operand.type();
  const bool complex_in = type != FftType::kRfft;
  if (complex_in != stablehlo::IsComplex(element) ||
      (!complex_in && element != ElementType::kF32 && element != ElementType::kF64)) {
    return InvalidArgumentError(name + " takes " +
                                (complex_in ? "complex numbers" : "f32 or f64 values") +
                                ", the operand is " + operand.TypeString());
  }
  const size_t k = lengths.size();
  if (k < 1 || k > 3 || k > static_cast<size_t>(operand.rank())) {
    return InvalidArgumentError("fft_length must have 1 to 3 dimensions, at most the operand's " +
                                std::to_string(operand.rank()) + "; it has " + std::to_string(k));
  }
  std::vector<int64_t> dims = operand.dims();
  const size_t first = dims.size() - k;
  for (size_t i = 0; i < k; ++i) {
    int64_t expected = lengths[i];
    if (expected < 0 || (expected == 0 && type != FftType::kFft && type != FftType::kIfft)) {
      return InvalidArgumentError(
          "fft_length " + DimsString(lengths) + " must be " +
          (type == FftType::kFft || type == FftType::kIfft ? "non-negative" : "positive") +
          " for " + name);
    }
    // IRFFT's operand holds the half spectrum in its innermost dimension.
    if (type == FftType::kIrfft && i + 1 == k) expected = expected / 2 + 1;
    if (dims[first + i] != expected) {
      return InvalidArgumentError("the operand " + operand.TypeString() +
                                  " does not end in fft_length " + DimsString(lengths) + " for " +
                                  name + " (dimension " + std::to_string(first + i) +
                                  " should be " + std::to_string(expected) + ")");
    }
  }
  if (type == FftType::kRfft) dims.back() = lengths.back() / 2 + 1;
  if (type == FftType::kIrfft) dims.back() = lengths.back();
  return dims;
}

template <typename R>
Status RunFft(FftType type, const Tensor& operand, Tensor& out, size_t k, ThreadPool* pool) {
  using C = std::complex<R>;
  const size_t rank = out.dims().size();
  switch (type) {
    case FftType::kFft:
    case FftType::kIfft: {
      const bool inverse = type == FftType::kIfft;
      const C* src = operand.data<C>();
      for (size_t i = 0; i < k; ++i) {
        TransformAlong<R>(src, out.data<C>(), out.dims(), rank - 1 - i, inverse, pool);
        src = out.data<C>();
      }
      return OkStatus();
    }
    case FftType::kRfft:
      RealAlongInnermost<R, false>(operand.data<R>(), out.data<C>(), operand.dims(), pool);
      for (size_t i = 1; i < k; ++i) {
        TransformAlong<R>(out.data<C>(), out.data<C>(), out.dims(), rank - 1 - i, false, pool);
      }
      return OkStatus();
    case FftType::kIrfft: {
      // The outer dimensions first, on a copy of the half spectrum.
      Tensor spectrum = operand;
      if (k > 1) {
        BERTH_ASSIGN_OR_RETURN(spectrum, Tensor::Allocate(operand.type(), operand.dims()));
        const C* src = operand.data<C>();
        for (size_t i = 1; i < k; ++i) {
          TransformAlong<R>(src, spectrum.data<C>(), spectrum.dims(), rank - 1 - i, true, pool);
          src = spectrum.data<C>();
        }
      }
      RealAlongInnermost<R, true>(spectrum.data<C>(), out.data<R>(), out.dims(), pool);
      return OkStatus();
    }
  }
  return InternalError("unknown fft_type");
}

Status Fft(KernelCall& call) {
  std::optional<FftType> type = call.op.fft_type();
  if (!type) return InvalidArgumentError("has no fft_type");
  const Tensor& operand = call.operands[0];
  if (!operand.is_tensor()) return InvalidArgumentError("takes a tensor");
  std::span<const int64_t> lengths = call.op.GetI64Array("fft_length");
  BERTH_ASSIGN_OR_RETURN(std::vector<int64_t> dims, ResultDims(*type, operand, lengths));
  const ElementType result = call.op.result(0)->type().element_type();
  const bool wide =
      operand.type() == ElementType::kComplex128 || operand.type() == ElementType::kF64;
  const ElementType expected = *type == FftType::kIrfft
                                   ? (wide ? ElementType::kF64 : ElementType::kF32)
                                   : (wide ? ElementType::kComplex128 : ElementType::kComplex64);
  if (result != expected) {
    return InvalidArgumentError(std::string(FftTypeName(*type)) + " of " + operand.TypeString() +
                                " gives " + std::string(stablehlo::ElementTypeName(expected)) +
                                ", the result type says " +
                                std::string(stablehlo::ElementTypeName(result)));
  }
  BERTH_ASSIGN_OR_RETURN(Tensor out, AllocateResult(call, 0, std::move(dims)));
  if (out.num_elements() > 0) {
    if (wide) {
      BERTH_RETURN_IF_ERROR(RunFft<double>(*type, operand, out, lengths.size(), call.ctx.pool()));
    } else {
      BERTH_RETURN_IF_ERROR(RunFft<float>(*type, operand, out, lengths.size(), call.ctx.pool()));
    }
  }
  call.results.push_back(std::move(out));
  return OkStatus();
}

}  // namespace

void RegisterFftKernel(KernelRegistry& registry) {
  registry.Register(stablehlo::OpKind::kFft, Fft);
}

}  // namespace berth::cpu
