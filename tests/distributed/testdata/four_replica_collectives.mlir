// Four replicas, one per node: all-reduce, all-gather, all-to-all and
// collective-permute of values made from the replica id.
module @collectives attributes {mhlo.num_replicas = 4 : i32, mhlo.num_partitions = 1 : i32} {
  func.func public @main() -> (tensor<ui32>, tensor<4xui32>, tensor<4xui32>, tensor<ui32>) {
    %id = stablehlo.replica_id : tensor<ui32>
    %sum = "stablehlo.all_reduce"(%id) ({
      ^bb0(%a: tensor<ui32>, %b: tensor<ui32>):
        %s = stablehlo.add %a, %b : tensor<ui32>
        stablehlo.return %s : tensor<ui32>
    }) {replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>} : (tensor<ui32>) -> tensor<ui32>
    %one = stablehlo.reshape %id : (tensor<ui32>) -> tensor<1xui32>
    %gathered = "stablehlo.all_gather"(%one) {
      all_gather_dim = 0 : i64,
      replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>
    } : (tensor<1xui32>) -> tensor<4xui32>
    %ten = stablehlo.constant dense<10> : tensor<ui32>
    %scaled = stablehlo.multiply %id, %ten : tensor<ui32>
    %row = stablehlo.broadcast_in_dim %scaled, dims = [] : (tensor<ui32>) -> tensor<4xui32>
    %iota = stablehlo.iota dim = 0 : tensor<4xui32>
    %mine = stablehlo.add %row, %iota : tensor<4xui32>
    %exchanged = "stablehlo.all_to_all"(%mine) {
      split_dimension = 0 : i64,
      concat_dimension = 0 : i64,
      split_count = 4 : i64,
      replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>
    } : (tensor<4xui32>) -> tensor<4xui32>
    %shifted = "stablehlo.collective_permute"(%id) {
      source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>
    } : (tensor<ui32>) -> tensor<ui32>
    return %sum, %gathered, %exchanged, %shifted : tensor<ui32>, tensor<4xui32>, tensor<4xui32>, tensor<ui32>
  }
}
