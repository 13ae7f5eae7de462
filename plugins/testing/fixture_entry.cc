// A fixture variant's exports, compiled once per variant with
// BERTH_FIXTURE_VARIANT set (meson.build); the plugin behind them is the one
// fixture_plugin.cc, which reads kVariant.
#include "fixture.hpp"

#ifndef BERTH_FIXTURE_VARIANT
#error "define BERTH_FIXTURE_VARIANT"
#endif

namespace berth::fixture {
const Variant kVariant = static_cast<Variant>(BERTH_FIXTURE_VARIANT);
}  // namespace berth::fixture

// Control hook for tests: clients, buffers and executables alive.
extern "C" BERTH_PLUGIN_VISIBLE int64_t BERTH_Fixture_LiveObjects(void) {
  return berth::fixture::LiveObjectCount();
}

#if BERTH_FIXTURE_VARIANT == 1  // older_minor
// A table as an older plugin would ship it: it ends before the buffer
// functions after BERTH_Buffer_IsDeleted, so those are absent, and its chain
// lacks the live_objects extension of 1.1.
extern "C" BERTH_PLUGIN_VISIBLE const BERTH_Api* BERTH_GetApi(void) {
  static BERTH_Api table = [] {
    BERTH_Api api = *berth::fixture::SdkApi();
    api.struct_size = BERTH_STRUCT_SIZE(BERTH_Api, BERTH_Buffer_IsDeleted);
    api.api_version.minor_version = 0;
    api.extension_start = nullptr;
    return api;
  }();
  return &table;
}

#elif BERTH_FIXTURE_VARIANT == 2  // newer_minor
// A table from the future: a higher minor, fields the host does not know.
struct FutureApi {
  BERTH_Api api;
  void (*future_functions[6])(void);
};
extern "C" BERTH_PLUGIN_VISIBLE const BERTH_Api* BERTH_GetApi(void) {
  static FutureApi table = [] {
    FutureApi future{};
    future.api = *berth::fixture::SdkApi();
    future.api.struct_size = sizeof(FutureApi);
    future.api.api_version.minor_version = BERTH_API_MINOR + 7;
    return future;
  }();
  return &table.api;
}

#elif BERTH_FIXTURE_VARIANT == 3  // other_major
extern "C" BERTH_PLUGIN_VISIBLE const BERTH_Api* BERTH_GetApi(void) {
  static BERTH_Api table = [] {
    BERTH_Api api = *berth::fixture::SdkApi();
    api.api_version.major_version = BERTH_API_MAJOR + 1;
    return api;
  }();
  return &table;
}

#elif BERTH_FIXTURE_VARIANT == 4  // no_entry
// Exports something, but not BERTH_GetApi.
extern "C" BERTH_PLUGIN_VISIBLE int BERTH_NotTheEntryPoint(void) { return 0; }

#elif BERTH_FIXTURE_VARIANT == 5  // null_table
extern "C" BERTH_PLUGIN_VISIBLE const BERTH_Api* BERTH_GetApi(void) { return nullptr; }

#elif BERTH_FIXTURE_VARIANT == 8  // throws
extern "C" BERTH_PLUGIN_VISIBLE const BERTH_Api* BERTH_GetApi(void) {
  static BERTH_Api table = [] {
    BERTH_Api api = *berth::fixture::SdkApi();
    api.BERTH_Client_Compile = berth::fixture::CompileThatThrows;
    return api;
  }();
  return &table;
}

#else  // every other variant exports the SDK's table as it is
extern "C" BERTH_PLUGIN_VISIBLE const BERTH_Api* BERTH_GetApi(void) {
  return berth::fixture::SdkApi();
}
#endif
