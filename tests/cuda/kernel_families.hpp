// The programs the cuda code generator is tested on, shared by the NVRTC
// test (cuda_codegen_test), the generator of their host-compiled kernels
// (generate_host_kernels), the test that runs those against the cpu plugin
// (cuda_kernel_semantics_test) and the GPU test (cuda_execute_test): the
// elementwise families (elementwise_families.hpp), then those of kernels of
// their own - reductions, data movement, linear algebra, control flow, sort,
// top_k, random bits - each family one function.
#ifndef BERTH_TESTS_CUDA_KERNEL_FAMILIES_HPP_
#define BERTH_TESTS_CUDA_KERNEL_FAMILIES_HPP_

#include <string>
#include <utility>
#include <vector>

#include "collective_families.hpp"
#include "elementwise_families.hpp"
#include "linalg_families.hpp"
#include "program_builder.hpp"

namespace berth::cuda::testing {

inline std::vector<KernelFamily> KernelFamilies() {
  std::vector<KernelFamily> families;
  AddElementwiseFamilies(families);
  {
    // Reductions: each a kernel of its own, after and before elementwise
    // kernels, over one, two and all dimensions, of a view, and variadic.
    ProgramBuilder program("6x4x5");
    const std::string f = program.Tensor("f32"), i = program.Tensor("i32"),
                      h = program.Tensor("f16");
    const std::string fa = program.Arg("f32"), ia = program.Arg("i32"), ha = program.Arg("f16");
    const std::string fi = program.Arg("f32", "init", true), ii = program.Arg("i32", "init", true);
    const std::string hi = program.Arg("f16", "init", true);
    const std::string twice = program.Value("stablehlo.add " + fa + ", " + fa + " : " + f);
    program.Op("negate",
               {program.Value("stablehlo.reduce(" + twice + " init: " + fi +
                              ") applies stablehlo.maximum across dimensions = [1] : (" + f +
                              ", tensor<f32>) -> tensor<6x5xf32>")},
               {"tensor<6x5xf32>"}, "tensor<6x5xf32>");
    program.Op("abs",
               {program.Value("stablehlo.reduce(" + ia + " init: " + ii +
                              ") applies stablehlo.add across dimensions = [0, 2] : (" + i +
                              ", tensor<i32>) -> tensor<4xi32>")},
               {"tensor<4xi32>"}, "tensor<4xi32>");
    program.Op("negate",
               {program.Value("stablehlo.reduce(" + ha + " init: " + hi +
                              ") applies stablehlo.minimum across dimensions = [0, 1, 2] : (" + h +
                              ", tensor<f16>) -> tensor<f16>")},
               {"tensor<f16>"}, "tensor<f16>");
    const std::string transposed = program.Value(
        "stablehlo.transpose " + ia + ", dims = [2, 0, 1] : (" + i + ") -> tensor<5x6x4xi32>");
    program.Op("not",
               {program.Value("stablehlo.reduce(" + transposed + " init: " + ii +
                              ") applies stablehlo.multiply across dimensions = [1] : "
                              "(tensor<5x6x4xi32>, tensor<i32>) -> "
                              "tensor<5x4xi32>")},
               {"tensor<5x4xi32>"}, "tensor<5x4xi32>");
    // A float sum: the cpu plugin adds in the same row-major order here.
    program.Op("negate",
               {program.Value("stablehlo.reduce(" + fa + " init: " + fi +
                              ") applies stablehlo.add across dimensions = [0, 1] : (" + f +
                              ", tensor<f32>) -> tensor<5xf32>")},
               {"tensor<5xf32>"}, "tensor<5xf32>");
    // The largest element along dimension 2 and where it is (an argmax).
    const std::string where = program.Value("stablehlo.iota dim = 2 : " + i);
    const std::string best = program.Value(
        "stablehlo.reduce(" + fa + " init: " + fi + "), (" + where + " init: " + ii +
        ") across dimensions = [2] : (" + f + ", " + i +
        ", tensor<f32>, tensor<i32>) -> (tensor<6x4xf32>, tensor<6x4xi32>)\n"
        "    reducer(%x: tensor<f32>, %y: tensor<f32>) (%xi: tensor<i32>, %yi: tensor<i32>) {\n"
        "      %gt = stablehlo.compare GT, %y, %x : (tensor<f32>, tensor<f32>) -> tensor<i1>\n"
        "      %m = stablehlo.select %gt, %y, %x : tensor<i1>, tensor<f32>\n"
        "      %mi = stablehlo.select %gt, %yi, %xi : tensor<i1>, tensor<i32>\n"
        "      stablehlo.return %m, %mi : tensor<f32>, tensor<i32>\n"
        "    }");
    program.Op("negate", {best + "#0"}, {"tensor<6x4xf32>"}, "tensor<6x4xf32>");
    program.Op("negate", {best + "#1"}, {"tensor<6x4xi32>"}, "tensor<6x4xi32>");
    families.push_back({"reduce", program, 0, 0, false});
  }
  {
    // Reductions of long rows on values of every magnitude, bit for bit:
    // where the innermost dimension is reduced the cpu plugin folds a float
    // row of 16 or more with add, multiply, maximum or minimum in eight
    // lanes (isa/reduce_loops.cc there), which the kernels follow.
    ProgramBuilder program("");
    struct Reduction {
      const char* type;
      const char* dims;
      const char* result;
      const char* body;
      const char* element;
    };
    const Reduction reductions[] = {
        {"tensor<3x100xf32>", "[1]", "tensor<3xf32>", "add", "f32"},
        {"tensor<4x3x40xf32>", "[0, 2]", "tensor<3xf32>", "add", "f32"},
        {"tensor<2x37xf64>", "[1]", "tensor<2xf64>", "add", "f64"},
        {"tensor<2x24xf64>", "[1]", "tensor<2xf64>", "multiply", "f64"},
        {"tensor<5x33xf32>", "[1]", "tensor<5xf32>", "maximum", "f32"},
        {"tensor<3x17xf64>", "[1]", "tensor<3xf64>", "minimum", "f64"},
        {"tensor<2x15xf32>", "[1]", "tensor<2xf32>", "add", "f32"},
        {"tensor<64x3xf32>", "[0]", "tensor<3xf32>", "add", "f32"},
        {"tensor<2x50xf16>", "[1]", "tensor<2xf16>", "add", "f16"},
        {"tensor<2x40xbf16>", "[1]", "tensor<2xbf16>", "add", "bf16"},
        {"tensor<48xf32>", "[0]", "tensor<f32>", "add", "f32"},
    };
    int index = 0;
    auto add = [&index](ProgramBuilder& to, const Reduction& r) {
      const std::string arg = "%ra" + std::to_string(index), init = "%ri" + std::to_string(index);
      ++index;
      to.NamedArg(arg, r.type);
      to.NamedArg(init, std::string("tensor<") + r.element + ">");
      const std::string name = "%rr" + std::to_string(index);
      to.Returned("  " + name + " = stablehlo.reduce(" + arg + " init: " + init +
                      ") applies stablehlo." + r.body + " across dimensions = " + r.dims + " : (" +
                      r.type + ", tensor<" + r.element + ">) -> " + r.result + "\n",
                  name, r.result);
    };
    for (const Reduction& r : reductions) add(program, r);
    families.push_back({"reduce_long_rows", program, 0, 0, false});
    // Rows of 32768 or more fold in blocks of 16384 (the last taking the
    // rest), each block in lanes, the blocks in order: two launches here. On
    // ordinary finite values, so that the order shows in the sums' bits.
    ProgramBuilder blocked("");
    const Reduction long_rows[] = {
        {"tensor<3x40000xf32>", "[1]", "tensor<3xf32>", "add", "f32"},
        {"tensor<2x60000xf32>", "[1]", "tensor<2xf32>", "add", "f32"},
        {"tensor<2x3x40000xf32>", "[0, 2]", "tensor<3xf32>", "add", "f32"},
        {"tensor<70001xf64>", "[0]", "tensor<f64>", "add", "f64"},
        {"tensor<2x32768xf32>", "[1]", "tensor<2xf32>", "maximum", "f32"},
        {"tensor<49153xf64>", "[0]", "tensor<f64>", "minimum", "f64"},
        {"tensor<32767xf32>", "[0]", "tensor<f32>", "add", "f32"},
    };
    for (const Reduction& r : long_rows) add(blocked, r);
    KernelFamily family{"reduce_blocked_rows", blocked, 0, 0, false};
    family.finite_values = true;
    families.push_back(family);
  }
  {
    // concatenate and pad: kernels of their own, from arguments, views and
    // iotas; pad with negative edges (cropping) and interior padding.
    ProgramBuilder program("4x6");
    const std::string fa = program.Arg("f32"), ia = program.Arg("i16");
    const std::string fv = program.Arg("f32", "pad", true), iv = program.Arg("i16", "pad", true);
    program.NamedArg("%p_2x6", "tensor<2x6xf32>");
    program.NamedArg("%q_4x3", "tensor<4x3xf32>");
    const std::string rows =
        program.Value("stablehlo.concatenate " + fa +
                      ", %p_2x6, dim = 0 : (tensor<4x6xf32>, tensor<2x6xf32>) -> tensor<6x6xf32>");
    const std::string strided = program.Value(
        "stablehlo.slice " + fa + " [0:4, 0:6:2] : (tensor<4x6xf32>) -> tensor<4x3xf32>");
    const std::string columns = program.Value(
        "stablehlo.concatenate %q_4x3, " + strided + ", " + strided +
        ", dim = 1 : (tensor<4x3xf32>, tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x9xf32>");
    const std::string counted = program.Value("stablehlo.iota dim = 1 : tensor<4x2xi16>");
    const std::string mixed =
        program.Value("stablehlo.concatenate " + counted + ", " + ia +
                      ", dim = 1 : (tensor<4x2xi16>, tensor<4x6xi16>) -> tensor<4x8xi16>");
    const std::string padded =
        program.Value("stablehlo.pad " + fa + ", " + fv +
                      ", low = [1, -1], high = [2, 0], interior = [1, 0] : (tensor<4x6xf32>, "
                      "tensor<f32>) -> tensor<10x5xf32>");
    const std::string transposed = program.Value(
        "stablehlo.transpose " + ia + ", dims = [1, 0] : (tensor<4x6xi16>) -> tensor<6x4xi16>");
    const std::string spread =
        program.Value("stablehlo.pad " + transposed + ", " + iv +
                      ", low = [0, 2], high = [-1, 1], interior = [0, 2] : (tensor<6x4xi16>, "
                      "tensor<i16>) -> tensor<5x13xi16>");
    program.Op("negate", {rows}, {"tensor<6x6xf32>"}, "tensor<6x6xf32>");
    program.Op("negate", {columns}, {"tensor<4x9xf32>"}, "tensor<4x9xf32>");
    program.Op("not", {mixed}, {"tensor<4x8xi16>"}, "tensor<4x8xi16>");
    program.Op("negate", {padded}, {"tensor<10x5xf32>"}, "tensor<10x5xf32>");
    program.Op("not", {spread}, {"tensor<5x13xi16>"}, "tensor<5x13xi16>");
    families.push_back({"concatenate_pad", program, 0, 0, false});
  }
  {
    // dot_general: matrix products, batched, several contracting
    // dimensions, transposed operands and views, mixed and half types.
    ProgramBuilder program("");
    for (const auto& [name, type] :
         std::vector<std::pair<std::string, std::string>>{{"%a", "tensor<7x9xf32>"},
                                                          {"%b", "tensor<9x5xf32>"},
                                                          {"%c", "tensor<3x4x6xf64>"},
                                                          {"%d", "tensor<3x6x5xf64>"},
                                                          {"%e", "tensor<2x3x4x5xi32>"},
                                                          {"%f", "tensor<5x4x2x6xi32>"},
                                                          {"%g", "tensor<8x17xf16>"},
                                                          {"%h", "tensor<17x3xf16>"},
                                                          {"%p", "tensor<6x4xbf16>"},
                                                          {"%q", "tensor<6xbf16>"},
                                                          {"%s", "tensor<10x3xi8>"},
                                                          {"%t", "tensor<3x4xi8>"}}) {
      program.NamedArg(name, type);
    }
    program.Op("dot_general", {"%a", "%b"}, {"tensor<7x9xf32>", "tensor<9x5xf32>"},
               "tensor<7x5xf32>",
               "dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], "
               "rhs_contracting_dimensions = [0]>");
    program.Op("dot_general", {"%c", "%d"}, {"tensor<3x4x6xf64>", "tensor<3x6x5xf64>"},
               "tensor<3x4x5xf64>",
               "dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], "
               "rhs_batching_dimensions = [0], "
               "lhs_contracting_dimensions = [2], rhs_contracting_dimensions = [1]>");
    program.Op("dot_general", {"%e", "%f"}, {"tensor<2x3x4x5xi32>", "tensor<5x4x2x6xi32>"},
               "tensor<2x3x6xi32>",
               "dot_dimension_numbers = #stablehlo.dot<lhs_batching_dimensions = [0], "
               "rhs_batching_dimensions = [2], "
               "lhs_contracting_dimensions = [3, 2], rhs_contracting_dimensions = [0, 1]>");
    program.Op("dot_general", {"%g", "%h"}, {"tensor<8x17xf16>", "tensor<17x3xf16>"},
               "tensor<8x3xf16>",
               "dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], "
               "rhs_contracting_dimensions = [0]>");
    const std::string transposed = program.Value(
        "stablehlo.transpose %b, dims = [1, 0] : (tensor<9x5xf32>) -> tensor<5x9xf32>");
    program.Op("dot_general", {transposed, "%a"}, {"tensor<5x9xf32>", "tensor<7x9xf32>"},
               "tensor<5x7xf32>",
               "dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], "
               "rhs_contracting_dimensions = [1]>");
    program.Op("dot_general", {"%p", "%q"}, {"tensor<6x4xbf16>", "tensor<6xbf16>"}, "tensor<4xf32>",
               "dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [0], "
               "rhs_contracting_dimensions = [0]>");
    program.Op("dot_general", {"%s", "%t"}, {"tensor<10x3xi8>", "tensor<3x4xi8>"},
               "tensor<10x4xi32>",
               "dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], "
               "rhs_contracting_dimensions = [0]>");
    KernelFamily family{"dot_general", program, 0, 0, false};
    family.small_values = true;
    families.push_back(family);
  }
  {
    // dot_general on values of every magnitude (NaN and inf too), bit for
    // bit: floats as the cpu plugin's GEMM computes them (one fma chain over
    // k in f32, or f64 when an operand or the result is f64; halves and f8
    // widened, the result rounded once), complex numbers (each product and
    // sum rounded), i1 results of integers (summed in i64), i1 x i1, i4.
    ProgramBuilder program("");
    struct Product {
      const char* lhs;
      const char* rhs;
      const char* result;
    };
    const Product products[] = {
        {"tensor<7x33xf32>", "tensor<33x5xf32>", "tensor<7x5xf32>"},
        {"tensor<4x19xf64>", "tensor<19x3xf64>", "tensor<4x3xf64>"},
        {"tensor<5x21xf64>", "tensor<21x2xf64>", "tensor<5x2xf32>"},
        {"tensor<3x12xf32>", "tensor<12x4xf32>", "tensor<3x4xf64>"},
        {"tensor<6x17xf16>", "tensor<17x3xf16>", "tensor<6x3xf16>"},
        {"tensor<2x9xbf16>", "tensor<9x5xbf16>", "tensor<2x5xf32>"},
        {"tensor<3x8xf8E4M3FN>", "tensor<8x2xf8E4M3FN>", "tensor<3x2xf32>"},
        {"tensor<4x6xcomplex<f32>>", "tensor<6x3xcomplex<f32>>", "tensor<4x3xcomplex<f32>>"},
        {"tensor<2x5xcomplex<f64>>", "tensor<5x2xcomplex<f64>>", "tensor<2x2xcomplex<f64>>"},
        {"tensor<3x7xi8>", "tensor<7x2xi8>", "tensor<3x2xi1>"},
        {"tensor<3x7xi1>", "tensor<7x4xi1>", "tensor<3x4xi1>"},
        {"tensor<5x6xi4>", "tensor<6x2xi4>", "tensor<5x2xi4>"},
        {"tensor<4x5xui32>", "tensor<5x3xui32>", "tensor<4x3xui32>"},
    };
    int index = 0;
    for (const Product& p : products) {
      const std::string a = "%da" + std::to_string(index), b = "%db" + std::to_string(index++);
      program.NamedArg(a, p.lhs);
      program.NamedArg(b, p.rhs);
      program.Op("dot_general", {a, b}, {p.lhs, p.rhs}, p.result,
                 "dot_dimension_numbers = #stablehlo.dot<lhs_contracting_dimensions = [1], "
                 "rhs_contracting_dimensions = [0]>");
    }
    families.push_back({"dot_general_rounding", program, 0, 0, false});
  }
  {
    // convolution, bit for bit with the cpu plugin's GEMM path (and its
    // grouped-rows path for many narrow groups): every layout, strides,
    // padding (negative too), lhs and rhs dilation, window reversal,
    // feature and batch groups, 1 to 3 spatial dims, halves, f8, f64 and
    // mixed widths, complex numbers, integers, i1; depths that straddle
    // vector widths (3x3 windows over 33 features).
    ProgramBuilder program("");
    struct Conv {
      const char* lhs;
      const char* rhs;
      const char* result;
      const char* layout;
      const char* window;  // empty: none
      const char* groups;  // "feature_group_count = .., batch_group_count = .."
    };
    const Conv convs[] = {
        {"tensor<2x6x7x33xf32>", "tensor<3x3x33x5xf32>", "tensor<2x6x7x5xf32>",
         "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", "stride = [1, 1], pad = [[1, 1], [1, 1]]", ""},
        {"tensor<1x3x9x8xf64>", "tensor<4x3x2x3xf64>", "tensor<1x4x10x2xf64>",
         "[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]",
         "stride = [2, 3], pad = [[1, 2], [-1, 2]], lhs_dilate = [2, 1], rhs_dilate = [1, 2]", ""},
        {"tensor<3x17x4xf32>", "tensor<5x4x6xf32>", "tensor<3x13x6xf32>",
         "[b, 0, f]x[0, i, o]->[b, 0, f]", "reverse = [true]", ""},
        {"tensor<2x5x5x6xf32>", "tensor<3x2x2x9xf32>", "tensor<2x5x4x9xf32>",
         "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]",
         "pad = [[1, 1], [0, 0]], reverse = [false, true]", "feature_group_count = 3"},
        // Depthwise: 10 groups of one input and two output features (the
        // cpu plugin's grouped-rows path).
        {"tensor<1x7x6x10xf32>", "tensor<3x3x1x20xf32>", "tensor<1x5x4x20xf32>",
         "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", "", "feature_group_count = 10"},
        {"tensor<4x6x3xf32>", "tensor<2x3x6xf32>", "tensor<2x5x6xf32>",
         "[b, 0, f]x[0, i, o]->[b, 0, f]", "", "batch_group_count = 2"},
        {"tensor<2x3x5x5x2xf32>", "tensor<2x2x2x2x4xf32>", "tensor<2x4x2x4x5xf32>",
         "[b, 0, 1, 2, f]x[0, 1, 2, i, o]->[b, f, 0, 1, 2]",
         "stride = [1, 1, 1], pad = [[0, 0], [0, 0], [1, 0]]", ""},
        {"tensor<5x2x10xf32>", "tensor<3x5x4xf32>", "tensor<5x2x3xf32>",
         "[f, b, 0]x[o, i, 0]->[0, b, f]", "pad = [[1, 0]], rhs_dilate = [2]", ""},
        {"tensor<1x8x8x4xf16>", "tensor<3x3x4x3xf16>", "tensor<1x6x6x3xf16>",
         "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", "", ""},
        {"tensor<1x6x5x3xbf16>", "tensor<2x2x3x2xbf16>", "tensor<1x5x4x2xf32>",
         "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", "", ""},
        {"tensor<1x5x4xf8E4M3FN>", "tensor<2x4x3xf8E4M3FN>", "tensor<1x6x3xf32>",
         "[b, 0, f]x[0, i, o]->[b, 0, f]", "pad = [[1, 1]]", ""},
        {"tensor<2x7x3xf32>", "tensor<3x3x2xf64>", "tensor<2x5x2xf32>",
         "[b, 0, f]x[0, i, o]->[b, 0, f]", "", ""},
        {"tensor<1x5x5x3xcomplex<f32>>", "tensor<2x2x3x2xcomplex<f32>>",
         "tensor<1x5x5x2xcomplex<f32>>", "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]",
         "pad = [[1, 0], [0, 1]]", ""},
        {"tensor<1x6x2xcomplex<f64>>", "tensor<3x2x2xcomplex<f64>>", "tensor<1x4x2xcomplex<f64>>",
         "[b, 0, f]x[0, i, o]->[b, 0, f]", "", ""},
        {"tensor<2x6x6x3xi8>", "tensor<3x3x3x2xi8>", "tensor<2x4x4x2xi32>",
         "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]", "", ""},
        {"tensor<1x9x4xui16>", "tensor<2x4x3xui16>", "tensor<1x4x3xui16>",
         "[b, 0, f]x[0, i, o]->[b, 0, f]", "stride = [2]", ""},
        {"tensor<1x7x3xi1>", "tensor<3x3x2xi1>", "tensor<1x7x2xi1>",
         "[b, 0, f]x[0, i, o]->[b, 0, f]", "pad = [[1, 1]]", ""},
    };
    auto add = [](ProgramBuilder& program, const Conv& conv, int index) {
      const std::string n = std::to_string(index);
      const std::string a = "%ca" + n, b = "%cb" + n, r = "%cr" + n;
      program.NamedArg(a, conv.lhs);
      program.NamedArg(b, conv.rhs);
      std::string line = "  " + r + " = stablehlo.convolution(" + a + ", " + b +
                         ") dim_numbers = " + conv.layout + ", window = {" + conv.window + "} {" +
                         conv.groups + "} : (" + conv.lhs + ", " + conv.rhs + ") -> " +
                         conv.result + "\n";
      program.Returned(line, r, conv.result);
    };
    // Ordinary finite values: the sums' order and rounding show in the bits.
    int index = 0;
    for (const Conv& conv : convs) add(program, conv, index++);
    KernelFamily family{"convolution", program, 0, 0, false};
    family.finite_values = true;
    families.push_back(family);
    // Any bits (NaN, inf, signed zeros) on the short windows: padding and
    // holes multiply zeros, so 0 x inf there is NaN.
    ProgramBuilder special("");
    for (int i : {2, 7, 10, 12, 13, 16}) add(special, convs[i], i);
    families.push_back({"convolution_special_values", special, 0, 0, false});
  }
  {
    // reduce_window: strides, padding, base and window dilation (holes and
    // padding fold in the init value), max pooling, a cumulative sum of
    // bf16 (as jnp.cumsum lowers), a variadic window (a max and where it
    // is) over a transposed view.
    ProgramBuilder program("");
    for (const auto& [name, type] :
         std::vector<std::pair<std::string, std::string>>{{"%a", "tensor<5x7xf32>"},
                                                          {"%z", "tensor<f32>"},
                                                          {"%b", "tensor<4x6xi32>"},
                                                          {"%bi", "tensor<i32>"},
                                                          {"%h", "tensor<9xbf16>"},
                                                          {"%hz", "tensor<bf16>"},
                                                          {"%zi", "tensor<i32>"}}) {
      program.NamedArg(name, type);
    }
    program.Returned(R"(  %rw0 = "stablehlo.reduce_window"(%a, %z) ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %s = stablehlo.add %p, %q : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {window_dimensions = array<i64: 2, 3>, window_strides = array<i64: 2, 1>, base_dilations = array<i64: 2, 1>, window_dilations = array<i64: 1, 2>, padding = dense<[[1, 0], [2, 1]]> : tensor<2x2xi64>} : (tensor<5x7xf32>, tensor<f32>) -> tensor<5x6xf32>
)",
                     "%rw0", "tensor<5x6xf32>");
    program.Returned(R"(  %rw1 = "stablehlo.reduce_window"(%b, %bi) ({
  ^bb0(%p: tensor<i32>, %q: tensor<i32>):
    %m = stablehlo.maximum %p, %q : tensor<i32>
    stablehlo.return %m : tensor<i32>
  }) {window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 2, 2>, padding = dense<[[0, 1], [1, 1]]> : tensor<2x2xi64>} : (tensor<4x6xi32>, tensor<i32>) -> tensor<2x4xi32>
)",
                     "%rw1", "tensor<2x4xi32>");
    program.Returned(R"(  %rw2 = "stablehlo.reduce_window"(%h, %hz) ({
  ^bb0(%p: tensor<bf16>, %q: tensor<bf16>):
    %s = stablehlo.add %p, %q : tensor<bf16>
    stablehlo.return %s : tensor<bf16>
  }) {window_dimensions = array<i64: 9>, padding = dense<[[8, 0]]> : tensor<1x2xi64>} : (tensor<9xbf16>, tensor<bf16>) -> tensor<9xbf16>
)",
                     "%rw2", "tensor<9xbf16>");
    program.Returned(
        R"(  %at = stablehlo.transpose %a, dims = [1, 0] : (tensor<5x7xf32>) -> tensor<7x5xf32>
  %where = stablehlo.iota dim = 0 : tensor<7x5xi32>
  %rw3, %rw4 = "stablehlo.reduce_window"(%at, %where, %z, %zi) ({
  ^bb0(%p: tensor<f32>, %pi: tensor<i32>, %q: tensor<f32>, %qi: tensor<i32>):
    %gt = stablehlo.compare GT, %q, %p : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %m = stablehlo.select %gt, %q, %p : tensor<i1>, tensor<f32>
    %mi = stablehlo.select %gt, %qi, %pi : tensor<i1>, tensor<i32>
    stablehlo.return %m, %mi : tensor<f32>, tensor<i32>
  }) {window_dimensions = array<i64: 3, 2>, window_strides = array<i64: 2, 1>} : (tensor<7x5xf32>, tensor<7x5xi32>, tensor<f32>, tensor<i32>) -> (tensor<3x4xf32>, tensor<3x4xi32>)
)",
        "%rw3", "tensor<3x4xf32>");
    program.Returned("", "%rw4", "tensor<3x4xi32>");
    // An init value that is data movement (written out first).
    program.NamedArg("%z1", "tensor<1xf32>");
    program.Returned(R"(  %zr = stablehlo.reshape %z1 : (tensor<1xf32>) -> tensor<f32>
  %rw5 = stablehlo.reduce(%a init: %zr) applies stablehlo.maximum across dimensions = [1] : (tensor<5x7xf32>, tensor<f32>) -> tensor<5xf32>
)",
                     "%rw5", "tensor<5xf32>");
    families.push_back({"reduce_window", program, 0, 0, false});
  }
  {
    // scatter: adds of rows (x.at[i].add), a set of single elements by 2-D
    // indices, windows wider than one whose dimensions are not the updates'
    // trailing ones (one thread), batching dimensions; the others split
    // into slices (ScatterThreads). Random indices: mostly out of
    // range (skipped), repeats (later updates see earlier ones). Then
    // select_and_scatter.
    ProgramBuilder program("");
    for (const auto& [name, type] :
         std::vector<std::pair<std::string, std::string>>{{"%a", "tensor<6x4xf32>"},
                                                          {"%ai", "tensor<5x1xi32>"},
                                                          {"%au", "tensor<5x4xf32>"},
                                                          {"%b", "tensor<4x5xi16>"},
                                                          {"%bi", "tensor<3x2xui8>"},
                                                          {"%bu", "tensor<3xi16>"},
                                                          {"%c", "tensor<5x6xf32>"},
                                                          {"%ci", "tensor<2x1xi64>"},
                                                          {"%cu", "tensor<3x2x2xf32>"},
                                                          {"%d", "tensor<3x4x2xf32>"},
                                                          {"%di", "tensor<3x2x1xi32>"},
                                                          {"%du", "tensor<3x2x2xf32>"},
                                                          {"%g", "tensor<8x3x7xf32>"},
                                                          {"%gi", "tensor<10x1xi32>"},
                                                          {"%gu", "tensor<10x3x5xf32>"}}) {
      program.NamedArg(name, type);
    }
    auto scatter = [&](const std::string& name, const std::string& operands,
                       const std::string& element, const std::string& combine,
                       const std::string& numbers, const std::string& types,
                       const std::string& result) {
      program.Returned("  " + name + " = \"stablehlo.scatter\"(" + operands +
                           ") ({\n  ^bb0(%p: tensor<" + element + ">, %q: tensor<" + element +
                           ">):\n" + combine +
                           "  }) {scatter_dimension_numbers = #stablehlo.scatter<" + numbers +
                           ">, indices_are_sorted = false, unique_indices = false} : " + types +
                           " -> " + result + "\n",
                       name, result);
    };
    scatter(
        "%s0", "%a, %ai, %au", "f32",
        "    %s = stablehlo.add %p, %q : tensor<f32>\n    stablehlo.return %s : tensor<f32>\n",
        "update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], "
        "index_vector_dim = 1",
        "(tensor<6x4xf32>, tensor<5x1xi32>, tensor<5x4xf32>)", "tensor<6x4xf32>");
    scatter("%s1", "%b, %bi, %bu", "i16", "    stablehlo.return %q : tensor<i16>\n",
            "inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1], "
            "index_vector_dim = 1",
            "(tensor<4x5xi16>, tensor<3x2xui8>, tensor<3xi16>)", "tensor<4x5xi16>");
    scatter(
        "%s2", "%c, %ci, %cu", "f32",
        "    %s = stablehlo.multiply %p, %q : tensor<f32>\n    stablehlo.return %s : tensor<f32>\n",
        "update_window_dims = [0, 2], scatter_dims_to_operand_dims = [1], index_vector_dim = 1",
        "(tensor<5x6xf32>, tensor<2x1xi64>, tensor<3x2x2xf32>)", "tensor<5x6xf32>");
    scatter(
        "%s3", "%d, %di, %du", "f32",
        "    %s = stablehlo.maximum %p, %q : tensor<f32>\n    stablehlo.return %s : tensor<f32>\n",
        "update_window_dims = [2], inserted_window_dims = [1], input_batching_dims = [0], "
        "scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim "
        "= 2",
        "(tensor<3x4x2xf32>, tensor<3x2x1xi32>, tensor<3x2x2xf32>)", "tensor<3x4x2xf32>");
    // Slices of two dimensions, some past the window (no updates), and an
    // update computation whose result depends on the order of repeats.
    scatter(
        "%s4", "%g, %gi, %gu", "f32",
        "    %s = stablehlo.subtract %q, %p : tensor<f32>\n    stablehlo.return %s : tensor<f32>\n",
        "update_window_dims = [1, 2], inserted_window_dims = [0], scatter_dims_to_operand_dims = "
        "[0], "
        "index_vector_dim = 1",
        "(tensor<8x3x7xf32>, tensor<10x1xi32>, tensor<10x3x5xf32>)", "tensor<8x3x7xf32>");
    // select_and_scatter (one thread per result element gathering the
    // sources that select it): max pooling's gradient (GE, add) and
    // overlapping windows over padding both sides (LT, multiply: order
    // matters).
    for (const auto& [name, type] :
         std::vector<std::pair<std::string, std::string>>{{"%e", "tensor<6x5xf32>"},
                                                          {"%es", "tensor<3x2xf32>"},
                                                          {"%ez", "tensor<f32>"},
                                                          {"%f", "tensor<4x4xi32>"},
                                                          {"%fs", "tensor<4x4xi32>"},
                                                          {"%fz", "tensor<i32>"},
                                                          {"%h", "tensor<2x9x9x3xf32>"},
                                                          {"%hs", "tensor<2x5x5x3xf32>"},
                                                          {"%hz", "tensor<f32>"}}) {
      program.NamedArg(name, type);
    }
    program.Returned(R"(  %ss0 = "stablehlo.select_and_scatter"(%e, %es, %ez) ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %g0 = stablehlo.compare GE, %p, %q : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %g0 : tensor<i1>
  }, {
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %a0 = stablehlo.add %p, %q : tensor<f32>
    stablehlo.return %a0 : tensor<f32>
  }) {window_dimensions = array<i64: 2, 3>, window_strides = array<i64: 2, 2>, padding = dense<[[0, 0], [0, 1]]> : tensor<2x2xi64>} : (tensor<6x5xf32>, tensor<3x2xf32>, tensor<f32>) -> tensor<6x5xf32>
)",
                     "%ss0", "tensor<6x5xf32>");
    program.Returned(R"(  %ss1 = "stablehlo.select_and_scatter"(%f, %fs, %fz) ({
  ^bb0(%p: tensor<i32>, %q: tensor<i32>):
    %g1 = stablehlo.compare LT, %p, %q : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %g1 : tensor<i1>
  }, {
  ^bb0(%p: tensor<i32>, %q: tensor<i32>):
    %m1 = stablehlo.multiply %p, %q : tensor<i32>
    %a1 = stablehlo.add %m1, %q : tensor<i32>
    stablehlo.return %a1 : tensor<i32>
  }) {window_dimensions = array<i64: 3, 3>, window_strides = array<i64: 1, 1>, padding = dense<[[1, 1], [1, 1]]> : tensor<2x2xi64>} : (tensor<4x4xi32>, tensor<4x4xi32>, tensor<i32>) -> tensor<4x4xi32>
)",
                     "%ss1", "tensor<4x4xi32>");
    // ResNet's max pool (3x3, stride 2, padding 1, NHWC): its gradient.
    program.Returned(R"(  %ss2 = "stablehlo.select_and_scatter"(%h, %hs, %hz) ({
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %g2 = stablehlo.compare GE, %p, %q : (tensor<f32>, tensor<f32>) -> tensor<i1>
    stablehlo.return %g2 : tensor<i1>
  }, {
  ^bb0(%p: tensor<f32>, %q: tensor<f32>):
    %a2 = stablehlo.add %p, %q : tensor<f32>
    stablehlo.return %a2 : tensor<f32>
  }) {window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>, padding = dense<[[0, 0], [1, 1], [1, 1], [0, 0]]> : tensor<4x2xi64>} : (tensor<2x9x9x3xf32>, tensor<2x5x5x3xf32>, tensor<f32>) -> tensor<2x9x9x3xf32>
)",
                     "%ss2", "tensor<2x9x9x3xf32>");
    KernelFamily family{"scatter", program, 0, 0, false};
    family.small_values = true;  // indices in range often enough to collide
    families.push_back(family);
  }
  {
    // Moves with indices read at run time: dynamic_slice and
    // dynamic_update_slice (start indices of several integer types,
    // clamped), gather (rows as jnp.take, index vectors, windows wider than
    // one, index_vector_dim first, batching dimensions). Random indices:
    // mostly out of range, so the clamping is what is tested most.
    ProgramBuilder program("");
    for (const auto& [name, type] :
         std::vector<std::pair<std::string, std::string>>{{"%x", "tensor<5x7xf32>"},
                                                          {"%i", "tensor<i32>"},
                                                          {"%i2", "tensor<i32>"},
                                                          {"%u", "tensor<ui64>"},
                                                          {"%u2", "tensor<ui64>"},
                                                          {"%w", "tensor<3x2xf32>"},
                                                          {"%c", "tensor<4x6xi8>"},
                                                          {"%h", "tensor<i8>"},
                                                          {"%h2", "tensor<i8>"},
                                                          {"%g", "tensor<10x4xbf16>"},
                                                          {"%gi", "tensor<6xi32>"},
                                                          {"%v", "tensor<3x4x5xi16>"},
                                                          {"%vi", "tensor<2x3x2xui32>"},
                                                          {"%d", "tensor<8x6xf64>"},
                                                          {"%di", "tensor<2x4xi8>"},
                                                          {"%b", "tensor<3x5x4xf32>"},
                                                          {"%bi", "tensor<3x2x1xi64>"}}) {
      program.NamedArg(name, type);
    }
    program.Op("dynamic_slice", {"%x", "%i", "%i2"},
               {"tensor<5x7xf32>", "tensor<i32>", "tensor<i32>"}, "tensor<2x3xf32>",
               "slice_sizes = array<i64: 2, 3>");
    program.Op("dynamic_slice", {"%c", "%h", "%h2"}, {"tensor<4x6xi8>", "tensor<i8>", "tensor<i8>"},
               "tensor<4x1xi8>", "slice_sizes = array<i64: 4, 1>");
    program.Op("dynamic_update_slice", {"%x", "%w", "%u", "%u2"},
               {"tensor<5x7xf32>", "tensor<3x2xf32>", "tensor<ui64>", "tensor<ui64>"},
               "tensor<5x7xf32>");
    program.Op("dynamic_update_slice", {"%x", "%w", "%i2", "%i"},
               {"tensor<5x7xf32>", "tensor<3x2xf32>", "tensor<i32>", "tensor<i32>"},
               "tensor<5x7xf32>");
    program.Op(
        "gather", {"%g", "%gi"}, {"tensor<10x4xbf16>", "tensor<6xi32>"}, "tensor<6x4xbf16>",
        "dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], "
        "start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 4>");
    program.Op(
        "gather", {"%v", "%vi"}, {"tensor<3x4x5xi16>", "tensor<2x3x2xui32>"}, "tensor<2x3x5xi16>",
        "dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0, 1], "
        "start_index_map = [1, 0], index_vector_dim = 2>, slice_sizes = array<i64: 1, 1, 5>");
    program.Op(
        "gather", {"%d", "%di"}, {"tensor<8x6xf64>", "tensor<2x4xi8>"}, "tensor<4x3x2xf64>",
        "dimension_numbers = #stablehlo.gather<offset_dims = [1, 2], start_index_map = [0, 1], "
        "index_vector_dim = 0>, slice_sizes = array<i64: 3, 2>");
    program.Op(
        "gather", {"%b", "%bi"}, {"tensor<3x5x4xf32>", "tensor<3x2x1xi64>"}, "tensor<3x2x4xf32>",
        "dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [1], "
        "operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], "
        "index_vector_dim = 2>, slice_sizes = array<i64: 1, 1, 4>");
    const std::string transposed = program.Value(
        "stablehlo.transpose %g, dims = [1, 0] : (tensor<10x4xbf16>) -> tensor<4x10xbf16>");
    program.Op(
        "gather", {transposed, "%gi"}, {"tensor<4x10xbf16>", "tensor<6xi32>"}, "tensor<4x6xbf16>",
        "dimension_numbers = #stablehlo.gather<offset_dims = [0], collapsed_slice_dims = [1], "
        "start_index_map = [1], index_vector_dim = 1>, slice_sizes = array<i64: 4, 1>");
    families.push_back({"indexed_moves", program, 0, 0, false});
  }
  {
    // while, if, case: a loop of a fixed trip count carrying an index and a
    // vector; a loop whose trip count is an argument clamped to [0, 6] (so
    // also none: its results are its initial values, arguments); if on a
    // random predicate, one branch returning a view of an outer value; case
    // on a random index (mostly out of range: the last branch), a branch
    // with a loop of its own; calls of a private function.
    ProgramBuilder program("");
    for (const auto& [name, type] :
         std::vector<std::pair<std::string, std::string>>{{"%x", "tensor<37xf32>"},
                                                          {"%y", "tensor<37xf32>"},
                                                          {"%p", "tensor<i1>"},
                                                          {"%k", "tensor<i32>"},
                                                          {"%n", "tensor<i32>"},
                                                          {"%z", "tensor<5x3xi16>"}}) {
      program.NamedArg(name, type);
    }
    program.Returned(R"(  %zero = stablehlo.constant dense<0> : tensor<i32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %four = stablehlo.constant dense<4> : tensor<i32>
  %six = stablehlo.constant dense<6> : tensor<i32>
  %w0, %w1 = stablehlo.while(%i = %zero, %acc = %x) : tensor<i32>, tensor<37xf32>
  cond {
    %lt = stablehlo.compare LT, %i, %four : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %i1 = stablehlo.add %i, %one : tensor<i32>
    %m = stablehlo.multiply %acc, %y : tensor<37xf32>
    %a1 = stablehlo.add %m, %x : tensor<37xf32>
    stablehlo.return %i1, %a1 : tensor<i32>, tensor<37xf32>
  }
)",
                     "%w1", "tensor<37xf32>");
    program.Returned("", "%w0", "tensor<i32>");
    program.Returned(
        R"(  %bound = stablehlo.clamp %zero, %n, %six : (tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<i32>
  %v0, %v1 = stablehlo.while(%j = %zero, %cur = %z) : tensor<i32>, tensor<5x3xi16>
  cond {
    %more = stablehlo.compare LT, %j, %bound : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %more : tensor<i1>
  } do {
    %j1 = stablehlo.add %j, %one : tensor<i32>
    %rev = stablehlo.reverse %cur, dims = [0] : tensor<5x3xi16>
    %sum = stablehlo.add %rev, %z : tensor<5x3xi16>
    stablehlo.return %j1, %sum : tensor<i32>, tensor<5x3xi16>
  }
)",
        "%v1", "tensor<5x3xi16>");
    program.Returned(R"(  %f = "stablehlo.if"(%p) ({
    %s = stablehlo.subtract %x, %y : tensor<37xf32>
    stablehlo.return %s : tensor<37xf32>
  }, {
    %r = stablehlo.reverse %x, dims = [0] : tensor<37xf32>
    stablehlo.return %r : tensor<37xf32>
  }) : (tensor<i1>) -> tensor<37xf32>
)",
                     "%f", "tensor<37xf32>");
    program.Returned(R"(  %c = "stablehlo.case"(%k) ({
    stablehlo.return %y : tensor<37xf32>
  }, {
    %d = stablehlo.divide %x, %y : tensor<37xf32>
    stablehlo.return %d : tensor<37xf32>
  }, {
    %u0, %u1 = stablehlo.while(%q = %zero, %e = %y) : tensor<i32>, tensor<37xf32>
    cond {
      %lq = stablehlo.compare LT, %q, %one : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %lq : tensor<i1>
    } do {
      %q1 = stablehlo.add %q, %one : tensor<i32>
      %ex = stablehlo.maximum %e, %w1 : tensor<37xf32>
      stablehlo.return %q1, %ex : tensor<i32>, tensor<37xf32>
    }
    stablehlo.return %u1 : tensor<37xf32>
  }) : (tensor<i32>) -> tensor<37xf32>
)",
                     "%c", "tensor<37xf32>");
    // A private function called twice, once with a view.
    program.Function(
        R"(func.func private @axpy(%s: tensor<37xf32>, %v: tensor<37xf32>) -> tensor<37xf32> {
  %m = stablehlo.multiply %s, %v : tensor<37xf32>
  %r = stablehlo.add %m, %v : tensor<37xf32>
  return %r : tensor<37xf32>
}
)");
    program.Returned(
        R"(  %call0 = func.call @axpy(%x, %y) : (tensor<37xf32>, tensor<37xf32>) -> tensor<37xf32>
  %flipped = stablehlo.reverse %call0, dims = [0] : tensor<37xf32>
  %call1 = func.call @axpy(%flipped, %c) : (tensor<37xf32>, tensor<37xf32>) -> tensor<37xf32>
)",
        "%call1", "tensor<37xf32>");
    families.push_back({"control_flow", program, 0, 0, false});
  }
  {
    // triangular_solve: every combination of side, triangle, unit diagonal
    // and transpose, on f32 and f64, over matrices of 1, 7, 9 and 33 rows
    // (some batched), one a read through a transpose.
    ProgramBuilder program("");
    struct Shape {
      std::string batch;  // "" or "NxMx.." prefix
      int m;
      int vectors;
    };
    const Shape shapes[] = {{"", 1, 3}, {"2x", 7, 5}, {"", 9, 1}, {"3x", 33, 4}};
    const char* transposes[] = {"NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"};
    int index = 0;
    for (const char* type : {"f32", "f64"}) {
      for (int combo = 0; combo < 24; ++combo, ++index) {
        const bool left = combo & 1, lower = combo & 2, unit = combo & 4;
        const Shape& shape = shapes[(combo + (type[1] == '6' ? 1 : 0)) % 4];
        const std::string m = std::to_string(shape.m), v = std::to_string(shape.vectors);
        const std::string a_type = "tensor<" + shape.batch + m + "x" + m + "x" + type + ">";
        const std::string b_type =
            "tensor<" + shape.batch + (left ? m + "x" + v : v + "x" + m) + "x" + type + ">";
        const std::string a = "%sa" + std::to_string(index), b = "%sb" + std::to_string(index);
        program.NamedArg(a, a_type);
        program.NamedArg(b, b_type);
        program.Op("triangular_solve", {a, b}, {a_type, b_type}, b_type,
                   std::string("left_side = ") + (left ? "true" : "false") +
                       ", lower = " + (lower ? "true" : "false") +
                       ", unit_diagonal = " + (unit ? "true" : "false") +
                       ", transpose_a = #stablehlo<transpose " + transposes[combo / 8] + ">");
      }
    }
    program.NamedArg("%sv", "tensor<9x9xf32>");
    program.NamedArg("%sw", "tensor<9x2xf32>");
    const std::string transposed = program.Value(
        "stablehlo.transpose %sv, dims = [1, 0] : (tensor<9x9xf32>) -> tensor<9x9xf32>");
    program.Op("triangular_solve", {transposed, "%sw"}, {"tensor<9x9xf32>", "tensor<9x2xf32>"},
               "tensor<9x2xf32>",
               "left_side = true, lower = true, unit_diagonal = false, "
               "transpose_a = #stablehlo<transpose NO_TRANSPOSE>");
    KernelFamily family{"triangular_solve", program, 0, 0, false};
    family.solves = true;
    families.push_back(family);
  }
  {
    // sort: one and several operands, along each dimension, ascending and
    // descending, keys of many ties (small values) with payloads that must
    // keep their order, a two-key comparator, an operand that is a view,
    // rows of one element; floats by FLOAT (no NaN among small values) and
    // TOTALORDER, integers SIGNED and UNSIGNED, f16, complex.
    ProgramBuilder program("");
    for (const auto& [name, type] :
         std::vector<std::pair<std::string, std::string>>{{"%sa", "tensor<37xf32>"},
                                                          {"%sb", "tensor<5x9xi32>"},
                                                          {"%sk", "tensor<40xi8>"},
                                                          {"%sv", "tensor<40xf32>"},
                                                          {"%sw", "tensor<40xui64>"},
                                                          {"%sh", "tensor<3x17xf16>"},
                                                          {"%sc", "tensor<11xcomplex<f32>>"},
                                                          {"%su", "tensor<6x1xui16>"},
                                                          {"%st", "tensor<4x7xbf16>"},
                                                          {"%sl", "tensor<129x3xf32>"},
                                                          {"%sm", "tensor<2x300xi16>"},
                                                          {"%sn", "tensor<2x300xf32>"}}) {
      program.NamedArg(name, type);
    }
    int index = 0;
    auto sort1 = [&](const std::string& operand, const std::string& type, int dimension,
                     const std::string& element, const char* direction, const char* order) {
      const std::string name = "%q" + std::to_string(index++);
      program.Returned("  " + name + " = \"stablehlo.sort\"(" + operand +
                           ") ({\n  ^bb0(%l: tensor<" + element + ">, %r: tensor<" + element +
                           ">):\n    %c = stablehlo.compare " + direction + ", %l, %r, " + order +
                           " : (tensor<" + element + ">, tensor<" + element +
                           ">) -> tensor<i1>\n    stablehlo.return %c : tensor<i1>\n  }) "
                           "{dimension = " +
                           std::to_string(dimension) + " : i64, is_stable = true} : (" + type +
                           ") -> " + type + "\n",
                       name, type);
    };
    sort1("%sa", "tensor<37xf32>", 0, "f32", "LT", "FLOAT");
    // Rows longer than kInsertionSortMaxLength merge: 129 along the outer
    // dimension; 300 i16 keys of many ties, each with a payload.
    sort1("%sl", "tensor<129x3xf32>", 0, "f32", "LT", "TOTALORDER");
    program.Returned(
        "  %mm:2 = \"stablehlo.sort\"(%sm, %sn) ({\n"
        "  ^bb0(%k0: tensor<i16>, %k1: tensor<i16>, %v0: tensor<f32>, %v1: tensor<f32>):\n"
        "    %c = stablehlo.compare GT, %k0, %k1, SIGNED : (tensor<i16>, tensor<i16>) -> "
        "tensor<i1>\n"
        "    stablehlo.return %c : tensor<i1>\n"
        "  }) {dimension = 1 : i64, is_stable = true} : (tensor<2x300xi16>, tensor<2x300xf32>) -> "
        "(tensor<2x300xi16>, tensor<2x300xf32>)\n",
        "%mm#0", "tensor<2x300xi16>");
    program.Returned("", "%mm#1", "tensor<2x300xf32>");
    sort1("%sa", "tensor<37xf32>", 0, "f32", "GT", "TOTALORDER");
    sort1("%sb", "tensor<5x9xi32>", 0, "i32", "GT", "SIGNED");
    sort1("%sb", "tensor<5x9xi32>", 1, "i32", "LT", "SIGNED");
    sort1("%sh", "tensor<3x17xf16>", 1, "f16", "LT", "FLOAT");
    sort1("%sc", "tensor<11xcomplex<f32>>", 0, "complex<f32>", "LT", "FLOAT");
    sort1("%su", "tensor<6x1xui16>", 1, "ui16", "LT", "UNSIGNED");
    const std::string transposed = program.Value(
        "stablehlo.transpose %st, dims = [1, 0] : (tensor<4x7xbf16>) -> tensor<7x4xbf16>");
    sort1(transposed, "tensor<7x4xbf16>", 0, "bf16", "GE", "FLOAT");
    // Keys with many ties and two payloads: stable; then a two-key order
    // (key descending, then payload ascending).
    program.Returned(
        "  %m:3 = \"stablehlo.sort\"(%sk, %sv, %sw) ({\n"
        "  ^bb0(%k0: tensor<i8>, %k1: tensor<i8>, %v0: tensor<f32>, %v1: tensor<f32>, "
        "%w0: tensor<ui64>, %w1: tensor<ui64>):\n"
        "    %c = stablehlo.compare LT, %k0, %k1, SIGNED : (tensor<i8>, tensor<i8>) -> tensor<i1>\n"
        "    stablehlo.return %c : tensor<i1>\n"
        "  }) {dimension = 0 : i64, is_stable = true} : (tensor<40xi8>, tensor<40xf32>, "
        "tensor<40xui64>) -> (tensor<40xi8>, tensor<40xf32>, tensor<40xui64>)\n",
        "%m#0", "tensor<40xi8>");
    program.Returned("", "%m#1", "tensor<40xf32>");
    program.Returned("", "%m#2", "tensor<40xui64>");
    program.Returned(
        "  %n:2 = \"stablehlo.sort\"(%sk, %sv) ({\n"
        "  ^bb0(%k0: tensor<i8>, %k1: tensor<i8>, %v0: tensor<f32>, %v1: tensor<f32>):\n"
        "    %gt = stablehlo.compare GT, %k0, %k1, SIGNED : (tensor<i8>, tensor<i8>) -> "
        "tensor<i1>\n"
        "    %eq = stablehlo.compare EQ, %k0, %k1, SIGNED : (tensor<i8>, tensor<i8>) -> "
        "tensor<i1>\n"
        "    %lt = stablehlo.compare LT, %v0, %v1, FLOAT : (tensor<f32>, tensor<f32>) -> "
        "tensor<i1>\n"
        "    %both = stablehlo.and %eq, %lt : tensor<i1>\n"
        "    %c = stablehlo.or %gt, %both : tensor<i1>\n"
        "    stablehlo.return %c : tensor<i1>\n"
        "  }) {dimension = 0 : i64, is_stable = false} : (tensor<40xi8>, tensor<40xf32>) -> "
        "(tensor<40xi8>, tensor<40xf32>)\n",
        "%n#0", "tensor<40xi8>");
    program.Returned("", "%n#1", "tensor<40xf32>");
    KernelFamily family{"sort", program, 0, 0, false};
    family.small_values = true;
    families.push_back(family);
  }
  {
    // bitcast_convert as stored bytes: halves to and from integers (NaN
    // payloads kept), other widths (a trailing dimension added or dropped),
    // i1 packed and unpacked, narrow types of one width, complex numbers, an
    // operand computed just before and one that is a view.
    ProgramBuilder program("");
    struct Cast {
      const char* from;
      const char* to;
    };
    const Cast casts[] = {
        {"tensor<13xf16>", "tensor<13xui16>"},
        {"tensor<13xui16>", "tensor<13xf16>"},
        {"tensor<9xbf16>", "tensor<9xi16>"},
        {"tensor<5xf32>", "tensor<5x2xf16>"},
        {"tensor<3x2xui16>", "tensor<3xf32>"},
        {"tensor<4xui64>", "tensor<4x8xi8>"},
        {"tensor<3x4xi16>", "tensor<3xf64>"},
        {"tensor<5x8xi1>", "tensor<5xui8>"},
        {"tensor<3xui16>", "tensor<3x16xi1>"},
        {"tensor<7xf8E4M3FN>", "tensor<7xui8>"},
        {"tensor<7xi8>", "tensor<7xf8E5M2>"},
        {"tensor<6xui4>", "tensor<6xi4>"},
        {"tensor<6xi4>", "tensor<6xui4>"},
        {"tensor<3xcomplex<f32>>", "tensor<3xui64>"},
        {"tensor<2x2xf64>", "tensor<2xcomplex<f64>>"},
    };
    int index = 0;
    for (const Cast& c : casts) {
      const std::string arg = "%bc" + std::to_string(index++);
      program.NamedArg(arg, c.from);
      program.Op("bitcast_convert", {arg}, {c.from}, c.to);
    }
    // Of a value the kernel before computes, and of a transposed view.
    program.NamedArg("%bx", "tensor<4x3xf16>");
    const std::string negated = program.Value("stablehlo.negate %bx : tensor<4x3xf16>");
    program.Op("bitcast_convert", {negated}, {"tensor<4x3xf16>"}, "tensor<4x3xi16>");
    const std::string transposed = program.Value(
        "stablehlo.transpose %bx, dims = [1, 0] : (tensor<4x3xf16>) -> tensor<3x4xf16>");
    program.Op("bitcast_convert", {transposed}, {"tensor<3x4xf16>"}, "tensor<3x4xui16>");
    families.push_back({"bitcast_bytes", program, 0, 0, false});
  }
  {
    // chlo.top_k: the k largest of each row, values and indices; floats by
    // totalOrder (NaN, -0 and +0 among random bit patterns), ties of small
    // integers in index order; k of 0, 1, some and all; ranks 1 to 3.
    ProgramBuilder program("");
    struct TopK {
      const char* type;
      int k;
      const char* values;
      const char* indices;
    };
    const TopK tops[] = {
        {"tensor<5x37xf32>", 7, "tensor<5x7xf32>", "tensor<5x7xi32>"},
        {"tensor<33xf64>", 33, "tensor<33xf64>", "tensor<33xi64>"},
        {"tensor<2x3x19xf16>", 4, "tensor<2x3x4xf16>", "tensor<2x3x4xi32>"},
        {"tensor<4x21xbf16>", 1, "tensor<4x1xbf16>", "tensor<4x1xui32>"},
        {"tensor<3x40xi8>", 9, "tensor<3x9xi8>", "tensor<3x9xi32>"},
        {"tensor<6x17xui16>", 17, "tensor<6x17xui16>", "tensor<6x17xi32>"},
        {"tensor<2x9xi32>", 0, "tensor<2x0xi32>", "tensor<2x0xi32>"},
    };
    int index = 0;
    for (const TopK& top : tops) {
      const std::string arg = "%tk" + std::to_string(index), name = "%tv" + std::to_string(index);
      ++index;
      program.NamedArg(arg, top.type);
      program.Returned("  " + name + ":2 = \"chlo.top_k\"(" + arg +
                           ") {k = " + std::to_string(top.k) + " : i64} : (" + top.type + ") -> (" +
                           top.values + ", " + top.indices + ")\n",
                       name + "#0", top.values);
      program.Returned("", name + "#1", top.indices);
    }
    families.push_back({"top_k", program, 0, 0, false});
  }
  {
    // rng_bit_generator, bit for bit: THREE_FRY's split of narrow outputs
    // (first even dimension, else the largest; odd sizes; rank 0; empty),
    // 64-bit outputs, PHILOX's blocks of four (two for 64 bits) with counts
    // that do not fill the last, states of 2 and 3 ui64 words, of 4 ui32
    // (JAX's key) and i64; a 3-word state whose counter's low word carries
    // into the high one; float outputs holding the bits.
    ProgramBuilder program("");
    program.NamedArg("%k2", "tensor<2xui64>");
    program.NamedArg("%k3", "tensor<3xui64>");
    program.NamedArg("%k4", "tensor<4xui32>");
    program.NamedArg("%ki", "tensor<2xi64>");
    const std::string carry = program.Value(
        "stablehlo.constant dense<[12345, 18446744073709551614, 7]> : tensor<3xui64>");
    struct Generator {
      const char* algorithm;
      std::string state;
      const char* state_type;
      const char* output;
    };
    const Generator generators[] = {
        {"THREE_FRY", "%k2", "tensor<2xui64>", "tensor<5x7xui32>"},
        {"THREE_FRY", "%k2", "tensor<2xui64>", "tensor<3x4x5xf32>"},
        {"THREE_FRY", "%k4", "tensor<4xui32>", "tensor<6x3xui32>"},
        {"THREE_FRY", "%k2", "tensor<2xui64>", "tensor<ui32>"},
        {"THREE_FRY", "%ki", "tensor<2xi64>", "tensor<9xui8>"},
        {"THREE_FRY", "%k2", "tensor<2xui64>", "tensor<3x5xf16>"},
        {"THREE_FRY", "%k2", "tensor<2xui64>", "tensor<7xui64>"},
        {"THREE_FRY", "%k4", "tensor<4xui32>", "tensor<3x3xf64>"},
        {"THREE_FRY", "%k2", "tensor<2xui64>", "tensor<0x3xui32>"},
        {"PHILOX", "%k2", "tensor<2xui64>", "tensor<13xui32>"},
        {"PHILOX", "%k3", "tensor<3xui64>", "tensor<5xui64>"},
        {"PHILOX", "%k3", "tensor<3xui64>", "tensor<2x5xui8>"},
        {"PHILOX", "%k2", "tensor<2xui64>", "tensor<7xbf16>"},
        {"PHILOX", carry, "tensor<3xui64>", "tensor<9xui32>"},
        {"DEFAULT", "%k4", "tensor<4xui32>", "tensor<4x3xf32>"},
        {"DEFAULT", "%ki", "tensor<2xi64>", "tensor<3xi64>"},
    };
    int index = 0;
    for (const Generator& g : generators) {
      const std::string name = "%g" + std::to_string(index++);
      program.Returned("  " + name + ":2 = \"stablehlo.rng_bit_generator\"(" + g.state +
                           ") {rng_algorithm = #stablehlo<rng_algorithm " + g.algorithm + ">} : (" +
                           g.state_type + ") -> (" + g.state_type + ", " + g.output + ")\n",
                       name + "#0", g.state_type);
      program.Returned("", name + "#1", g.output);
    }
    families.push_back({"random_bits", program, 0, 0, false});
  }
  {
    // chlo.scan: prefix sums in order along either dimension (floats, so
    // the order shows in the bits), from the end, over a view, a running
    // maximum with its index, two carries that swap, and a scan of carries
    // alone.
    ProgramBuilder program("");
    auto scan = [&](const std::string& name, const std::string& inputs, const std::string& inits,
                    const std::string& attrs, const std::string& body, const std::string& types) {
      program.Lines("  " + name + " = chlo.scan(" + inputs + ") inits(" + inits + ") " + attrs +
                    " {\n" + body + "  } : " + types + "\n");
    };
    program.NamedArg("%f", "tensor<4x7xf32>");
    program.NamedArg("%f0", "tensor<4xf32>");
    program.NamedArg("%h", "tensor<5x3xf16>");
    program.NamedArg("%h0", "tensor<3xf16>");
    program.NamedArg("%i", "tensor<9xi32>");
    program.NamedArg("%i0", "tensor<i32>");
    scan("%s0:2", "%f", "%f0", "dimension=1",
         "  ^bb0(%x: tensor<4xf32>, %c: tensor<4xf32>):\n"
         "    %a = stablehlo.add %c, %x : tensor<4xf32>\n"
         "    stablehlo.return %a, %a : tensor<4xf32>, tensor<4xf32>\n",
         "(tensor<4x7xf32>, tensor<4xf32>) -> (tensor<4x7xf32>, tensor<4xf32>)");
    program.Lines(
        "  %ht = stablehlo.transpose %h, dims = [1, 0] : (tensor<5x3xf16>) -> tensor<3x5xf16>\n");
    scan("%s1:2", "%ht", "%h0", "dimension=1 attributes {is_reverse = true}",
         "  ^bb0(%x: tensor<3xf16>, %c: tensor<3xf16>):\n"
         "    %m = stablehlo.multiply %x, %c : tensor<3xf16>\n"
         "    %a = stablehlo.add %m, %x : tensor<3xf16>\n"
         "    stablehlo.return %a, %a : tensor<3xf16>, tensor<3xf16>\n",
         "(tensor<3x5xf16>, tensor<3xf16>) -> (tensor<3x5xf16>, tensor<3xf16>)");
    program.Lines("  %where = stablehlo.iota dim = 0 : tensor<9xi32>\n");
    scan("%s2:4", "%i, %where", "%i0, %i0", "dimension=0",
         "  ^bb0(%v: tensor<i32>, %k: tensor<i32>, %rv: tensor<i32>, %rk: tensor<i32>):\n"
         "    %nv = stablehlo.maximum %rv, %v : tensor<i32>\n"
         "    %gt = stablehlo.compare GT, %rv, %v : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
         "    %nk = stablehlo.select %gt, %rk, %k : tensor<i1>, tensor<i32>\n"
         "    stablehlo.return %nv, %nk, %nv, %nk : tensor<i32>, tensor<i32>, tensor<i32>, "
         "tensor<i32>\n",
         "(tensor<9xi32>, tensor<9xi32>, tensor<i32>, tensor<i32>) -> (tensor<9xi32>, "
         "tensor<9xi32>, "
         "tensor<i32>, tensor<i32>)");
    // Fibonacci-like: the carries swap, the output is one of them.
    scan("%s3:3", "", "%f0, %f0", "dimension=0",
         "  ^bb0(%a: tensor<4xf32>, %b: tensor<4xf32>):\n"
         "    %n = stablehlo.add %a, %b : tensor<4xf32>\n"
         "    stablehlo.return %a, %b, %n : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>\n",
         "(tensor<4xf32>, tensor<4xf32>) -> (tensor<6x4xf32>, tensor<4xf32>, tensor<4xf32>)");
    const std::pair<const char*, const char*> returned[] = {
        {"%s0#0", "tensor<4x7xf32>"}, {"%s0#1", "tensor<4xf32>"}, {"%s1#0", "tensor<3x5xf16>"},
        {"%s1#1", "tensor<3xf16>"},   {"%s2#0", "tensor<9xi32>"}, {"%s2#1", "tensor<9xi32>"},
        {"%s2#2", "tensor<i32>"},     {"%s2#3", "tensor<i32>"},   {"%s3#0", "tensor<6x4xf32>"},
        {"%s3#1", "tensor<4xf32>"},   {"%s3#2", "tensor<4xf32>"}};
    for (const auto& [name, type] : returned) program.Returned("", name, type);
    families.push_back({"scan", program, 0, 0, false});
  }
  AddLinalgFamilies(families);
  AddCollectiveFamilies(families);
  AddTransferFamilies(families);
  return families;
}

}  // namespace berth::cuda::testing

#endif  // BERTH_TESTS_CUDA_KERNEL_FAMILIES_HPP_
