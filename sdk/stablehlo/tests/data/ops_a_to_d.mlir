// Berth's own programs, one per op (a to d), in the style of the upstream
// interpreter tests: each chunk must parse, verify and round-trip.

func.func @abs() {
  %operand = stablehlo.constant dense<[-2, 0, 2]> : tensor<3xi64>
  %result = stablehlo.abs %operand : tensor<3xi64>
  check.expect_eq_const %result, dense<[2, 0, 2]> : tensor<3xi64>
  %c = stablehlo.constant dense<[(3.0, 4.0)]> : tensor<1xcomplex<f64>>
  %m = stablehlo.abs %c : (tensor<1xcomplex<f64>>) -> tensor<1xf64>
  check.expect_almost_eq_const %m, dense<[5.0]> : tensor<1xf64>
  func.return
}

// -----

func.func @after_all() {
  %t0 = stablehlo.create_token : !stablehlo.token
  %t1 = stablehlo.after_all : !stablehlo.token
  %t2 = stablehlo.after_all %t0, %t1 : !stablehlo.token
  %t3 = "stablehlo.after_all"(%t2) : (!stablehlo.token) -> !stablehlo.token
  func.return
}

// -----

func.func @and_or_xor_not() {
  %a = stablehlo.constant dense<[true, false]> : tensor<2xi1>
  %b = stablehlo.constant dense<[5, 6]> : tensor<2xui8>
  %0 = stablehlo.and %a, %a : tensor<2xi1>
  %1 = stablehlo.or %b, %b : tensor<2xui8>
  %2 = stablehlo.xor %b, %b : tensor<2xui8>
  %3 = stablehlo.not %0 : tensor<2xi1>
  %4 = stablehlo.not %b : tensor<2xui8>
  check.expect_eq_const %3, dense<[false, true]> : tensor<2xi1>
  func.return
}

// -----

func.func @atan2() {
  %lhs = stablehlo.constant dense<[0.0, 1.0, -1.0]> : tensor<3xf64>
  %rhs = stablehlo.constant dense<[0.0, 0.0, 0.0]> : tensor<3xf64>
  %result = stablehlo.atan2 %lhs, %rhs : tensor<3xf64>
  check.expect_almost_eq_const %result, dense<[0.0, 1.5707963267948966, -1.5707963267948966]> : tensor<3xf64>
  func.return
}

// -----

func.func @batch_norm_grad() {
  %operand = stablehlo.constant dense<[[[1.0, 2.0], [3.0, 4.0]], [[3.0, 4.0], [1.0, 2.0]]]> : tensor<2x2x2xf64>
  %scale = stablehlo.constant dense<[1.0, 1.0]> : tensor<2xf64>
  %mean = stablehlo.constant dense<[2.0, 3.0]> : tensor<2xf64>
  %variance = stablehlo.constant dense<[1.0, 1.0]> : tensor<2xf64>
  %grad_output = stablehlo.constant dense<0.1> : tensor<2x2x2xf64>
  %grad_operand, %grad_scale, %grad_offset = "stablehlo.batch_norm_grad"(%operand, %scale, %mean, %variance, %grad_output) {
    epsilon = 0.0 : f32,
    feature_index = 2 : i64
  } : (tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2x2x2xf64>) -> (tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>)
  check.expect_almost_eq_const %grad_scale, dense<[0.0, 0.0]> : tensor<2xf64>
  func.return
}

// -----

func.func @batch_norm_inference() {
  %operand = stablehlo.constant dense<[[[1.0, 2.0], [3.0, 4.0]], [[3.0, 4.0], [1.0, 2.0]]]> : tensor<2x2x2xf64>
  %scale = stablehlo.constant dense<[1.0, 1.0]> : tensor<2xf64>
  %offset = stablehlo.constant dense<[1.0, 1.0]> : tensor<2xf64>
  %mean = stablehlo.constant dense<[2.0, 3.0]> : tensor<2xf64>
  %variance = stablehlo.constant dense<[1.0, 1.0]> : tensor<2xf64>
  %result = "stablehlo.batch_norm_inference"(%operand, %scale, %offset, %mean, %variance) {
    epsilon = 0.0 : f32,
    feature_index = 2 : i64
  } : (tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xf64>) -> tensor<2x2x2xf64>
  check.expect_almost_eq_const %result, dense<[[[0.0, 0.0], [2.0, 2.0]], [[2.0, 2.0], [0.0, 0.0]]]> : tensor<2x2x2xf64>
  func.return
}

// -----

func.func @batch_norm_training() {
  %operand = stablehlo.constant dense<[[[1.0, 2.0], [3.0, 4.0]], [[3.0, 4.0], [1.0, 2.0]]]> : tensor<2x2x2xf64>
  %scale = stablehlo.constant dense<[1.0, 1.0]> : tensor<2xf64>
  %offset = stablehlo.constant dense<[1.0, 1.0]> : tensor<2xf64>
  %output, %batch_mean, %batch_var = "stablehlo.batch_norm_training"(%operand, %scale, %offset) <{epsilon = 0.0 : f32, feature_index = 2 : i64}> : (tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>) -> (tensor<2x2x2xf64>, tensor<2xf64>, tensor<2xf64>)
  check.expect_almost_eq_const %batch_mean, dense<[2.0, 3.0]> : tensor<2xf64>
  func.return
}

// -----

func.func @bitcast_convert() {
  %operand = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %r0 = stablehlo.bitcast_convert %operand : (tensor<2xf32>) -> tensor<2xi32>
  %r1 = stablehlo.bitcast_convert %operand : (tensor<2xf32>) -> tensor<2x4xui8>
  %r2 = stablehlo.bitcast_convert %r1 : (tensor<2x4xui8>) -> tensor<2xf32>
  %r3 = stablehlo.bitcast_convert %operand : (tensor<2xf32>) -> tensor<2x2xbf16>
  func.return
}

// -----

func.func @broadcast() {
  %operand = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
  %result = stablehlo.broadcast %operand, sizes = [3] : (tensor<2xi64>) -> tensor<3x2xi64>
  %r2 = "stablehlo.broadcast"(%operand) {broadcast_sizes = array<i64: 1, 2>} : (tensor<2xi64>) -> tensor<1x2x2xi64>
  check.expect_eq_const %result, dense<[[1, 2], [1, 2], [1, 2]]> : tensor<3x2xi64>
  func.return
}

// -----

func.func @broadcast_in_dim() {
  %operand = stablehlo.constant dense<[[1], [2], [3]]> : tensor<3x1xi64>
  %result = stablehlo.broadcast_in_dim %operand, dims = [0, 2] : (tensor<3x1xi64>) -> tensor<3x2x2xi64>
  %scalar = stablehlo.constant dense<7> : tensor<i64>
  %r2 = stablehlo.broadcast_in_dim %scalar, dims = [] : (tensor<i64>) -> tensor<2x3xi64>
  func.return
}

// -----

func.func @case() {
  %index = stablehlo.constant dense<1> : tensor<i32>
  %b0 = stablehlo.constant dense<0> : tensor<2xi64>
  %b1 = stablehlo.constant dense<1> : tensor<2xi64>
  %r0, %r1 = "stablehlo.case"(%index) ({
    stablehlo.return %b0, %b0 : tensor<2xi64>, tensor<2xi64>
  }, {
    stablehlo.return %b1, %b1 : tensor<2xi64>, tensor<2xi64>
  }) : (tensor<i32>) -> (tensor<2xi64>, tensor<2xi64>)
  check.expect_eq_const %r0, dense<1> : tensor<2xi64>
  func.return
}

// -----

func.func @cbrt_ceil_floor_rounding() {
  %x = stablehlo.constant dense<[-2.5, 0.4, 0.5, 2.5]> : tensor<4xf32>
  %0 = stablehlo.cbrt %x : tensor<4xf32>
  %1 = stablehlo.ceil %x : tensor<4xf32>
  %2 = stablehlo.floor %x : tensor<4xf32>
  %3 = stablehlo.round_nearest_afz %x : tensor<4xf32>
  %4 = stablehlo.round_nearest_even %x : tensor<4xf32>
  check.expect_almost_eq_const %4, dense<[-2.0, 0.0, 0.0, 2.0]> : tensor<4xf32>
  func.return
}

// -----

func.func @chlo_ops() {
  %x = stablehlo.constant dense<[0.0, 1.0, 0x7F800000, 0xFF800000]> : tensor<4xf32>
  %row = stablehlo.constant dense<[10.0, 20.0, 30.0, 40.0]> : tensor<4xf32>
  %col = stablehlo.constant dense<[[1.0], [2.0]]> : tensor<2x1xf32>
  %0 = chlo.erf %x : tensor<4xf32> -> tensor<4xf32>
  check.expect_almost_eq_const %0, dense<[0.0, 0.842700779, 1.0, -1.0]> : tensor<4xf32>
  %1 = chlo.is_inf %x : tensor<4xf32> -> tensor<4xi1>
  check.expect_eq_const %1, dense<[false, false, true, true]> : tensor<4xi1>
  %2 = chlo.next_after %x, %row : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  check.expect_eq_const %2, dense<[0x00000001, 0x3F800001, 0x7F7FFFFF, 0xFF7FFFFF]> : tensor<4xf32>
  %3 = chlo.broadcast_add %col, %row : (tensor<2x1xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  check.expect_eq_const %3, dense<[[11.0, 21.0, 31.0, 41.0], [12.0, 22.0, 32.0, 42.0]]> : tensor<2x4xf32>
  %4 = chlo.broadcast_multiply %3, %row {broadcast_dimensions = array<i64: 1>} : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  check.expect_eq_const %4, dense<[[110.0, 420.0, 930.0, 1640.0], [120.0, 440.0, 960.0, 1680.0]]> : tensor<2x4xf32>
  %5:2 = chlo.top_k(%row, k = 2) : tensor<4xf32> -> (tensor<2xf32>, tensor<2xi32>)
  check.expect_eq_const %5#0, dense<[40.0, 30.0]> : tensor<2xf32>
  check.expect_eq_const %5#1, dense<[3, 2]> : tensor<2xi32>
  %6 = "chlo.constant_like"(%x) {value = 7 : i32} : (tensor<4xf32>) -> tensor<4xi32>
  check.expect_eq_const %6, dense<7> : tensor<4xi32>
  %7 = chlo.square %row : tensor<4xf32> -> tensor<4xf32>
  check.expect_eq_const %7, dense<[100.0, 400.0, 900.0, 1600.0]> : tensor<4xf32>
  interpreter.print %7 : tensor<4xf32>
  func.return
}

// -----

func.func @cholesky() {
  %a = stablehlo.constant dense<[[1.0, 2.0, 3.0], [2.0, 20.0, 26.0], [3.0, 26.0, 70.0]]> : tensor<3x3xf64>
  %result = stablehlo.cholesky %a, lower = true : tensor<3x3xf64>
  %r2 = "stablehlo.cholesky"(%a) : (tensor<3x3xf64>) -> tensor<3x3xf64>
  check.expect_almost_eq_const %result, dense<[[1.0, 0.0, 0.0], [2.0, 4.0, 0.0], [3.0, 5.0, 6.0]]> : tensor<3x3xf64>
  func.return
}

// -----

func.func @clamp() {
  %min = stablehlo.constant dense<[5, 10, 15]> : tensor<3xi64>
  %operand = stablehlo.constant dense<[3, 13, 23]> : tensor<3xi64>
  %max = stablehlo.constant dense<[10, 15, 20]> : tensor<3xi64>
  %result = stablehlo.clamp %min, %operand, %max : tensor<3xi64>
  %smin = stablehlo.constant dense<0> : tensor<i64>
  %r2 = stablehlo.clamp %smin, %operand, %smin : (tensor<i64>, tensor<3xi64>, tensor<i64>) -> tensor<3xi64>
  check.expect_eq_const %result, dense<[5, 13, 20]> : tensor<3xi64>
  func.return
}

// -----

func.func @compare_and_complex() {
  %lhs = stablehlo.constant dense<[1.0, 3.0]> : tensor<2xf32>
  %rhs = stablehlo.constant dense<[1.1, 2.9]> : tensor<2xf32>
  %0 = stablehlo.compare LT, %lhs, %rhs, FLOAT : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  %1 = stablehlo.compare NE, %lhs, %rhs, TOTALORDER : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  %2 = stablehlo.complex %lhs, %rhs : tensor<2xcomplex<f32>>
  %3 = stablehlo.real %2 : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  %4 = stablehlo.imag %2 : (tensor<2xcomplex<f32>>) -> tensor<2xf32>
  %5 = stablehlo.compare EQ, %2, %2 : (tensor<2xcomplex<f32>>, tensor<2xcomplex<f32>>) -> tensor<2xi1>
  check.expect_eq_const %0, dense<[true, false]> : tensor<2xi1>
  func.return
}

// -----

func.func @concatenate() {
  %input0 = stablehlo.constant dense<[[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi64>
  %input1 = stablehlo.constant dense<[[7, 8]]> : tensor<1x2xi64>
  %result = stablehlo.concatenate %input0, %input1, dim = 0 : (tensor<3x2xi64>, tensor<1x2xi64>) -> tensor<4x2xi64>
  check.expect_eq_const %result, dense<[[1, 2], [3, 4], [5, 6], [7, 8]]> : tensor<4x2xi64>
  func.return
}

// -----

func.func @convert() {
  %operand = stablehlo.constant dense<[-1, 0, 1]> : tensor<3xi64>
  %0 = stablehlo.convert %operand : (tensor<3xi64>) -> tensor<3xcomplex<f64>>
  %1 = stablehlo.convert %operand : (tensor<3xi64>) -> tensor<3xi1>
  %2 = stablehlo.convert %operand : (tensor<3xi64>) -> tensor<3xf8E5M2>
  %3 = stablehlo.convert %operand : tensor<3xi64>
  func.return
}

// -----

func.func @cosine_exponential_log() {
  %x = stablehlo.constant dense<[0.0, 1.0]> : tensor<2xf64>
  %0 = stablehlo.cosine %x : tensor<2xf64>
  %1 = stablehlo.exponential %x : tensor<2xf64>
  %2 = stablehlo.exponential_minus_one %x : tensor<2xf64>
  %3 = stablehlo.log %1 : tensor<2xf64>
  %4 = stablehlo.log_plus_one %x : tensor<2xf64>
  %5 = stablehlo.logistic %x : tensor<2xf64>
  %6 = stablehlo.rsqrt %1 : tensor<2xf64>
  %7 = stablehlo.sqrt %1 : tensor<2xf64>
  %8 = stablehlo.tanh %x : tensor<2xf64>
  %9 = stablehlo.sign %x : tensor<2xf64>
  %10 = stablehlo.negate %x : tensor<2xf64>
  %11 = stablehlo.power %x, %x : tensor<2xf64>
  %12 = stablehlo.remainder %1, %1 : tensor<2xf64>
  check.expect_almost_eq_const %3, dense<[0.0, 1.0]> : tensor<2xf64>
  func.return
}

// -----

func.func @count_leading_zeros_popcnt_shifts() {
  %x = stablehlo.constant dense<[[0, 1], [128, -1]]> : tensor<2x2xi8>
  %0 = stablehlo.count_leading_zeros %x : tensor<2x2xi8>
  %1 = stablehlo.popcnt %x : tensor<2x2xi8>
  %2 = stablehlo.shift_left %x, %x : tensor<2x2xi8>
  %3 = stablehlo.shift_right_arithmetic %x, %x : tensor<2x2xi8>
  %4 = stablehlo.shift_right_logical %x, %x : tensor<2x2xi8>
  check.expect_eq_const %0, dense<[[8, 7], [0, 0]]> : tensor<2x2xi8>
  func.return
}

// -----

module @cross_replica_sum {
  func.func @crs(%operand : tensor<4xi64>) -> tensor<4xi64> {
    %result = "stablehlo.cross-replica-sum"(%operand) {
      replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>
    } : (tensor<4xi64>) -> tensor<4xi64>
    return %result : tensor<4xi64>
  }
  func.func @main() {
    %inputs0 = stablehlo.constant dense<[1, 2, 3, 4]> : tensor<4xi64>
    %results:2 = "interpreter.run_parallel"(%inputs0, %inputs0) {
      programs=[[@crs], [@crs]]
    } : (tensor<4xi64>, tensor<4xi64>) -> (tensor<4xi64>, tensor<4xi64>)
    check.expect_eq_const %results#0, dense<[2, 4, 6, 8]> : tensor<4xi64>
    func.return
  }
}

// -----

func.func @custom_call() {
  %x = stablehlo.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %0 = stablehlo.custom_call @foo(%x) {api_version = 1 : i32, backend_config = "", has_side_effect = false} : (tensor<2xf32>) -> tensor<2xf32>
  stablehlo.custom_call @check.expect_eq(%x, %x) {has_side_effect = true} : (tensor<2xf32>, tensor<2xf32>) -> ()
  func.return
}

// -----

func.func @divide_dot() {
  %lhs = stablehlo.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
  %rhs = stablehlo.constant dense<[[1, 0], [0, 1]]> : tensor<2x2xi64>
  %0 = stablehlo.divide %lhs, %rhs : tensor<2x2xi64>
  %1 = stablehlo.dot %lhs, %rhs : (tensor<2x2xi64>, tensor<2x2xi64>) -> tensor<2x2xi64>
  %v = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
  %2 = stablehlo.dot %v, %v, precision = [DEFAULT, DEFAULT] : (tensor<2xi64>, tensor<2xi64>) -> tensor<i64>
  %3 = "stablehlo.dot"(%lhs, %v) : (tensor<2x2xi64>, tensor<2xi64>) -> tensor<2xi64>
  check.expect_eq_const %1, dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
  func.return
}

// -----

func.func @dynamic_pad() {
  %operand = stablehlo.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %padding_value = stablehlo.constant dense<0> : tensor<i64>
  %low = stablehlo.constant dense<[0, 1]> : tensor<2xi64>
  %high = stablehlo.constant dense<[2, 1]> : tensor<2xi64>
  %interior = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
  %result = stablehlo.dynamic_pad %operand, %padding_value, %low, %high, %interior : (tensor<2x3xi64>, tensor<i64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>) -> tensor<5x9xi64>
  func.return
}

// -----

func.func @dynamic_slice_update() {
  %operand = stablehlo.constant dense<[[0, 0, 1, 1], [0, 0, 1, 1], [0, 0, 0, 0], [0, 0, 0, 0]]> : tensor<4x4xi64>
  %i = stablehlo.constant dense<-1> : tensor<i64>
  %j = stablehlo.constant dense<3> : tensor<i64>
  %result = stablehlo.dynamic_slice %operand, %i, %j, sizes = [2, 2] : (tensor<4x4xi64>, tensor<i64>, tensor<i64>) -> tensor<2x2xi64>
  %update = stablehlo.constant dense<1> : tensor<2x2xi64>
  %r2 = stablehlo.dynamic_update_slice %operand, %update, %i, %j : (tensor<4x4xi64>, tensor<2x2xi64>, tensor<i64>, tensor<i64>) -> tensor<4x4xi64>
  check.expect_eq_const %result, dense<[[1, 1], [1, 1]]> : tensor<2x2xi64>
  func.return
}
