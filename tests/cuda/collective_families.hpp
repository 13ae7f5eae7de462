// The families of collective programs: interpreter.run_parallel grids whose
// instances meet at every collective the code generator runs (all_reduce,
// all_gather, reduce_scatter, all_to_all, collective_permute,
// collective_broadcast, collective_reduce), with groups out of order,
// several groups, channels (cross_replica_and_partition, cross_partition),
// flattened ids, a dynamic root, non-commutative reductions, different
// functions per partition, the instances' ids and a group of one inside a
// call; and send and recv between instances. Part of KernelFamilies
// (kernel_families.hpp).
#ifndef BERTH_TESTS_CUDA_COLLECTIVE_FAMILIES_HPP_
#define BERTH_TESTS_CUDA_COLLECTIVE_FAMILIES_HPP_

#include <string>
#include <utility>
#include <vector>

#include "program_builder.hpp"

namespace berth::cuda::testing {

// A collective's reduction region: `op` of two `type` elements.
inline std::string ReductionRegion(const std::string& op, const std::string& type) {
  const std::string t = "tensor<" + type + ">";
  return "({\n    ^bb0(%p: " + t + ", %q: " + t + "):\n      %s = stablehlo." + op +
         " %p, %q : " + t + "\n      stablehlo.return %s : " + t + "\n  })";
}

// `%name = "stablehlo.OP"(operand) REGION {attrs} : (in) -> out`.
inline std::string CollectiveLine(const std::string& name, const std::string& op,
                                  const std::string& operands, const std::string& region,
                                  const std::string& attrs, const std::string& in,
                                  const std::string& out) {
  return "  " + name + " = \"stablehlo." + op + "\"(" + operands + ") " + region + " {" + attrs +
         "} : (" + in + ") -> " + out + "\n";
}

// A main running `grid` (rows of function names) in interpreter.run_parallel:
// each instance takes arguments of `params` (its own, main's parameters
// %a<instance>_<k>) and returns values of `results`.
inline void RunParallelMain(ProgramBuilder& program,
                            const std::vector<std::vector<std::string>>& grid,
                            const std::vector<std::string>& params,
                            const std::vector<std::string>& results) {
  std::string operands, operand_types, result_types, programs;
  int instance = 0;
  for (const auto& row : grid) {
    programs += std::string(programs.empty() ? "" : ", ") + "[";
    for (size_t p = 0; p < row.size(); ++p, ++instance) {
      programs += (p ? ", @" : "@") + row[p];
      for (size_t k = 0; k < params.size(); ++k) {
        const std::string name = "%a" + std::to_string(instance) + "_" + std::to_string(k);
        program.NamedArg(name, params[k]);
        operands += (operands.empty() ? "" : ", ") + name;
        operand_types += (operand_types.empty() ? "" : ", ") + params[k];
      }
      for (const std::string& type : results)
        result_types += (result_types.empty() ? "" : ", ") + type;
    }
    programs += "]";
  }
  const size_t count = static_cast<size_t>(instance) * results.size();
  program.Lines("  %all:" + std::to_string(count) + " = \"interpreter.run_parallel\"(" + operands +
                ") {programs = [" + programs + "]} : (" + operand_types + ") -> (" + result_types +
                ")\n");
  for (size_t j = 0; j < count; ++j)
    program.Returned("", "%all#" + std::to_string(j), results[j % results.size()]);
}

// Appends the collective families to `families`.
inline void AddCollectiveFamilies(std::vector<KernelFamily>& families) {
  const std::string groups4 = "replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>";
  {
    // Four replicas of one function, on random bits (NaN, inf, every
    // magnitude): float sums in group order, maximum's NaN, bf16 and f16
    // rounding after every step, complex sums, a second all_reduce (the
    // count of meetings), groups out of order and two groups at once.
    const std::string x = "tensor<4x6xf32>", y = "tensor<4x6xbf16>", z = "tensor<8x3xi32>",
                      w = "tensor<4x6xcomplex<f32>>", h = "tensor<4x6xf16>";
    std::string body;
    body += "  %rid = stablehlo.replica_id : tensor<ui32>\n";
    body += "  %ridf = stablehlo.convert %rid : (tensor<ui32>) -> tensor<f32>\n";
    body += "  %b = stablehlo.broadcast_in_dim %ridf, dims = [] : (tensor<f32>) -> " + x + "\n";
    body += "  %xs = stablehlo.add %x, %b : " + x + "\n";
    body +=
        CollectiveLine("%c0", "all_reduce", "%xs", ReductionRegion("add", "f32"), groups4, x, x);
    body += CollectiveLine("%c1", "all_reduce", "%y", ReductionRegion("maximum", "bf16"),
                           "replica_groups = dense<[[0, 2], [1, 3]]> : tensor<2x2xi64>", y, y);
    body += CollectiveLine("%c2", "all_gather", "%z", "",
                           "all_gather_dim = 1 : i64, replica_groups = dense<[[3, 1, 0, 2]]> : "
                           "tensor<1x4xi64>",
                           z, "tensor<8x12xi32>");
    body += CollectiveLine("%c3", "reduce_scatter", "%x", ReductionRegion("subtract", "f32"),
                           "scatter_dimension = 0 : i64, replica_groups = dense<[[3, 1, 0, 2]]> : "
                           "tensor<1x4xi64>",
                           x, "tensor<1x6xf32>");
    body += CollectiveLine("%c4", "all_to_all", "%z", "",
                           "split_dimension = 0 : i64, concat_dimension = 1 : i64, split_count = "
                           "4 : i64, " +
                               groups4,
                           z, "tensor<2x12xi32>");
    body += CollectiveLine("%c5", "collective_permute", "%w", "",
                           "source_target_pairs = dense<[[0, 1], [1, 2], [2, 0]]> : "
                           "tensor<3x2xi64>",
                           w, w);
    body += CollectiveLine("%c6", "collective_broadcast", "%y", "",
                           "replica_groups = dense<[[1, 0], [2, 3]]> : tensor<2x2xi64>", y, y);
    body += CollectiveLine("%c7", "collective_reduce", "%z", ReductionRegion("add", "i32"),
                           "replica_groups = dense<[[2, 3, 0, 1]]> : tensor<1x4xi64>", z, z);
    body += CollectiveLine("%c8", "all_reduce", "%c0", ReductionRegion("multiply", "f32"),
                           "replica_groups = dense<[[0, 1], [3, 2]]> : tensor<2x2xi64>", x, x);
    body += CollectiveLine("%c9", "all_reduce", "%w", ReductionRegion("add", "complex<f32>"),
                           groups4, w, w);
    body +=
        CollectiveLine("%c10", "all_reduce", "%h", ReductionRegion("add", "f16"), groups4, h, h);
    ProgramBuilder program("");
    const std::vector<std::string> results = {
        x, y, "tensor<8x12xi32>", "tensor<1x6xf32>", "tensor<2x12xi32>", w, y, z, x, w, h};
    std::string returned, types;
    for (size_t j = 0; j < results.size(); ++j) {
      returned += (j ? ", %c" : "%c") + std::to_string(j);
      types += (j ? ", " : "") + results[j];
    }
    program.Function("func.func @replica(%x: " + x + ", %y: " + y + ", %z: " + z + ", %w: " + w +
                     ", %h: " + h + ") -> (" + types + ") {\n" + body + "  return " + returned +
                     " : " + types + "\n}\n");
    RunParallelMain(program, {{"replica"}, {"replica"}, {"replica"}, {"replica"}}, {x, y, z, w, h},
                    results);
    families.push_back({"collectives", program, 0, 0, false});
  }
  {
    // Two replicas of two partitions running different functions, on
    // ordinary finite values (so sums show their order in the bits):
    // channels group across partitions, flattened ids, a dynamic root, the
    // instances' ids, and a group of one inside a call.
    const std::string x = "tensor<4x4xf32>", h = "tensor<6xf16>", u = "tensor<4x2xui64>",
                      d = "tensor<3x2xf64>";
    auto channel = [](int handle) {
      return "channel_handle = #stablehlo.channel_handle<handle = " + std::to_string(handle) +
             ", type = 0>";
    };
    std::string body;
    body +=
        CollectiveLine("%c0", "all_reduce", "%x", ReductionRegion("add", "f32"),
                       "replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, " + channel(1), x, x);
    body += CollectiveLine("%c1", "all_reduce", "%h", ReductionRegion("add", "f16"),
                           "replica_groups = dense<[[3, 0], [1, 2]]> : tensor<2x2xi64>, " +
                               channel(2) + ", use_global_device_ids",
                           h, h);
    body += CollectiveLine("%c2", "all_gather", "%x", "",
                           "all_gather_dim = 0 : i64, replica_groups = dense<[[0], [1]]> : "
                           "tensor<2x1xi64>, " +
                               channel(3),
                           x, "tensor<8x4xf32>");
    body += CollectiveLine("%c3", "all_to_all", "%u", "",
                           "split_dimension = 1 : i64, concat_dimension = 0 : i64, split_count = "
                           "2 : i64, replica_groups = dense<[[1, 0]]> : tensor<1x2xi64>, " +
                               channel(4),
                           u, "tensor<8x1xui64>");
    body += CollectiveLine("%c4", "collective_permute", "%x", "",
                           "source_target_pairs = dense<[[1, 0]]> : tensor<1x2xi64>, " + channel(5),
                           x, x);
    body += "  %root = stablehlo.constant dense<[1]> : tensor<1xi32>\n";
    body += CollectiveLine("%c5", "collective_broadcast", "%d, %root", "",
                           "replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, " + channel(6) +
                               ", has_dynamic_root",
                           d + ", tensor<1xi32>", d);
    body += "  %pid = stablehlo.partition_id : tensor<ui32>\n";
    body += "  %rid = stablehlo.replica_id : tensor<ui32>\n";
    body += "  %ten = stablehlo.constant dense<10> : tensor<ui32>\n";
    body += "  %pid10 = stablehlo.multiply %pid, %ten : tensor<ui32>\n";
    body += "  %c6 = stablehlo.add %pid10, %rid : tensor<ui32>\n";
    body += "  %c7 = func.call @alone(%d) : (" + d + ") -> " + d + "\n";
    const std::vector<std::string> results = {x, h, "tensor<8x4xf32>", "tensor<8x1xui64>",
                                              x, d, "tensor<ui32>",    d};
    std::string returned, types;
    for (size_t j = 0; j < results.size(); ++j) {
      returned += (j ? ", %c" : "%c") + std::to_string(j);
      types += (j ? ", " : "") + results[j];
    }
    const std::string params = "(%x0: " + x + ", %h: " + h + ", %u: " + u + ", %d: " + d + ")";
    const std::string tail = " -> (" + types + ") {\n";
    const std::string end = "  return " + returned + " : " + types + "\n}\n";
    ProgramBuilder program("");
    // Partition 0 takes its x as it is, partition 1 negated.
    program.Function("func.func @even" + params + tail + "  %x = stablehlo.abs %x0 : " + x + "\n" +
                     body + end);
    program.Function("func.func @odd" + params + tail + "  %x = stablehlo.negate %x0 : " + x +
                     "\n" + body + end);
    program.Function("func.func @alone(%v: " + d + ") -> " + d + " {\n" +
                     CollectiveLine("%s", "all_reduce", "%v", ReductionRegion("add", "f64"),
                                    "replica_groups = dense<[[0], [1]]> : tensor<2x1xi64>", d, d) +
                     "  return %s : " + d + "\n}\n");
    RunParallelMain(program, {{"even", "odd"}, {"even", "odd"}}, {x, h, u, d}, results);
    KernelFamily family{"collectives_partitions", program, 0, 0, false};
    family.finite_values = true;
    families.push_back(family);
  }
}

// Appends the families of send and recv between run_parallel's instances.
inline void AddTransferFamilies(std::vector<KernelFamily>& families) {
  // Replica 0 sends two values on channel 1 (one sent twice) and waits for
  // replica 1's answer on channel 2, which replica 1 sends after taking the
  // first two: the instances take turns, values arrive oldest first,
  // tuples and tokens carry nothing to the device.
  const std::string x = "tensor<3x5xf32>", c = "tensor<7xcomplex<f64>>", t = "!stablehlo.token";
  auto send = [&](const std::string& name, const std::string& values, const std::string& types,
                  int channel) {
    return "  " + name + " = \"stablehlo.send\"(" + values +
           ") {channel_handle = #stablehlo.channel_handle<handle = " + std::to_string(channel) +
           ", type = 1>} : (" + types + ") -> " + t + "\n";
  };
  auto recv = [&](const std::string& names, const std::string& token, const std::string& types,
                  int channel) {
    return "  " + names + " = \"stablehlo.recv\"(" + token +
           ") {channel_handle = #stablehlo.channel_handle<handle = " + std::to_string(channel) +
           ", type = 1>} : (" + t + ") -> (" + types + ")\n";
  };
  ProgramBuilder program("");
  program.Function("func.func @first(%x: " + x + ", %c: " + c + ", %t: " + t + ") -> (" + x + ", " +
                   c + ") {\n" + "  %n = stablehlo.negate %x : " + x + "\n" +
                   send("%s0", "%n, %c, %t", x + ", " + c + ", " + t, 1) +
                   send("%s1", "%x, %c, %s0", x + ", " + c + ", " + t, 1) +
                   recv("%r:3", "%s1", x + ", " + c + ", " + t, 2) +
                   "  %pair = stablehlo.tuple %r#0, %r#1 : tuple<" + x + ", " + c +
                   ">\n"
                   "  %a = stablehlo.get_tuple_element %pair[0] : (tuple<" +
                   x + ", " + c + ">) -> " + x +
                   "\n  %b = stablehlo.get_tuple_element %pair[1] : (tuple<" + x + ", " + c +
                   ">) -> " + c + "\n  return %a, %b : " + x + ", " + c + "\n}\n");
  program.Function("func.func @second(%x: " + x + ", %c: " + c + ", %t: " + t + ") -> (" + x +
                   ", " + c + ") {\n" + recv("%r:3", "%t", x + ", " + c + ", " + t, 1) +
                   recv("%q:3", "%r#2", x + ", " + c + ", " + t, 1) +
                   "  %sum = stablehlo.add %r#0, %q#0 : " + x + "\n" +
                   send("%s", "%sum, %x, %c, %q#2", x + ", " + x + ", " + c + ", " + t, 3) +
                   send("%s2", "%sum, %q#1, %s", x + ", " + c + ", " + t, 2) +
                   "  return %q#0, %r#1 : " + x + ", " + c + "\n}\n");
  // The values sent on channel 3 are never taken: they stay queued.
  program.NamedArg("%x0", x);
  program.NamedArg("%c0", c);
  program.NamedArg("%x1", x);
  program.NamedArg("%c1", c);
  program.Lines("  %tok = stablehlo.after_all : " + t + "\n" +
                "  %all:4 = \"interpreter.run_parallel\"(%x0, %c0, %tok, %x1, %c1, %tok) "
                "{programs = [[@first], [@second]]} : (" +
                x + ", " + c + ", " + t + ", " + x + ", " + c + ", " + t + ") -> (" + x + ", " + c +
                ", " + x + ", " + c + ")\n");
  for (int j = 0; j < 4; ++j) program.Returned("", "%all#" + std::to_string(j), j % 2 == 0 ? x : c);
  families.push_back({"transfers", program, 0, 0, false});
}

}  // namespace berth::cuda::testing

#endif  // BERTH_TESTS_CUDA_COLLECTIVE_FAMILIES_HPP_
