// The symbols a shared library exports, read from its ELF dynamic symbol
// table (what `nm -D --defined-only` lists), for the conformance check that
// a plugin exports BERTH_GetApi alone.
#ifndef BERTH_HOST_CONFORMANCE_ELF_SYMBOLS_HPP_
#define BERTH_HOST_CONFORMANCE_ELF_SYMBOLS_HPP_

#include <filesystem>
#include <string>
#include <vector>

#include "berth/status.hpp"

namespace berth::conformance {

// The names of the defined global, weak and unique symbols of default or
// protected visibility in `.dynsym`. UNIMPLEMENTED for an ELF class or byte
// order other than this host's (64-bit little-endian); INVALID_ARGUMENT,
// naming the file and what is wrong, for a file that is not a well-formed ELF
// shared object.
Result<std::vector<std::string>> ExportedSymbols(const std::filesystem::path& library);

}  // namespace berth::conformance

#endif  // BERTH_HOST_CONFORMANCE_ELF_SYMBOLS_HPP_
