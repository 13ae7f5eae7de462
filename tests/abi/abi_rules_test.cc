// The C ABI's rules on a plugin built with the SDK helpers (the `good`
// fixture), two ways: the tests below call its table directly (no host in
// between), and main() registers the conformance suite's checks on the same
// plugin through the host (host/conformance/gtest_registration.hpp): destroy
// of NULL, smaller and larger args structs, NULL objects, canonical error
// codes, object lifecycles, round trips and leaks are checked there, once.
#include <dlfcn.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "berth/c_api.h"
#include "berth/ext/multi_slice.h"
#include "berth/extension_chain.hpp"
#include "conformance/gtest_registration.hpp"
#include "manifest_builder.hpp"
#include "temp_dir.hpp"
#include "test_util.hpp"

namespace {

using ::testing::HasSubstr;

class AbiRulesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    handle_ = dlopen(berth::testing::FixturePath("good").c_str(), RTLD_NOW | RTLD_LOCAL);
    ASSERT_NE(handle_, nullptr) << dlerror();
    auto* get_api = reinterpret_cast<BERTH_GetApi_Fn*>(dlsym(handle_, "BERTH_GetApi"));
    ASSERT_NE(get_api, nullptr);
    api_ = get_api();
    ASSERT_NE(api_, nullptr);
    services_.struct_size = BERTH_HostServices_STRUCT_SIZE;
    BERTH_Plugin_Initialize_Args init{};
    init.struct_size = BERTH_Plugin_Initialize_Args_STRUCT_SIZE;
    init.host_api_major = BERTH_API_MAJOR;
    init.host_api_minor = BERTH_API_MINOR;
    init.host_services = &services_;
    ASSERT_EQ(api_->BERTH_Plugin_Initialize(&init), nullptr);
  }
  void TearDown() override {
    if (client_ != nullptr) {
      BERTH_Client_Destroy_Args args{};
      args.struct_size = BERTH_Client_Destroy_Args_STRUCT_SIZE;
      args.client = client_;
      EXPECT_EQ(api_->BERTH_Client_Destroy(&args), nullptr);
    }
    if (handle_ != nullptr) {
      auto* live = reinterpret_cast<int64_t (*)()>(dlsym(handle_, "BERTH_Fixture_LiveObjects"));
      ASSERT_NE(live, nullptr);
      EXPECT_EQ(live(), 0) << "the test leaked plugin objects";
      dlclose(handle_);
    }
  }

  // Code and message of an error, freeing it.
  std::pair<BERTH_Error_Code, std::string> Take(BERTH_Error* error) {
    EXPECT_NE(error, nullptr);
    if (error == nullptr) return {BERTH_Error_Code_OK, ""};
    BERTH_Error_GetCode_Args code{};
    code.struct_size = BERTH_Error_GetCode_Args_STRUCT_SIZE;
    code.error = error;
    EXPECT_EQ(api_->BERTH_Error_GetCode(&code), nullptr);
    BERTH_Error_Message_Args message{};
    message.struct_size = BERTH_Error_Message_Args_STRUCT_SIZE;
    message.error = error;
    api_->BERTH_Error_Message(&message);
    std::string text(message.message, message.message_size);
    BERTH_Error_Destroy_Args destroy{};
    destroy.struct_size = BERTH_Error_Destroy_Args_STRUCT_SIZE;
    destroy.error = error;
    api_->BERTH_Error_Destroy(&destroy);
    return {code.code, text};
  }

  // Client_Create's args, with the options `options` when given.
  static BERTH_Client_Create_Args CreateArgs(const BERTH_NamedValue* options = nullptr,
                                             size_t num_options = 0) {
    BERTH_Client_Create_Args args{};
    args.struct_size = BERTH_Client_Create_Args_STRUCT_SIZE;
    args.options = options;
    args.num_options = num_options;
    return args;
  }

  BERTH_Client* MakeClient() {
    BERTH_Client_Create_Args args = CreateArgs();
    EXPECT_EQ(api_->BERTH_Client_Create(&args), nullptr);
    client_ = args.client;
    return client_;
  }

  void* handle_ = nullptr;
  const BERTH_Api* api_ = nullptr;
  BERTH_HostServices services_{};
  BERTH_Client* client_ = nullptr;
};

TEST_F(AbiRulesTest, TableCarriesVersionAndCoversEveryFunction) {
  EXPECT_EQ(api_->api_version.major_version, BERTH_API_MAJOR);
  EXPECT_EQ(api_->api_version.minor_version, BERTH_API_MINOR);
  EXPECT_EQ(api_->struct_size, BERTH_Api_STRUCT_SIZE);
  EXPECT_NE(api_->BERTH_TopologyDescription_GetDeviceDescriptions, nullptr);
}

TEST_F(AbiRulesTest, NullArgsIsInvalidArgument) {
  auto [code, message] = Take(api_->BERTH_Client_Create(nullptr));
  EXPECT_EQ(code, BERTH_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(message, HasSubstr("args is NULL"));
}

TEST_F(AbiRulesTest, ClientOptionsAreTypedAndValidated) {
  const char* name = "device_count";
  BERTH_NamedValue option{};
  option.struct_size = BERTH_NamedValue_STRUCT_SIZE;
  option.name = name;
  option.name_size = std::strlen(name);
  option.type = BERTH_NamedValue_Type_Float64;
  option.float64_value = 2.0;
  option.value_size = 1;
  BERTH_Client_Create_Args args = CreateArgs(&option, 1);
  auto [code, message] = Take(api_->BERTH_Client_Create(&args));
  EXPECT_EQ(code, BERTH_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(message, HasSubstr("'device_count' must be of type int64, not float64"));

  option.type = BERTH_NamedValue_Type_Int64;
  option.int64_value = 4;
  ASSERT_EQ(api_->BERTH_Client_Create(&args), nullptr);
  client_ = args.client;
  BERTH_Client_Devices_Args devices{};
  devices.struct_size = BERTH_Client_Devices_Args_STRUCT_SIZE;
  devices.client = client_;
  ASSERT_EQ(api_->BERTH_Client_Devices(&devices), nullptr);
  EXPECT_EQ(devices.num_devices, 4u);
}

// The SDK's glue reads the multi_slice topology off the create args' chain
// (berth/ext/multi_slice.h) before the plugin sees it: a slice outside the
// count, a second topology or a short struct are refused by name; an unknown
// type on the chain is skipped.
TEST_F(AbiRulesTest, SliceTopologyOnTheCreateChainIsChecked) {
  auto topology = [](int32_t count, int32_t id) {
    BERTH_MultiSlice_Topology t{};
    t.base = {BERTH_MultiSlice_Topology_STRUCT_SIZE, BERTH_Extension_Type_MultiSlice, nullptr};
    t.num_slices = count;
    t.slice_id = id;
    return t;
  };
  BERTH_MultiSlice_Topology outside = topology(2, 2), first = topology(1, 0),
                            second = topology(1, 0), shorter = topology(1, 0);
  first.base.next = &second.base;
  shorter.base.struct_size = sizeof(BERTH_Extension_Base);
  const std::pair<BERTH_Extension_Base*, const char*> refused[] = {
      {&outside.base, "slice_id 2 is not in [0, num_slices 2)"},
      {&first.base, "two multi_slice topologies"},
      {&shorter.base, "BERTH_MultiSlice_Topology"},
  };
  for (const auto& [chain, expected] : refused) {
    BERTH_Client_Create_Args args = CreateArgs();
    args.extension_start = chain;
    auto [code, message] = Take(api_->BERTH_Client_Create(&args));
    EXPECT_EQ(code, BERTH_Error_Code_INVALID_ARGUMENT) << expected;
    EXPECT_THAT(message, HasSubstr(expected));
  }
  BERTH_Extension_Base unknown{sizeof(BERTH_Extension_Base), 1000, nullptr};
  BERTH_MultiSlice_Topology one = topology(1, 0);
  unknown.next = &one.base;
  BERTH_Client_Create_Args args = CreateArgs();
  args.extension_start = &unknown;
  ASSERT_EQ(api_->BERTH_Client_Create(&args), nullptr);
  client_ = args.client;  // destroyed by TearDown
}

TEST_F(AbiRulesTest, SmallerNamedValueInsideOptionsIsRejected) {
  BERTH_NamedValue option{};
  option.struct_size = 8;
  BERTH_Client_Create_Args args = CreateArgs(&option, 1);
  auto [code, message] = Take(api_->BERTH_Client_Create(&args));
  EXPECT_EQ(code, BERTH_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(message, HasSubstr("BERTH_NamedValue struct_size 8 is smaller"));
}

TEST_F(AbiRulesTest, BufferRoundTripAndEvents) {
  BERTH_Client* client = MakeClient();
  BERTH_Client_AddressableDevices_Args devices{};
  devices.struct_size = BERTH_Client_AddressableDevices_Args_STRUCT_SIZE;
  devices.client = client;
  ASSERT_EQ(api_->BERTH_Client_AddressableDevices(&devices), nullptr);
  ASSERT_GE(devices.num_addressable_devices, 1u);

  const int16_t data[6] = {1, -2, 3, -4, 5, -6};
  const int64_t dims[2] = {2, 3};
  BERTH_Client_BufferFromHostBuffer_Args from{};
  from.struct_size = BERTH_Client_BufferFromHostBuffer_Args_STRUCT_SIZE;
  from.client = client;
  from.data = data;
  from.type = BERTH_Buffer_Type_S16;
  from.dims = dims;
  from.num_dims = 2;
  from.device = devices.addressable_devices[0];
  ASSERT_EQ(api_->BERTH_Client_BufferFromHostBuffer(&from), nullptr);
  ASSERT_NE(from.buffer, nullptr);

  BERTH_Buffer_ToHostBuffer_Args size{};
  size.struct_size = BERTH_Buffer_ToHostBuffer_Args_STRUCT_SIZE;
  size.src = from.buffer;
  ASSERT_EQ(api_->BERTH_Buffer_ToHostBuffer(&size), nullptr);
  EXPECT_EQ(size.dst_size, sizeof(data));

  int16_t small[2];
  BERTH_Buffer_ToHostBuffer_Args too_small{};
  too_small.struct_size = BERTH_Buffer_ToHostBuffer_Args_STRUCT_SIZE;
  too_small.src = from.buffer;
  too_small.dst = small;
  too_small.dst_size = sizeof(small);
  auto [code, message] = Take(api_->BERTH_Buffer_ToHostBuffer(&too_small));
  EXPECT_EQ(code, BERTH_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(message, HasSubstr("destination holds 4 bytes; the buffer needs 12"));

  int16_t out[6] = {};
  BERTH_Buffer_ToHostBuffer_Args to{};
  to.struct_size = BERTH_Buffer_ToHostBuffer_Args_STRUCT_SIZE;
  to.src = from.buffer;
  to.dst = out;
  to.dst_size = sizeof(out);
  ASSERT_EQ(api_->BERTH_Buffer_ToHostBuffer(&to), nullptr);
  BERTH_Event_Await_Args await{};
  await.struct_size = BERTH_Event_Await_Args_STRUCT_SIZE;
  await.event = to.event;
  ASSERT_EQ(api_->BERTH_Event_Await(&await), nullptr);
  EXPECT_EQ(std::memcmp(out, data, sizeof(data)), 0);

  for (BERTH_Event* event : {to.event, from.done_with_host_buffer}) {
    BERTH_Event_Destroy_Args destroy{};
    destroy.struct_size = BERTH_Event_Destroy_Args_STRUCT_SIZE;
    destroy.event = event;
    EXPECT_EQ(api_->BERTH_Event_Destroy(&destroy), nullptr);
  }
  BERTH_Buffer_Destroy_Args destroy{};
  destroy.struct_size = BERTH_Buffer_Destroy_Args_STRUCT_SIZE;
  destroy.buffer = from.buffer;
  EXPECT_EQ(api_->BERTH_Buffer_Destroy(&destroy), nullptr);
}

TEST_F(AbiRulesTest, BadElementTypeIsRejected) {
  BERTH_Client* client = MakeClient();
  BERTH_Client_BufferFromHostBuffer_Args from{};
  from.struct_size = BERTH_Client_BufferFromHostBuffer_Args_STRUCT_SIZE;
  from.client = client;
  from.type = static_cast<BERTH_Buffer_Type>(777);
  auto [code, message] = Take(api_->BERTH_Client_BufferFromHostBuffer(&from));
  EXPECT_EQ(code, BERTH_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(message, HasSubstr("element type 777"));
}

TEST(ExtensionChainTest, DuplicateTypeIsAnError) {
  BERTH_Extension_Base second{sizeof(BERTH_Extension_Base), BERTH_Extension_Type_Ffi, nullptr};
  BERTH_Extension_Base first{sizeof(BERTH_Extension_Base), BERTH_Extension_Type_Ffi, &second};
  berth::Result<std::vector<int>> types = berth::ListExtensionChain(&first);
  ASSERT_FALSE(types.ok());
  EXPECT_THAT(types.status().message(), HasSubstr("ffi appears twice"));
}

TEST(ExtensionChainTest, UnknownTypesAreListedAndFound) {
  BERTH_Extension_Base known{sizeof(BERTH_Extension_Base), BERTH_Extension_Type_Callback, nullptr};
  BERTH_Extension_Base unknown{sizeof(BERTH_Extension_Base),
                               static_cast<BERTH_Extension_Type>(500), &known};
  berth::Result<std::vector<int>> types = berth::ListExtensionChain(&unknown);
  ASSERT_TRUE(types.ok());
  EXPECT_EQ(*types, (std::vector<int>{500, BERTH_Extension_Type_Callback}));
  EXPECT_EQ(berth::FindExtension(&unknown, BERTH_Extension_Type_Callback), &known);
  EXPECT_EQ(berth::FindExtension(&unknown, BERTH_Extension_Type_Ffi), nullptr);
}

TEST(ExtensionChainTest, LoopingChainIsAnError) {
  BERTH_Extension_Base a{sizeof(BERTH_Extension_Base), BERTH_Extension_Type_Ffi, nullptr};
  BERTH_Extension_Base b{sizeof(BERTH_Extension_Base), BERTH_Extension_Type_Callback, &a};
  a.next = &b;
  // a -> b -> a: the duplicate check catches the loop at once.
  EXPECT_FALSE(berth::ListExtensionChain(&a).ok());
}

}  // namespace

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  berth::testing::TempDir dir;
  const std::filesystem::path manifest = dir.Write(
      "good.json", berth::testing::FixtureManifest("good", "good"));
  berth::conformance::RegistrationOptions options;
  // The fixture compiles no StableHLO and says so naming the format: every
  // program check is unsupported, which is not a failure.
  // It also exports its test hook, BERTH_Fixture_LiveObjects, on purpose.
  options.expected = {{"library.exports_only_get_api", berth::conformance::Outcome::kFail},
                      {"compile.stablehlo", berth::conformance::Outcome::kUnsupported},
                      {"execute.reduce", berth::conformance::Outcome::kUnsupported},
                      {"execute.add.f32", berth::conformance::Outcome::kUnsupported}};
  berth::conformance::RegisterConformanceTests("GoodFixtureConformance", manifest, options);
  return RUN_ALL_TESTS();
}
