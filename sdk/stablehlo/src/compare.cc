// Structural equality of two modules (used for round-trip checks).
#include <unordered_map>

#include "berth/stablehlo/ir.hpp"

namespace berth::stablehlo {
namespace {

class Comparer {
 public:
  std::string difference;

  bool Attrs(std::span<const NamedAttribute> a, std::span<const NamedAttribute> b,
             const std::string& where) {
    if (a.size() != b.size()) {
      return Fail(where + ": " + std::to_string(a.size()) + " vs " + std::to_string(b.size()) +
                  " attributes");
    }
    for (size_t i = 0; i < a.size(); ++i) {
      if (a[i].name != b[i].name) {
        return Fail(where + ": attribute '" + std::string(a[i].name) + "' vs '" +
                    std::string(b[i].name) + "'");
      }
      if (!a[i].value->Equals(*b[i].value)) {
        return Fail(where + ": attribute '" + std::string(a[i].name) + "' differs: " +
                    a[i].value->ToString() + " vs " + b[i].value->ToString());
      }
    }
    return true;
  }

  bool Dict(const DictionaryAttr* a, const DictionaryAttr* b, const std::string& where) {
    std::span<const NamedAttribute> ea, eb;
    if (a) ea = a->entries();
    if (b) eb = b->entries();
    return Attrs(ea, eb, where);
  }

  bool Region(const stablehlo::Region& a, const stablehlo::Region& b, const std::string& where) {
    if (a.blocks().size() != b.blocks().size()) return Fail(where + ": block counts differ");
    for (size_t i = 0; i < a.blocks().size(); ++i) {
      const Block& x = *a.blocks()[i];
      const Block& y = *b.blocks()[i];
      if (x.num_arguments() != y.num_arguments()) {
        return Fail(where + ": block argument counts differ");
      }
      for (size_t j = 0; j < x.num_arguments(); ++j) {
        if (x.argument(j)->type() != y.argument(j)->type()) {
          return Fail(where + ": block argument #" + std::to_string(j) + " types differ");
        }
        map_[x.argument(j)] = y.argument(j);
      }
      if (x.operations().size() != y.operations().size()) {
        return Fail(where + ": " + std::to_string(x.operations().size()) + " vs " +
                    std::to_string(y.operations().size()) + " ops");
      }
      for (size_t j = 0; j < x.operations().size(); ++j) {
        if (!Op(*x.operations()[j], *y.operations()[j])) return false;
      }
    }
    return true;
  }

  bool Op(const Operation& a, const Operation& b) {
    std::string where = a.location().ToString() + " '" + std::string(a.name()) + "'";
    if (a.kind() != b.kind()) {
      return Fail(where + ": op kind differs ('" + std::string(b.name()) + "')");
    }
    if (a.num_operands() != b.num_operands()) return Fail(where + ": operand counts differ");
    for (size_t i = 0; i < a.num_operands(); ++i) {
      auto it = map_.find(a.operand(i));
      if (it == map_.end() || it->second != b.operand(i)) {
        return Fail(where + ": operand #" + std::to_string(i) + " is a different value");
      }
    }
    if (a.num_results() != b.num_results()) return Fail(where + ": result counts differ");
    for (size_t i = 0; i < a.num_results(); ++i) {
      if (a.result(i)->type() != b.result(i)->type()) {
        return Fail(where + ": result #" + std::to_string(i) + " type " +
                    a.result(i)->type().ToString() + " vs " + b.result(i)->type().ToString());
      }
      map_[a.result(i)] = b.result(i);
    }
    if (!Attrs(a.attributes(), b.attributes(), where)) return false;
    if (a.num_regions() != b.num_regions()) return Fail(where + ": region counts differ");
    for (size_t i = 0; i < a.num_regions(); ++i) {
      if (!Region(a.region(i), b.region(i), where + " region #" + std::to_string(i))) return false;
    }
    return true;
  }

  bool Module(const stablehlo::Module& a, const stablehlo::Module& b) {
    if (a.name() != b.name()) return Fail("module names differ");
    if (!Attrs(a.attributes(), b.attributes(), "module")) return false;
    if (a.top_level_ops().size() != b.top_level_ops().size()) {
      return Fail("module-level op counts differ");
    }
    for (size_t i = 0; i < a.top_level_ops().size(); ++i) {
      if (!Op(*a.top_level_ops()[i], *b.top_level_ops()[i])) return false;
    }
    if (a.functions().size() != b.functions().size()) return Fail("function counts differ");
    for (size_t i = 0; i < a.functions().size(); ++i) {
      const Function& f = *a.functions()[i];
      const Function& g = *b.functions()[i];
      std::string where = "function @" + std::string(f.name());
      if (f.name() != g.name()) return Fail(where + ": name differs (@" + std::string(g.name()) + ")");
      if (f.visibility() != g.visibility()) return Fail(where + ": visibility differs");
      if (f.type() != g.type()) return Fail(where + ": type differs");
      for (size_t j = 0; j < f.num_arguments(); ++j) {
        if (!Dict(f.argument_attrs(j), g.argument_attrs(j), where + " argument")) return false;
      }
      for (size_t j = 0; j < f.num_results(); ++j) {
        if (!Dict(f.result_attrs(j), g.result_attrs(j), where + " result")) return false;
      }
      if (!Attrs(f.attributes(), g.attributes(), where)) return false;
      if (f.is_declaration() != g.is_declaration()) return Fail(where + ": body presence differs");
      if (!f.is_declaration() && !Region(f.body(), g.body(), where)) return false;
    }
    return true;
  }

 private:
  bool Fail(std::string message) {
    difference = std::move(message);
    return false;
  }
  std::unordered_map<const Value*, const Value*> map_;
};

}  // namespace

bool StructurallyEqual(const Module& a, const Module& b, std::string* difference) {
  Comparer c;
  bool equal = c.Module(a, b);
  if (!equal && difference) *difference = std::move(c.difference);
  return equal;
}

}  // namespace berth::stablehlo
