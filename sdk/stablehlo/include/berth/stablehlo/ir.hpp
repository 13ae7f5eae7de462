// The program IR: a Module holds Functions; a Function's body is a Region of
// one Block; a Block holds Operations in order; an Operation has an OpKind,
// operand and result Values, attributes and nested Regions.
//
// Everything is owned by the Module and immutable once parsed; pointers stay
// valid as long as the Module lives (moving a Module keeps them valid).
#ifndef BERTH_STABLEHLO_IR_HPP_
#define BERTH_STABLEHLO_IR_HPP_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "berth/stablehlo/attributes.hpp"
#include "berth/stablehlo/op_kind.hpp"
#include "berth/stablehlo/types.hpp"

namespace berth::stablehlo {

class Block;
class Function;
class Module;
class Operation;
class Region;

namespace detail {
struct ModuleStorage;
class IrBuilder;
}  // namespace detail

// Where something was written: file, 1-based line and column.
struct Location {
  std::string_view file;
  uint32_t line = 0;
  uint32_t column = 0;
  // "file:line:col".
  std::string ToString() const;
};

class Value;

// One use of a value: operand `index` of `owner`.
struct OpOperand {
  Value* value = nullptr;
  Operation* owner = nullptr;
  uint32_t index = 0;
  OpOperand* next_use = nullptr;
};

// An SSA value: a result of an operation or an argument of a block.
class Value {
 public:
  Type type() const { return type_; }
  // The operation producing this value; nullptr for block arguments.
  Operation* defining_op() const { return def_op_; }
  bool IsBlockArgument() const { return def_op_ == nullptr; }
  // For block arguments the block; for results the block holding the op.
  Block* owner_block() const;
  // Result number, or argument number for block arguments.
  uint32_t index() const { return index_; }
  // The name used in the source, without '%' (e.g. "arg0", "cst"); for
  // results of multi-result ops the group name. May be empty.
  std::string_view name() const { return name_; }

  class UseIterator {
   public:
    explicit UseIterator(const OpOperand* use) : use_(use) {}
    const OpOperand& operator*() const { return *use_; }
    const OpOperand* operator->() const { return use_; }
    UseIterator& operator++() { use_ = use_->next_use; return *this; }
    bool operator==(const UseIterator& other) const { return use_ == other.use_; }
    bool operator!=(const UseIterator& other) const { return use_ != other.use_; }

   private:
    const OpOperand* use_;
  };
  struct UseRange {
    UseIterator b, e;
    UseIterator begin() const { return b; }
    UseIterator end() const { return e; }
  };
  // Every use of this value, in no particular order.
  UseRange uses() const { return {UseIterator(first_use_), UseIterator(nullptr)}; }
  bool use_empty() const { return first_use_ == nullptr; }
  size_t num_uses() const;

 private:
  friend class detail::IrBuilder;
  Type type_;
  Operation* def_op_ = nullptr;
  Block* block_ = nullptr;
  uint32_t index_ = 0;
  std::string_view name_;
  OpOperand* first_use_ = nullptr;
};

class Operation {
 public:
  OpKind kind() const { return kind_; }
  // The full name, e.g. "stablehlo.add".
  std::string_view name() const { return OpKindName(kind_); }

  std::span<Value* const> operands() const { return operands_; }
  Value* operand(size_t i) const { return operands_[i]; }
  size_t num_operands() const { return operands_.size(); }
  std::span<const OpOperand> operand_uses() const { return uses_; }

  std::span<Value* const> results() const { return results_; }
  Value* result(size_t i) const { return results_[i]; }
  size_t num_results() const { return results_.size(); }

  // Sorted by name. Pretty and generic spellings of an op give the same
  // attributes, under the names of the generic form.
  std::span<const NamedAttribute> attributes() const { return attrs_; }
  const Attribute* attr(std::string_view name) const;
  bool has_attr(std::string_view name) const { return attr(name) != nullptr; }
  template <typename T>
  const T* attr_as(std::string_view name) const {
    const Attribute* a = attr(name);
    return a ? a->dyn_cast<T>() : nullptr;
  }

  std::span<Region* const> regions() const { return regions_; }
  Region& region(size_t i) const { return *regions_[i]; }
  size_t num_regions() const { return regions_.size(); }

  // Where the op starts in the source (for diagnostics).
  const Location& location() const { return loc_; }
  Block* parent_block() const { return parent_; }
  // The op whose region holds this op; nullptr at function level.
  Operation* parent_op() const;
  // The function this op is in (nullptr for module-level ops).
  Function* parent_function() const;

  // ---- typed attribute accessors (nullopt / empty / nullptr when absent)
  std::optional<int64_t> GetInt(std::string_view name) const;
  std::optional<double> GetFloat(std::string_view name) const;
  // A BoolAttr's value; a UnitAttr counts as true; `fallback` when absent.
  bool GetBool(std::string_view name, bool fallback = false) const;
  std::string_view GetString(std::string_view name) const;
  // Elements of an `array<i64: ...>` (or i1/i32 array) attribute.
  std::span<const int64_t> GetI64Array(std::string_view name) const;
  const DenseElementsAttr* GetDense(std::string_view name) const;
  // Root name of a symbol reference attribute, without '@'.
  std::string_view GetSymbol(std::string_view name) const;
  // Rows of an Nx2 integer tensor attribute (padding, source_target_pairs).
  std::vector<std::pair<int64_t, int64_t>> GetPairs(std::string_view name) const;

  std::optional<ComparisonDirection> comparison_direction() const;
  std::optional<ComparisonType> compare_type() const;
  // precision_config; empty when absent.
  std::vector<Precision> precision_config() const;
  const DotDimensionNumbers* dot_dimension_numbers() const;
  const GatherDimensionNumbers* gather_dimension_numbers() const;
  const ScatterDimensionNumbers* scatter_dimension_numbers() const;
  const ConvDimensionNumbers* conv_dimension_numbers() const;
  const DotAlgorithm* dot_algorithm() const;
  // chlo.ragged_dot's ragged_dot_dimension_numbers.
  const RaggedDotDimensionNumbers* ragged_dot_dimension_numbers() const;
  std::optional<ChannelHandle> channel_handle() const;
  // replica_groups as rows of device ids (-1 pads ragged groups).
  std::vector<std::vector<int64_t>> replica_groups() const;
  std::optional<FftType> fft_type() const;
  std::optional<RngDistribution> rng_distribution() const;
  std::optional<RngAlgorithm> rng_algorithm() const;
  std::optional<Transpose> transpose_a() const;
  // func.call: the callee; stablehlo.composite: the decomposition.
  std::string_view callee() const;
  // stablehlo.custom_call: call_target_name.
  std::string_view call_target_name() const;
  // CHLO broadcasting ops (chlo.broadcast_*): the result dimension that
  // each dimension of operand `i` stands for, as broadcast_in_dim's
  // broadcast_dimensions. Operands of the result's rank map one to one;
  // a lower-rank operand maps through the op's broadcast_dimensions when
  // it has them (binary ops with operands of different ranks), else to the
  // result's trailing dimensions (numpy). Empty when operand `i` has a
  // higher rank than the result or broadcast_dimensions does not fit it
  // (the verifier reports those).
  std::vector<int64_t> chlo_broadcast_dimensions(size_t i) const;
  // stablehlo.torch_index_select as the gather it stands for: the first
  // batch_dims dimensions batching, `dim` collapsed and indexed by the whole
  // index, the other input dimensions offsets around the index's; the
  // dimension numbers and slice sizes into `numbers` and `slice_sizes`.
  // False when dim and batch_dims do not fit (0 <= batch_dims <= dim <
  // the input's rank, batch_dims <= the index's rank).
  bool torch_index_select_as_gather(GatherDimensionNumbers& numbers,
                                    std::vector<int64_t>& slice_sizes) const;

 private:
  friend class detail::IrBuilder;
  OpKind kind_ = OpKind::kAbs;
  // Arrays in the Module's arena.
  std::span<Value*> operands_;
  std::span<OpOperand> uses_;
  std::span<Value*> results_;
  std::span<NamedAttribute> attrs_;
  std::span<Region*> regions_;
  Location loc_;
  Block* parent_ = nullptr;
};

class Block {
 public:
  std::span<Value* const> arguments() const { return args_; }
  Value* argument(size_t i) const { return args_[i]; }
  size_t num_arguments() const { return args_.size(); }
  std::span<Operation* const> operations() const { return ops_; }
  bool empty() const { return ops_.empty(); }
  // The last op when it is a terminator (stablehlo.return / func.return).
  Operation* terminator() const;
  Region* parent_region() const { return parent_; }
  Operation* parent_op() const;

 private:
  friend class detail::IrBuilder;
  std::vector<Value*> args_;
  std::vector<Operation*> ops_;
  Region* parent_ = nullptr;
};

class Region {
 public:
  std::span<Block* const> blocks() const { return blocks_; }
  bool empty() const { return blocks_.empty(); }
  // The first block; regions of StableHLO ops and functions have exactly one.
  Block& entry_block() const { return *blocks_.front(); }
  // The op holding this region, or nullptr for a function body.
  Operation* parent_op() const { return parent_op_; }
  Function* parent_function() const { return parent_function_; }

 private:
  friend class detail::IrBuilder;
  std::vector<Block*> blocks_;
  Operation* parent_op_ = nullptr;
  Function* parent_function_ = nullptr;
};

enum class Visibility : uint8_t { kPublic, kPrivate, kNested };

class Function {
 public:
  std::string_view name() const { return name_; }
  Visibility visibility() const { return visibility_; }
  // (inputs) -> (results).
  Type type() const { return type_; }
  std::span<const Type> argument_types() const { return type_.inputs(); }
  std::span<const Type> result_types() const { return type_.results(); }
  size_t num_arguments() const { return type_.inputs().size(); }
  size_t num_results() const { return type_.results().size(); }
  // Attributes of argument / result `i` (jax.result_info, mhlo.sharding ...);
  // nullptr when none were written.
  const DictionaryAttr* argument_attrs(size_t i) const;
  const DictionaryAttr* result_attrs(size_t i) const;
  // Other attributes of the function (`attributes {...}`), sorted by name.
  std::span<const NamedAttribute> attributes() const { return attrs_; }
  // A declaration has no body.
  bool is_declaration() const { return body_ == nullptr || body_->empty(); }
  Region& body() const { return *body_; }
  Block& entry_block() const { return body_->entry_block(); }
  const Location& location() const { return loc_; }

 private:
  friend class detail::IrBuilder;
  std::string_view name_;
  Visibility visibility_ = Visibility::kPublic;
  Type type_;
  std::vector<const DictionaryAttr*> arg_attrs_;
  std::vector<const DictionaryAttr*> res_attrs_;
  std::vector<NamedAttribute> attrs_;
  Region* body_ = nullptr;
  Location loc_;
};

class Module {
 public:
  Module();
  ~Module();
  Module(Module&&) noexcept;
  Module& operator=(Module&&) noexcept;

  // `module @name`; empty when unnamed.
  std::string_view name() const;
  // The file name given to the parser.
  std::string_view filename() const;
  // Module attributes (mhlo.num_replicas, jax.uses_shape_polymorphism ...).
  std::span<const NamedAttribute> attributes() const;
  const Attribute* attr(std::string_view name) const;

  std::span<Function* const> functions() const;
  Function* function(std::string_view name) const;
  // `main`, else the only function, else the only public function; nullptr
  // when none of these exists.
  Function* entry_function() const;
  // Module-level ops other than functions (sdy.mesh).
  std::span<Operation* const> top_level_ops() const;

  // mhlo.num_replicas / mhlo.num_partitions when present.
  std::optional<int64_t> num_replicas() const;
  std::optional<int64_t> num_partitions() const;

  detail::ModuleStorage& storage() const { return *storage_; }

 private:
  std::unique_ptr<detail::ModuleStorage> storage_;
};

// True when both modules have the same functions, ops, types, attributes
// and value flow (names and source locations are ignored). On a difference
// `difference` (if given) says where.
bool StructurallyEqual(const Module& a, const Module& b, std::string* difference = nullptr);

}  // namespace berth::stablehlo

#endif  // BERTH_STABLEHLO_IR_HPP_
