// Internal: how a Module owns its types, attributes, values, ops, blocks,
// regions, functions and strings, and the builder that wires them together.
#ifndef BERTH_STABLEHLO_SRC_STORAGE_HPP_
#define BERTH_STABLEHLO_SRC_STORAGE_HPP_

#include <deque>
#include <memory>
#include <new>
#include <type_traits>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "berth/stablehlo/attributes.hpp"
#include "berth/stablehlo/ir.hpp"
#include "berth/stablehlo/types.hpp"

namespace berth::stablehlo::detail {

struct TypeStorage {
  TypeKind kind = TypeKind::kTensor;
  ElementType element = ElementType::kF32;
  std::vector<int64_t> shape;
  std::vector<int64_t> bounds;
  // Tuple elements, or function inputs followed by results.
  std::vector<Type> types;
  size_t num_inputs = 0;
  // Opaque types and opaque element types.
  std::string opaque;
};

// Interns types so that equal types share one TypeStorage.
class TypeContext {
 public:
  Type Tensor(ElementType element, std::span<const int64_t> shape,
              std::span<const int64_t> bounds = {}, std::string_view opaque_element = {});
  Type Token();
  Type Tuple(std::span<const Type> types);
  Type Element(ElementType element);
  Type Function(std::span<const Type> inputs, std::span<const Type> results);
  Type Opaque(std::string_view text);

 private:
  Type Intern(std::string key, TypeStorage storage);
  std::unordered_map<std::string, std::unique_ptr<TypeStorage>> interned_;
};

// Bump allocation of arrays of trivially destructible objects that live as
// long as the module (op operands, results, attributes); freed in bulk.
class Arena {
 public:
  template <typename T>
  std::span<T> AllocArray(size_t n) {
    static_assert(std::is_trivially_destructible_v<T>);
    if (n == 0) return {};
    T* p = static_cast<T*>(Allocate(n * sizeof(T), alignof(T)));
    for (size_t i = 0; i < n; ++i) new (p + i) T();
    return std::span<T>(p, n);
  }

 private:
  void* Allocate(size_t bytes, size_t align);
  std::vector<std::unique_ptr<char[]>> blocks_;
  char* next_ = nullptr;
  size_t left_ = 0;
};

// Copies strings into stable storage with few allocations.
class StringArena {
 public:
  std::string_view Save(std::string_view text);

 private:
  std::vector<std::unique_ptr<char[]>> blocks_;
  size_t used_ = 0;
  size_t capacity_ = 0;
};

struct ModuleStorage {
  std::string filename;
  std::string_view name;
  TypeContext types;
  StringArena strings;
  Arena arena;
  std::deque<Value> values;
  std::deque<Operation> ops;
  std::deque<Block> blocks;
  std::deque<Region> regions;
  std::deque<Function> function_storage;
  std::vector<std::unique_ptr<Attribute>> attrs;
  std::vector<NamedAttribute> module_attrs;
  std::vector<Function*> functions;
  std::unordered_map<std::string_view, Function*> function_map;
  std::vector<Operation*> top_level_ops;
  // Small attributes are interned: equal ones are shared.
  std::unordered_map<uint64_t, std::vector<const Attribute*>> interned_attrs;
  // Shared frequently used attributes.
  const Attribute* unit_attr = nullptr;
  const Attribute* true_attr = nullptr;
  const Attribute* false_attr = nullptr;
};

// Creates IR objects inside a ModuleStorage; the only writer of IR fields.
class IrBuilder {
 public:
  explicit IrBuilder(ModuleStorage& storage);

  ModuleStorage& storage() { return s_; }
  TypeContext& types() { return s_.types; }

  template <typename T, typename... Args>
  const T* Make(Args&&... args) {
    auto attr = std::make_unique<T>(std::forward<Args>(args)...);
    const T* raw = attr.get();
    s_.attrs.push_back(std::move(attr));
    return raw;
  }
  const Attribute* Unit() const { return s_.unit_attr; }
  // Interned attributes (shared between ops; attributes are immutable).
  const IntegerAttr* Int(int64_t value, ElementType type);
  const EnumAttr* Enum(EnumKind kind, uint8_t value);
  const DenseArrayAttr* I64Array(std::span<const int64_t> values);
  const StringAttr* Str(std::string_view value);
  const Attribute* Bool(bool v) const { return v ? s_.true_attr : s_.false_attr; }
  std::string_view Save(std::string_view text) { return s_.strings.Save(text); }

  Region* NewRegion();
  Block* NewBlock(Region* region);
  Value* AddArgument(Block* block, Type type, std::string_view name);
  // Creates an op (not yet in a block). `attrs` must be sorted by name.
  Operation* NewOp(OpKind kind, const Location& loc, std::span<Value* const> operands,
                   std::span<const Type> result_types, std::span<const NamedAttribute> attrs,
                   std::span<Region* const> regions, std::string_view result_name);
  void Append(Block* block, Operation* op);
  void SetName(Value* value, std::string_view name);
  void SetParent(Region* region, Operation* op);

  Function* NewFunction(std::string_view name, Visibility visibility, Type type,
                        std::vector<const DictionaryAttr*> arg_attrs,
                        std::vector<const DictionaryAttr*> res_attrs,
                        std::vector<NamedAttribute> attrs, Region* body, const Location& loc);

 private:
  ModuleStorage& s_;
};

// Sorts attributes by name; returns the first duplicate name, if any.
std::string_view SortAttributes(std::vector<NamedAttribute>& attrs);

}  // namespace berth::stablehlo::detail

#endif  // BERTH_STABLEHLO_SRC_STORAGE_HPP_
