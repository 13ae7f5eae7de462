// Berth's own programs, one per op (e to r), in the style of the upstream
// interpreter tests: each chunk must parse, verify and round-trip.

func.func @einsum() {
  %lhs = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
  %rhs = stablehlo.constant dense<[[1, 0], [0, 1]]> : tensor<2x2xi64>
  %0 = "stablehlo.einsum"(%lhs, %rhs) {einsum_config = "ab,bc->ac"} : (tensor<2x2xi64>, tensor<2x2xi64>) -> tensor<2x2xi64>
  %1 = "stablehlo.unary_einsum"(%lhs) {einsum_config = "ab->a"} : (tensor<2x2xi64>) -> tensor<2xi64>
  %2 = stablehlo.unary_einsum %lhs, config = "ab->b" : (tensor<2x2xi64>) -> tensor<2xi64>
  func.return
}

// -----

func.func @gather() {
  %operand = stablehlo.constant dense<[[[1, 2], [3, 4], [5, 6], [7, 8]],
                                       [[9, 10], [11, 12], [13, 14], [15, 16]],
                                       [[17, 18], [19, 20], [21, 22], [23, 24]]]> : tensor<3x4x2xi64>
  %start_indices = stablehlo.constant dense<[[[0, 0], [1, 0], [2, 1]],
                                             [[0, 1], [1, 1], [0, 2]]]> : tensor<2x3x2xi64>
  %result = "stablehlo.gather"(%operand, %start_indices) {
    dimension_numbers = #stablehlo.gather<
      offset_dims = [2, 3],
      collapsed_slice_dims = [0],
      start_index_map = [1, 0],
      index_vector_dim = 2>,
    slice_sizes = array<i64: 1, 2, 2>,
    indices_are_sorted = false
  } : (tensor<3x4x2xi64>, tensor<2x3x2xi64>) -> tensor<2x3x2x2xi64>
  func.return
}

// -----

func.func @gather_with_batching_dims() {
  %operand = stablehlo.constant dense<1> : tensor<2x3x4x2xi64>
  %start_indices = stablehlo.constant dense<0> : tensor<2x2x3x2xi64>
  %result = "stablehlo.gather"(%operand, %start_indices) {
    dimension_numbers = #stablehlo.gather<
      offset_dims = [3, 4],
      collapsed_slice_dims = [1],
      operand_batching_dims = [0],
      start_indices_batching_dims = [1],
      start_index_map = [2, 1],
      index_vector_dim = 3>,
    slice_sizes = array<i64: 1, 1, 2, 2>,
    indices_are_sorted = false
  } : (tensor<2x3x4x2xi64>, tensor<2x2x3x2xi64>) -> tensor<2x2x3x2x2xi64>
  func.return
}

// -----

func.func @get_dimension_size_and_set() {
  %operand = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %result = stablehlo.get_dimension_size %operand, dim = 1 : (tensor<2x3xi64>) -> tensor<i32>
  %size = stablehlo.constant dense<2> : tensor<i32>
  %set = "stablehlo.set_dimension_size"(%operand, %size) {dimension = 1 : i64} : (tensor<2x3xi64>, tensor<i32>) -> tensor<2x?xi64, #stablehlo.bounds<?, 3>>
  check.expect_eq_const %result, dense<3> : tensor<i32>
  func.return
}

// -----

module @distribution_ops {
  func.func @infeed(%token : !stablehlo.token) -> (tensor<2x2xi64>, !stablehlo.token) {
    %results0:2 = "stablehlo.infeed"(%token) {infeed_config = ""} :
        (!stablehlo.token) -> (tensor<2x2xi64>, !stablehlo.token)
    func.return %results0#0, %results0#1 : tensor<2x2xi64>, !stablehlo.token
  }
  func.func @infeed_queue0() -> (tensor<2x2xi64>) {
    %queue0 = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
    func.return %queue0 : tensor<2x2xi64>
  }
  func.func @main() {
    %token = stablehlo.after_all : !stablehlo.token
    %results:2 = "interpreter.run_parallel"(%token) {
      infeed=[@infeed_queue0],
      programs=[[@infeed]]
    } : (!stablehlo.token) -> (tensor<2x2xi64>, !stablehlo.token)
    check.expect_eq_const %results#0, dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
    func.return
  }
}

// -----

func.func @iota_and_is_finite() {
  %0 = stablehlo.iota dim = 1 : tensor<2x3xf32>
  %1 = "stablehlo.iota"() {iota_dimension = 0 : i64} : () -> tensor<4xui8>
  %2 = stablehlo.is_finite %0 : (tensor<2x3xf32>) -> tensor<2x3xi1>
  func.return
}

// -----

func.func @map() {
  %input0 = stablehlo.constant dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>
  %input1 = stablehlo.constant dense<[[4, 5], [6, 7]]> : tensor<2x2xi64>
  %result = "stablehlo.map"(%input0, %input1) ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %0 = stablehlo.multiply %arg0, %arg1 : tensor<i64>
      stablehlo.return %0 : tensor<i64>
  }) {
    dimensions = array<i64: 0, 1>
  } : (tensor<2x2xi64>, tensor<2x2xi64>) -> tensor<2x2xi64>
  check.expect_eq_const %result, dense<[[0, 5], [12, 21]]> : tensor<2x2xi64>
  func.return
}

// -----

func.func @max_min_mul_sub() {
  %a = stablehlo.constant dense<[1, -2]> : tensor<2xi32>
  %0 = stablehlo.maximum %a, %a : tensor<2xi32>
  %1 = stablehlo.minimum %a, %a : tensor<2xi32>
  %2 = stablehlo.multiply %a, %a : tensor<2xi32>
  %3 = stablehlo.subtract %a, %a : tensor<2xi32>
  %4 = stablehlo.square %a : tensor<2xi32>
  func.return
}

// -----

func.func @optimization_barrier() {
  %a = stablehlo.constant dense<0.0> : tensor<f32>
  %b = stablehlo.constant dense<1.0> : tensor<f32>
  %r:2 = stablehlo.optimization_barrier %a, %b : tensor<f32>, tensor<f32>
  %s = stablehlo.optimization_barrier %a : tensor<f32>
  check.expect_almost_eq_const %r#1, dense<1.0> : tensor<f32>
  func.return
}

// -----

module @outfeed_send_recv {
  func.func @outfeed(%input : tensor<2x2xi64>, %token : !stablehlo.token) -> !stablehlo.token {
    %result = "stablehlo.outfeed"(%input, %token) {outfeed_config = ""} : (tensor<2x2xi64>, !stablehlo.token) -> !stablehlo.token
    func.return %result : !stablehlo.token
  }
  func.func @send(%operand : tensor<2x2xi64>, %token : !stablehlo.token) -> !stablehlo.token {
    %result = "stablehlo.send"(%operand, %token) {
      channel_handle = #stablehlo.channel_handle<handle = 1, type = 2>,
      is_host_transfer = true
    } : (tensor<2x2xi64>, !stablehlo.token) -> !stablehlo.token
    func.return %result : !stablehlo.token
  }
  func.func @recv(%token : !stablehlo.token) -> (tensor<2x2xi64>, !stablehlo.token) {
    %results0, %results1 = "stablehlo.recv"(%token) {
      channel_handle = #stablehlo.channel_handle<handle = 1, type = 3>,
      is_host_transfer = true
    } : (!stablehlo.token) -> (tensor<2x2xi64>, !stablehlo.token)
    func.return %results0, %results1 : tensor<2x2xi64>, !stablehlo.token
  }
  func.func @main() {
    %0 = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
    %1 = stablehlo.after_all : !stablehlo.token
    %results:3 = "interpreter.run_parallel"(%0, %1, %1) {
      programs=[[@send], [@recv]]
    } : (tensor<2x2xi64>, !stablehlo.token, !stablehlo.token) -> (!stablehlo.token, tensor<2x2xi64>, !stablehlo.token)
    check.expect_eq_const %results#1, dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
    func.return
  }
}

// -----

module @partition_id {
  func.func @partition_id() -> tensor<ui32> {
    %result = stablehlo.partition_id : tensor<ui32>
    return %result : tensor<ui32>
  }
  func.func @main() {
    %results:2 = "interpreter.run_parallel"() {
      programs=[[@partition_id, @partition_id]]
    } : () -> (tensor<ui32>, tensor<ui32>)
    check.expect_eq_const %results#1, dense<1> : tensor<ui32>
    func.return
  }
}

// -----

func.func @real_dynamic_slice() {
  %operand = stablehlo.constant dense<[[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]> : tensor<3x4xi64>
  %start_indices = stablehlo.constant dense<[0, 1]> : tensor<2xi64>
  %limit_indices = stablehlo.constant dense<[2, 3]> : tensor<2xi64>
  %strides = stablehlo.constant dense<[1, 1]> : tensor<2xi64>
  %result = stablehlo.real_dynamic_slice %operand, %start_indices, %limit_indices, %strides : (tensor<3x4xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<2x2xi64>
  func.return
}

// -----

func.func @reduce_precision() {
  %operand = stablehlo.constant dense<[0x7FF0000000000000, 1.0, 65519.0]> : tensor<3xf64>
  %output = stablehlo.reduce_precision %operand, format = e5m10 : tensor<3xf64>
  %o2 = "stablehlo.reduce_precision"(%operand) {exponent_bits = 8 : i32, mantissa_bits = 7 : i32} : (tensor<3xf64>) -> tensor<3xf64>
  func.return
}

// -----

func.func @reduce_window() {
  %input = stablehlo.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi64>
  %init_value = stablehlo.constant dense<0> : tensor<i64>
  %result = "stablehlo.reduce_window"(%input, %init_value) ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %0 = stablehlo.add %arg0, %arg1 : tensor<i64>
      stablehlo.return %0 : tensor<i64>
  }) {
    window_dimensions = array<i64: 2, 1>,
    window_strides = array<i64: 4, 1>,
    base_dilations = array<i64: 2, 1>,
    window_dilations = array<i64: 3, 1>,
    padding = dense<[[2, 1], [0, 0]]> : tensor<2x2xi64>
  } : (tensor<3x2xi64>, tensor<i64>) -> tensor<2x2xi64>
  check.expect_eq_const %result, dense<[[0, 0], [3, 4]]> : tensor<2x2xi64>
  func.return
}

// -----

func.func @reverse_and_reshape() {
  %operand = stablehlo.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi32>
  %result = stablehlo.reverse %operand, dims = [1, 0] : tensor<3x2xi32>
  %r2 = stablehlo.reshape %result : (tensor<3x2xi32>) -> tensor<2x3xi32>
  check.expect_eq_const %result, dense<[[6, 5], [4, 3], [2, 1]]> : tensor<3x2xi32>
  func.return
}

// -----

func.func @rng() {
  %a = stablehlo.constant dense<0> : tensor<i32>
  %b = stablehlo.constant dense<2> : tensor<i32>
  %shape = stablehlo.constant dense<[3, 3]> : tensor<2xi64>
  %result = stablehlo.rng %a, %b, %shape, distribution = UNIFORM : (tensor<i32>, tensor<i32>, tensor<2xi64>) -> tensor<3x3xi32>
  func.return
}

// -----

func.func @rng_bit_generator() {
  %initial_state = stablehlo.constant dense<[1, 2]> : tensor<2xui64>
  %output_state, %output = stablehlo.rng_bit_generator %initial_state, algorithm = THREE_FRY : (tensor<2xui64>) -> (tensor<2xui64>, tensor<2x2xui64>)
  %s2, %o2 = "stablehlo.rng_bit_generator"(%initial_state) {rng_algorithm = #stablehlo<rng_algorithm DEFAULT>} : (tensor<2xui64>) -> (tensor<2xui64>, tensor<4xui32>)
  func.return
}
