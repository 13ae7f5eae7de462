// Dense host arrays for the command line: parsed from MLIR literals
// (`dense<[1.0, 2.0]> : tensor<2xf32>`) and .npy files, printed back as MLIR
// literals and JSON.
#ifndef BERTH_HOST_CLI_HOST_ARRAY_HPP_
#define BERTH_HOST_CLI_HOST_ARRAY_HPP_

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "berth/element_type.hpp"
#include "berth/status.hpp"

namespace berth::cli {

struct HostArray {
  ElementType type = ElementType::kInvalid;
  std::vector<int64_t> dims;
  std::vector<std::byte> bytes;  // dense, row-major, little-endian
};

// `dense<...> : tensor<...>` as MLIR writes it (any form the StableHLO parser
// accepts, hex bit patterns and "0x..." blobs included). INVALID_ARGUMENT
// naming the problem.
Result<HostArray> ParseMlirLiteral(std::string_view text);

// The array as an MLIR literal that ParseMlirLiteral reads back exactly;
// non-finite floats are written as hex bit patterns.
std::string FormatMlirLiteral(const HostArray& array);

// The array as the StableHLO reference interpreter prints a result
// ("tensor<2x2xi8> {\n  [\n    [1, 2],\n    [3, 4]\n  ]\n}", floats as
// 1.000000e+00, complex numbers as [re, im]), which interpreter tests'
// CHECK lines match.
std::string FormatInterpreterResult(const HostArray& array);

// {"dtype": "f32", "shape": [2, 3], "data": [...]} with the data flat in
// row-major order; NaN and infinities as the strings "nan", "inf", "-inf";
// a complex number as [re, im]; the f8/f6/f4 formats as their values.
nlohmann::json ArrayToJson(const HostArray& array);

// NumPy .npy files (format 1.0/2.0/3.0, little-endian or single-byte dtypes,
// C order). Element types without a NumPy dtype (bf16, f8...) are refused.
Result<HostArray> ReadNpy(const std::filesystem::path& path);
Result<HostArray> ParseNpy(std::string_view bytes, std::string_view what);
Status WriteNpy(const std::filesystem::path& path, const HostArray& array);

}  // namespace berth::cli

#endif  // BERTH_HOST_CLI_HOST_ARRAY_HPP_
