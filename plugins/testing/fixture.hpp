// The fixture plugin's parts shared by its variants: the plugin itself is
// compiled once (fixture_plugin.cc, a static library); each variant is a
// shared module of that library and fixture_entry.cc, which defines kVariant
// and the variant's BERTH_GetApi. This header is all the entry file sees.
#ifndef BERTH_PLUGINS_TESTING_FIXTURE_HPP_
#define BERTH_PLUGINS_TESTING_FIXTURE_HPP_

#include <cstdint>

#include "berth/c_api.h"

namespace berth::fixture {

// One value per ABI rule a variant breaks (plugins/testing/README.md); the
// numbers are the ones meson.build passes as BERTH_FIXTURE_VARIANT.
enum class Variant : int64_t {
  kGood = 0,
  kOlderMinor = 1,
  kNewerMinor = 2,
  kOtherMajor = 3,
  kNoEntry = 4,
  kNullTable = 5,
  kInitFails = 6,
  kDuplicateExtension = 7,
  kThrows = 8,
  kLeaks = 9,
  kMisbehaves = 10,
  kBadAttributes = 11,
  kClaimsOps = 12,
  kRejectsReserved = 13,
  kWrongOutputs = 14,
};

// Which variant this library is: defined by fixture_entry.cc.
extern const Variant kVariant;

// The SDK's table for the fixture plugin (MakeApi), as a well-behaved plugin
// exports it; variants copy and alter it.
const BERTH_Api* SdkApi();

// An entry point written without the SDK's guard, letting an exception
// escape: the host must contain it (the throws variant's Compile).
BERTH_Error* CompileThatThrows(BERTH_Client_Compile_Args* args);

// Clients, buffers and executables alive (the SDK's counts).
int64_t LiveObjectCount();

}  // namespace berth::fixture

#endif  // BERTH_PLUGINS_TESTING_FIXTURE_HPP_
