// The version of the SDK's C++ plugin helpers (berth/plugin/*.hpp), apart
// from the C ABI's (BERTH_API_MAJOR/MINOR in berth/c_api.h). A plugin's source
// written against helpers of major M builds against every later M.x: a minor
// only adds, and a rename keeps the old name as a [[deprecated]] alias for the
// rest of the major. sdk/CHANGELOG.md has a line per version.
#ifndef BERTH_PLUGIN_VERSION_HPP_
#define BERTH_PLUGIN_VERSION_HPP_

#define BERTH_PLUGIN_SDK_VERSION_MAJOR 1
#define BERTH_PLUGIN_SDK_VERSION_MINOR 7

#endif  // BERTH_PLUGIN_VERSION_HPP_
