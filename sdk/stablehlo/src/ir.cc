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
                            std::span<const Type> result_types,
                            std::span<const NamedAttribute> attrs,
                            std::span<Region* const> regions, std::string_view result_name) {
  Operation* op = &s_.ops.emplace_back();
  op->kind_ = kind;
  op->loc_ = loc;
  op->operands_ = s_.arena.AllocArray<Value*>(operands.size());
  op->uses_ = s_.arena.AllocArray<OpOperand>(operands.size());
  for (size_t i = 0; i < operands.size(); ++i) {
    op->operands_[i] = operands[i];
    OpOperand& use = op->uses_[i];
    use.value = operands[i];
    use.owner = op;
    use.index = static_cast<uint32_t>(i);
    use.next_use = operands[i]->first_use_;
    operands[i]->first_use_ = &use;
  }
  op->results_ = s_.arena.AllocArray<Value*>(result_types.size());
  for (size_t i = 0; i < result_types.size(); ++i) {
    Value* v = &s_.values.emplace_back();
    v->type_ = result_types[i];
    v->def_op_ = op;
    v->index_ = static_cast<uint32_t>(i);
    v->name_ = result_name;
    op->results_[i] = v;
  }
  op->attrs_ = s_.arena.AllocArray<NamedAttribute>(attrs.size());
  std::copy(attrs.begin(), attrs.end(), op->attrs_.begin());
  op->regions_ = s_.arena.AllocArray<Region*>(regions.size());
  std::copy(regions.begin(), regions.end(), op->regions_.begin());
  for (Region* r : op->regions_) r->parent_op_ = op;
  return op;
}

namespace {

uint64_t Mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  return h;
}

// The attribute of kind A in `bucket` that is `same`, else a new one from
// `make`, kept in the bucket.
template <typename A, typename Same, typename MakeFn>
const A* Interned(std::vector<const Attribute*>& bucket, Same same, MakeFn make) {
  for (const Attribute* a : bucket) {
    const A* found = a->dyn_cast<A>();
    if (found && same(*found)) return found;
  }
  const A* made = make();
  bucket.push_back(made);
  return made;
}

}  // namespace

const IntegerAttr* IrBuilder::Int(int64_t value, ElementType type) {
  uint64_t key = Mix(Mix(1, static_cast<uint64_t>(value)), static_cast<uint64_t>(type));
  return Interned<IntegerAttr>(
      s_.interned_attrs[key],
      [&](const IntegerAttr& i) { return i.value() == value && i.type() == type; },
      [&] { return Make<IntegerAttr>(value, type); });
}

const EnumAttr* IrBuilder::Enum(EnumKind kind, uint8_t value) {
  uint64_t key = Mix(Mix(2, static_cast<uint64_t>(kind)), value);
  return Interned<EnumAttr>(
      s_.interned_attrs[key],
      [&](const EnumAttr& e) { return e.enum_kind() == kind && e.value() == value; },
      [&] { return Make<EnumAttr>(kind, value); });
}

const DenseArrayAttr* IrBuilder::I64Array(std::span<const int64_t> values) {
  uint64_t key = Mix(3, values.size());
  for (int64_t v : values) key = Mix(key, static_cast<uint64_t>(v));
  return Interned<DenseArrayAttr>(
      s_.interned_attrs[key],
      [&](const DenseArrayAttr& d) {
        return d.element_type() == ElementType::kSI64 && std::ranges::equal(d.ints(), values);
      },
      [&] {
        return Make<DenseArrayAttr>(ElementType::kSI64,
                                    std::vector<int64_t>(values.begin(), values.end()),
                                    std::vector<double>{});
      });
}

const StringAttr* IrBuilder::Str(std::string_view value) {
  uint64_t key = Mix(4, std::hash<std::string_view>()(value));
  return Interned<StringAttr>(
      s_.interned_attrs[key], [&](const StringAttr& str) { return str.value() == value; },
      [&] { return Make<StringAttr>(std::string(value)); });
}

void* Arena::Allocate(size_t bytes, size_t align) {
  size_t pad = (align - reinterpret_cast<uintptr_t>(next_) % align) % align;
  if (!next_ || pad + bytes > left_) {
    size_t size = std::max<size_t>(bytes + align, 64 * 1024);
    blocks_.push_back(std::make_unique<char[]>(size));
    next_ = blocks_.back().get();
    left_ = size;
    pad = (align - reinterpret_cast<uintptr_t>(next_) % align) % align;
  }
  char* p = next_ + pad;
  next_ = p + bytes;
  left_ -= pad + bytes;
  return p;
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
