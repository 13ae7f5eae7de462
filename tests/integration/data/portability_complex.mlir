// Complex numbers, FFT and a narrow float format on data made in the
// program, for tests/integration/check_portability.sh: the complex block
// functions and Eigen's FFT are compiled per ISA variant or in the baseline
// build, and their results must be the same bits on every CPU.
func.func @main() -> (tensor<64xcomplex<f32>>, tensor<64xcomplex<f64>>, tensor<64xf8E4M3FN>,
                      tensor<6x60xcomplex<f32>>) {
  %i = stablehlo.iota dim = 0 : tensor<64xf32>
  %s = stablehlo.constant dense<0.37> : tensor<64xf32>
  %x = stablehlo.multiply %i, %s : tensor<64xf32>
  %y = stablehlo.sine %x : tensor<64xf32>
  %c = stablehlo.complex %x, %y : tensor<64xcomplex<f32>>
  %e = stablehlo.exponential %c : tensor<64xcomplex<f32>>
  %l = stablehlo.log_plus_one %e : tensor<64xcomplex<f32>>
  %d = stablehlo.divide %l, %c : tensor<64xcomplex<f32>>
  %t = stablehlo.tanh %d : tensor<64xcomplex<f32>>
  %w = stablehlo.convert %t : (tensor<64xcomplex<f32>>) -> tensor<64xcomplex<f64>>
  %p = stablehlo.power %w, %w : tensor<64xcomplex<f64>>
  %q = stablehlo.sqrt %p : tensor<64xcomplex<f64>>
  %f = stablehlo.convert %x : (tensor<64xf32>) -> tensor<64xf8E4M3FN>
  %g = stablehlo.multiply %f, %f : tensor<64xf8E4M3FN>
  %m = stablehlo.iota dim = 1 : tensor<6x60xf32>
  %n = stablehlo.cosine %m : tensor<6x60xf32>
  %r = stablehlo.fft %n, type = RFFT, length = [6, 60] : (tensor<6x60xf32>) -> tensor<6x31xcomplex<f32>>
  %z = stablehlo.fft %r, type = IRFFT, length = [6, 60] : (tensor<6x31xcomplex<f32>>) -> tensor<6x60xf32>
  %zc = stablehlo.convert %z : (tensor<6x60xf32>) -> tensor<6x60xcomplex<f32>>
  %h = stablehlo.fft %zc, type = FFT, length = [60] : (tensor<6x60xcomplex<f32>>) -> tensor<6x60xcomplex<f32>>
  return %t, %q, %g, %h : tensor<64xcomplex<f32>>, tensor<64xcomplex<f64>>, tensor<64xf8E4M3FN>,
                          tensor<6x60xcomplex<f32>>
}
