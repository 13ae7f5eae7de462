// Printing modules, functions and ops (ops in the generic form).
#include "berth/stablehlo/printer.hpp"

#include <algorithm>
#include <unordered_map>

#include "src/printer_impl.hpp"

namespace berth::stablehlo {
namespace {

using detail::AppendAttrDict;
using detail::AppendSymbol;

class Printer final : public OpPrinter {
 public:
  std::string out;

  Printer() = default;
  explicit Printer(const PrintHooks* hooks) : hooks_(hooks) {}

  // The first error a hook returned.
  const Status& error() const { return error_; }

  // The op each line of `out` belongs to, from the marks set while printing.
  std::vector<const Operation*> LineOps() const {
    std::vector<const Operation*> lines;
    size_t mark = 0;
    const Operation* current = nullptr;
    for (size_t pos = 0; pos < out.size(); pos = out.find('\n', pos) + 1) {
      // The line belongs to the op last marked at or before its end.
      const size_t end = std::min(out.find('\n', pos), out.size());
      while (mark < marks_.size() && marks_[mark].first <= end) current = marks_[mark++].second;
      lines.push_back(current);
      if (end == out.size()) break;
    }
    return lines;
  }

  void PrintModule(const Module& module) {
    out += "module";
    if (!module.name().empty()) {
      out += ' ';
      AppendSymbol(out, module.name());
    }
    if (!module.attributes().empty()) {
      out += " attributes ";
      AppendAttrDict(out, module.attributes());
    }
    out += " {\n";
    for (Operation* op : module.top_level_ops()) {
      Indent(1);
      PrintTopLevelOp(*op);
      out += '\n';
    }
    for (Function* f : module.functions()) PrintFunction(*f);
    out += "}\n";
  }

  // sdy.mesh in its own syntax: `sdy.mesh @name = <...>`.
  void PrintTopLevelOp(const Operation& op) {
    auto* name = op.attr_as<StringAttr>("sym_name");
    auto* mesh = op.attr_as<OpaqueAttr>("mesh");
    std::string_view text = mesh ? mesh->text() : std::string_view();
    if (op.kind() == OpKind::kSdyMesh && name && text.starts_with("#sdy.mesh<")) {
      out += "sdy.mesh ";
      AppendSymbol(out, name->value());
      out += " = ";
      out += text.substr(9);
      return;
    }
    PrintOp(op, 1);
  }

  void PrintFunction(const Function& f, std::optional<std::string_view> name = std::nullopt,
                     std::optional<Visibility> visibility = std::nullopt) {
    Mark(nullptr);
    names_.clear();
    next_value_ = 0;
    next_arg_ = 0;
    Indent(1);
    out += "func.func ";
    Visibility shown = visibility.value_or(f.visibility());
    if (shown == Visibility::kPrivate) out += "private ";
    if (shown == Visibility::kNested) out += "nested ";
    AppendSymbol(out, name.value_or(f.name()));
    out += '(';
    std::span<const Type> args = f.argument_types();
    for (size_t i = 0; i < args.size(); ++i) {
      if (i) out += ", ";
      if (!f.is_declaration()) {
        const Value* v = f.entry_block().argument(i);
        out += NameArg(v);
        out += ": ";
      }
      out += TypeText(args[i]);
      if (const DictionaryAttr* d = f.argument_attrs(i)) {
        out += ' ';
        AppendAttrDict(out, d->entries());
      }
    }
    out += ')';
    std::span<const Type> results = f.result_types();
    if (!results.empty()) {
      out += " -> (";
      for (size_t i = 0; i < results.size(); ++i) {
        if (i) out += ", ";
        out += TypeText(results[i]);
        if (const DictionaryAttr* d = f.result_attrs(i)) {
          out += ' ';
          AppendAttrDict(out, d->entries());
        }
      }
      out += ')';
    }
    if (!f.attributes().empty()) {
      out += " attributes ";
      AppendAttrDict(out, f.attributes());
    }
    if (f.is_declaration()) {
      out += '\n';
      return;
    }
    out += " {\n";
    for (Operation* op : f.entry_block().operations()) {
      Indent(2);
      PrintOp(*op, 2);
      out += '\n';
    }
    Mark(nullptr);
    Indent(1);
    out += "}\n";
  }

  void PrintOp(const Operation& op, int depth) { PrintOp(op, depth, nullptr); }

  // With `rewrite`, the op's own operand and result names and types give way
  // to the rewrite's (see OpRewrite); its regions print as usual. The hooks'
  // `op` is asked first unless `hooked` (the hook itself printing the op).
  void PrintOp(const Operation& op, int depth, const OpRewrite* rewrite, bool hooked = false) {
    Mark(&op);
    if (!hooked && hooks_ != nullptr && hooks_->op) {
      // Hooks of ops inside the regions of an op a hook prints nest.
      const int outer_depth = hook_depth_;
      const bool outer_first = hook_first_line_;
      hook_depth_ = depth;
      hook_first_line_ = true;
      Result<bool> taken = hooks_->op(op, *this);
      hook_depth_ = outer_depth;
      hook_first_line_ = outer_first;
      if (!taken.ok() && error_.ok()) error_ = taken.status();
      if (!taken.ok() || *taken) return;
    }
    if (op.num_results() > 0) {
      std::string base = rewrite ? rewrite->result_name : NextValueName();
      out += base;
      if (op.num_results() > 1) {
        out += ':';
        out += std::to_string(op.num_results());
        for (size_t i = 0; i < op.num_results(); ++i) {
          names_[op.result(i)] = base + "#" + std::to_string(i);
        }
      } else {
        names_[op.result(0)] = base;
      }
      out += " = ";
    }
    out += '"';
    out += op.name();
    out += "\"(";
    for (size_t i = 0; i < op.num_operands(); ++i) {
      if (i) out += ", ";
      out += rewrite ? rewrite->operand_names.at(i) : NameOf(op.operand(i));
    }
    out += ')';
    if (op.num_regions() > 0) {
      out += " (";
      for (size_t r = 0; r < op.num_regions(); ++r) {
        if (r) out += ", ";
        PrintRegion(op.region(r), depth);
      }
      out += ')';
      Mark(&op);
    }
    if (!op.attributes().empty()) {
      out += ' ';
      AppendAttrDict(out, op.attributes());
    }
    auto type_of = [&](const std::vector<std::string>* replaced, size_t i, const Value* v) {
      return replaced && !replaced->empty() ? replaced->at(i) : TypeText(v->type());
    };
    out += " : (";
    for (size_t i = 0; i < op.num_operands(); ++i) {
      if (i) out += ", ";
      out += type_of(rewrite ? &rewrite->operand_types : nullptr, i, op.operand(i));
    }
    out += ") -> ";
    const std::vector<std::string>* result_types = rewrite ? &rewrite->result_types : nullptr;
    if (op.num_results() == 1 && !op.result(0)->type().IsFunction()) {
      out += type_of(result_types, 0, op.result(0));
    } else {
      out += '(';
      for (size_t i = 0; i < op.num_results(); ++i) {
        if (i) out += ", ";
        out += type_of(result_types, i, op.result(i));
      }
      out += ')';
    }
  }

  // A rewritten op's names: its outer values as given, its inner ones
  // prefixed.
  void StartRewrite(const OpRewrite& rewrite) {
    names_.insert(rewrite.outer_names.begin(), rewrite.outer_names.end());
    value_prefix_ = rewrite.inner_prefix;
    arg_prefix_ = rewrite.inner_prefix + "a";
  }

  void PrintRegion(const Region& region, int depth) {
    out += "{\n";
    for (Block* block : region.blocks()) {
      if (block->num_arguments() > 0) {
        Indent(depth);
        out += "^bb0(";
        for (size_t i = 0; i < block->num_arguments(); ++i) {
          if (i) out += ", ";
          const Value* v = block->argument(i);
          out += NameArg(v);
          out += ": ";
          out += TypeText(v->type());
        }
        out += "):\n";
      }
      for (Operation* op : block->operations()) {
        Indent(depth + 1);
        PrintOp(*op, depth + 1);
        out += '\n';
      }
    }
    Indent(depth);
    out += '}';
  }

  std::string NameOf(const Value* v) override {
    auto it = names_.find(v);
    if (it != names_.end()) return it->second;
    // Not printed yet (only when printing a single op): use the source name.
    return "%" + (v->name().empty() ? std::string("unknown") : std::string(v->name()));
  }

  // ------------------------------------------------ OpPrinter (for hooks)
  std::string NewName() override { return NextValueName(); }
  void Rename(const Value* value, std::string name) override { names_[value] = std::move(name); }
  void AddLine(std::string_view text) override {
    StartHookLine();
    out += text;
  }
  std::string PrintOpAs(const Operation& op, std::span<const std::string> operand_names,
                        std::span<const std::string> operand_types,
                        std::span<const std::string> result_types) override {
    StartHookLine();
    OpRewrite rewrite;
    rewrite.operand_names.assign(operand_names.begin(), operand_names.end());
    rewrite.operand_types.assign(operand_types.begin(), operand_types.end());
    rewrite.result_types.assign(result_types.begin(), result_types.end());
    rewrite.result_name = NextValueName();
    PrintOp(op, hook_depth_, &rewrite, /*hooked=*/true);
    return op.num_results() > 1 ? rewrite.result_name + "#0" : rewrite.result_name;
  }
  std::string TypeText(Type type) override {
    return hooks_ != nullptr && hooks_->type_text ? hooks_->type_text(type) : type.ToString();
  }

 private:
  // A hook's second and later lines start on a line of their own.
  void StartHookLine() {
    if (!hook_first_line_) {
      out += '\n';
      Indent(hook_depth_);
    }
    hook_first_line_ = false;
  }
  void Mark(const Operation* op) {
    if (hooks_ != nullptr && hooks_->line_ops != nullptr) marks_.emplace_back(out.size(), op);
  }

  const std::string& NameArg(const Value* v) {
    return names_[v] = "%" + arg_prefix_ + std::to_string(next_arg_++);
  }
  std::string NextValueName() { return "%" + value_prefix_ + std::to_string(next_value_++); }
  void Indent(int depth) { out.append(static_cast<size_t>(depth) * 2, ' '); }

  std::unordered_map<const Value*, std::string> names_;
  int next_value_ = 0;
  int next_arg_ = 0;
  std::string value_prefix_;
  std::string arg_prefix_ = "arg";
  const PrintHooks* hooks_ = nullptr;
  Status error_;
  int hook_depth_ = 0;
  bool hook_first_line_ = true;
  std::vector<std::pair<size_t, const Operation*>> marks_;  // (offset in out, op)
};

}  // namespace

std::string Print(const Module& module) {
  Printer p;
  p.PrintModule(module);
  return std::move(p.out);
}

Result<std::string> Print(const Module& module, const PrintHooks& hooks) {
  Printer p(&hooks);
  p.PrintModule(module);
  if (!p.error().ok()) return p.error();
  if (hooks.line_ops != nullptr) *hooks.line_ops = p.LineOps();
  return std::move(p.out);
}

std::string Print(const Operation& op) {
  Printer p;
  p.PrintOp(op, 0);
  return std::move(p.out);
}

std::string Print(const Operation& op, const OpRewrite& rewrite) {
  Printer p;
  p.StartRewrite(rewrite);
  p.PrintOp(op, rewrite.depth, &rewrite);
  return std::move(p.out);
}

std::string Print(const Function& function, std::optional<std::string_view> name,
                  std::optional<Visibility> visibility) {
  Printer printer;
  printer.PrintFunction(function, name, visibility);
  return std::move(printer.out);
}

std::string Print(Type type) { return type.ToString(); }

}  // namespace berth::stablehlo
