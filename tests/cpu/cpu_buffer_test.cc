// The CPU plugin's devices, memories and buffers, through the host.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <numeric>
#include <random>
#include <thread>

#include "berth/berth.hpp"
#include "test_util.hpp"

namespace berth {
namespace {

using ::testing::HasSubstr;

class CpuBufferTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_.Write("cpu.json", testing::PluginManifest("cpu", BERTH_CPU_PLUGIN, {{"priority", 100}}));
    testing::ScopedEnv path("BERTH_PLUGIN_PATH", dir_.path().string());
    Result<Host> host = Host::Create();
    ASSERT_TRUE(host.ok());
    host_.emplace(std::move(host).value());
  }

  Client MakeClient(int64_t devices = 2) {
    Result<Client> client = host_->CreateClient("cpu", {{{"device_count", devices}}});
    EXPECT_TRUE(client.ok()) << client.status().ToString();
    return std::move(client).value();
  }

  testing::TempDir dir_;
  std::optional<Host> host_;
};

TEST_F(CpuBufferTest, DeviceCountOptionMakesThatManyDevices) {
  Client client = MakeClient(4);
  ASSERT_EQ(client.devices().size(), 4u);
  EXPECT_EQ(client.addressable_devices().size(), 4u);
  EXPECT_EQ(client.platform_name(), "cpu");
  for (int64_t i = 0; i < 4; ++i) {
    const Device& device = client.devices()[i];
    EXPECT_EQ(device.id(), i);
    EXPECT_EQ(device.kind(), "cpu");
    EXPECT_EQ(device.process_index(), 0);
    EXPECT_EQ(device.local_hardware_id(), i);
    ASSERT_EQ(device.memories().size(), 1u);
    EXPECT_EQ(device.memories()[0].kind(), "unpinned_host");
  }
  EXPECT_EQ(client.memories().size(), 4u);
}

TEST_F(CpuBufferTest, InvalidDeviceCountIsRejected) {
  Result<Client> client = host_->CreateClient("cpu", {{{"device_count", int64_t{0}}}});
  ASSERT_FALSE(client.ok());
  EXPECT_EQ(client.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(client.status().message(), HasSubstr("'device_count' must be between 1 and"));
}

TEST_F(CpuBufferTest, MultiNodeWithoutKeyValueStoreIsRejected) {
  Result<Client> client =
      host_->CreateClient("cpu", {{{"num_nodes", int64_t{2}}, {"node_id", int64_t{0}}}});
  ASSERT_FALSE(client.ok());
  EXPECT_THAT(client.status().message(), HasSubstr("key-value store"));
}

TEST_F(CpuBufferTest, EveryElementTypeRoundTrips) {
  Client client = MakeClient();
  std::mt19937 random(7);
  const int64_t dims[2] = {3, 5};
  for (const ElementTypeInfo& info : kElementTypeInfos) {
    if (info.byte_size == 0) continue;  // invalid, token
    SCOPED_TRACE(std::string(info.name));
    std::vector<std::byte> data(15 * info.byte_size);
    for (std::byte& b : data) b = static_cast<std::byte>(random());
    if (info.type == ElementType::kPred) {  // predicates are stored as 0 or 1
      for (std::byte& b : data) b = static_cast<std::byte>(static_cast<int>(b) & 1);
    }
    // Sub-byte integers are stored sign- or zero-extended from their low bits.
    if (info.type == ElementType::kS4 || info.type == ElementType::kS2) {
      const int shift = info.type == ElementType::kS4 ? 4 : 6;
      for (std::byte& b : data) {
        b = static_cast<std::byte>(static_cast<int8_t>(static_cast<uint8_t>(b) << shift) >> shift);
      }
    }
    if (info.type == ElementType::kU4 || info.type == ElementType::kU2) {
      const int mask = info.type == ElementType::kU4 ? 0xF : 0x3;
      for (std::byte& b : data) b = static_cast<std::byte>(static_cast<int>(b) & mask);
    }
    Result<Buffer> buffer =
        client.BufferFromHost(data.data(), info.type, dims, client.addressable_devices()[1]);
    ASSERT_TRUE(buffer.ok()) << buffer.status().ToString();
    EXPECT_EQ(buffer->element_type(), info.type);
    EXPECT_EQ(buffer->dims(), (std::vector<int64_t>{3, 5}));
    Result<size_t> size = buffer->on_device_size();
    ASSERT_TRUE(size.ok());
    EXPECT_EQ(*size, data.size());
    Result<Device> device = buffer->device();
    ASSERT_TRUE(device.ok());
    EXPECT_EQ(device->id(), 1);
    Result<std::vector<std::byte>> back = buffer->ToHostBytes();
    ASSERT_TRUE(back.ok()) << back.status().ToString();
    EXPECT_EQ(*back, data);
  }
}

TEST_F(CpuBufferTest, SubByteIntegersKeepTheirLowBitsExtended) {
  Client client = MakeClient();
  const std::byte data[4] = {std::byte{0x0F}, std::byte{0xF7}, std::byte{0x38}, std::byte{0x02}};
  const int64_t dims[1] = {4};
  auto stored = [&](ElementType type) {
    Result<Buffer> buffer =
        client.BufferFromHost(data, type, dims, client.addressable_devices()[0]);
    EXPECT_TRUE(buffer.ok()) << buffer.status().ToString();
    Result<std::vector<std::byte>> back = buffer.ok() ? buffer->ToHostBytes() : buffer.status();
    return back.ok() ? *back : std::vector<std::byte>{};
  };
  // i4: 0xF is -1, 0x7 is 7, 0x8 is -8; ui4: the low four bits; i2: 0b11 is -1.
  EXPECT_EQ(stored(ElementType::kS4), (std::vector<std::byte>{std::byte{0xFF}, std::byte{0x07},
                                                              std::byte{0xF8}, std::byte{0x02}}));
  EXPECT_EQ(stored(ElementType::kU4), (std::vector<std::byte>{std::byte{0x0F}, std::byte{0x07},
                                                              std::byte{0x08}, std::byte{0x02}}));
  EXPECT_EQ(stored(ElementType::kS2), (std::vector<std::byte>{std::byte{0xFF}, std::byte{0xFF},
                                                              std::byte{0x00}, std::byte{0xFE}}));
}

TEST_F(CpuBufferTest, NonZeroPredicateBytesAreStoredAsOne) {
  Client client = MakeClient();
  const std::byte data[4] = {std::byte{0}, std::byte{1}, std::byte{2}, std::byte{0xFF}};
  const int64_t dims[1] = {4};
  Result<Buffer> buffer =
      client.BufferFromHost(data, ElementType::kPred, dims, client.addressable_devices()[0]);
  ASSERT_TRUE(buffer.ok()) << buffer.status().ToString();
  Result<std::vector<std::byte>> back = buffer->ToHostBytes();
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(*back, (std::vector<std::byte>{std::byte{0}, std::byte{1}, std::byte{1}, std::byte{1}}));
}

TEST_F(CpuBufferTest, StridedHostDataIsStoredDense) {
  Client client = MakeClient();
  // A 3x2 column-major view of {1..6}: element (i, j) at i*4 + j*12 bytes.
  const int32_t column_major[6] = {1, 3, 5, 2, 4, 6};
  const int64_t dims[2] = {3, 2};
  HostBufferOptions options;
  options.byte_strides = {4, 12};
  Result<Buffer> buffer = client.BufferFromHost(column_major, ElementType::kS32, dims,
                                                client.devices()[0], options);
  ASSERT_TRUE(buffer.ok()) << buffer.status().ToString();
  int32_t out[6] = {};
  ASSERT_TRUE(buffer->ToHost(out, sizeof(out)).ok());
  EXPECT_THAT(out, ::testing::ElementsAre(1, 2, 3, 4, 5, 6));
}

TEST_F(CpuBufferTest, ZeroSizedBufferWorks) {
  Client client = MakeClient();
  const int64_t dims[2] = {0, 7};
  Result<Buffer> buffer = client.BufferFromHost(nullptr, ElementType::kF32, dims, client.devices()[0]);
  ASSERT_TRUE(buffer.ok()) << buffer.status().ToString();
  Result<std::vector<std::byte>> bytes = buffer->ToHostBytes();
  ASSERT_TRUE(bytes.ok());
  EXPECT_TRUE(bytes->empty());
}

TEST_F(CpuBufferTest, NegativeDimIsRejected) {
  Client client = MakeClient();
  float value = 0;
  const int64_t dims[1] = {-3};
  Result<Buffer> buffer = client.BufferFromHost(&value, ElementType::kF32, dims, client.devices()[0]);
  ASSERT_FALSE(buffer.ok());
  EXPECT_EQ(buffer.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(buffer.status().message(), HasSubstr("dimension 0 is negative"));
}

TEST_F(CpuBufferTest, DeletedBufferRefusesReads) {
  Client client = MakeClient();
  int64_t value = 9;
  Result<Buffer> buffer = client.BufferFromHost(&value, ElementType::kS64, {}, client.devices()[0]);
  ASSERT_TRUE(buffer.ok());
  ASSERT_TRUE(buffer->Delete().ok());
  Result<bool> deleted = buffer->IsDeleted();
  ASSERT_TRUE(deleted.ok());
  EXPECT_TRUE(*deleted);
  int64_t out = 0;
  Status status = buffer->ToHost(&out, sizeof(out));
  EXPECT_EQ(status.code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("deleted"));
}

TEST_F(CpuBufferTest, CopyToDeviceMakesAnIndependentCopy) {
  Client client = MakeClient(3);
  const float data[4] = {1, 2, 3, 4};
  const int64_t dims[1] = {4};
  Result<Buffer> source = client.BufferFromHost(data, ElementType::kF32, dims, client.devices()[0]);
  ASSERT_TRUE(source.ok());
  Result<Buffer> copy = source->CopyToDevice(client.devices()[2]);
  ASSERT_TRUE(copy.ok()) << copy.status().ToString();
  ASSERT_TRUE(source->Delete().ok());
  Result<Device> device = copy->device();
  ASSERT_TRUE(device.ok());
  EXPECT_EQ(device->id(), 2);
  float out[4] = {};
  ASSERT_TRUE(copy->ToHost(out, sizeof(out)).ok());
  EXPECT_THAT(out, ::testing::ElementsAre(1, 2, 3, 4));
}

TEST_F(CpuBufferTest, CompileOfAnotherFormatIsRejected) {
  Client client = MakeClient();
  CompileOptions options;
  options.format = "berth-bytecode";
  Result<Executable> executable = client.Compile("", options);
  ASSERT_FALSE(executable.ok());
  EXPECT_EQ(executable.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(executable.status().message(), HasSubstr("'stablehlo', 'stablehlo-partitioned' or 'cpu-plan', not 'berth-bytecode'"));
}

TEST_F(CpuBufferTest, ManyThreadsShareOneClient) {
  Client client = MakeClient(4);
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        std::vector<int32_t> data(64);
        std::iota(data.begin(), data.end(), t * 1000 + i);
        const int64_t dims[1] = {64};
        const Device& device = client.devices()[(t + i) % 4];
        Result<Buffer> buffer = client.BufferFromHost(data.data(), ElementType::kS32, dims, device);
        if (!buffer.ok()) {
          ++failures;
          continue;
        }
        std::vector<int32_t> out(64);
        if (!buffer->ToHost(out.data(), out.size() * 4).ok() || out != data) ++failures;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
}

}  // namespace
}  // namespace berth
