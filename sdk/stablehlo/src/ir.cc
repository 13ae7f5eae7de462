// The IR classes: navigation, Module ownership and the builder.
#include "berth/stablehlo/ir.hpp"

#include <algorithm>

#include "src/storage.hpp"

namespace berth::stablehlo {

std::string Location::ToString() const {
  std::string out(file);
  out += ':';
  out += std::to_string(line);
  out += ':';
  out += std::to_string(column);
  return out;
}

Block* Value::owner_block() const { return def_op_ ? def_op_->parent_block() : block_; }

size_t Value::num_uses() const {
  size_t n = 0;
  for (const OpOperand* u = first_use_; u; u = u->next_use) ++n;
  return n;
}

const Attribute* Operation::attr(std::string_view name) const {
  // Attribute lists are short; a linear scan beats a binary search here.
  for (const NamedAttribute& a : attrs_) {
    if (a.name == name) return a.value;
  }
  return nullptr;
}

Operation* Operation::parent_op() const {
  if (!parent_ || !parent_->parent_region()) return nullptr;
  return parent_->parent_region()->parent_op();
}

Function* Operation::parent_function() const {
  const Operation* op = this;
  while (op) {
    Block* block = op->parent_block();
    if (!block || !block->parent_region()) return nullptr;
    Region* region = block->parent_region();
    if (region->parent_function()) return region->parent_function();
    op = region->parent_op();
  }
  return nullptr;
}

Operation* Block::terminator() const {
  if (ops_.empty()) return nullptr;
  Operation* last = ops_.back();
  return IsTerminator(last->kind()) ? last : nullptr;
}

Operation* Block::parent_op() const { return parent_ ? parent_->parent_op() : nullptr; }

const DictionaryAttr* Function::argument_attrs(size_t i) const {
  return i < arg_attrs_.size() ? arg_attrs_[i] : nullptr;
}

const DictionaryAttr* Function::result_attrs(size_t i) const {
  return i < res_attrs_.size() ? res_attrs_[i] : nullptr;
}

// ---------------------------------------------------------------- Module

Module::Module() : storage_(std::make_unique<detail::ModuleStorage>()) {
  detail::ModuleStorage& s = *storage_;
  auto unit = std::make_unique<UnitAttr>();
  auto t = std::make_unique<BoolAttr>(true);
  auto f = std::make_unique<BoolAttr>(false);
  s.unit_attr = unit.get();
  s.true_attr = t.get();
  s.false_attr = f.get();
  s.attrs.push_back(std::move(unit));
  s.attrs.push_back(std::move(t));
  s.attrs.push_back(std::move(f));
}

Module::~Module() = default;
Module::Module(Module&&) noexcept = default;
Module& Module::operator=(Module&&) noexcept = default;

std::string_view Module::name() const { return storage_->name; }
std::string_view Module::filename() const { return storage_->filename; }
std::span<const NamedAttribute> Module::attributes() const { return storage_->module_attrs; }

const Attribute* Module::attr(std::string_view name) const {
  for (const NamedAttribute& a : storage_->module_attrs) {
    if (a.name == name) return a.value;
  }
  return nullptr;
}

std::span<Function* const> Module::functions() const { return storage_->functions; }

Function* Module::function(std::string_view name) const {
  auto it = storage_->function_map.find(name);
  return it == storage_->function_map.end() ? nullptr : it->second;
}

Function* Module::entry_function() const {
  if (Function* main = function("main")) return main;
  const auto& fns = storage_->functions;
  if (fns.size() == 1) return fns.front();
  Function* only_public = nullptr;
  for (Function* f : fns) {
    if (f->visibility() != Visibility::kPublic) continue;
    if (only_public) return nullptr;
    only_public = f;
  }
  return only_public;
}

std::span<Operation* const> Module::top_level_ops() const { return storage_->top_level_ops; }

namespace {

std::optional<int64_t> IntAttrOf(const Module& m, std::string_view name) {
  const Attribute* a = m.attr(name);
  if (!a) return std::nullopt;
  if (auto* i = a->dyn_cast<IntegerAttr>()) return i->value();
  return std::nullopt;
}

}  // namespace

std::optional<int64_t> Module::num_replicas() const { return IntAttrOf(*this, "mhlo.num_replicas"); }
std::optional<int64_t> Module::num_partitions() const {
  return IntAttrOf(*this, "mhlo.num_partitions");
}

// ------------------------------------------------------------- IrBuilder

namespace detail {

std::string_view SortAttributes(std::vector<NamedAttribute>& attrs) {
  std::stable_sort(attrs.begin(), attrs.end(),
                   [](const NamedAttribute& a, const NamedAttribute& b) { return a.name < b.name; });
  for (size_t i = 1; i < attrs.size(); ++i) {
    if (attrs[i].name == attrs[i - 1].name) return attrs[i].name;
  }
  return {};
}

IrBuilder::IrBuilder(ModuleStorage& storage) : s_(storage) {}

Region* IrBuilder::NewRegion() { return &s_.regions.emplace_back(); }

Block* IrBuilder::NewBlock(Region* region) {
  Block* block = &s_.blocks.emplace_back();
  block->parent_ = region;
  region->blocks_.push_back(block);
  return block;
}

Value* IrBuilder::AddArgument(Block* block, Type type, std::string_view name) {
  Value* v = &s_.values.emplace_back();
  v->type_ = type;
  v->block_ = block;
  v->index_ = static_cast<uint32_t>(block->args_.size());
  v->name_ = name;
  block->args_.push_back(v);
  return v;
}

Operation* IrBuilder::NewOp(OpKind kind, const Location& loc, std::span<Value* const> operands,
                            std::span<const Type> result_types, std::vector<NamedAttribute> attrs,
                            std::vector<Region*> regions, std::string_view result_name) {
  Operation* op = &s_.ops.emplace_back();
  op->kind_ = kind;
  op->loc_ = loc;
  op->operands_.assign(operands.begin(), operands.end());
  op->uses_.resize(operands.size());
  for (size_t i = 0; i < operands.size(); ++i) {
    OpOperand& use = op->uses_[i];
    use.value = operands[i];
    use.owner = op;
    use.index = static_cast<uint32_t>(i);
    use.next_use = operands[i]->first_use_;
    operands[i]->first_use_ = &use;
  }
  op->results_.reserve(result_types.size());
  for (size_t i = 0; i < result_types.size(); ++i) {
    Value* v = &s_.values.emplace_back();
    v->type_ = result_types[i];
    v->def_op_ = op;
    v->index_ = static_cast<uint32_t>(i);
    v->name_ = result_name;
    op->results_.push_back(v);
  }
  op->attrs_ = std::move(attrs);
  op->regions_ = std::move(regions);
  for (Region* r : op->regions_) r->parent_op_ = op;
  return op;
}

void IrBuilder::Append(Block* block, Operation* op) {
  op->parent_ = block;
  block->ops_.push_back(op);
}

void IrBuilder::SetName(Value* value, std::string_view name) { value->name_ = name; }

void IrBuilder::SetParent(Region* region, Operation* op) { region->parent_op_ = op; }

Function* IrBuilder::NewFunction(std::string_view name, Visibility visibility, Type type,
                                 std::vector<const DictionaryAttr*> arg_attrs,
                                 std::vector<const DictionaryAttr*> res_attrs,
                                 std::vector<NamedAttribute> attrs, Region* body,
                                 const Location& loc) {
  Function* f = &s_.function_storage.emplace_back();
  f->name_ = name;
  f->visibility_ = visibility;
  f->type_ = type;
  f->arg_attrs_ = std::move(arg_attrs);
  f->res_attrs_ = std::move(res_attrs);
  f->attrs_ = std::move(attrs);
  f->body_ = body;
  f->loc_ = loc;
  if (body) body->parent_function_ = f;
  s_.functions.push_back(f);
  s_.function_map.emplace(f->name_, f);
  return f;
}

}  // namespace detail
}  // namespace berth::stablehlo
