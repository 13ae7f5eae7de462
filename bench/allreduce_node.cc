#include "allreduce_node.hpp"

#include <gloo/allreduce.h>
#include <gloo/rendezvous/context.h>
#include <gloo/transport/tcp/device.h>

#include "cpu/distributed/gloo_store.hpp"

namespace berth::bench {
namespace {

const std::string kProgram = R"(
module @allreduce_16mib attributes {mhlo.num_replicas = 2 : i32} {
  func.func @main(%x: tensor<4194304xf32>) -> tensor<4194304xf32> {
    %sum = "stablehlo.all_reduce"(%x) ({
      ^bb0(%a: tensor<f32>, %b: tensor<f32>):
        %s = stablehlo.add %a, %b : tensor<f32>
        stablehlo.return %s : tensor<f32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<4194304xf32>) -> tensor<4194304xf32>
    return %sum : tensor<4194304xf32>
  }
}
)";

}  // namespace

Result<std::unique_ptr<AllReduceNode>> AllReduceNode::Create(const JobConfig& config) {
  std::unique_ptr<AllReduceNode> node(new AllReduceNode());
  BERTH_ASSIGN_OR_RETURN(node->job_, Job::Join(config));
  // Both processes ask for namespaces in this order, so they share them.
  node->control_options_ = node->job_->ClientOptionsFor("bench-control");
  node->gloo_options_ = node->job_->ClientOptionsFor("bench-gloo");
  node->control_.emplace(node->control_options_.kv_store);
  node->gloo_kv_.emplace(node->gloo_options_.kv_store);
  ClientOptions cpu = node->job_->ClientOptionsFor("cpu");
  cpu.options["device_count"] = int64_t{1};
  node->fixture_ = std::make_unique<CpuClientFixture>("allreduce", cpu);
  if (!node->fixture_->error().empty()) return InternalError(node->fixture_->error());
  Client& client = node->fixture_->client();
  BERTH_ASSIGN_OR_RETURN(Executable executable, client.Compile(kProgram));
  node->executable_.emplace(std::move(executable));
  std::vector<float> zeros(kAllReduceElements, 0.0f);
  std::vector<int64_t> dims = {kAllReduceElements};
  BERTH_ASSIGN_OR_RETURN(Buffer input, client.BufferFromHost(zeros.data(), ElementType::kF32, dims,
                                                             client.addressable_devices().front()));
  node->input_.emplace(std::move(input));
  std::vector<int64_t> ids;
  for (const Device& device : client.devices()) ids.push_back(device.id());
  BERTH_ASSIGN_OR_RETURN(Communicator communicator, client.CreateCommunicator(ids));
  node->communicator_.emplace(std::move(communicator));

  try {
    gloo::transport::tcp::attr attr;
    attr.hostname = "127.0.0.1";
    auto device = gloo::transport::tcp::CreateDevice(attr);
    auto context = std::make_shared<gloo::rendezvous::Context>(config.node_id, config.num_nodes);
    context->setTimeout(std::chrono::seconds(60));
    cpu::GlooStore store(*node->gloo_kv_, "baseline/", std::chrono::seconds(60));
    context->connectFullMesh(store, device);
    node->gloo_context_ = std::move(context);
  } catch (const std::exception& e) {
    return UnavailableError(std::string("gloo baseline: ") + e.what());
  }
  node->gloo_buffer_.assign(kAllReduceElements, 0.0f);
  return node;
}

AllReduceNode::~AllReduceNode() {
  gloo_context_.reset();
  communicator_.reset();
  input_.reset();
  executable_.reset();
  fixture_.reset();
  if (job_) (void)job_->Shutdown(std::chrono::seconds(10));
}

Status AllReduceNode::RunBerth(int64_t iterations) {
  for (int64_t i = 0; i < iterations; ++i) {
    BERTH_ASSIGN_OR_RETURN(ExecuteResult result, executable_->Execute({{&*input_}}));
    BERTH_RETURN_IF_ERROR(result.completion.front().Await());
  }
  return OkStatus();
}

Status AllReduceNode::RunCommunicator(int64_t iterations) {
  const int64_t rank = communicator_->local_ranks().front();
  for (int64_t i = 0; i < iterations; ++i) {
    BERTH_ASSIGN_OR_RETURN(CollectiveOutput out, communicator_->AllReduce(rank, *input_));
    BERTH_RETURN_IF_ERROR(out.done.Await());
  }
  return OkStatus();
}

Status AllReduceNode::Run(const std::string& mode, int64_t iterations) {
  if (mode == "gloo") return RunGloo(iterations);
  if (mode == "communicator") return RunCommunicator(iterations);
  if (mode == "berth") return RunBerth(iterations);
  return InvalidArgumentError("unknown all-reduce mode '" + mode + "'");
}

Status AllReduceNode::RunGloo(int64_t iterations) {
  try {
    for (int64_t i = 0; i < iterations; ++i) {
      gloo::AllreduceOptions options(gloo_context_);
      options.setOutput(gloo_buffer_.data(), gloo_buffer_.size());
      options.setReduceFunction([](void* out, const void* a, const void* b, size_t n) {
        float* o = static_cast<float*>(out);
        const float* x = static_cast<const float*>(a);
        const float* y = static_cast<const float*>(b);
        for (size_t e = 0; e < n; ++e) o[e] = x[e] + y[e];
      });
      options.setTag(gloo_tag_++);
      gloo::allreduce(options);
    }
  } catch (const std::exception& e) {
    return UnavailableError(std::string("gloo baseline: ") + e.what());
  }
  return OkStatus();
}

}  // namespace berth::bench
