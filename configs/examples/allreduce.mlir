// Sums each replica's id over every replica: with N replicas every one
// returns N*(N-1)/2. Run it across 2 processes with:
//   berth launch -n 2 -- berth run configs/examples/allreduce.mlir --json
module @allreduce attributes {mhlo.num_replicas = 2 : i32, mhlo.num_partitions = 1 : i32} {
  func.func public @main() -> tensor<ui32> {
    %id = stablehlo.replica_id : tensor<ui32>
    %sum = "stablehlo.all_reduce"(%id) ({
      ^bb0(%a: tensor<ui32>, %b: tensor<ui32>):
        %s = stablehlo.add %a, %b : tensor<ui32>
        stablehlo.return %s : tensor<ui32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<ui32>) -> tensor<ui32>
    return %sum : tensor<ui32>
  }
}
