// The hot kernels of the cpu plugin on data made in the program, for
// tests/integration/check_portability.sh: its results must be the same bits
// on every CPU (x86-64-v2, AVX2, AVX-512). A matrix product past the register
// tiles and the k blocks, float and integer reductions, conversions, a fused
// elementwise chain.
func.func @main() -> (tensor<37x45xf32>, tensor<37xf32>, tensor<45xi32>, tensor<f16>,
                      tensor<37x45xbf16>, tensor<300xf64>, tensor<37x45xf32>) {
  %i = stablehlo.iota dim = 0 : tensor<37x300xi32>
  %j = stablehlo.iota dim = 1 : tensor<37x300xi32>
  %ij = stablehlo.multiply %i, %j : tensor<37x300xi32>
  %ijf = stablehlo.convert %ij : (tensor<37x300xi32>) -> tensor<37x300xf32>
  %a = stablehlo.sine %ijf : tensor<37x300xf32>
  %k = stablehlo.iota dim = 0 : tensor<300x45xi32>
  %l = stablehlo.iota dim = 1 : tensor<300x45xi32>
  %kl = stablehlo.add %k, %l : tensor<300x45xi32>
  %klf = stablehlo.convert %kl : (tensor<300x45xi32>) -> tensor<300x45xf32>
  %tenth = stablehlo.constant dense<0.1> : tensor<300x45xf32>
  %kls = stablehlo.multiply %klf, %tenth : tensor<300x45xf32>
  %b = stablehlo.cosine %kls : tensor<300x45xf32>
  %c = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0]
      : (tensor<37x300xf32>, tensor<300x45xf32>) -> tensor<37x45xf32>

  %fzero = stablehlo.constant dense<0.0> : tensor<f32>
  %rows = stablehlo.reduce(%a init: %fzero) applies stablehlo.add across dimensions = [1]
      : (tensor<37x300xf32>, tensor<f32>) -> tensor<37xf32>
  %big = stablehlo.constant dense<1000003> : tensor<300x45xi32>
  %klb = stablehlo.multiply %kl, %big : tensor<300x45xi32>
  %izero = stablehlo.constant dense<0> : tensor<i32>
  %cols = stablehlo.reduce(%klb init: %izero) applies stablehlo.add across dimensions = [0]
      : (tensor<300x45xi32>, tensor<i32>) -> tensor<45xi32>
  %ah = stablehlo.convert %a : (tensor<37x300xf32>) -> tensor<37x300xf16>
  %hzero = stablehlo.constant dense<0.0> : tensor<f16>
  %hmax = stablehlo.reduce(%ah init: %hzero) applies stablehlo.maximum across dimensions = [0, 1]
      : (tensor<37x300xf16>, tensor<f16>) -> tensor<f16>

  %cb = stablehlo.convert %c : (tensor<37x45xf32>) -> tensor<37x45xbf16>
  %row0 = stablehlo.slice %ijf [0:1, 0:300] : (tensor<37x300xf32>) -> tensor<1x300xf32>
  %row = stablehlo.reshape %row0 : (tensor<1x300xf32>) -> tensor<300xf32>
  %rowd = stablehlo.convert %row : (tensor<300xf32>) -> tensor<300xf64>
  %sq = stablehlo.sqrt %rowd : tensor<300xf64>

  %t = stablehlo.tanh %c : tensor<37x45xf32>
  %e = stablehlo.exponential %t : tensor<37x45xf32>
  %m = stablehlo.multiply %e, %c : tensor<37x45xf32>
  %chain = stablehlo.add %m, %t : tensor<37x45xf32>
  return %c, %rows, %cols, %hmax, %cb, %sq, %chain
      : tensor<37x45xf32>, tensor<37xf32>, tensor<45xi32>, tensor<f16>, tensor<37x45xbf16>,
        tensor<300xf64>, tensor<37x45xf32>
}
