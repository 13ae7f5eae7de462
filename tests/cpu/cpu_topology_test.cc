// The topology entries nodes exchange through the job's key-value store
// (`devices=K slice=S/N host=NAME`): read back exactly, and every malformed or
// disagreeing entry - a message from another process - refused with an error
// naming the node, never a crash.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>

#include "cpu/cpu_client.hpp"
#include "cpu/cpu_topology.hpp"

namespace berth::cpu {
namespace {

using ::testing::HasSubstr;

// A store in this process: what the other nodes published, by key.
class FakeStore {
 public:
  explicit FakeStore(std::map<std::string, std::string> entries) : entries_(std::move(entries)) {
    c_store_.struct_size = BERTH_KeyValueStore_STRUCT_SIZE;
    c_store_.user_data = this;
    c_store_.get = Get;
    c_store_.put = Put;
  }
  plugin::KeyValueStore store() const { return plugin::KeyValueStore(&c_store_); }

 private:
  static BERTH_Error_Code Get(BERTH_KeyValue_Get_Args* args) {
    auto* self = static_cast<FakeStore*>(args->user_data);
    auto it = self->entries_.find(std::string(args->key, args->key_size));
    if (it == self->entries_.end()) return BERTH_Error_Code_DEADLINE_EXCEEDED;
    args->value.data = static_cast<char*>(std::malloc(it->second.size() + 1));
    std::memcpy(args->value.data, it->second.data(), it->second.size());
    args->value.size = it->second.size();
    args->value.release = [](char* data) { std::free(data); };
    return BERTH_Error_Code_OK;
  }
  static BERTH_Error_Code Put(BERTH_KeyValue_Put_Args* args) {
    auto* self = static_cast<FakeStore*>(args->user_data);
    self->entries_[std::string(args->key, args->key_size)] =
        std::string(args->value, args->value_size);
    return BERTH_Error_Code_OK;
  }

  std::map<std::string, std::string> entries_;
  BERTH_KeyValueStore c_store_{};
};

// Node 0 of 2, two devices, in slice 0 of `slices`, meeting node 1's `entry`.
Result<CpuTopology> MeetNodeOne(const std::string& entry, int32_t slices = 2) {
  FakeStore store({{"topology/1", entry}});
  return ExchangeTopology(store.store(), 0, 2, 2, plugin::SliceTopology{slices, 0}, "10.0.0.1",
                          std::chrono::milliseconds(100));
}

TEST(CpuTopologyTest, EntriesReadBackDevicesSlicesAndAddresses) {
  Result<CpuTopology> topology = MeetNodeOne("devices=3 slice=1/2 host=10.0.0.2");
  ASSERT_TRUE(topology.ok()) << topology.status().ToString();
  EXPECT_EQ(topology->device_counts, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(topology->slices, (std::vector<int32_t>{0, 1}));
  EXPECT_EQ(topology->num_slices, 2);
  EXPECT_EQ(topology->addresses, (std::vector<std::string>{"10.0.0.1", "10.0.0.2"}));
  EXPECT_EQ(topology->NodeName(1), "node 1 (10.0.0.2)");
}

TEST(CpuTopologyTest, MalformedEntriesAreRefusedNamingTheNode) {
  for (const char* entry :
       {"", "devices=3 host=h", "devices=3 slice=2/2 host=h", "devices=3 slice=-1/2 host=h",
        "devices=3 slice=1 host=h", "devices=3 slice=1/ host=h", "devices=x slice=0/2 host=h",
        "slice=0/2 devices=3 host=h", "devices=0 slice=0/2 host=h", "devices=3 slice=0/0 host=h",
        "devices=3 host=h slice=1/2", "devices=3 slice=1/2x host=h",
        "devices=99999999999999999999 slice=1/2 host=h"}) {
    Result<CpuTopology> topology = MeetNodeOne(entry);
    EXPECT_EQ(topology.status().code(), StatusCode::kInvalidArgument) << "'" << entry << "'";
    EXPECT_THAT(topology.status().message(), HasSubstr("node 1 published an unreadable entry"))
        << entry;
  }
}

TEST(CpuTopologyTest, NodesCountingOtherSlicesOrEmptySlicesAreRefused) {
  Result<CpuTopology> other = MeetNodeOne("devices=3 slice=0/1 host=10.0.0.2");
  EXPECT_EQ(other.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(other.status().message(),
              HasSubstr("node 1 (10.0.0.2) is in a job of 1 slices, node 0 in one of 2"));
  Result<CpuTopology> empty = MeetNodeOne("devices=3 slice=0/2 host=10.0.0.2");
  EXPECT_EQ(empty.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(empty.status().message(), HasSubstr("slice 1 of 2 has no node"));
}

// Seeded random damage to a good entry: an error or a topology, never a crash.
TEST(CpuTopologyTest, DamagedEntriesNeverCrash) {
  const std::string good = "devices=3 slice=1/2 host=10.0.0.2";
  std::mt19937 random(41);
  int read = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    std::string entry = good;
    const int edits = 1 + static_cast<int>(random() % 4);
    for (int e = 0; e < edits; ++e) {
      const size_t at = random() % entry.size();
      switch (random() % 3) {
        case 0: entry[at] = static_cast<char>(random() % 256); break;
        case 1: entry.erase(at, 1 + random() % 3); break;
        default: entry.insert(at, 1, "0123456789/= -"[random() % 14]); break;
      }
      if (entry.empty()) entry = "x";
    }
    Result<CpuTopology> topology = MeetNodeOne(entry);
    if (!topology.ok()) {
      EXPECT_EQ(topology.status().code(), StatusCode::kInvalidArgument) << entry;
      continue;
    }
    ++read;
    EXPECT_GE(topology->device_counts[1], 1) << entry;
    EXPECT_EQ(topology->slices[1], 1) << entry;
  }
  EXPECT_GT(read, 0);  // some damage lands in the host name and is read
}

// A cpu executable records the slices of the job it was compiled in: loaded
// in a job of another layout, it is refused naming both; in the same layout
// it loads.
TEST(CpuTopologyTest, ExecutableOfOneSliceLayoutIsRefusedUnderAnother) {
  FakeStore store(
      std::map<std::string, std::string>{{"topology/1", "devices=1 slice=1/2 host=10.0.0.2"}});
  NamedValueMap two_nodes = {
      {"device_count", int64_t{1}}, {"node_id", int64_t{0}}, {"num_nodes", int64_t{2}}};
  Result<std::unique_ptr<CpuClient>> sliced =
      CpuClient::Create(two_nodes, store.store(), plugin::SliceTopology{2, 0});
  ASSERT_TRUE(sliced.ok()) << sliced.status().ToString();
  FakeStore one_slice_store(
      std::map<std::string, std::string>{{"topology/1", "devices=1 slice=0/1 host=10.0.0.2"}});
  Result<std::unique_ptr<CpuClient>> unsliced =
      CpuClient::Create(two_nodes, one_slice_store.store(), plugin::SliceTopology{1, 0});
  ASSERT_TRUE(unsliced.ok()) << unsliced.status().ToString();
  const std::string code =
      "func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {\n"
      "  %y = stablehlo.add %x, %x : tensor<3xf32>\n  return %y : tensor<3xf32>\n}\n";
  plugin::Program program{"stablehlo", code};
  Result<std::unique_ptr<plugin::LoadedExecutable>> compiled = (*sliced)->Compile(program, {});
  ASSERT_TRUE(compiled.ok()) << compiled.status().ToString();
  Result<plugin::SerializedExecutable> payload = (*compiled)->Serialize();
  ASSERT_TRUE(payload.ok()) << payload.status().ToString();
  Result<std::unique_ptr<plugin::LoadedExecutable>> elsewhere =
      (*unsliced)->DeserializeAndLoad(payload->payload, payload->version);
  EXPECT_EQ(elsewhere.status().code(), StatusCode::kFailedPrecondition)
      << elsewhere.status().ToString();
  EXPECT_THAT(
      elsewhere.status().message(),
      HasSubstr("compiled in a job of 2 slices [0,1] (each device's slice); this client's job has "
                "1 slice [0,0]"));
  EXPECT_TRUE((*sliced)->DeserializeAndLoad(payload->payload, payload->version).ok());
  // A cpu-plan given to Compile is checked the same way.
  plugin::Program plan{"cpu-plan", payload->payload};
  EXPECT_EQ((*unsliced)->Compile(plan, {}).status().code(), StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace berth::cpu
