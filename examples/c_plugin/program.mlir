// examples/c_plugin/program.mlir: every op the C plugin runs, each value
// exact in f32. With x = [0, 1, -1, 2, -2, 0.5]:
//   y = max(2|x| + 1, x)    = [1, 3, 3, 5, 5, 2]
//   z = min(-y / 2, x) - c  = [-1.5, -2.5, -2.5, -3.5, -3.5, -1]
func.func @main(%x: tensor<6xf32>) -> (tensor<6xf32>, tensor<6xf32>) {
  %a = stablehlo.abs %x : tensor<6xf32>
  %two = stablehlo.constant dense<2.0> : tensor<6xf32>
  %d = stablehlo.multiply %a, %two : tensor<6xf32>
  %one = stablehlo.constant dense<[1.0, 1.0, 1.0, 1.0, 1.0, 1.0]> : tensor<6xf32>
  %s = stablehlo.add %d, %one : tensor<6xf32>
  %y = stablehlo.maximum %s, %x : tensor<6xf32>
  %h = stablehlo.divide %y, %two : tensor<6xf32>
  %n = stablehlo.negate %h : tensor<6xf32>
  %m = stablehlo.minimum %n, %x : tensor<6xf32>
  %c = "stablehlo.constant"() {value = dense<[1.0, 1.0, 1.0, 1.0, 1.0, 0.0]> : tensor<6xf32>} : () -> tensor<6xf32>
  %z = "stablehlo.subtract"(%m, %c) : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xf32>
  return %y, %z : tensor<6xf32>, tensor<6xf32>
}
