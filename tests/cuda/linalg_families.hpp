// The families of the linear algebra and transform ops whose library paths
// (cuBLASLt, cuFFT, cuSOLVER) are not written - the generated kernels stand
// for them: fft (checked against transforms in long double, fft_check.hpp),
// chlo.ragged_dot, the legacy stablehlo.dot with the other legacy and CHLO
// forms, and cholesky. Part of KernelFamilies (kernel_families.hpp).
#ifndef BERTH_TESTS_CUDA_LINALG_FAMILIES_HPP_
#define BERTH_TESTS_CUDA_LINALG_FAMILIES_HPP_

#include <string>
#include <utility>
#include <vector>

#include "program_builder.hpp"

namespace berth::cuda::testing {

// Appends the linear algebra and transform families to `families`.
inline void AddLinalgFamilies(std::vector<KernelFamily>& families) {
  {
    // Transforms of every type and direction: lengths 1, odd, even, prime
    // and composite; batched; 1 to 3 dimensions.
    ProgramBuilder program("");
    struct Fft {
      const char* type;
      const char* length;
      const char* in;
      const char* out;
    };
    const Fft ffts[] = {
        {"FFT", "[1]", "tensor<1xcomplex<f32>>", "tensor<1xcomplex<f32>>"},
        {"FFT", "[37]", "tensor<3x37xcomplex<f32>>", "tensor<3x37xcomplex<f32>>"},
        {"FFT", "[16]", "tensor<16xcomplex<f64>>", "tensor<16xcomplex<f64>>"},
        {"FFT", "[6, 10]", "tensor<2x6x10xcomplex<f32>>", "tensor<2x6x10xcomplex<f32>>"},
        {"FFT", "[2, 3, 4]", "tensor<2x3x4xcomplex<f64>>", "tensor<2x3x4xcomplex<f64>>"},
        {"IFFT", "[33]", "tensor<2x33xcomplex<f64>>", "tensor<2x33xcomplex<f64>>"},
        {"IFFT", "[4, 8]", "tensor<4x8xcomplex<f32>>", "tensor<4x8xcomplex<f32>>"},
        {"RFFT", "[1]", "tensor<3x1xf32>", "tensor<3x1xcomplex<f32>>"},
        {"RFFT", "[8]", "tensor<8xf32>", "tensor<5xcomplex<f32>>"},
        {"RFFT", "[9]", "tensor<2x9xf64>", "tensor<2x5xcomplex<f64>>"},
        {"RFFT", "[5, 12]", "tensor<5x12xf32>", "tensor<5x7xcomplex<f32>>"},
        {"RFFT", "[3, 4, 6]", "tensor<3x4x6xf64>", "tensor<3x4x4xcomplex<f64>>"},
        {"IRFFT", "[10]", "tensor<2x6xcomplex<f32>>", "tensor<2x10xf32>"},
        {"IRFFT", "[7]", "tensor<4xcomplex<f64>>", "tensor<7xf64>"},
        {"IRFFT", "[4, 9]", "tensor<4x5xcomplex<f32>>", "tensor<4x9xf32>"},
        {"IRFFT", "[2, 3, 8]", "tensor<2x3x5xcomplex<f64>>", "tensor<2x3x8xf64>"},
    };
    int index = 0;
    for (const Fft& fft : ffts) {
      const std::string arg = "%x" + std::to_string(index), result = "%f" + std::to_string(index);
      ++index;
      program.NamedArg(arg, fft.in);
      program.Returned("  " + result + " = stablehlo.fft " + arg + ", type = " + fft.type +
                           ", length = " + fft.length + " : (" + fft.in + ") -> " + fft.out + "\n",
                       result, fft.out);
    }
    KernelFamily family{"fft", program, 0, 0, false};
    family.transforms = true;
    families.push_back(family);
  }
  {
    // chlo.ragged_dot in each mode, on ordinary finite values (sums show
    // their order) and random group sizes (negative, zero, past the ragged
    // dimension): a ragged row dimension with and without batches and
    // sizes per batch element, a ragged contracting dimension alone and
    // beside another, a ragged batch dimension, integers, bf16, f64.
    ProgramBuilder program("");
    struct Ragged {
      const char* lhs;
      const char* rhs;
      const char* sizes;
      const char* numbers;  // lb, rb, lc, rc, lr, rg
      const char* result;
    };
    const Ragged cases[] = {
        {"tensor<11x5xf32>", "tensor<3x5x7xf32>", "tensor<3xi32>", "[], [], [1], [1], [0], [0]",
         "tensor<11x7xf32>"},
        {"tensor<2x6x4xf32>", "tensor<3x2x4x5xf32>", "tensor<2x3xi32>",
         "[0], [1], [2], [2], [1], [0]", "tensor<2x6x5xf32>"},
        {"tensor<4x9xf32>", "tensor<9x3xf32>", "tensor<3xi32>", "[], [], [1], [0], [1], []",
         "tensor<3x4x3xf32>"},
        {"tensor<4x6x2xf64>", "tensor<6x2x3xf64>", "tensor<2xi32>",
         "[], [], [1, 2], [0, 1], [1], []", "tensor<2x4x3xf64>"},
        {"tensor<5x2x3xf32>", "tensor<5x3x4xf32>", "tensor<2xi32>", "[0], [0], [2], [1], [0], []",
         "tensor<5x2x4xf32>"},
        {"tensor<7x3xi8>", "tensor<2x3x4xi8>", "tensor<2xi32>", "[], [], [1], [1], [0], [0]",
         "tensor<7x4xi32>"},
        {"tensor<6x5xbf16>", "tensor<2x5x3xbf16>", "tensor<2xi32>", "[], [], [1], [1], [0], [0]",
         "tensor<6x3xbf16>"},
    };
    int index = 0;
    for (const Ragged& c : cases) {
      const std::string n = std::to_string(index++);
      program.NamedArg("%l" + n, c.lhs);
      program.NamedArg("%r" + n, c.rhs);
      program.NamedArg("%g" + n, c.sizes);
      std::string numbers = c.numbers;
      const char* fields[] = {"lhs_batching_dimensions",    "rhs_batching_dimensions",
                              "lhs_contracting_dimensions", "rhs_contracting_dimensions",
                              "lhs_ragged_dimensions",      "rhs_group_dimensions"};
      std::string spelled;
      size_t at = 0;
      for (const char* field : fields) {
        const size_t close = numbers.find(']', at);
        spelled += std::string(spelled.empty() ? "" : ", ") + field + " = " +
                   numbers.substr(numbers.find('[', at), close + 1 - numbers.find('[', at));
        at = close + 1;
      }
      program.Returned("  %d" + n + " = \"chlo.ragged_dot\"(%l" + n + ", %r" + n + ", %g" + n +
                           ") {ragged_dot_dimension_numbers = #chlo.ragged_dot<" + spelled +
                           ">} : (" + c.lhs + ", " + c.rhs + ", " + c.sizes + ") -> " + c.result +
                           "\n",
                       "%d" + n, c.result);
    }
    KernelFamily family{"ragged_dot", program, 0, 0, false};
    family.finite_values = true;
    families.push_back(family);
  }
  {
    // Legacy and CHLO forms the cpu plugin runs: stablehlo.dot of ranks 1
    // and 2 (an fma chain: ordinary finite values), stablehlo.broadcast,
    // real_dynamic_slice with constant bounds, chlo.constant and
    // chlo.constant_like of a number, an integer, a boolean and a splat,
    // torch_index_select with and without batch dimensions (random indices:
    // clamped as gather's).
    ProgramBuilder program("");
    program.NamedArg("%m", "tensor<5x7xf32>");
    program.NamedArg("%v", "tensor<7xf32>");
    program.NamedArg("%w", "tensor<5xf32>");
    program.NamedArg("%n", "tensor<7x3xf32>");
    program.NamedArg("%h", "tensor<3x4xf16>");
    program.NamedArg("%k", "tensor<9x8xi32>");
    program.NamedArg("%j", "tensor<2x4xi32>");
    program.NamedArg("%k3", "tensor<2x5x3xi32>");
    program.NamedArg("%j3", "tensor<2x4xi64>");
    const std::pair<std::string, std::string> values[] = {
        {"  %d0 = stablehlo.dot %m, %v : (tensor<5x7xf32>, tensor<7xf32>) -> tensor<5xf32>\n",
         "tensor<5xf32>"},
        {"  %d1 = stablehlo.dot %w, %m : (tensor<5xf32>, tensor<5x7xf32>) -> tensor<7xf32>\n",
         "tensor<7xf32>"},
        {"  %d2 = stablehlo.dot %m, %n : (tensor<5x7xf32>, tensor<7x3xf32>) -> tensor<5x3xf32>\n",
         "tensor<5x3xf32>"},
        {"  %d3 = stablehlo.dot %v, %v : (tensor<7xf32>, tensor<7xf32>) -> tensor<f32>\n",
         "tensor<f32>"},
        {"  %d4 = \"stablehlo.broadcast\"(%h) {broadcast_sizes = array<i64: 2, 1>} : "
         "(tensor<3x4xf16>) -> tensor<2x1x3x4xf16>\n",
         "tensor<2x1x3x4xf16>"},
        {"  %start = stablehlo.constant dense<[1, 2]> : tensor<2xi64>\n"
         "  %limit = stablehlo.constant dense<[9, 7]> : tensor<2xi64>\n"
         "  %stride = stablehlo.constant dense<[3, 2]> : tensor<2xi64>\n"
         "  %d5 = stablehlo.real_dynamic_slice %k, %start, %limit, %stride : (tensor<9x8xi32>, "
         "tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<3x3xi32>\n",
         "tensor<3x3xi32>"},
        {"  %d6 = \"chlo.constant_like\"(%h) {value = 2.5 : f16} : (tensor<3x4xf16>) -> "
         "tensor<3x4xf16>\n",
         "tensor<3x4xf16>"},
        {"  %d7 = \"chlo.constant_like\"(%k) {value = -3 : i32} : (tensor<9x8xi32>) -> "
         "tensor<9x8xi32>\n",
         "tensor<9x8xi32>"},
        {"  %d8 = \"chlo.constant_like\"(%v) {value = dense<0.75> : tensor<f32>} : (tensor<7xf32>) "
         "-> "
         "tensor<7xf32>\n",
         "tensor<7xf32>"},
        {"  %d9 = \"chlo.constant\"() {value = dense<[1, 2, 3]> : tensor<3xi8>} : () -> "
         "tensor<3xi8>\n",
         "tensor<3xi8>"},
        {"  %d10 = \"stablehlo.torch_index_select\"(%n, %j) {dim = 1 : i64, batch_dims = 0 : i64} "
         ": "
         "(tensor<7x3xf32>, tensor<2x4xi32>) -> tensor<7x2x4xf32>\n",
         "tensor<7x2x4xf32>"},
        {"  %d11 = \"stablehlo.torch_index_select\"(%k3, %j3) {dim = 1 : i64, batch_dims = 1 : "
         "i64} : "
         "(tensor<2x5x3xi32>, tensor<2x4xi64>) -> tensor<2x4x3xi32>\n",
         "tensor<2x4x3xi32>"},
    };
    int index = 0;
    for (const auto& [lines, type] : values)
      program.Returned(lines, "%d" + std::to_string(index++), type);
    KernelFamily family{"legacy_forms", program, 0, 0, false};
    family.finite_values = true;
    families.push_back(family);
  }
  {
    // cholesky of symmetric (Hermitian) positive definite matrices made in
    // the program - x x^T (x x^H) plus 8 on the diagonal, from ordinary
    // finite x - both triangles, f32, f64, f16 and complex<f32>; and of a
    // random matrix (mostly not positive definite: NaN everywhere).
    ProgramBuilder program("");
    program.NamedArg("%x", "tensor<3x6x6xf32>");
    program.NamedArg("%y", "tensor<5x5xf64>");
    program.NamedArg("%zr", "tensor<4x4xf32>");
    program.NamedArg("%zi", "tensor<4x4xf32>");
    program.NamedArg("%r", "tensor<2x3x3xf32>");
    auto spd = [&](const std::string& name, const std::string& x, const std::string& type,
                   const std::string& batch, const std::string& element) {
      const std::string b = batch.empty() ? "" : "batching_dims = [0] x [0], ";
      const int64_t c = batch.empty() ? 1 : 2;
      program.Lines("  %g" + name + " = stablehlo.dot_general " + x + ", " + x + ", " + b +
                    "contracting_dims = [" + std::to_string(c) + "] x [" + std::to_string(c) +
                    "] : (" + type + ", " + type + ") -> " + type + "\n" + "  %i" + name +
                    "r = stablehlo.iota dim = " + std::to_string(c - 1) + " : " +
                    type.substr(0, type.size() - 1 - element.size()) + "i32>\n" + "  %i" + name +
                    "c = stablehlo.iota dim = " + std::to_string(c) + " : " +
                    type.substr(0, type.size() - 1 - element.size()) + "i32>\n");
      const std::string mask = type.substr(0, type.size() - 1 - element.size()) + "i1>";
      program.Lines("  %e" + name + " = stablehlo.compare EQ, %i" + name + "r, %i" + name +
                    "c : (" + type.substr(0, type.size() - 1 - element.size()) + "i32>, " +
                    type.substr(0, type.size() - 1 - element.size()) + "i32>) -> " + mask + "\n" +
                    "  %eight" + name + " = stablehlo.constant dense<8.0> : " + type + "\n" +
                    "  %zero" + name + " = stablehlo.constant dense<0.0> : " + type + "\n" +
                    "  %d" + name + " = stablehlo.select %e" + name + ", %eight" + name +
                    ", %zero" + name + " : " + mask + ", " + type + "\n" + "  %a" + name +
                    " = stablehlo.add %g" + name + ", %d" + name + " : " + type + "\n");
      return "%a" + name;
    };
    const std::string a32 = spd("32", "%x", "tensor<3x6x6xf32>", "b", "f32");
    const std::string a64 = spd("64", "%y", "tensor<5x5xf64>", "", "f64");
    const std::pair<std::string, std::string> results[] = {
        {"  %c0 = stablehlo.cholesky " + a32 + ", lower = true : tensor<3x6x6xf32>\n",
         "tensor<3x6x6xf32>"},
        {"  %c1 = stablehlo.cholesky " + a32 + " : tensor<3x6x6xf32>\n", "tensor<3x6x6xf32>"},
        {"  %c2 = stablehlo.cholesky " + a64 + ", lower = true : tensor<5x5xf64>\n",
         "tensor<5x5xf64>"},
        {"  %h = stablehlo.convert " + a32 +
             " : (tensor<3x6x6xf32>) -> tensor<3x6x6xf16>\n"
             "  %c3 = stablehlo.cholesky %h, lower = true : tensor<3x6x6xf16>\n",
         "tensor<3x6x6xf16>"},
        {"  %c4 = stablehlo.cholesky %r, lower = true : tensor<2x3x3xf32>\n", "tensor<2x3x3xf32>"},
    };
    int index = 0;
    for (const auto& [lines, type] : results) {
      program.Returned(lines, "%c" + std::to_string(index++), type);
    }
    // complex: z z^H + 8 I, z = zr + i zi, both triangles.
    program.Lines(
        "  %z = stablehlo.complex %zr, %zi : tensor<4x4xcomplex<f32>>\n"
        "  %zn = stablehlo.negate %zi : tensor<4x4xf32>\n"
        "  %zt = stablehlo.complex %zr, %zn : tensor<4x4xcomplex<f32>>\n"
        "  %zz = stablehlo.dot_general %z, %zt, contracting_dims = [1] x [1] : "
        "(tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>\n"
        "  %zir = stablehlo.iota dim = 0 : tensor<4x4xi32>\n"
        "  %zic = stablehlo.iota dim = 1 : tensor<4x4xi32>\n"
        "  %ze = stablehlo.compare EQ, %zir, %zic : (tensor<4x4xi32>, tensor<4x4xi32>) -> "
        "tensor<4x4xi1>\n"
        "  %z8 = stablehlo.constant dense<(8.0, 0.0)> : tensor<4x4xcomplex<f32>>\n"
        "  %z0 = stablehlo.constant dense<(0.0, 0.0)> : tensor<4x4xcomplex<f32>>\n"
        "  %zd = stablehlo.select %ze, %z8, %z0 : tensor<4x4xi1>, tensor<4x4xcomplex<f32>>\n"
        "  %za = stablehlo.add %zz, %zd : tensor<4x4xcomplex<f32>>\n");
    program.Returned("  %c5 = stablehlo.cholesky %za, lower = true : tensor<4x4xcomplex<f32>>\n",
                     "%c5", "tensor<4x4xcomplex<f32>>");
    program.Returned("  %c6 = stablehlo.cholesky %za : tensor<4x4xcomplex<f32>>\n", "%c6",
                     "tensor<4x4xcomplex<f32>>");
    KernelFamily family{"cholesky", program, 0, 0, false};
    family.finite_values = true;
    families.push_back(family);
  }
  {
    // batch_norm_training, _inference and _grad on ordinary finite values
    // (so the sums' order shows in the bits): f32 and f64 over several
    // segments of the cpu plugin's sums (up to 30000 elements), features first,
    // innermost and in the middle, f16, bf16 and f64, inference with given
    // statistics, grad with them.
    ProgramBuilder program("");
    struct Norm {
      const char* kind;  // training, inference, grad
      const char* type;  // the operand's
      const char* feature_type;
      int feature;
    };
    const Norm norms[] = {
        {"training", "tensor<3x8x1000xf32>", "tensor<8xf32>", 1},
        {"training", "tensor<4x5x6x3xf32>", "tensor<5xf32>", 1},
        {"training", "tensor<7x6xf16>", "tensor<6xf16>", 1},
        {"training", "tensor<5x9xf64>", "tensor<5xf64>", 0},
        {"training", "tensor<2x3x5000xf64>", "tensor<3xf64>", 1},
        {"inference", "tensor<2x4x5xbf16>", "tensor<4xbf16>", 1},
        {"inference", "tensor<3x7xf32>", "tensor<7xf32>", 1},
        {"grad", "tensor<4x6x5xf32>", "tensor<6xf32>", 1},
        {"grad", "tensor<5x3xf64>", "tensor<5xf64>", 0},
        {"grad", "tensor<3x4x1000xf64>", "tensor<4xf64>", 1},
    };
    int index = 0;
    for (const Norm& n : norms) {
      const std::string k = std::to_string(index++);
      const std::string x = "%x" + k, a = "%a" + k, b = "%b" + k, c = "%c" + k, d = "%d" + k;
      const std::string attrs =
          "{epsilon = 1.000000e-03 : f32, feature_index = " + std::to_string(n.feature) + " : i64}";
      const std::string v = n.feature_type, t = n.type;
      program.NamedArg(x, t);
      program.NamedArg(a, v);
      program.NamedArg(b, v);
      if (std::string(n.kind) == "training") {
        program.Lines("  %n" + k + ":3 = \"stablehlo.batch_norm_training\"(" + x + ", " + a + ", " +
                      b + ") " + attrs + " : (" + t + ", " + v + ", " + v + ") -> (" + t + ", " +
                      v + ", " + v + ")\n");
        program.Returned("", "%n" + k + "#0", t);
        program.Returned("", "%n" + k + "#1", v);
        program.Returned("", "%n" + k + "#2", v);
        continue;
      }
      // Given statistics: a mean, and a positive variance made from an argument.
      program.NamedArg(c, v);
      program.NamedArg(d, v);
      program.Lines("  %var" + k + " = stablehlo.multiply " + d + ", " + d + " : " + v + "\n");
      if (std::string(n.kind) == "inference") {
        program.Returned("  %n" + k + " = \"stablehlo.batch_norm_inference\"(" + x + ", " + a +
                             ", " + b + ", " + c + ", %var" + k + ") " + attrs + " : (" + t + ", " +
                             v + ", " + v + ", " + v + ", " + v + ") -> " + t + "\n",
                         "%n" + k, t);
        continue;
      }
      program.NamedArg("%dy" + k, t);
      program.Lines("  %n" + k + ":3 = \"stablehlo.batch_norm_grad\"(" + x + ", " + a + ", " + c +
                    ", %var" + k + ", %dy" + k + ") " + attrs + " : (" + t + ", " + v + ", " + v +
                    ", " + v + ", " + t + ") -> (" + t + ", " + v + ", " + v + ")\n");
      program.Returned("", "%n" + k + "#0", t);
      program.Returned("", "%n" + k + "#1", v);
      program.Returned("", "%n" + k + "#2", v);
    }
    KernelFamily family{"batch_norm", program, 0, 0, false};
    family.finite_values = true;
    families.push_back(family);
  }
}

}  // namespace berth::cuda::testing

#endif  // BERTH_TESTS_CUDA_LINALG_FAMILIES_HPP_
