// Berth's own programs, one per op (s to z, and the harness), in the style
// of the upstream interpreter tests: each chunk must parse, verify and
// round-trip.

// An empty chunk is an empty module.

// -----

func.func @select() {
  %pred = stablehlo.constant dense<[[false, true], [true, false]]> : tensor<2x2xi1>
  %on_true = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>
  %on_false = stablehlo.constant dense<[[5, 6], [7, 8]]> : tensor<2x2xi32>
  %result = stablehlo.select %pred, %on_true, %on_false : tensor<2x2xi1>, tensor<2x2xi32>
  %p0 = stablehlo.constant dense<true> : tensor<i1>
  %r2 = stablehlo.select %p0, %on_true, %on_false : (tensor<i1>, tensor<2x2xi32>, tensor<2x2xi32>) -> tensor<2x2xi32>
  check.expect_eq_const %result, dense<[[5, 2], [3, 8]]> : tensor<2x2xi32>
  func.return
}

// -----

func.func @select_and_scatter() {
  %operand = stablehlo.constant dense<[[1, 5], [2, 5], [3, 6], [4, 4]]> : tensor<4x2xi64>
  %source = stablehlo.constant dense<[[5, 6], [7, 8]]> : tensor<2x2xi64>
  %init_value = stablehlo.constant dense<0> : tensor<i64>
  %result = "stablehlo.select_and_scatter"(%operand, %source, %init_value) ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %0 = stablehlo.compare GE, %arg0, %arg1 : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %0 : tensor<i1>
  }, {
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>):
      %0 = stablehlo.add %arg0, %arg1 : tensor<i64>
      stablehlo.return %0 : tensor<i64>
  }) {
    window_dimensions = array<i64: 3, 1>,
    window_strides = array<i64: 2, 1>,
    padding = dense<[[0, 1], [0, 0]]> : tensor<2x2xi64>
  } : (tensor<4x2xi64>, tensor<2x2xi64>, tensor<i64>) -> tensor<4x2xi64>
  check.expect_eq_const %result, dense<[[0, 0], [0, 0], [5, 14], [7, 0]]> : tensor<4x2xi64>
  func.return
}

// -----

func.func @slice() {
  %operand = stablehlo.constant dense<[[0, 0, 1, 0, 0, 1],
                                       [0, 0, 0, 0, 0, 0],
                                       [0, 0, 1, 0, 0, 1]]> : tensor<3x6xi64>
  %result = stablehlo.slice %operand [0:3:2, 2:6:3] : (tensor<3x6xi64>) -> tensor<2x2xi64>
  %r2 = "stablehlo.slice"(%operand) {start_indices = array<i64: 1, 4>, limit_indices = array<i64: 2, 6>, strides = array<i64: 1, 1>} : (tensor<3x6xi64>) -> tensor<1x2xi64>
  check.expect_eq_const %result, dense<[[1, 1], [1, 1]]> : tensor<2x2xi64>
  func.return
}

// -----

func.func @sort_multiple_inputs() {
  %input0 = stablehlo.constant dense<[[1, 2, 3], [3, 2, 1]]> : tensor<2x3xi64>
  %input1 = stablehlo.constant dense<[[3, 2, 1], [1, 2, 3]]> : tensor<2x3xf32>
  %result0, %result1 = "stablehlo.sort"(%input0, %input1) ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<i64>, %arg2: tensor<f32>, %arg3: tensor<f32>):
      %predicate = stablehlo.compare GT, %arg0, %arg1 : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %predicate : tensor<i1>
  }) {
    dimension = -1 : i64,
    is_stable = true
  } : (tensor<2x3xi64>, tensor<2x3xf32>) -> (tensor<2x3xi64>, tensor<2x3xf32>)
  func.return
}

// -----

func.func @scatter_with_multiple_inputs() {
  %inputs = stablehlo.constant dense<1> : tensor<3x4x2xi64>
  %inputs2 = stablehlo.constant dense<1.0> : tensor<3x4x2xf32>
  %scatter_indices = stablehlo.constant dense<[[[0, 2], [1, 0], [2, 1]],
                                               [[0, 1], [1, 0], [0, 9]]]> : tensor<2x3x2xi64>
  %updates = stablehlo.constant dense<1> : tensor<2x3x2x2xi64>
  %updates2 = stablehlo.constant dense<2.0> : tensor<2x3x2x2xf32>
  %result:2 = "stablehlo.scatter"(%inputs, %inputs2, %scatter_indices, %updates, %updates2) ({
    ^bb0(%arg0: tensor<i64>, %arg1: tensor<f32>, %arg2: tensor<i64>, %arg3: tensor<f32>):
      %0 = stablehlo.add %arg0, %arg2 : tensor<i64>
      %1 = stablehlo.multiply %arg1, %arg3 : tensor<f32>
      stablehlo.return %0, %1 : tensor<i64>, tensor<f32>
  }) {
    scatter_dimension_numbers = #stablehlo.scatter<
      update_window_dims = [2, 3],
      inserted_window_dims = [0],
      scatter_dims_to_operand_dims = [1, 0],
      index_vector_dim = 2>,
    indices_are_sorted = false,
    unique_indices = false
  } : (tensor<3x4x2xi64>, tensor<3x4x2xf32>, tensor<2x3x2xi64>, tensor<2x3x2x2xi64>, tensor<2x3x2x2xf32>) -> (tensor<3x4x2xi64>, tensor<3x4x2xf32>)
  func.return
}

// -----

func.func @sine_tan_tanh() {
  %x = stablehlo.constant dense<[0.0, 0.5]> : tensor<2xbf16>
  %0 = stablehlo.sine %x : tensor<2xbf16>
  %1 = stablehlo.tan %x : tensor<2xbf16>
  %2 = stablehlo.tanh %x : tensor<2xbf16>
  func.return
}

// -----

func.func @torch_index_select() {
  %operand = stablehlo.constant dense<[[[0, 1], [2, 3]], [[4, 5], [6, 7]]]> : tensor<2x2x2xi64>
  %index = stablehlo.constant dense<[1, 0]> : tensor<2xi32>
  %result = "stablehlo.torch_index_select"(%operand, %index) {
    dim = 0 : i64,
    batch_dims = 0 : i64
  } : (tensor<2x2x2xi64>, tensor<2xi32>) -> tensor<2x2x2xi64>
  func.return
}

// -----

func.func @transpose() {
  %operand = stablehlo.constant dense<[[[1, 2], [3, 4], [5, 6]], [[7, 8], [9, 10], [11, 12]]]> : tensor<2x3x2xi32>
  %result = stablehlo.transpose %operand, dims = [2, 1, 0] : (tensor<2x3x2xi32>) -> tensor<2x3x2xi32>
  %r2 = "stablehlo.transpose"(%operand) {permutation = array<i64: 1, 0, 2>} : (tensor<2x3x2xi32>) -> tensor<3x2x2xi32>
  func.return
}

// -----

func.func @triangular_solve_batched() {
  %a = stablehlo.constant dense<1.0> : tensor<2x3x3xf32>
  %b = stablehlo.constant dense<1.0> : tensor<2x3x4xf32>
  %result = "stablehlo.triangular_solve"(%a, %b) {left_side = true, lower = true, unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (tensor<2x3x3xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  func.return
}

// -----

func.func @tuple_and_get_tuple_element() {
  %val0 = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf64>
  %val1 = stablehlo.constant dense<3> : tensor<i64>
  %t = stablehlo.tuple %val0, %val1 : tuple<tensor<2xf64>, tensor<i64>>
  %e = stablehlo.get_tuple_element %t[0] : (tuple<tensor<2xf64>, tensor<i64>>) -> tensor<2xf64>
  %n = "stablehlo.tuple"() : () -> tuple<>
  check.expect_almost_eq_const %e, dense<[1.0, 2.0]> : tensor<2xf64>
  func.return
}

// -----

func.func @while_with_generic_form() {
  %init_i = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %ten = stablehlo.constant dense<10> : tensor<i64>
  %result = "stablehlo.while"(%init_i) ({
    ^bb0(%arg0: tensor<i64>):
      %cond = stablehlo.compare LT, %arg0, %ten : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %cond : tensor<i1>
  }, {
    ^bb0(%arg0: tensor<i64>):
      %new_i = stablehlo.add %arg0, %one : tensor<i64>
      stablehlo.return %new_i : tensor<i64>
  }) : (tensor<i64>) -> tensor<i64>
  check.expect_eq_const %result, dense<10> : tensor<i64>
  func.return
}

// -----

func.func @while_without_arguments_in_pretty_form() {
  %a = stablehlo.constant dense<1> : tensor<i64>
  %r = stablehlo.while(%iterArg = %a) : tensor<i64> attributes {xla.loop = "x"}
   cond {
    %c = stablehlo.compare  LT, %iterArg, %a,  SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    stablehlo.return %iterArg : tensor<i64>
  }
  func.return
}

// -----

func.func @check_ops() {
  %a = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = stablehlo.constant dense<[1.0, 2.0001]> : tensor<2xf32>
  check.expect_eq %a, %a : tensor<2xf32>
  check.expect_almost_eq %a, %b : tensor<2xf32>
  check.expect_almost_eq %a, %b, tolerance = 0.01 : tensor<2xf32>
  check.expect_close %a, %b, max_ulp_difference = 3 : tensor<2xf32>, tensor<2xf32>
  check.expect_close %a, %b, min_ulp_difference = 0, max_ulp_difference = 1000 : tensor<2xf32>, tensor<2xf32>
  check.expect_almost_eq_const %a, dense<[1.0, 2.0]> : tensor<2xf32> {tolerance = 0.1 : f64}
  %p = interpreter.probe %a, probe_id = "a" : tensor<2xf32>
  check.expect_serialized_eq %p, probe_id = "a", iter = 0 : tensor<2xf32>
  "check.expect_eq_const"(%a) {value = dense<[1.0, 2.0]> : tensor<2xf32>} : (tensor<2xf32>) -> ()
  func.return
}

// -----

func.func private @add_one(%x: tensor<i64>) -> tensor<i64> {
  %c = stablehlo.constant dense<1> : tensor<i64>
  %r = stablehlo.add %x, %c : tensor<i64>
  func.return %r : tensor<i64>
}
func.func @main() {
  %a = stablehlo.constant dense<1> : tensor<i64>
  %b = func.call @add_one(%a) : (tensor<i64>) -> tensor<i64>
  %c = stablehlo.composite "berth.add_one" %b {decomposition = @add_one, version = 2 : i32} : (tensor<i64>) -> tensor<i64>
  check.expect_eq_const %c, dense<3> : tensor<i64>
  func.return
}

// -----

module @collectives {
  func.func @all_to_all_variadic(%a : tensor<2x4xi64>, %b : tensor<2x4xf32>) -> (tensor<4x2xi64>, tensor<4x2xf32>) {
    %r:2 = "stablehlo.all_to_all"(%a, %b) {
      split_dimension = 1 : i64,
      concat_dimension = 0 : i64,
      split_count = 2 : i64,
      replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>
    } : (tensor<2x4xi64>, tensor<2x4xf32>) -> (tensor<4x2xi64>, tensor<4x2xf32>)
    return %r#0, %r#1 : tensor<4x2xi64>, tensor<4x2xf32>
  }
  func.func @reduce_scatter_variadic(%a : tensor<4xi64>) -> tensor<2xi64> {
    %r = "stablehlo.reduce_scatter"(%a) ({
      ^bb0(%x: tensor<i64>, %y: tensor<i64>):
        %s = stablehlo.maximum %x, %y : tensor<i64>
        stablehlo.return %s : tensor<i64>
    }) {scatter_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, use_global_device_ids} : (tensor<4xi64>) -> tensor<2xi64>
    return %r : tensor<2xi64>
  }
  func.func @all_gather_variadic(%a : tensor<2xi64>, %b : tensor<3xf32>) -> (tensor<4xi64>, tensor<6xf32>) {
    %r:2 = "stablehlo.all_gather"(%a, %b) {all_gather_dim = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<2xi64>, tensor<3xf32>) -> (tensor<4xi64>, tensor<6xf32>)
    return %r#0, %r#1 : tensor<4xi64>, tensor<6xf32>
  }
  func.func @main() {
    %a = stablehlo.constant dense<[[1, 2, 3, 4], [5, 6, 7, 8]]> : tensor<2x4xi64>
    %b = stablehlo.constant dense<1.0> : tensor<2x4xf32>
    %results:4 = "interpreter.run_parallel"(%a, %b, %a, %b) {
      programs=[[@all_to_all_variadic], [@all_to_all_variadic]]
    } : (tensor<2x4xi64>, tensor<2x4xf32>, tensor<2x4xi64>, tensor<2x4xf32>) -> (tensor<4x2xi64>, tensor<4x2xf32>, tensor<4x2xi64>, tensor<4x2xf32>)
    func.return
  }
}
