// The cuda client's options: types, ranges and combinations are checked
// before CUDA is asked anything, so these run without a GPU.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "cuda_client_options.hpp"

namespace berth::cuda {
namespace {

using ::testing::HasSubstr;

Status Refusal(const NamedValueMap& options) { return ParseCudaClientOptions(options).status(); }

TEST(CudaClientOptionsTest, DefaultsAreJaxs) {
  Result<CudaClientOptions> options = ParseCudaClientOptions({});
  ASSERT_TRUE(options.ok()) << options.status().ToString();
  EXPECT_TRUE(options->visible_devices.empty());
  EXPECT_TRUE(options->preallocate);
  EXPECT_DOUBLE_EQ(options->memory_fraction, 0.75);
  EXPECT_EQ(options->allocator, AllocatorKind::kDefault);
}

TEST(CudaClientOptionsTest, EveryOptionIsRead) {
  Result<CudaClientOptions> options =
      ParseCudaClientOptions({{"visible_devices", std::vector<int64_t>{2, 0}},
                              {"memory_fraction", 0.5},
                              {"allocator", std::string("cuda_async")}});
  ASSERT_TRUE(options.ok()) << options.status().ToString();
  EXPECT_EQ(options->visible_devices, (std::vector<int64_t>{2, 0}));
  EXPECT_DOUBLE_EQ(options->memory_fraction, 0.5);
  EXPECT_EQ(options->allocator, AllocatorKind::kCudaAsync);
  EXPECT_FALSE(options->preallocate);  // not the default allocator's pool
  EXPECT_TRUE(
      ParseCudaClientOptions({{"memory_fraction", int64_t{1}}}).ok());  // an integer is a float64
}

TEST(CudaClientOptionsTest, WrongTypesAndUnknownNamesAreRefusedByName) {
  EXPECT_THAT(Refusal({{"preallocate", std::string("yes")}}).message(), HasSubstr("preallocate"));
  EXPECT_THAT(Refusal({{"visible_devices", int64_t{1}}}).message(), HasSubstr("visible_devices"));
  Status unknown = Refusal({{"memory_fration", 0.5}});
  EXPECT_EQ(unknown.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(unknown.message(), HasSubstr("memory_fration"));
}

TEST(CudaClientOptionsTest, OutOfRangeValuesAreRefused) {
  for (double fraction : {0.0, -0.5, 1.0000001, double{NAN}, double{INFINITY}}) {
    Status status = Refusal({{"memory_fraction", fraction}});
    EXPECT_EQ(status.code(), StatusCode::kInvalidArgument) << fraction;
    EXPECT_THAT(status.message(), HasSubstr("'memory_fraction' must be in (0, 1]"));
  }
  EXPECT_THAT(Refusal({{"allocator", std::string("bfc")}}).message(),
              HasSubstr("'allocator' is 'bfc'; expected default, cuda_async or platform"));
  EXPECT_THAT(Refusal({{"visible_devices", std::vector<int64_t>{0, -1}}}).message(),
              HasSubstr("holds -1"));
  EXPECT_THAT(Refusal({{"visible_devices", std::vector<int64_t>{1, 1}}}).message(),
              HasSubstr("names GPU 1 twice"));
}

TEST(CudaClientOptionsTest, PreallocateIsForTheDefaultAllocatorOnly) {
  Status status = Refusal({{"allocator", std::string("platform")}, {"preallocate", true}});
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr("'preallocate' applies to the 'default' allocator only, not 'platform'"));
  EXPECT_TRUE(
      ParseCudaClientOptions({{"allocator", std::string("platform")}, {"preallocate", false}})
          .ok());
}

TEST(CudaClientOptionsTest, VisibleDevicesSelectAmongTheRuntimesGpus) {
  CudaClientOptions all;
  Result<std::vector<int>> every = SelectVisibleDevices(all, 3);
  ASSERT_TRUE(every.ok());
  EXPECT_EQ(*every, (std::vector<int>{0, 1, 2}));
  CudaClientOptions some;
  some.visible_devices = {2, 0};
  Result<std::vector<int>> chosen = SelectVisibleDevices(some, 3);
  ASSERT_TRUE(chosen.ok());
  EXPECT_EQ(*chosen, (std::vector<int>{2, 0}));
  Status beyond = SelectVisibleDevices(some, 2).status();
  EXPECT_EQ(beyond.code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(beyond.message(), HasSubstr("names GPU 2 but the CUDA runtime shows 2"));
}

}  // namespace
}  // namespace berth::cuda
