// BERTH_API marks what libberth exports. libberth is built with hidden
// visibility (host/meson.build) and a linker version script that keeps only
// the berth:: names of marked classes and functions; everything else in it,
// the host's internals, the distributed runtime, gRPC and protobuf code, is
// local to the library. tests/install/check_exports.py lists the library's
// dynamic symbols and fails on any that these marks do not cover.
#ifndef BERTH_API_HPP_
#define BERTH_API_HPP_

#if defined(__GNUC__) || defined(__clang__)
#define BERTH_API __attribute__((visibility("default")))
// For a nested type of a marked class that only the library sees.
#define BERTH_LOCAL __attribute__((visibility("hidden")))
#else
#define BERTH_API
#define BERTH_LOCAL
#endif

#endif  // BERTH_API_HPP_
