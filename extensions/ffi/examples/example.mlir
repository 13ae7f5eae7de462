// Calls the example FFI module's two targets (see README.md):
//   BERTH_ADD_PLUGIN_PATH=build/extensions/ffi/ffi_example.json \
//     berth run extensions/ffi/examples/example.mlir \
//     --arg 'dense<[-2.0, -0.5, 0.0, 0.5, 2.0]> : tensor<5xf32>'
func.func @main(%x: tensor<5xf32>) -> (tensor<5xf32>, tensor<5xf32>) {
  %soft = stablehlo.custom_call @example.softplus(%x) {backend_config = {beta = 2.0 : f32}}
      : (tensor<5xf32>) -> tensor<5xf32>
  %clamped = stablehlo.custom_call @example.clamp(%x) {lo = -1.0 : f32, hi = 1.0 : f32}
      : (tensor<5xf32>) -> tensor<5xf32>
  return %soft, %clamped : tensor<5xf32>, tensor<5xf32>
}
