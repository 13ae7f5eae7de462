// example.row_softmax on a row-sharded 8x6 array over 2 devices (berth run
// with the example's two manifests; extensions/custom_partitioner/README.md).
module @row_softmax attributes {mhlo.num_partitions = 2 : i32} {
  func.func @main(%x: tensor<8x6xf32> {mhlo.sharding = "{devices=[2,1]<=[2]}"})
      -> (tensor<8x6xf32> {mhlo.sharding = "{devices=[2,1]<=[2]}"}) {
    %y = stablehlo.custom_call @example.row_softmax(%x) : (tensor<8x6xf32>) -> tensor<8x6xf32>
    return %y : tensor<8x6xf32>
  }
}
