#include "conformance/elf_symbols.hpp"

#include <elf.h>

#include <cstring>
#include <fstream>
#include <iterator>

namespace berth::conformance {
namespace {

constexpr uintmax_t kMaxLibraryBytes = uintmax_t{1} << 31;  // 2 GiB

// A struct of type T at `offset` of `bytes`, or NULL when it does not fit.
template <typename T>
const T* At(const std::string& bytes, uint64_t offset) {
  if (offset > bytes.size() || bytes.size() - offset < sizeof(T)) return nullptr;
  return reinterpret_cast<const T*>(bytes.data() + offset);
}

}  // namespace

Result<std::vector<std::string>> ExportedSymbols(const std::filesystem::path& library) {
  const std::string where = library.string();
  std::error_code ec;
  const uintmax_t size = std::filesystem::file_size(library, ec);
  if (ec) return NotFoundError(where + ": " + ec.message());
  if (size > kMaxLibraryBytes) return InvalidArgumentError(where + ": larger than 2 GiB");
  std::ifstream in(library, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in && !in.eof()) return InternalError(where + ": cannot be read");

  const auto* header = At<Elf64_Ehdr>(bytes, 0);
  if (bytes.size() < EI_NIDENT || std::memcmp(bytes.data(), ELFMAG, SELFMAG) != 0) {
    return InvalidArgumentError(where + ": not an ELF file");
  }
  if (bytes[EI_CLASS] != ELFCLASS64 || bytes[EI_DATA] != ELFDATA2LSB) {
    return UnimplementedError(where + ": not a 64-bit little-endian ELF file; its exports are "
                                      "not read");
  }
  if (header == nullptr || header->e_shentsize != sizeof(Elf64_Shdr)) {
    return InvalidArgumentError(where + ": truncated or unusual ELF header");
  }
  auto section = [&](size_t index) {
    return At<Elf64_Shdr>(bytes, header->e_shoff + index * sizeof(Elf64_Shdr));
  };
  for (size_t i = 0; i < header->e_shnum; ++i) {
    const Elf64_Shdr* symbols = section(i);
    if (symbols == nullptr) return InvalidArgumentError(where + ": section headers out of range");
    if (symbols->sh_type != SHT_DYNSYM) continue;
    const Elf64_Shdr* strings = section(symbols->sh_link);
    if (strings == nullptr || symbols->sh_entsize != sizeof(Elf64_Sym) ||
        strings->sh_offset > bytes.size() || bytes.size() - strings->sh_offset < strings->sh_size ||
        symbols->sh_offset > bytes.size() || bytes.size() - symbols->sh_offset < symbols->sh_size) {
      return InvalidArgumentError(where + ": its dynamic symbol table is out of range");
    }
    std::vector<std::string> names;
    const size_t count = symbols->sh_size / sizeof(Elf64_Sym);
    for (size_t s = 0; s < count; ++s) {
      const auto* symbol = At<Elf64_Sym>(bytes, symbols->sh_offset + s * sizeof(Elf64_Sym));
      if (symbol == nullptr || symbol->st_shndx == SHN_UNDEF) continue;
      const unsigned bind = ELF64_ST_BIND(symbol->st_info);
      const unsigned type = ELF64_ST_TYPE(symbol->st_info);
      const unsigned visibility = ELF64_ST_VISIBILITY(symbol->st_other);
      if ((bind != STB_GLOBAL && bind != STB_WEAK && bind != STB_GNU_UNIQUE) ||
          (visibility != STV_DEFAULT && visibility != STV_PROTECTED) || type == STT_SECTION ||
          type == STT_FILE || symbol->st_name >= strings->sh_size) {
        continue;
      }
      const char* name = bytes.data() + strings->sh_offset + symbol->st_name;
      const size_t max = strings->sh_size - symbol->st_name;
      std::string text(name, strnlen(name, max));
      // Version definitions are absolute symbols named after the version.
      if (symbol->st_shndx == SHN_ABS && symbol->st_value == 0) continue;
      if (!text.empty()) names.push_back(std::move(text));
    }
    return names;
  }
  return InvalidArgumentError(where + ": has no dynamic symbol table (not a shared object?)");
}

}  // namespace berth::conformance
