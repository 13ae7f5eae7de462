#include "isa/isa.hpp"

#include <cstdlib>
#include <vector>

// Each variant's entry (isa/variant.cc), the one global symbol its object
// keeps.
#define BERTH_CPU_ISA_VARIANT(name) extern "C" const berth::cpu::isa::Kernels* berth_cpu_isa_##name();
#include "cpu_isa_variants.h"
#undef BERTH_CPU_ISA_VARIANT

namespace berth::cpu::isa {
namespace {

std::vector<const Kernels*> MakeBuilt() {
  std::vector<const Kernels*> built;
#define BERTH_CPU_ISA_VARIANT(name) built.push_back(berth_cpu_isa_##name());
#include "cpu_isa_variants.h"
#undef BERTH_CPU_ISA_VARIANT
  return built;
}

std::string BuiltList() {
  std::string list;
  for (const Kernels* kernels : Built()) {
    list += (list.empty() ? "" : ", ") + std::string(ShortName(kernels->level));
  }
  return list;
}

Result<const Kernels*> Select() {
  const char* forced = secure_getenv("BERTH_CPU_ISA");
  if (forced != nullptr && *forced != '\0') {
    for (const Kernels* kernels : Built()) {
      if (ShortName(kernels->level) != forced) continue;
      if (!CpuRuns(kernels->level)) {
        return FailedPreconditionError("BERTH_CPU_ISA=" + std::string(forced) + ": this CPU cannot run " +
                                       kernels->name + " code; unset it or choose a lower level");
      }
      return kernels;
    }
    return FailedPreconditionError("BERTH_CPU_ISA=" + std::string(forced) +
                                   ": no such kernel variant in this build (built: " + BuiltList() +
                                   ")");
  }
  const Kernels* best = nullptr;
  for (const Kernels* kernels : Built()) {
    if (CpuRuns(kernels->level)) best = kernels;
  }
  if (best == nullptr) {
    return FailedPreconditionError("this CPU runs none of the cpu plugin's kernel variants (built: " +
                                   BuiltList() +
                                   "); the plugin needs at least x86-64-v2 (SSE4.2, SSSE3, POPCNT)");
  }
  return best;
}

}  // namespace

std::string_view ShortName(Level level) {
  switch (level) {
    case Level::kV2: return "v2";
    case Level::kV3: return "v3";
    case Level::kV4: return "v4";
    case Level::kNative: return "native";
  }
  return "?";
}

std::span<const Kernels* const> Built() {
  static const std::vector<const Kernels*> built = MakeBuilt();
  return built;
}

bool CpuRuns(Level level) {
  // libgcc's checks include the operating system's support (XSAVE state)
  // for the vector registers.
  __builtin_cpu_init();
  switch (level) {
    case Level::kV2: return __builtin_cpu_supports("x86-64-v2");
    case Level::kV3: return __builtin_cpu_supports("x86-64-v3");
    case Level::kV4: return __builtin_cpu_supports("x86-64-v4");
    case Level::kNative: return true;  // -Dnative=true: runs where it was built
  }
  return false;
}

Result<const Kernels*> Selected() {
  static const Result<const Kernels*> selected = Select();
  return selected;
}

const Kernels& Active() {
  static const Kernels* const active = [] {
    Result<const Kernels*> selected = Selected();
    return selected.ok() ? *selected : Built().front();
  }();
  return *active;
}

}  // namespace berth::cpu::isa
