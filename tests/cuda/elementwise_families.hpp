// The families of elementwise programs: each op on each element type it is
// defined for (pred, integers, floats, complex numbers, the narrow types),
// converts, compares, chains and views, each family one function whose ops
// all fuse into one kernel. Part of KernelFamilies (kernel_families.hpp).
#ifndef BERTH_TESTS_CUDA_ELEMENTWISE_FAMILIES_HPP_
#define BERTH_TESTS_CUDA_ELEMENTWISE_FAMILIES_HPP_

#include <string>
#include <utility>
#include <vector>

#include "program_builder.hpp"

namespace berth::cuda::testing {

// Appends the elementwise families to `families`.
inline void AddElementwiseFamilies(std::vector<KernelFamily>& families) {
  {
    ProgramBuilder program;
    for (const std::string& type : Join({kIntTypes, kFloatTypes})) {
      for (const char* op :
           {"add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum"}) {
        program.Binary(op, type);
      }
    }
    for (const std::string& type : kIntTypes) program.Binary("power", type);
    for (const char* op : {"add", "multiply", "maximum", "minimum", "and", "or", "xor"})
      program.Binary(op, "i1");
    families.push_back({"binary_arithmetic", program});
  }
  {
    ProgramBuilder program;
    for (const std::string& type : kIntTypes) {
      for (const char* op : {"and", "or", "xor", "shift_left", "shift_right_logical",
                             "shift_right_arithmetic", "chlo.mulhi"}) {
        program.Binary(op, type);
      }
      for (const char* op : {"not", "popcnt", "count_leading_zeros", "negate"})
        program.Unary(op, type);
    }
    for (const std::string& type : kSignedTypes) {
      for (const char* op : {"abs", "sign"}) program.Unary(op, type);
    }
    program.Unary("not", "i1");
    families.push_back({"integer_bits", program});
  }
  {
    ProgramBuilder program;
    for (const std::string& type : kFloatTypes) {
      for (const char* op : {"abs", "negate", "sign", "sqrt", "ceil", "floor", "round_nearest_even",
                             "round_nearest_afz"}) {
        program.Unary(op, type);
      }
      program.Op("is_finite", {program.Arg(type)}, {program.Tensor(type)}, program.Tensor("i1"));
    }
    families.push_back({"float_exact", program});
  }
  {
    ProgramBuilder program;
    for (const std::string& type : kFloatTypes) {
      for (const char* op : {"exponential", "exponential_minus_one", "log", "log_plus_one",
                             "logistic", "rsqrt", "cbrt", "sine", "cosine", "tan", "tanh"}) {
        program.Unary(op, type);
      }
      program.Binary("atan2", type);
      program.Binary("power", type);
    }
    families.push_back({"float_functions", program, 4, 1});
  }
  {
    // CHLO's elementwise functions that map to the math library (jax.nn.gelu
    // exact uses erf).
    ProgramBuilder program;
    for (const std::string& type : kFloatTypes) {
      for (const char* op :
           {"chlo.erf", "chlo.erfc", "chlo.asin", "chlo.acos", "chlo.atan", "chlo.sinh",
            "chlo.cosh", "chlo.tan", "chlo.asinh", "chlo.acosh", "chlo.atanh", "chlo.square"}) {
        program.Unary(op, type);
      }
      for (const char* op : {"chlo.is_inf", "chlo.is_pos_inf", "chlo.is_neg_inf"}) {
        program.Op(op, {program.Arg(type)}, {program.Tensor(type)}, program.Tensor("i1"));
      }
    }
    families.push_back({"chlo_functions", program, 4, 1});
  }
  {
    // CHLO's special functions (jax.random.normal samples through erf_inv,
    // jax.scipy.special has the others) on f32 and halves: computed in double
    // with the cpu plugin's algorithms and the same C library functions, so
    // bit for bit on the host; next_after on every float's bits (narrow ones
    // step in f32, as on the cpu plugin).
    ProgramBuilder program;
    for (const char* type : {"f32", "f16", "bf16"}) {
      for (const char* op : {"chlo.erf_inv", "chlo.lgamma", "chlo.digamma", "chlo.bessel_i1e"}) {
        program.Unary(op, type);
      }
    }
    for (const char* type : {"f32", "f64", "f16", "bf16", "f8E4M3FN", "f8E5M2"}) {
      program.Binary("chlo.next_after", type);
    }
    families.push_back({"chlo_special_functions", program});
  }
  {
    // Where the cpu plugin computes in x87 long double and the GPU in
    // double, within a few ulps: erf_inv, lgamma and bessel_i1e of f64;
    // polygamma of orders 0 to 12 and zeta of s from 1 to 19.5 (as
    // jax.scipy.special calls them) at ordinary x and q of f32 and halves.
    ProgramBuilder program;
    for (const char* op : {"chlo.erf_inv", "chlo.lgamma", "chlo.bessel_i1e"}) {
      program.Unary(op, "f64");
    }
    std::string orders, exponents;
    for (int i = 0; i < 37; ++i) {
      orders += (i ? ", " : "") + std::to_string(i % 13);
      exponents += (i ? ", " : "") + std::to_string(1 + (i % 38) * 0.5);
    }
    for (const char* type : {"f32", "f16", "bf16"}) {
      const std::string tensor = program.Tensor(type);
      const std::string n = program.Value("stablehlo.constant dense<[" + orders + "]> : " + tensor);
      const std::string s =
          program.Value("stablehlo.constant dense<[" + exponents + "]> : " + tensor);
      program.Op("chlo.polygamma", {n, program.Arg(type)}, {tensor, tensor}, tensor);
      program.Op("chlo.zeta", {s, program.Arg(type, "b")}, {tensor, tensor}, tensor);
    }
    KernelFamily family{"chlo_special_functions_in_double", program, 4, 1, false};
    family.finite_values = true;
    families.push_back(family);
  }
  {
    ProgramBuilder program;
    for (const std::string& type : Join({{"i1"}, kIntTypes, kFloatTypes})) {
      const bool is_float = type[0] == 'f' || type[0] == 'b';
      const bool is_signed = type[0] == 'i' && type != "i1";
      std::vector<std::string> compare_types = {is_float    ? "FLOAT"
                                                : is_signed ? "SIGNED"
                                                            : "UNSIGNED"};
      if (is_float) compare_types.push_back("TOTALORDER");
      for (const std::string& compare_type : compare_types) {
        for (const char* direction : {"EQ", "NE", "GE", "GT", "LE", "LT"}) {
          program.Op("compare", {program.Arg(type), program.Arg(type, "b")},
                     {program.Tensor(type), program.Tensor(type)}, program.Tensor("i1"),
                     "comparison_direction = #stablehlo<comparison_direction " +
                         std::string(direction) + ">, compare_type = #stablehlo<comparison_type " +
                         compare_type + ">");
        }
      }
    }
    families.push_back({"compare", program});
  }
  {
    ProgramBuilder program;
    const std::vector<std::string> all = Join({{"i1"}, kIntTypes, kFloatTypes});
    for (const std::string& from : all) {
      for (const std::string& to : all) {
        if (from != to)
          program.Op("convert", {program.Arg(from)}, {program.Tensor(from)}, program.Tensor(to));
      }
    }
    families.push_back({"convert", program});
  }
  {
    // f64 values scaled into the subnormal ranges of bf16 and f32 (1e-40)
    // and of f16 (1e-6), each rounded once from double.
    ProgramBuilder program;
    const std::string f64 = program.Arg("f64"), tensor = program.Tensor("f64");
    for (const auto& [scale, to] : std::vector<std::pair<std::string, std::string>>{
             {"1.0e-40", "bf16"}, {"1.0e-40", "f32"}, {"1.0e-6", "f16"}}) {
      const std::string k = program.Value("stablehlo.constant dense<" + scale + "> : " + tensor);
      const std::string scaled =
          program.Value("stablehlo.multiply " + f64 + ", " + k + " : " + tensor);
      program.Op("convert", {scaled}, {tensor}, program.Tensor(to));
    }
    families.push_back({"convert_subnormals", program, 0, 0, false});
  }
  {
    ProgramBuilder program;
    for (const std::string& type : Join({{"i1"}, kIntTypes, kFloatTypes})) {
      const std::string t = program.Tensor(type), s = "tensor<" + type + ">";
      program.Op("select", {program.Arg("i1", "p"), program.Arg(type), program.Arg(type, "b")},
                 {program.Tensor("i1"), t, t}, t);
      program.Op("select",
                 {program.Arg("i1", "p", true), program.Arg(type), program.Arg(type, "b")},
                 {"tensor<i1>", t, t}, t);
      program.Op("clamp",
                 {program.Arg(type, "lo", true), program.Arg(type), program.Arg(type, "hi", true)},
                 {s, t, s}, t);
      program.Op("clamp", {program.Arg(type, "lo"), program.Arg(type), program.Arg(type, "hi")},
                 {t, t, t}, t);
    }
    families.push_back({"select_clamp", program});
  }
  {
    // A chain: values stay in registers between ops, half types rounded
    // after each.
    ProgramBuilder program;
    for (const char* type : {"f16", "bf16", "f32"}) {
      const std::string t = program.Tensor(type);
      program.Op("multiply", {program.Arg(type), program.Arg(type, "b")}, {t, t}, t);
      const std::string product = "%r" + std::to_string(program.num_results() - 1);
      program.Op("add", {product, program.Arg(type, "c")}, {t, t}, t);
      const std::string sum = "%r" + std::to_string(program.num_results() - 1);
      program.Op("subtract", {sum, program.Arg(type)}, {t, t}, t);
    }
    families.push_back({"chain", program});
  }
  {
    // Data movement folded into loads: every view of 3x5x7 = 105 elements,
    // read by an elementwise op (views returned as they are would be
    // written by a kernel of their own).
    ProgramBuilder program("3x5x7");
    const std::string t = program.Tensor("f32");
    program.Arg("f32", "a");
    program.Arg("f16", "h");
    for (const auto& [name, type] :
         std::vector<std::pair<std::string, std::string>>{{"%a_7x3x5", "tensor<7x3x5xf32>"},
                                                          {"%b_5", "tensor<5xf32>"},
                                                          {"%c_105", "tensor<105xf32>"},
                                                          {"%d_6x11x7", "tensor<6x11x7xf32>"},
                                                          {"%e_7", "tensor<7xf32>"},
                                                          {"%s_1x1", "tensor<1x1xf32>"},
                                                          {"%g_5x7x3", "tensor<5x7x3xi16>"}}) {
      program.NamedArg(name, type);
    }
    std::vector<std::string> views = {
        program.Value("stablehlo.transpose %a_7x3x5, dims = [1, 2, 0] : (tensor<7x3x5xf32>) -> " +
                      t),
        program.Value("stablehlo.broadcast_in_dim %b_5, dims = [1] : (tensor<5xf32>) -> " + t),
        program.Value("stablehlo.reshape %c_105 : (tensor<105xf32>) -> " + t),
        program.Value("stablehlo.slice %d_6x11x7 [0:6:2, 1:11:2, 0:7] : (tensor<6x11x7xf32>) -> " +
                      t),
        program.Value("stablehlo.reverse %a_f32, dims = [0, 2] : " + t),
        program.Value("stablehlo.iota dim = 2 : " + t),
        program.Value("stablehlo.reshape " +
                      program.Value("stablehlo.transpose " +
                                    program.Value("stablehlo.broadcast_in_dim %e_7, dims = [0] : "
                                                  "(tensor<7xf32>) -> tensor<7x15xf32>") +
                                    ", dims = [1, 0] : (tensor<7x15xf32>) -> tensor<15x7xf32>") +
                      " : (tensor<15x7xf32>) -> " + t),
        program.Value("stablehlo.broadcast_in_dim %s_1x1, dims = [0, 2] : (tensor<1x1xf32>) -> " +
                      t),
    };
    for (const std::string& view : views) program.Op("negate", {view}, {t}, t);
    program.Op("add", {views[0], views[1]}, {t, t}, t);
    // Values through an optimization_barrier (jax.checkpoint): a view and
    // an argument, unchanged.
    program.Lines("  %barrier:2 = stablehlo.optimization_barrier " + views[0] + ", %a_f32 : " + t +
                  ", " + t + "\n");
    program.Op("subtract", {"%barrier#0", "%barrier#1"}, {t, t}, t);
    // Integer and half views, and iotas of other types.
    const std::string i = program.Tensor("i16"), h = program.Tensor("f16"),
                      l = program.Tensor("i64");
    program.Op("not",
               {program.Value(
                   "stablehlo.transpose %g_5x7x3, dims = [2, 0, 1] : (tensor<5x7x3xi16>) -> " + i)},
               {i}, i);
    program.Op("abs", {program.Value("stablehlo.reverse %h_f16, dims = [1] : " + h)}, {h}, h);
    program.Op("negate", {program.Value("stablehlo.iota dim = 1 : " + h)}, {h}, h);
    program.Op("negate", {program.Value("stablehlo.iota dim = 0 : " + l)}, {l}, l);
    families.push_back({"views", program});
  }
  {
    ProgramBuilder program("");
    program.Binary("add", "f32");
    program.Binary("multiply", "bf16");
    program.Binary("divide", "i64");
    families.push_back({"rank_zero", program});
  }
  {
    // bitcast_convert between types of one width (jax.random makes floats
    // from u32 bits so); random bit patterns, NaN payloads included.
    ProgramBuilder program;
    for (const auto& [from, to] :
         std::vector<std::pair<std::string, std::string>>{{"ui32", "f32"},
                                                          {"f32", "i32"},
                                                          {"i32", "ui32"},
                                                          {"i64", "f64"},
                                                          {"f64", "ui64"},
                                                          {"ui64", "i64"},
                                                          {"i8", "ui8"},
                                                          {"ui16", "i16"},
                                                          {"f32", "f32"}}) {
      program.Op("bitcast_convert", {program.Arg(from)}, {program.Tensor(from)},
                 program.Tensor(to));
    }
    families.push_back({"bitcast_convert", program});
  }
  {
    // Complex numbers: arithmetic (* and / with C's infinity recovery),
    // lexicographic maximum/minimum and comparisons, the parts
    // and complex(), converts to and from real types and between the two
    // widths, select; on random parts (NaN, inf, extremes included).
    ProgramBuilder program;
    for (const std::string& type : {std::string("complex<f32>"), std::string("complex<f64>")}) {
      const std::string part = type == "complex<f32>" ? "f32" : "f64";
      for (const char* op : {"add", "subtract", "multiply", "divide", "maximum", "minimum"})
        program.Binary(op, type);
      program.Unary("negate", type);
      for (const char* op : {"real", "imag"})
        program.Op(op, {program.Arg(type)}, {program.Tensor(type)}, program.Tensor(part));
      for (const char* op : {"real", "imag"})
        program.Op(op, {program.Arg(part)}, {program.Tensor(part)}, program.Tensor(part));
      program.Op("complex", {program.Arg(part), program.Arg(part, "b")},
                 {program.Tensor(part), program.Tensor(part)}, program.Tensor(type));
      for (const char* direction : {"EQ", "NE", "GE", "GT", "LE", "LT"}) {
        program.Op("compare", {program.Arg(type), program.Arg(type, "b")},
                   {program.Tensor(type), program.Tensor(type)}, program.Tensor("i1"),
                   "comparison_direction = #stablehlo<comparison_direction " +
                       std::string(direction) +
                       ">, compare_type = #stablehlo<comparison_type FLOAT>");
      }
      program.Op("select", {program.Arg("i1", "p"), program.Arg(type), program.Arg(type, "b")},
                 {program.Tensor("i1"), program.Tensor(type), program.Tensor(type)},
                 program.Tensor(type));
      for (const std::string& other :
           {std::string("i1"), std::string("i32"), std::string("ui64"), std::string("f16"),
            std::string("bf16"), std::string("f32"), std::string("f64"),
            std::string(type == "complex<f32>" ? "complex<f64>" : "complex<f32>")}) {
        program.Op("convert", {program.Arg(type)}, {program.Tensor(type)}, program.Tensor(other));
        program.Op("convert", {program.Arg(other)}, {program.Tensor(other)}, program.Tensor(type));
      }
    }
    families.push_back({"complex", program});
  }
  {
    // abs and sign of complex numbers: through hypot, which the GPU's math
    // library computes within a few ulps of the C library's; so do the
    // functions of complex numbers the cpu plugin writes out of real ones
    // (exponential_minus_one, log_plus_one, logistic) and exponential,
    // sine, cosine, sinh, cosh, tanh, tan, sqrt and log (C's cexp, csin,
    // ccos, csinh, ccosh, ctanh, ctan, csqrt, clog, as the C library computes
    // them), rsqrt, cbrt, power (cexp(w clog z)) and atan2 - on the host
    // bit for bit.
    ProgramBuilder program;
    for (const std::string& type : {std::string("complex<f32>"), std::string("complex<f64>")}) {
      program.Unary("sign", type);
      program.Unary("exponential", type);
      program.Unary("logistic", type);
      program.Unary("sine", type);
      program.Unary("cosine", type);
      program.Unary("chlo.sinh", type);
      program.Unary("chlo.cosh", type);
      program.Unary("chlo.conj", type);
      program.Unary("tanh", type);
      program.Unary("tan", type);
      program.Unary("chlo.tan", type);
      program.Unary("sqrt", type);
      program.Unary("rsqrt", type);
      program.Unary("log", type);
      program.Unary("cbrt", type);
      program.Binary("power", type);
      program.Binary("atan2", type);
      program.Unary("exponential_minus_one", type);
      program.Unary("log_plus_one", type);
      program.Unary("chlo.square", type);
      program.Op("abs", {program.Arg(type)}, {program.Tensor(type)},
                 program.Tensor(type == "complex<f32>" ? "f32" : "f64"));
    }
    families.push_back({"complex_magnitude", program, 4, 1});
  }
  {
    // Narrow types, on every bit pattern of their width: integers (computed
    // in 8 bits, wrapped after every op; popcnt, count_leading_zeros and
    // shift_right_logical on their zero-extended bits) and the f4/f6/f8
    // formats (computed in float, rounded after every op with each format's
    // NaN, infinity and overflow rules); converts between them and wide types.
    ProgramBuilder program;
    const std::vector<std::string> narrow_ints = {"i2", "i4", "ui2", "ui4"};
    const std::vector<std::string> narrow_floats = {
        "f8E5M2",        "f8E4M3",    "f8E3M4",   "f8E4M3FN", "f8E4M3FNUZ", "f8E5M2FNUZ",
        "f8E4M3B11FNUZ", "f8E8M0FNU", "f6E2M3FN", "f6E3M2FN", "f4E2M1FN"};
    for (const std::string& type : narrow_ints) {
      const bool is_signed = type[0] == 'i';
      for (const char* op :
           {"add", "subtract", "multiply", "divide", "remainder", "maximum", "minimum", "and", "or",
            "xor", "shift_left", "shift_right_arithmetic", "shift_right_logical"}) {
        program.Binary(op, type);
      }
      for (const char* op : {"not", "popcnt", "count_leading_zeros"}) program.Unary(op, type);
      if (is_signed) {
        for (const char* op : {"negate", "abs", "sign"}) program.Unary(op, type);
      }
      program.Op("compare", {program.Arg(type), program.Arg(type, "b")},
                 {program.Tensor(type), program.Tensor(type)}, program.Tensor("i1"),
                 std::string("comparison_direction = #stablehlo<comparison_direction LT>, "
                             "compare_type = #stablehlo<comparison_type ") +
                     (is_signed ? "SIGNED" : "UNSIGNED") + ">");
    }
    for (const std::string& type : narrow_floats) {
      for (const char* op : {"add", "subtract", "multiply", "divide", "maximum", "minimum"})
        program.Binary(op, type);
      for (const char* op : {"negate", "abs", "sign", "sqrt", "floor"}) program.Unary(op, type);
      for (const char* order : {"FLOAT", "TOTALORDER"}) {
        program.Op("compare", {program.Arg(type), program.Arg(type, "b")},
                   {program.Tensor(type), program.Tensor(type)}, program.Tensor("i1"),
                   std::string("comparison_direction = #stablehlo<comparison_direction LE>, "
                               "compare_type = #stablehlo<comparison_type ") +
                       order + ">");
      }
    }
    const std::vector<std::string> all = Join({narrow_ints, narrow_floats});
    for (const std::string& type : all) {
      for (const std::string& other :
           Join({all, {"i1", "i8", "i32", "ui64", "f16", "bf16", "f32", "f64"}})) {
        if (other == type) continue;
        program.Op("convert", {program.Arg(type)}, {program.Tensor(type)}, program.Tensor(other));
        if (std::find(all.begin(), all.end(), other) == all.end())
          program.Op("convert", {program.Arg(other)}, {program.Tensor(other)},
                     program.Tensor(type));
      }
      program.Op("select", {program.Arg("i1", "p"), program.Arg(type), program.Arg(type, "b")},
                 {program.Tensor("i1"), program.Tensor(type), program.Tensor(type)},
                 program.Tensor(type));
    }
    families.push_back({"narrow_types", program});
  }
  {
    // reduce_precision of every float type to formats narrower, equal and
    // wider than its own, on every magnitude (subnormals, NaN, inf).
    ProgramBuilder program;
    for (const std::string& type : {std::string("f32"), std::string("f64"), std::string("f16"),
                                    std::string("bf16"), std::string("f8E4M3FN")}) {
      for (const auto& [exponent, mantissa] : std::vector<std::pair<int, int>>{
               {5, 10}, {8, 7}, {8, 23}, {11, 52}, {4, 3}, {2, 0}, {1, 1}, {6, 2}}) {
        program.Op("reduce_precision", {program.Arg(type)}, {program.Tensor(type)},
                   program.Tensor(type),
                   "exponent_bits = " + std::to_string(exponent) +
                       " : i32, mantissa_bits = " + std::to_string(mantissa) + " : i32");
      }
    }
    families.push_back({"reduce_precision", program});
  }
  {
    // stablehlo.map inlined into the chain around it: computations of
    // several ops (f16 rounding after each), of two operand types, a
    // compare and select, one map reading another's result.
    ProgramBuilder program;
    const std::string f = program.Tensor("f32"), h = program.Tensor("f16"),
                      i = program.Tensor("i32");
    const std::string fa = program.Arg("f32"), fb = program.Arg("f32", "b"),
                      ha = program.Arg("f16"), ia = program.Arg("i32");
    auto map = [&](const std::string& name, const std::string& operands, const std::string& params,
                   const std::string& ops, const std::string& result, const std::string& types,
                   const std::string& out) {
      program.Returned("  " + name + " = \"stablehlo.map\"(" + operands + ") ({\n  ^bb0(" + params +
                           "):\n" + ops + "    stablehlo.return " + result +
                           "\n  }) {dimensions = "
                           "array<i64: 0>} : (" +
                           types + ") -> " + out + "\n",
                       name, out);
    };
    program.Lines("  %fn = stablehlo.negate " + fa + " : " + f + "\n");
    map("%m0", "%fn, " + fb, "%x: tensor<f32>, %y: tensor<f32>",
        "    %p = stablehlo.multiply %x, %y : tensor<f32>\n    %s = stablehlo.sine %x : "
        "tensor<f32>\n"
        "    %r = stablehlo.add %p, %s : tensor<f32>\n",
        "%r : tensor<f32>", f + ", " + f, f);
    map("%m1", ha + ", " + ha, "%x: tensor<f16>, %y: tensor<f16>",
        "    %p = stablehlo.multiply %x, %y : tensor<f16>\n    %r = stablehlo.add %p, %x : "
        "tensor<f16>\n",
        "%r : tensor<f16>", h + ", " + h, h);
    map("%m2", "%m0, " + ia, "%x: tensor<f32>, %k: tensor<i32>",
        "    %c = stablehlo.convert %k : (tensor<i32>) -> tensor<f32>\n"
        "    %g = stablehlo.compare GT, %x, %c : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
        "    %r = stablehlo.select %g, %x, %c : tensor<i1>, tensor<f32>\n",
        "%r : tensor<f32>", f + ", " + i, f);
    program.Op("abs", {"%m2"}, {f}, f);
    families.push_back({"map", program, 4, 1});
  }
  {
    // CHLO's implicitly broadcasting ops: trailing dimensions (numpy),
    // broadcast_dimensions for a lower rank, size-1 dimensions on both
    // sides, a rank-0 operand; add, subtract, multiply, divide, remainder,
    // power, max, min, and, or, xor, shifts, atan2, next_after, compare
    // (direction and type), select, complex; f32, f16, i32, ui8, i1.
    ProgramBuilder program("");
    struct Case {
      const char* op;
      const char* a;
      const char* b;
      const char* result;
      const char* attrs;
    };
    const Case cases[] = {
        {"add", "tensor<4x5xf32>", "tensor<5xf32>", "tensor<4x5xf32>", ""},
        {"subtract", "tensor<4x1xf16>", "tensor<1x6xf16>", "tensor<4x6xf16>", ""},
        {"multiply", "tensor<7x3xf32>", "tensor<7xf32>", "tensor<7x3xf32>",
         "broadcast_dimensions = array<i64: 0>"},
        {"divide", "tensor<3x1xi32>", "tensor<4xi32>", "tensor<3x4xi32>", ""},
        {"remainder", "tensor<f32>", "tensor<2x3xf32>", "tensor<2x3xf32>", ""},
        {"power", "tensor<5x2xi32>", "tensor<2xi32>", "tensor<5x2xi32>", ""},
        {"maximum", "tensor<2x1x3xf32>", "tensor<4x1xf32>", "tensor<2x4x3xf32>", ""},
        {"minimum", "tensor<6xui8>", "tensor<3x6xui8>", "tensor<3x6xui8>", ""},
        {"and", "tensor<3x4xi1>", "tensor<4xi1>", "tensor<3x4xi1>", ""},
        {"or", "tensor<3x1xi32>", "tensor<3x5xi32>", "tensor<3x5xi32>", ""},
        {"xor", "tensor<ui8>", "tensor<7xui8>", "tensor<7xui8>", ""},
        {"shift_left", "tensor<3x8xui8>", "tensor<8xui8>", "tensor<3x8xui8>", ""},
        {"shift_right_arithmetic", "tensor<4x1xi32>", "tensor<4x9xi32>", "tensor<4x9xi32>", ""},
        {"shift_right_logical", "tensor<2x6xi32>", "tensor<6xi32>", "tensor<2x6xi32>", ""},
        {"atan2", "tensor<3x4xf32>", "tensor<4xf32>", "tensor<3x4xf32>", ""},
        {"next_after", "tensor<5xf32>", "tensor<2x5xf32>", "tensor<2x5xf32>", ""},
        {"compare", "tensor<6x1xi32>", "tensor<5xi32>", "tensor<6x5xi1>",
         "comparison_direction = #chlo<comparison_direction GT>"},
        {"compare", "tensor<4xf16>", "tensor<3x4xf16>", "tensor<3x4xi1>",
         "comparison_direction = #chlo<comparison_direction LE>, compare_type = "
         "#chlo<comparison_type TOTALORDER>"},
        {"complex", "tensor<2x3xf32>", "tensor<3xf32>", "tensor<2x3xcomplex<f32>>",
         "broadcast_dimensions = array<i64: 1>"},
    };
    int index = 0;
    for (const Case& c : cases) {
      const std::string n = std::to_string(index++);
      program.NamedArg("%a" + n, c.a);
      program.NamedArg("%b" + n, c.b);
      const std::string attrs =
          std::string(c.attrs).empty() ? "" : std::string(" {") + c.attrs + "}";
      program.Returned("  %c" + n + " = \"chlo.broadcast_" + c.op + "\"(%a" + n + ", %b" + n + ")" +
                           attrs + " : (" + c.a + ", " + c.b + ") -> " + c.result + "\n",
                       "%c" + n, c.result);
    }
    program.NamedArg("%p", "tensor<2x1xi1>");
    program.NamedArg("%t", "tensor<3xf32>");
    program.NamedArg("%f", "tensor<f32>");
    program.Returned(
        "  %s = \"chlo.broadcast_select\"(%p, %t, %f) : (tensor<2x1xi1>, tensor<3xf32>, "
        "tensor<f32>) -> tensor<2x3xf32>\n",
        "%s", "tensor<2x3xf32>");
    KernelFamily family{"chlo_broadcast", program, 4, 1};
    family.one_kernel = false;
    families.push_back(family);
  }
}

}  // namespace berth::cuda::testing

#endif  // BERTH_TESTS_CUDA_ELEMENTWISE_FAMILIES_HPP_
