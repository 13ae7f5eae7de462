// Run by tests/run_program.sh; every value is exact in f32:
// y = max(2|x| + exp(x - x), x), then the column sums of min(-y / 2, x).
func.func @main(%x: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>) {
  %a = stablehlo.abs %x : tensor<2x3xf32>
  %two = stablehlo.constant dense<2.0> : tensor<2x3xf32>
  %d = stablehlo.multiply %a, %two : tensor<2x3xf32>
  %z = stablehlo.subtract %x, %x : tensor<2x3xf32>
  %one = stablehlo.exponential %z : tensor<2x3xf32>
  %s = stablehlo.add %d, %one : tensor<2x3xf32>
  %y = stablehlo.maximum %s, %x : tensor<2x3xf32>
  %h = stablehlo.divide %y, %two : tensor<2x3xf32>
  %n = stablehlo.negate %h : tensor<2x3xf32>
  %m = stablehlo.minimum %n, %x : tensor<2x3xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%m init: %zero) applies stablehlo.add across dimensions = [0]
      : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32>
  return %y, %r : tensor<2x3xf32>, tensor<3xf32>
}
