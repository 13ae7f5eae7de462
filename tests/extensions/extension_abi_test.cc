// The ABI rules for extension structs and their entry points: a plugin whose
// extension struct is older (smaller) than the host reads is treated as not
// having it; entry points reject smaller args structs and NULL objects with
// INVALID_ARGUMENT, never a crash.
#include <dlfcn.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "berth/ext/abi_version.h"
#include "berth/ext/callback.h"
#include "berth/ext/ffi.h"
#include "berth/extension_chain.hpp"
#include "extension_test_util.hpp"

namespace berth {
namespace {

using ::testing::HasSubstr;

class ExtensionAbiTest : public testing::ExtensionTest {
 protected:
  void SetUp() override {
    ExtensionTest::SetUp();
    // newer_minor carries an `ffi` node that is only a BERTH_Extension_Base.
    dir_.Write("newer.json",
               testing::FixtureManifest("newer", "newer_minor"));
    (void)cpu();  // loads the cpu plugin, so the table below is the host's
    handle_ = ::dlopen(BERTH_CPU_PLUGIN, RTLD_NOW | RTLD_NOLOAD);
    ASSERT_NE(handle_, nullptr);
    auto* get_api = reinterpret_cast<BERTH_GetApi_Fn*>(::dlsym(handle_, BERTH_GET_API_SYMBOL));
    ASSERT_NE(get_api, nullptr);
    api_ = get_api();
  }
  void TearDown() override {
    if (handle_ != nullptr) ::dlclose(handle_);
  }

  template <typename T>
  const T* Extension(BERTH_Extension_Type type) {
    return reinterpret_cast<const T*>(FindExtension(api_->extension_start, type));
  }

  // The error's code and message; the error is destroyed.
  std::pair<BERTH_Error_Code, std::string> Take(BERTH_Error* error) {
    if (error == nullptr) return {BERTH_Error_Code_OK, ""};
    BERTH_Error_GetCode_Args code{BERTH_Error_GetCode_Args_STRUCT_SIZE, nullptr, error, {}};
    DestroyError(api_->BERTH_Error_GetCode(&code));
    BERTH_Error_Message_Args message{BERTH_Error_Message_Args_STRUCT_SIZE, nullptr, error, nullptr,
                                     0};
    api_->BERTH_Error_Message(&message);
    std::string text(message.message, message.message_size);
    DestroyError(error);
    return {code.code, text};
  }

  // `call` on args of `struct_size` with every object NULL: INVALID_ARGUMENT
  // naming `field`.
  template <typename Args>
  void ExpectNullObjectRejected(BERTH_Error* (*call)(Args*), size_t struct_size,
                                const std::string& field) {
    Args args{};
    args.struct_size = struct_size;
    auto [code, message] = Take(call(&args));
    EXPECT_EQ(code, BERTH_Error_Code_INVALID_ARGUMENT);
    EXPECT_THAT(message, HasSubstr(field));
  }

  void DestroyError(BERTH_Error* error) {
    BERTH_Error_Destroy_Args destroy{BERTH_Error_Destroy_Args_STRUCT_SIZE, nullptr, error};
    api_->BERTH_Error_Destroy(&destroy);
  }

  void* handle_ = nullptr;
  const BERTH_Api* api_ = nullptr;
};

TEST_F(ExtensionAbiTest, CpuPluginOffersEachExtensionWithItsVersion) {
  const auto* ffi = Extension<BERTH_Ffi_Extension>(BERTH_Extension_Type_Ffi);
  const auto* callback = Extension<BERTH_Callback_Extension>(BERTH_Extension_Type_Callback);
  const auto* abi = Extension<BERTH_AbiVersion_Extension>(BERTH_Extension_Type_AbiVersion);
  ASSERT_TRUE(ffi && callback && abi);
  EXPECT_EQ(ffi->base.struct_size, size_t{BERTH_Ffi_Extension_STRUCT_SIZE});
  EXPECT_EQ(ffi->version, BERTH_FFI_EXTENSION_VERSION);
  EXPECT_EQ(callback->version, BERTH_CALLBACK_EXTENSION_VERSION);
  EXPECT_EQ(abi->version, BERTH_ABI_VERSION_EXTENSION_VERSION);
}

TEST_F(ExtensionAbiTest, SmallerArgsStructsAreRejectedNamingStructAndSizes) {
  const auto* ffi = Extension<BERTH_Ffi_Extension>(BERTH_Extension_Type_Ffi);
  BERTH_Ffi_RegisterHandler_Args ffi_args{};
  ffi_args.struct_size = 16;
  auto [code, message] = Take(ffi->register_handler(&ffi_args));
  EXPECT_EQ(code, BERTH_Error_Code_INVALID_ARGUMENT);
  EXPECT_THAT(message, HasSubstr("BERTH_Ffi_RegisterHandler"));
  EXPECT_THAT(message, HasSubstr("16"));

  const auto* callback = Extension<BERTH_Callback_Extension>(BERTH_Extension_Type_Callback);
  BERTH_Callback_RegisterEventCallback_Args event_args{};
  event_args.struct_size = BERTH_Callback_RegisterEventCallback_Args_STRUCT_SIZE - 8;
  EXPECT_EQ(Take(callback->register_event_callback(&event_args)).first,
            BERTH_Error_Code_INVALID_ARGUMENT);

  const auto* abi = Extension<BERTH_AbiVersion_Extension>(BERTH_Extension_Type_AbiVersion);
  BERTH_AbiVersion_Runtime_Args runtime_args{};
  runtime_args.struct_size = 8;
  EXPECT_EQ(Take(abi->runtime(&runtime_args)).first, BERTH_Error_Code_INVALID_ARGUMENT);
  EXPECT_EQ(Take(abi->runtime(nullptr)).first, BERTH_Error_Code_INVALID_ARGUMENT);
}

TEST_F(ExtensionAbiTest, NullObjectsAreInvalidArgumentNamingTheField) {
  const auto* ffi = Extension<BERTH_Ffi_Extension>(BERTH_Extension_Type_Ffi);
  ExpectNullObjectRejected(ffi->register_handler, BERTH_Ffi_RegisterHandler_Args_STRUCT_SIZE,
                           "client");
  const auto* abi = Extension<BERTH_AbiVersion_Extension>(BERTH_Extension_Type_AbiVersion);
  ExpectNullObjectRejected(abi->serialize, BERTH_AbiVersion_Serialize_Args_STRUCT_SIZE,
                           "executable");
}

TEST_F(ExtensionAbiTest, ExtensionStructOlderThanTheHostReadsIsNotUsed) {
  testing::LogCapture log;
  Client newer = NewClient("newer");
  EXPECT_FALSE(newer.HasExtension(BERTH_Extension_Type_Ffi));
  Status status = newer.RegisterFfiHandler("t", [](FfiCall&) { return OkStatus(); });
  EXPECT_EQ(status.code(), StatusCode::kUnimplemented);
  EXPECT_TRUE(log.Contains("its 'ffi' extension struct has " +
                           std::to_string(sizeof(BERTH_Extension_Base)) + " bytes"));
}

}  // namespace
}  // namespace berth
