// mlp.mlir with its batch split over 2 devices (data parallel): each device
// is given one row of x and computes its row's probabilities; berth run
// prints the global result, the same as mlp.mlir's. Run it with:
//   berth run configs/examples/sharded_mlp.mlir --arg 'dense<[[1.0, 2.0, 3.0, 4.0], [0.5, -1.0, 0.0, 2.0]]> : tensor<2x4xf32>'
// and see the per-device program with:
//   berth compile configs/examples/sharded_mlp.mlir --partitioned -o sharded_mlp.part.mlir
module @sharded_mlp attributes {mhlo.num_replicas = 1 : i32, mhlo.num_partitions = 2 : i32} {
  func.func public @main(%x: tensor<2x4xf32> {mhlo.sharding = "{devices=[2,1]<=[2]}"})
      -> (tensor<2x3xf32> {jax.result_info = "probabilities", mhlo.sharding = "{devices=[2,1]<=[2]}"}) {
    %w1 = stablehlo.constant dense<[[-0.1762, -0.3492, 0.1509, -0.4276, 0.0359, -0.1343, -0.4420, 0.0074], [-0.4625, -0.0664, -0.4301, -0.4093, -0.0755, 0.3269, -0.3762, -0.2768], [0.1274, 0.4477, 0.0771, -0.1033, 0.4763, -0.4534, 0.3585, -0.2104], [-0.3557, -0.3822, -0.1915, 0.3161, -0.3193, 0.0816, 0.1389, -0.1276]]> : tensor<4x8xf32>
    %b1 = stablehlo.constant dense<[0.0095, -0.0874, -0.0881, -0.0588, 0.0361, -0.0145, -0.0372, 0.0171]> : tensor<8xf32>
    %w2 = stablehlo.constant dense<[[-0.0468, -0.2002, 0.2944], [0.1990, -0.2559, 0.0744], [0.0252, 0.3751, 0.2294], [-0.2121, 0.4802, -0.3819], [-0.0819, 0.2571, -0.3480], [-0.0110, -0.4608, 0.1682], [0.2646, 0.0730, 0.3755], [-0.1863, 0.1953, 0.0944]]> : tensor<8x3xf32>
    %b2 = stablehlo.constant dense<[0.0160, -0.0088, 0.0680]> : tensor<3xf32>
    %zero = stablehlo.constant dense<0.0> : tensor<2x8xf32>

    // hidden = relu(x . w1 + b1)
    %xw = stablehlo.dot_general %x, %w1, contracting_dims = [1] x [0] : (tensor<2x4xf32>, tensor<4x8xf32>) -> tensor<2x8xf32>
    %b1b = stablehlo.broadcast_in_dim %b1, dims = [1] : (tensor<8xf32>) -> tensor<2x8xf32>
    %h0 = stablehlo.add %xw, %b1b : tensor<2x8xf32>
    %h = stablehlo.maximum %h0, %zero : tensor<2x8xf32>

    // logits = hidden . w2 + b2
    %hw = stablehlo.dot_general %h, %w2, contracting_dims = [1] x [0] : (tensor<2x8xf32>, tensor<8x3xf32>) -> tensor<2x3xf32>
    %b2b = stablehlo.broadcast_in_dim %b2, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
    %logits = stablehlo.add %hw, %b2b : tensor<2x3xf32>

    // softmax over the classes, shifted by the row maximum for stability
    %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %max = stablehlo.reduce(%logits init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
    %maxb = stablehlo.broadcast_in_dim %max, dims = [0] : (tensor<2xf32>) -> tensor<2x3xf32>
    %shifted = stablehlo.subtract %logits, %maxb : tensor<2x3xf32>
    %e = stablehlo.exponential %shifted : tensor<2x3xf32>
    %fzero = stablehlo.constant dense<0.0> : tensor<f32>
    %sum = stablehlo.reduce(%e init: %fzero) applies stablehlo.add across dimensions = [1] : (tensor<2x3xf32>, tensor<f32>) -> tensor<2xf32>
    %sumb = stablehlo.broadcast_in_dim %sum, dims = [0] : (tensor<2xf32>) -> tensor<2x3xf32>
    %p = stablehlo.divide %e, %sumb : tensor<2x3xf32>
    return %p : tensor<2x3xf32>
  }
}
