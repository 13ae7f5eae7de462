// One node of a job running a sharded module on berth::ShardedArray
// (distributed_job_test, ShardedArraysHoldOnlyTheNodesShards): it joins the
// job from the environment (berth launch), splits the global arguments over
// every device of the job, runs the program, and prints one JSON line: how
// many shards of each argument and output it holds, whether each output
// shard it holds is the reference's block (a scalar loop), what gathering a
// split output here answers, the replicated output gathered, and the job's
// slices as its client sees them (Client::slice_layout).
#include <cstdio>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "berth/berth.hpp"
#include "berth/job.hpp"
#include "job_node.hpp"

namespace {

constexpr char kProgram[] = R"(
module @mlp attributes {mhlo.num_partitions = 4 : i32} {
  func.func @main(%x: tensor<8x6xi32> {mhlo.sharding = "{devices=[4,1]<=[4]}"},
                  %w: tensor<6x4xi32> {mhlo.sharding = "{replicated}"})
      -> (tensor<8x4xi32> {mhlo.sharding = "{devices=[4,1]<=[4]}"}, tensor<4xi32>) {
    %h = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<8x6xi32>, tensor<6x4xi32>) -> tensor<8x4xi32>
    %z = stablehlo.constant dense<0> : tensor<i32>
    %s = stablehlo.reduce(%h init: %z) applies stablehlo.add across dimensions = [0] : (tensor<8x4xi32>, tensor<i32>) -> tensor<4xi32>
    return %h, %s : tensor<8x4xi32>, tensor<4xi32>
  }
})";

int Fail(const std::string& what, const berth::Status& status) {
  std::cerr << "sharded_array_node: " << what << ": " << status.ToString() << "\n";
  return 1;
}

}  // namespace

int main() {
  berth::Result<berth::testing::JobNode> node = berth::testing::JoinJobNode(BERTH_CPU_MANIFEST);
  if (!node.ok()) return Fail("join", node.status());
  berth::Client* client = &*node->client;
  berth::Result<berth::Executable> exe = client->Compile(kProgram);
  if (!exe.ok()) return Fail("compile", exe.status());

  std::vector<int32_t> x(48), w(24), h(32, 0), s(4, 0);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<int32_t>(i * 7 % 11) - 5;
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<int32_t>(i * 5 % 9) - 4;
  for (int r = 0; r < 8; ++r) {
    for (int c = 0; c < 4; ++c) {
      for (int k = 0; k < 6; ++k) h[r * 4 + c] += x[r * 6 + k] * w[k * 4 + c];
      s[c] += h[r * 4 + c];
    }
  }
  auto split = [&](const std::vector<int32_t>& values, std::vector<int64_t> dims, size_t i) {
    return berth::ShardedArray::FromHost(*client, values.data(), values.size() * 4, berth::ElementType::kS32,
                                         std::move(dims), exe->parameter_shardings()[i].sharding, client->devices());
  };
  berth::Result<berth::ShardedArray> sx = split(x, {8, 6}, 0);
  berth::Result<berth::ShardedArray> sw = split(w, {6, 4}, 1);
  if (!sx.ok()) return Fail("split x", sx.status());
  if (!sw.ok()) return Fail("split w", sw.status());
  berth::Result<std::vector<berth::ShardedArray>> out = exe->ExecuteSharded({&*sx, &*sw});
  if (!out.ok()) return Fail("execute", out.status());

  bool shards_match = true;
  const berth::ShardedArray& rows = (*out)[0];
  for (size_t p = 0; p < rows.num_partitions(); ++p) {
    const berth::Buffer* shard = rows.shard(p);
    if (shard == nullptr) continue;
    berth::Result<berth::ShardedArray::Region> region = rows.RegionOf(p);
    std::vector<int32_t> got(shard->host_size() / 4);
    if (!region.ok() || !shard->ToHost(got.data(), got.size() * 4).ok()) return Fail("read shard", region.status());
    for (int64_t r = 0; r < region->sizes[0]; ++r) {
      for (int64_t c = 0; c < 4; ++c) {
        shards_match = shards_match && got[static_cast<size_t>(r * 4 + c)] ==
                                           h[static_cast<size_t>((region->offsets[0] + r) * 4 + c)];
      }
    }
  }
  berth::Result<berth::SliceLayout> layout = client->slice_layout();
  if (!layout.ok()) return Fail("slice layout", layout.status());
  std::vector<int32_t> gathered(32), sums(4);
  berth::Status gather = rows.ToHost(gathered.data(), gathered.size() * 4);
  berth::Status sum_status = (*out)[1].ToHost(sums.data(), sums.size() * 4);
  nlohmann::json report = {{"node", node->job->node_id()},
                           {"held",
                            {sx->num_addressable_shards(), sw->num_addressable_shards(),
                             rows.num_addressable_shards(), (*out)[1].num_addressable_shards()}},
                           {"shards_match", shards_match},
                           {"gather", std::string(berth::StatusCodeName(gather.code()))},
                           {"sums_ok", sum_status.ok() && sums == s},
                           {"slices", layout->num_slices},
                           {"device_slices", layout->device_slices}};
  std::cout << report.dump() << std::endl;
  return 0;
}
