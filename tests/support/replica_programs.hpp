// Programs of REPLICAS replicas on ui32 replica ids, for multi-process tests
// (distributed_job_test, collectives_node): all-reduces over every replica.
#ifndef BERTH_TESTS_SUPPORT_REPLICA_PROGRAMS_HPP_
#define BERTH_TESTS_SUPPORT_REPLICA_PROGRAMS_HPP_

#include <string>

namespace berth::testing {

// `%RESULT = all_reduce(%OPERAND)` summing over replicas 0 .. REPLICAS-1.
inline std::string SumOverReplicas(const std::string& result, const std::string& operand,
                                   int replicas = 3) {
  std::string group;
  for (int r = 0; r < replicas; ++r) group += (r ? ", " : "") + std::to_string(r);
  return "    %" + result + " = \"stablehlo.all_reduce\"(%" + operand + R"() ({
      ^bb0(%a: tensor<ui32>, %b: tensor<ui32>):
        %s = stablehlo.add %a, %b : tensor<ui32>
        stablehlo.return %s : tensor<ui32>
    }) {replica_groups = dense<[[)" +
         group + "]]> : tensor<1x" + std::to_string(replicas) +
         "xi64>} : (tensor<ui32>) -> tensor<ui32>\n";
}

// A REPLICAS-replica program returning %RETURNED after `body`.
inline std::string ReplicaProgram(const std::string& body, const std::string& returned,
                                  int replicas = 3) {
  return "module @job attributes {mhlo.num_replicas = " + std::to_string(replicas) +
         " : i32} {\n"
         "  func.func @main() -> tensor<ui32> {\n"
         "    %id = stablehlo.replica_id : tensor<ui32>\n" +
         body + "    return %" + returned + " : tensor<ui32>\n  }\n}\n";
}

}  // namespace berth::testing

#endif  // BERTH_TESTS_SUPPORT_REPLICA_PROGRAMS_HPP_
