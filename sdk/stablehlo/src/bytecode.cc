// WriteBytecode / ReadBytecode (berth/stablehlo/bytecode.hpp).
#include "berth/stablehlo/bytecode.hpp"

#include <bit>
#include <cstring>
#include <limits>
#include <unordered_map>

#include "berth/stablehlo/verifier.hpp"
#include "storage.hpp"

namespace berth::stablehlo {
namespace {

constexpr uint8_t kMaxElementType = static_cast<uint8_t>(ElementType::kOpaque);
constexpr uint8_t kMaxTypeKind = static_cast<uint8_t>(TypeKind::kOpaque);
constexpr uint8_t kMaxAttrKind = static_cast<uint8_t>(AttrKind::kOpaque);
constexpr uint8_t kMaxEnumKind = static_cast<uint8_t>(EnumKind::kTranspose);
constexpr uint8_t kMaxVisibility = static_cast<uint8_t>(Visibility::kNested);

// ------------------------------------------------------------------ writing

class Writer {
 public:
  std::string Run(const Module& module) {
    // Tables first (into their own buffers), then the module that refers
    // to them; the file is magic + tables + module.
    std::string body;
    std::swap(out_, body);
    PutString(module.name());
    PutNamedAttributes(module.attributes());
    Put(module.top_level_ops().size());
    for (const Operation* op : module.top_level_ops()) PutOp(*op);
    Put(module.functions().size());
    for (const Function* function : module.functions()) PutFunction(*function);
    std::swap(out_, body);

    out_ = std::string(kBytecodeMagic);
    Put(strings_.size());
    for (std::string_view s : strings_) PutBytes(s);
    Put(type_index_.size());
    out_ += types_out_;
    Put(attr_index_.size());
    out_ += attrs_out_;
    out_ += body;
    return std::move(out_);
  }

 private:
  void Put(uint64_t v) {
    while (v >= 0x80) {
      out_ += static_cast<char>((v & 0x7F) | 0x80);
      v >>= 7;
    }
    out_ += static_cast<char>(v);
  }
  void PutSigned(int64_t v) {
    Put((static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
  }
  void PutByte(uint8_t b) { out_ += static_cast<char>(b); }
  void PutDouble(double d) { Put(std::bit_cast<uint64_t>(d)); }
  void PutBytes(std::string_view s) {
    Put(s.size());
    out_ += s;
  }
  void PutInts(std::span<const int64_t> values) {
    Put(values.size());
    for (int64_t v : values) PutSigned(v);
  }
  void PutString(std::string_view s) {
    auto [it, added] = string_index_.try_emplace(s, strings_.size());
    if (added) strings_.push_back(s);
    Put(it->second);
  }

  // Types and attributes are written into their tables on first use (their
  // parts before them) and referred to by index.
  uint64_t TypeIndex(Type type) {
    auto found = type_index_.find(type.impl());
    if (found != type_index_.end()) return found->second;
    std::vector<uint64_t> parts;
    if (type.IsTuple()) {
      for (Type t : type.types()) parts.push_back(TypeIndex(t));
    } else if (type.IsFunction()) {
      for (Type t : type.inputs()) parts.push_back(TypeIndex(t));
      for (Type t : type.results()) parts.push_back(TypeIndex(t));
    }
    std::string saved;
    std::swap(out_, saved);
    PutByte(static_cast<uint8_t>(type.kind()));
    switch (type.kind()) {
      case TypeKind::kTensor:
        PutByte(static_cast<uint8_t>(type.element_type()));
        PutInts(type.shape());
        PutInts(type.bounds());
        if (type.element_type() == ElementType::kOpaque) PutString(type.opaque_text());
        break;
      case TypeKind::kToken:
        break;
      case TypeKind::kTuple:
        Put(parts.size());
        for (uint64_t p : parts) Put(p);
        break;
      case TypeKind::kElement:
        PutByte(static_cast<uint8_t>(type.element_type()));
        break;
      case TypeKind::kFunction:
        Put(type.inputs().size());
        Put(type.results().size());
        for (uint64_t p : parts) Put(p);
        break;
      case TypeKind::kOpaque:
        PutString(type.opaque_text());
        break;
    }
    std::swap(out_, saved);
    types_out_ += saved;
    uint64_t index = type_index_.size();
    type_index_.emplace(type.impl(), index);
    return index;
  }

  uint64_t AttrIndex(const Attribute* attr) {
    auto found = attr_index_.find(attr);
    if (found != attr_index_.end()) return found->second;
    // Parts first.
    std::vector<uint64_t> parts;
    if (auto* array = attr->dyn_cast<ArrayAttr>()) {
      for (const Attribute* e : array->elements()) parts.push_back(AttrIndex(e));
    } else if (auto* dict = attr->dyn_cast<DictionaryAttr>()) {
      for (const NamedAttribute& e : dict->entries()) parts.push_back(AttrIndex(e.value));
    }
    uint64_t type_part = 0;
    if (auto* t = attr->dyn_cast<TypeAttr>()) type_part = TypeIndex(t->type());
    if (auto* d = attr->dyn_cast<DenseElementsAttr>()) type_part = TypeIndex(d->type());

    std::string saved;
    std::swap(out_, saved);
    PutByte(static_cast<uint8_t>(attr->kind()));
    PutAttrFields(*attr, parts, type_part);
    std::swap(out_, saved);
    attrs_out_ += saved;
    uint64_t index = attr_index_.size();
    attr_index_.emplace(attr, index);
    return index;
  }

  void PutDot(const DotDimensionNumbers& d) {
    PutInts(d.lhs_batching_dimensions);
    PutInts(d.rhs_batching_dimensions);
    PutInts(d.lhs_contracting_dimensions);
    PutInts(d.rhs_contracting_dimensions);
  }

  void PutAttrFields(const Attribute& attr, const std::vector<uint64_t>& parts, uint64_t type_part) {
    switch (attr.kind()) {
      case AttrKind::kUnit:
        return;
      case AttrKind::kBool:
        return PutByte(attr.dyn_cast<BoolAttr>()->value() ? 1 : 0);
      case AttrKind::kInteger: {
        auto* a = attr.dyn_cast<IntegerAttr>();
        PutSigned(a->value());
        return PutByte(static_cast<uint8_t>(a->type()));
      }
      case AttrKind::kFloat: {
        auto* a = attr.dyn_cast<FloatAttr>();
        PutDouble(a->value());
        return PutByte(static_cast<uint8_t>(a->type()));
      }
      case AttrKind::kString:
        return PutBytes(attr.dyn_cast<StringAttr>()->value());
      case AttrKind::kType:
        return Put(type_part);
      case AttrKind::kArray:
        Put(parts.size());
        for (uint64_t p : parts) Put(p);
        return;
      case AttrKind::kDenseArray: {
        auto* a = attr.dyn_cast<DenseArrayAttr>();
        PutByte(static_cast<uint8_t>(a->element_type()));
        PutInts(a->ints());
        Put(a->floats().size());
        for (double d : a->floats()) PutDouble(d);
        return;
      }
      case AttrKind::kDenseElements: {
        auto* a = attr.dyn_cast<DenseElementsAttr>();
        Put(type_part);
        PutByte(a->is_splat() ? 1 : 0);
        PutByte(static_cast<uint8_t>(a->storage_type()));
        std::span<const uint8_t> data = a->raw_data();
        return PutBytes(std::string_view(reinterpret_cast<const char*>(data.data()), data.size()));
      }
      case AttrKind::kDictionary: {
        auto* a = attr.dyn_cast<DictionaryAttr>();
        Put(parts.size());
        for (size_t i = 0; i < parts.size(); ++i) {
          PutString(a->entries()[i].name);
          Put(parts[i]);
        }
        return;
      }
      case AttrKind::kSymbolRef: {
        auto* a = attr.dyn_cast<SymbolRefAttr>();
        Put(a->path().size());
        for (const std::string& s : a->path()) PutString(s);
        return;
      }
      case AttrKind::kEnum: {
        auto* a = attr.dyn_cast<EnumAttr>();
        PutByte(static_cast<uint8_t>(a->enum_kind()));
        return PutByte(a->value());
      }
      case AttrKind::kDotDimensionNumbers:
        return PutDot(attr.dyn_cast<DotDimensionNumbersAttr>()->value());
      case AttrKind::kGatherDimensionNumbers: {
        const GatherDimensionNumbers& g = attr.dyn_cast<GatherDimensionNumbersAttr>()->value();
        PutInts(g.offset_dims);
        PutInts(g.collapsed_slice_dims);
        PutInts(g.operand_batching_dims);
        PutInts(g.start_indices_batching_dims);
        PutInts(g.start_index_map);
        return PutSigned(g.index_vector_dim);
      }
      case AttrKind::kScatterDimensionNumbers: {
        const ScatterDimensionNumbers& s = attr.dyn_cast<ScatterDimensionNumbersAttr>()->value();
        PutInts(s.update_window_dims);
        PutInts(s.inserted_window_dims);
        PutInts(s.input_batching_dims);
        PutInts(s.scatter_indices_batching_dims);
        PutInts(s.scatter_dims_to_operand_dims);
        return PutSigned(s.index_vector_dim);
      }
      case AttrKind::kConvDimensionNumbers: {
        const ConvDimensionNumbers& c = attr.dyn_cast<ConvDimensionNumbersAttr>()->value();
        PutSigned(c.input_batch_dimension);
        PutSigned(c.input_feature_dimension);
        PutInts(c.input_spatial_dimensions);
        PutSigned(c.kernel_input_feature_dimension);
        PutSigned(c.kernel_output_feature_dimension);
        PutInts(c.kernel_spatial_dimensions);
        PutSigned(c.output_batch_dimension);
        PutSigned(c.output_feature_dimension);
        return PutInts(c.output_spatial_dimensions);
      }
      case AttrKind::kChannelHandle: {
        const ChannelHandle& c = attr.dyn_cast<ChannelHandleAttr>()->value();
        PutSigned(c.handle);
        return PutSigned(c.type);
      }
      case AttrKind::kOutputOperandAlias: {
        const OutputOperandAlias& o = attr.dyn_cast<OutputOperandAliasAttr>()->value();
        PutInts(o.output_tuple_indices);
        PutSigned(o.operand_index);
        return PutInts(o.operand_tuple_indices);
      }
      case AttrKind::kDotAlgorithm: {
        const DotAlgorithm& d = attr.dyn_cast<DotAlgorithmAttr>()->value();
        PutByte(static_cast<uint8_t>(d.lhs_precision_type));
        PutByte(static_cast<uint8_t>(d.rhs_precision_type));
        PutByte(static_cast<uint8_t>(d.accumulation_type));
        PutSigned(d.lhs_component_count);
        PutSigned(d.rhs_component_count);
        PutSigned(d.num_primitive_operations);
        return PutByte(d.allow_imprecise_accumulation ? 1 : 0);
      }
      case AttrKind::kRaggedDotDimensionNumbers: {
        const RaggedDotDimensionNumbers& r = attr.dyn_cast<RaggedDotDimensionNumbersAttr>()->value();
        PutDot(r.dot);
        PutInts(r.lhs_ragged_dimensions);
        return PutInts(r.rhs_group_dimensions);
      }
      case AttrKind::kOpaque:
        return PutBytes(attr.dyn_cast<OpaqueAttr>()->text());
    }
  }

  void PutNamedAttributes(std::span<const NamedAttribute> attrs) {
    Put(attrs.size());
    for (const NamedAttribute& a : attrs) {
      PutString(a.name);
      Put(AttrIndex(a.value));
    }
  }

  // 0 for none, else index + 1.
  void PutOptionalAttr(const Attribute* attr) { Put(attr == nullptr ? 0 : AttrIndex(attr) + 1); }

  void PutLocation(const Location& loc) {
    Put(loc.line);
    Put(loc.column);
  }

  void PutFunction(const Function& f) {
    PutString(f.name());
    PutByte(static_cast<uint8_t>(f.visibility()));
    Put(TypeIndex(f.type()));
    for (size_t i = 0; i < f.num_arguments(); ++i) PutOptionalAttr(f.argument_attrs(i));
    for (size_t i = 0; i < f.num_results(); ++i) PutOptionalAttr(f.result_attrs(i));
    PutNamedAttributes(f.attributes());
    PutLocation(f.location());
    PutByte(f.is_declaration() ? 0 : 1);
    if (!f.is_declaration()) {
      visible_.clear();
      PutRegion(f.body());
    }
  }

  void PutRegion(const Region& region) {
    const size_t mark = visible_.size();
    Put(region.blocks().size());
    for (const Block* block : region.blocks()) {
      visible_.resize(mark, nullptr);
      Put(block->num_arguments());
      for (const Value* arg : block->arguments()) {
        Put(TypeIndex(arg->type()));
        PutString(arg->name());
        Define(arg);
      }
      Put(block->operations().size());
      for (const Operation* op : block->operations()) PutOp(*op);
    }
    for (size_t i = mark; i < visible_.size(); ++i) position_.erase(visible_[i]);
    visible_.resize(mark);
  }

  void Define(const Value* value) {
    position_[value] = visible_.size();
    visible_.push_back(value);
  }

  void PutOp(const Operation& op) {
    Put(static_cast<uint64_t>(op.kind()));
    PutLocation(op.location());
    Put(op.num_operands());
    for (const Value* operand : op.operands()) Put(position_.at(operand));
    Put(op.num_results());
    for (const Value* result : op.results()) Put(TypeIndex(result->type()));
    PutString(op.num_results() > 0 ? op.result(0)->name() : std::string_view());
    PutNamedAttributes(op.attributes());
    Put(op.num_regions());
    for (const Region* region : op.regions()) PutRegion(*region);
    for (const Value* result : op.results()) Define(result);
  }

  std::string out_;
  std::string types_out_;  // the tables, each entry after its parts
  std::string attrs_out_;
  std::vector<std::string_view> strings_;
  std::unordered_map<std::string_view, uint64_t> string_index_;
  std::unordered_map<const void*, uint64_t> type_index_;
  std::unordered_map<const Attribute*, uint64_t> attr_index_;
  std::vector<const Value*> visible_;
  std::unordered_map<const Value*, uint64_t> position_;
};

// ------------------------------------------------------------------ reading

class Reader {
 public:
  Reader(std::string_view bytes, Module& module) : in_(bytes), module_(module), b_(module.storage()) {}

  Status Run() {
    if (in_.substr(0, kBytecodeMagic.size()) != kBytecodeMagic) {
      return Fail("does not start with \"" + std::string(kBytecodeMagic) + "\" (not stablehlo bytecode, or of another version)");
    }
    pos_ = kBytecodeMagic.size();
    uint64_t n;
    BERTH_RETURN_IF_ERROR(Count(&n, 1, "strings"));
    strings_.reserve(n);
    for (uint64_t i = 0; i < n; ++i) {
      std::string_view s;
      BERTH_RETURN_IF_ERROR(Bytes(&s));
      strings_.push_back(b_.Save(s));
    }
    BERTH_RETURN_IF_ERROR(Count(&n, 1, "types"));
    types_.reserve(n);
    for (uint64_t i = 0; i < n; ++i) BERTH_RETURN_IF_ERROR(ReadType());
    BERTH_RETURN_IF_ERROR(Count(&n, 1, "attributes"));
    attrs_.reserve(n);
    for (uint64_t i = 0; i < n; ++i) BERTH_RETURN_IF_ERROR(ReadAttr());

    detail::ModuleStorage& s = module_.storage();
    BERTH_RETURN_IF_ERROR(String(&s.name));
    BERTH_RETURN_IF_ERROR(NamedAttributes(&s.module_attrs));
    BERTH_RETURN_IF_ERROR(Count(&n, 4, "top-level ops"));
    for (uint64_t i = 0; i < n; ++i) {
      Operation* op;
      BERTH_RETURN_IF_ERROR(ReadOp(&op));
      s.top_level_ops.push_back(op);
    }
    BERTH_RETURN_IF_ERROR(Count(&n, 6, "functions"));
    for (uint64_t i = 0; i < n; ++i) BERTH_RETURN_IF_ERROR(ReadFunction());
    if (pos_ != in_.size()) return Fail(std::to_string(in_.size() - pos_) + " bytes after the module");
    return OkStatus();
  }

 private:
  Status Fail(const std::string& why) const {
    return InvalidArgumentError("stablehlo bytecode: " + why + " (at byte " + std::to_string(pos_) + ")");
  }

  Status Varint(uint64_t* v) {
    uint64_t result = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= in_.size()) return Fail("truncated");
      uint8_t byte = static_cast<uint8_t>(in_[pos_++]);
      if (shift == 63 && byte > 1) return Fail("a number overflows 64 bits");
      result |= static_cast<uint64_t>(byte & 0x7F) << shift;
      if ((byte & 0x80) == 0) {
        *v = result;
        return OkStatus();
      }
    }
    return Fail("a number overflows 64 bits");
  }
  Status Signed(int64_t* v) {
    uint64_t u;
    BERTH_RETURN_IF_ERROR(Varint(&u));
    *v = static_cast<int64_t>(u >> 1) ^ -static_cast<int64_t>(u & 1);
    return OkStatus();
  }
  Status Byte(uint8_t* b, uint8_t max, const char* what) {
    if (pos_ >= in_.size()) return Fail("truncated");
    *b = static_cast<uint8_t>(in_[pos_++]);
    if (*b > max) return Fail(std::string(what) + " " + std::to_string(*b) + " is out of range");
    return OkStatus();
  }
  // A count of items that each take at least `min_bytes`: never more than
  // the bytes left could hold, so nothing is allocated for a lie.
  Status Count(uint64_t* n, size_t min_bytes, const char* what) {
    BERTH_RETURN_IF_ERROR(Varint(n));
    if (min_bytes > 0 && *n > (in_.size() - pos_) / min_bytes) {
      return Fail(std::string("count of ") + what + " (" + std::to_string(*n) + ") exceeds the bytes left");
    }
    return OkStatus();
  }
  Status Bytes(std::string_view* s) {
    uint64_t n;
    BERTH_RETURN_IF_ERROR(Count(&n, 1, "bytes"));
    *s = in_.substr(pos_, n);
    pos_ += n;
    return OkStatus();
  }
  Status Double(double* d) {
    uint64_t bits;
    BERTH_RETURN_IF_ERROR(Varint(&bits));
    *d = std::bit_cast<double>(bits);
    return OkStatus();
  }
  Status Ints(std::vector<int64_t>* values) {
    uint64_t n;
    BERTH_RETURN_IF_ERROR(Count(&n, 1, "integers"));
    values->resize(n);
    for (int64_t& v : *values) BERTH_RETURN_IF_ERROR(Signed(&v));
    return OkStatus();
  }
  Status Index(uint64_t* index, size_t size, const char* what) {
    BERTH_RETURN_IF_ERROR(Varint(index));
    if (*index >= size) {
      return Fail(std::string(what) + " " + std::to_string(*index) + " is not one of the " + std::to_string(size) +
                  " defined before it");
    }
    return OkStatus();
  }
  Status String(std::string_view* s) {
    uint64_t i;
    BERTH_RETURN_IF_ERROR(Index(&i, strings_.size(), "string"));
    *s = strings_[i];
    return OkStatus();
  }
  Status TypeRef(Type* type) {
    uint64_t i;
    BERTH_RETURN_IF_ERROR(Index(&i, types_.size(), "type"));
    *type = types_[i];
    return OkStatus();
  }
  Status AttrRef(const Attribute** attr) {
    uint64_t i;
    BERTH_RETURN_IF_ERROR(Index(&i, attrs_.size(), "attribute"));
    *attr = attrs_[i];
    return OkStatus();
  }
  Status ElementTypeByte(ElementType* type) {
    uint8_t b;
    BERTH_RETURN_IF_ERROR(Byte(&b, kMaxElementType, "element type"));
    *type = static_cast<ElementType>(b);
    return OkStatus();
  }

  Status ReadType() {
    uint8_t kind;
    BERTH_RETURN_IF_ERROR(Byte(&kind, kMaxTypeKind, "type kind"));
    detail::TypeContext& types = b_.types();
    switch (static_cast<TypeKind>(kind)) {
      case TypeKind::kTensor: {
        ElementType element;
        std::vector<int64_t> shape, bounds;
        BERTH_RETURN_IF_ERROR(ElementTypeByte(&element));
        BERTH_RETURN_IF_ERROR(Ints(&shape));
        BERTH_RETURN_IF_ERROR(Ints(&bounds));
        int64_t elements = 1;
        for (int64_t d : shape) {
          if (d == kDynamic) continue;
          if (d < 0) return Fail("a tensor dimension is negative");
          if (d > kMaxTensorElements || (d != 0 && elements > kMaxTensorElements / d)) {
            return Fail("a tensor type has more than 2^48 elements");
          }
          elements *= d;
        }
        if (!bounds.empty() && bounds.size() != shape.size()) return Fail("a tensor has bounds of another rank");
        std::string_view opaque;
        if (element == ElementType::kOpaque) BERTH_RETURN_IF_ERROR(String(&opaque));
        types_.push_back(types.Tensor(element, shape, bounds, opaque));
        return OkStatus();
      }
      case TypeKind::kToken:
        types_.push_back(types.Token());
        return OkStatus();
      case TypeKind::kTuple: {
        std::vector<Type> parts;
        BERTH_RETURN_IF_ERROR(TypeList(&parts));
        types_.push_back(types.Tuple(parts));
        return OkStatus();
      }
      case TypeKind::kElement: {
        ElementType element;
        BERTH_RETURN_IF_ERROR(ElementTypeByte(&element));
        types_.push_back(types.Element(element));
        return OkStatus();
      }
      case TypeKind::kFunction: {
        uint64_t inputs, results;
        BERTH_RETURN_IF_ERROR(Count(&inputs, 1, "function inputs"));
        BERTH_RETURN_IF_ERROR(Count(&results, 1, "function results"));
        if (inputs + results > in_.size() - pos_) return Fail("a function type's parts exceed the bytes left");
        std::vector<Type> in(inputs), out(results);
        for (Type& t : in) BERTH_RETURN_IF_ERROR(TypeRef(&t));
        for (Type& t : out) BERTH_RETURN_IF_ERROR(TypeRef(&t));
        types_.push_back(types.Function(in, out));
        return OkStatus();
      }
      case TypeKind::kOpaque: {
        std::string_view text;
        BERTH_RETURN_IF_ERROR(String(&text));
        types_.push_back(types.Opaque(text));
        return OkStatus();
      }
    }
    return Fail("unreachable type kind");
  }

  Status TypeList(std::vector<Type>* types) {
    uint64_t n;
    BERTH_RETURN_IF_ERROR(Count(&n, 1, "types"));
    types->resize(n);
    for (Type& t : *types) BERTH_RETURN_IF_ERROR(TypeRef(&t));
    return OkStatus();
  }

  Status Dot(DotDimensionNumbers* d) {
    BERTH_RETURN_IF_ERROR(Ints(&d->lhs_batching_dimensions));
    BERTH_RETURN_IF_ERROR(Ints(&d->rhs_batching_dimensions));
    BERTH_RETURN_IF_ERROR(Ints(&d->lhs_contracting_dimensions));
    return Ints(&d->rhs_contracting_dimensions);
  }

  Status ReadAttr() {
    uint8_t kind;
    BERTH_RETURN_IF_ERROR(Byte(&kind, kMaxAttrKind, "attribute kind"));
    const Attribute* made = nullptr;
    switch (static_cast<AttrKind>(kind)) {
      case AttrKind::kUnit:
        made = b_.Unit();
        break;
      case AttrKind::kBool: {
        uint8_t v;
        BERTH_RETURN_IF_ERROR(Byte(&v, 1, "bool"));
        made = b_.Bool(v != 0);
        break;
      }
      case AttrKind::kInteger: {
        int64_t v;
        ElementType type;
        BERTH_RETURN_IF_ERROR(Signed(&v));
        BERTH_RETURN_IF_ERROR(ElementTypeByte(&type));
        made = b_.Int(v, type);
        break;
      }
      case AttrKind::kFloat: {
        double v;
        ElementType type;
        BERTH_RETURN_IF_ERROR(Double(&v));
        BERTH_RETURN_IF_ERROR(ElementTypeByte(&type));
        made = b_.Make<FloatAttr>(v, type);
        break;
      }
      case AttrKind::kString: {
        std::string_view s;
        BERTH_RETURN_IF_ERROR(Bytes(&s));
        made = b_.Str(s);
        break;
      }
      case AttrKind::kType: {
        Type t;
        BERTH_RETURN_IF_ERROR(TypeRef(&t));
        made = b_.Make<TypeAttr>(t);
        break;
      }
      case AttrKind::kArray: {
        uint64_t n;
        BERTH_RETURN_IF_ERROR(Count(&n, 1, "array elements"));
        std::vector<const Attribute*> elements(n);
        for (const Attribute*& e : elements) BERTH_RETURN_IF_ERROR(AttrRef(&e));
        made = b_.Make<ArrayAttr>(std::move(elements));
        break;
      }
      case AttrKind::kDenseArray: {
        ElementType type;
        std::vector<int64_t> ints;
        BERTH_RETURN_IF_ERROR(ElementTypeByte(&type));
        BERTH_RETURN_IF_ERROR(Ints(&ints));
        uint64_t n;
        BERTH_RETURN_IF_ERROR(Count(&n, 1, "array floats"));
        std::vector<double> floats(n);
        for (double& d : floats) BERTH_RETURN_IF_ERROR(Double(&d));
        if (IsFloat(type) ? !ints.empty() : !floats.empty()) {
          return Fail("a dense array holds values of the wrong kind for " + std::string(ElementTypeName(type)));
        }
        made = b_.Make<DenseArrayAttr>(type, std::move(ints), std::move(floats));
        break;
      }
      case AttrKind::kDenseElements: {
        Type type;
        uint8_t splat;
        ElementType storage;
        std::string_view data;
        BERTH_RETURN_IF_ERROR(TypeRef(&type));
        BERTH_RETURN_IF_ERROR(Byte(&splat, 1, "splat flag"));
        BERTH_RETURN_IF_ERROR(ElementTypeByte(&storage));
        BERTH_RETURN_IF_ERROR(Bytes(&data));
        if (!type.IsTensor() || !type.HasStaticShape()) return Fail("a dense literal's type is not a static tensor");
        // The data must be exactly what the type says: every reader of the
        // attribute indexes it without checking.
        const size_t element_bytes = StorageBytes(storage);
        const int64_t elements = type.NumElements();
        const uint64_t expected = splat ? element_bytes : static_cast<uint64_t>(elements) * element_bytes;
        if (element_bytes == 0 || elements < 0 || data.size() != expected ||
            (storage != type.element_type() && !type.IsQuantized())) {
          return Fail("a dense literal of " + type.ToString() + " holds " + std::to_string(data.size()) +
                      " bytes of " + std::string(ElementTypeName(storage)));
        }
        made = b_.Make<DenseElementsAttr>(type, splat != 0, std::vector<uint8_t>(data.begin(), data.end()), storage);
        break;
      }
      case AttrKind::kDictionary: {
        std::vector<NamedAttribute> entries;
        BERTH_RETURN_IF_ERROR(NamedAttributes(&entries));
        made = b_.Make<DictionaryAttr>(std::move(entries));
        break;
      }
      case AttrKind::kSymbolRef: {
        uint64_t n;
        BERTH_RETURN_IF_ERROR(Count(&n, 1, "symbol path"));
        if (n == 0) return Fail("an empty symbol reference");
        std::vector<std::string> path(n);
        for (std::string& p : path) {
          std::string_view s;
          BERTH_RETURN_IF_ERROR(String(&s));
          p = std::string(s);
        }
        made = b_.Make<SymbolRefAttr>(std::move(path));
        break;
      }
      case AttrKind::kEnum: {
        uint8_t enum_kind, value;
        BERTH_RETURN_IF_ERROR(Byte(&enum_kind, kMaxEnumKind, "enum kind"));
        BERTH_RETURN_IF_ERROR(Byte(&value, std::numeric_limits<uint8_t>::max(), "enum value"));
        if (EnumKeyword(static_cast<EnumKind>(enum_kind), value).empty()) {
          return Fail("enum value " + std::to_string(value) + " is out of range");
        }
        made = b_.Enum(static_cast<EnumKind>(enum_kind), value);
        break;
      }
      case AttrKind::kDotDimensionNumbers: {
        DotDimensionNumbers d;
        BERTH_RETURN_IF_ERROR(Dot(&d));
        made = b_.Make<DotDimensionNumbersAttr>(std::move(d));
        break;
      }
      case AttrKind::kGatherDimensionNumbers: {
        GatherDimensionNumbers g;
        BERTH_RETURN_IF_ERROR(Ints(&g.offset_dims));
        BERTH_RETURN_IF_ERROR(Ints(&g.collapsed_slice_dims));
        BERTH_RETURN_IF_ERROR(Ints(&g.operand_batching_dims));
        BERTH_RETURN_IF_ERROR(Ints(&g.start_indices_batching_dims));
        BERTH_RETURN_IF_ERROR(Ints(&g.start_index_map));
        BERTH_RETURN_IF_ERROR(Signed(&g.index_vector_dim));
        made = b_.Make<GatherDimensionNumbersAttr>(std::move(g));
        break;
      }
      case AttrKind::kScatterDimensionNumbers: {
        ScatterDimensionNumbers s;
        BERTH_RETURN_IF_ERROR(Ints(&s.update_window_dims));
        BERTH_RETURN_IF_ERROR(Ints(&s.inserted_window_dims));
        BERTH_RETURN_IF_ERROR(Ints(&s.input_batching_dims));
        BERTH_RETURN_IF_ERROR(Ints(&s.scatter_indices_batching_dims));
        BERTH_RETURN_IF_ERROR(Ints(&s.scatter_dims_to_operand_dims));
        BERTH_RETURN_IF_ERROR(Signed(&s.index_vector_dim));
        made = b_.Make<ScatterDimensionNumbersAttr>(std::move(s));
        break;
      }
      case AttrKind::kConvDimensionNumbers: {
        ConvDimensionNumbers c;
        BERTH_RETURN_IF_ERROR(Signed(&c.input_batch_dimension));
        BERTH_RETURN_IF_ERROR(Signed(&c.input_feature_dimension));
        BERTH_RETURN_IF_ERROR(Ints(&c.input_spatial_dimensions));
        BERTH_RETURN_IF_ERROR(Signed(&c.kernel_input_feature_dimension));
        BERTH_RETURN_IF_ERROR(Signed(&c.kernel_output_feature_dimension));
        BERTH_RETURN_IF_ERROR(Ints(&c.kernel_spatial_dimensions));
        BERTH_RETURN_IF_ERROR(Signed(&c.output_batch_dimension));
        BERTH_RETURN_IF_ERROR(Signed(&c.output_feature_dimension));
        BERTH_RETURN_IF_ERROR(Ints(&c.output_spatial_dimensions));
        made = b_.Make<ConvDimensionNumbersAttr>(std::move(c));
        break;
      }
      case AttrKind::kChannelHandle: {
        ChannelHandle c;
        BERTH_RETURN_IF_ERROR(Signed(&c.handle));
        BERTH_RETURN_IF_ERROR(Signed(&c.type));
        made = b_.Make<ChannelHandleAttr>(c);
        break;
      }
      case AttrKind::kOutputOperandAlias: {
        OutputOperandAlias o;
        BERTH_RETURN_IF_ERROR(Ints(&o.output_tuple_indices));
        BERTH_RETURN_IF_ERROR(Signed(&o.operand_index));
        BERTH_RETURN_IF_ERROR(Ints(&o.operand_tuple_indices));
        made = b_.Make<OutputOperandAliasAttr>(std::move(o));
        break;
      }
      case AttrKind::kDotAlgorithm: {
        DotAlgorithm d;
        uint8_t imprecise;
        BERTH_RETURN_IF_ERROR(ElementTypeByte(&d.lhs_precision_type));
        BERTH_RETURN_IF_ERROR(ElementTypeByte(&d.rhs_precision_type));
        BERTH_RETURN_IF_ERROR(ElementTypeByte(&d.accumulation_type));
        BERTH_RETURN_IF_ERROR(Signed(&d.lhs_component_count));
        BERTH_RETURN_IF_ERROR(Signed(&d.rhs_component_count));
        BERTH_RETURN_IF_ERROR(Signed(&d.num_primitive_operations));
        BERTH_RETURN_IF_ERROR(Byte(&imprecise, 1, "bool"));
        d.allow_imprecise_accumulation = imprecise != 0;
        made = b_.Make<DotAlgorithmAttr>(d);
        break;
      }
      case AttrKind::kRaggedDotDimensionNumbers: {
        RaggedDotDimensionNumbers r;
        BERTH_RETURN_IF_ERROR(Dot(&r.dot));
        BERTH_RETURN_IF_ERROR(Ints(&r.lhs_ragged_dimensions));
        BERTH_RETURN_IF_ERROR(Ints(&r.rhs_group_dimensions));
        made = b_.Make<RaggedDotDimensionNumbersAttr>(std::move(r));
        break;
      }
      case AttrKind::kOpaque: {
        std::string_view text;
        BERTH_RETURN_IF_ERROR(Bytes(&text));
        made = b_.Make<OpaqueAttr>(std::string(text));
        break;
      }
    }
    attrs_.push_back(made);
    return OkStatus();
  }

  // Names must be sorted and distinct, as the IR promises.
  Status NamedAttributes(std::vector<NamedAttribute>* attrs) {
    uint64_t n;
    BERTH_RETURN_IF_ERROR(Count(&n, 2, "named attributes"));
    attrs->resize(n);
    for (size_t i = 0; i < n; ++i) {
      BERTH_RETURN_IF_ERROR(String(&(*attrs)[i].name));
      BERTH_RETURN_IF_ERROR(AttrRef(&(*attrs)[i].value));
      if (i > 0 && !((*attrs)[i - 1].name < (*attrs)[i].name)) {
        return Fail("attribute names are not sorted and distinct ('" + std::string((*attrs)[i].name) + "')");
      }
    }
    return OkStatus();
  }

  Status OptionalDictionary(const DictionaryAttr** dict) {
    uint64_t i;
    BERTH_RETURN_IF_ERROR(Index(&i, attrs_.size() + 1, "attribute"));
    *dict = nullptr;
    if (i == 0) return OkStatus();
    *dict = attrs_[i - 1]->dyn_cast<DictionaryAttr>();
    if (*dict == nullptr) return Fail("argument or result attributes are not a dictionary");
    return OkStatus();
  }

  Status ReadLocation(Location* loc) {
    uint64_t line, column;
    BERTH_RETURN_IF_ERROR(Varint(&line));
    BERTH_RETURN_IF_ERROR(Varint(&column));
    loc->file = module_.storage().filename;
    loc->line = static_cast<uint32_t>(line);
    loc->column = static_cast<uint32_t>(column);
    return OkStatus();
  }

  Status ReadFunction() {
    std::string_view name;
    uint8_t visibility;
    Type type;
    BERTH_RETURN_IF_ERROR(String(&name));
    BERTH_RETURN_IF_ERROR(Byte(&visibility, kMaxVisibility, "visibility"));
    BERTH_RETURN_IF_ERROR(TypeRef(&type));
    if (!type.IsFunction()) return Fail("function @" + std::string(name) + " has a type that is not a function type");
    if (module_.storage().function_map.contains(name)) return Fail("function @" + std::string(name) + " twice");
    std::vector<const DictionaryAttr*> arg_attrs(type.inputs().size()), res_attrs(type.results().size());
    for (const DictionaryAttr*& d : arg_attrs) BERTH_RETURN_IF_ERROR(OptionalDictionary(&d));
    for (const DictionaryAttr*& d : res_attrs) BERTH_RETURN_IF_ERROR(OptionalDictionary(&d));
    std::vector<NamedAttribute> attrs;
    BERTH_RETURN_IF_ERROR(NamedAttributes(&attrs));
    Location loc;
    BERTH_RETURN_IF_ERROR(ReadLocation(&loc));
    uint8_t has_body;
    BERTH_RETURN_IF_ERROR(Byte(&has_body, 1, "body flag"));
    Region* body = nullptr;
    if (has_body) {
      visible_.clear();
      BERTH_RETURN_IF_ERROR(ReadRegion(&body, 0));
      if (body->empty() || !std::ranges::equal(body->entry_block().arguments(), type.inputs(),
                                               [](const Value* v, Type t) { return v->type() == t; })) {
        return Fail("the body of @" + std::string(name) + " does not take the function's argument types");
      }
    }
    b_.NewFunction(name, static_cast<Visibility>(visibility), type, std::move(arg_attrs), std::move(res_attrs),
                   std::move(attrs), body, loc);
    return OkStatus();
  }

  static constexpr int kMaxDepth = 256;

  Status ReadRegion(Region** out, int depth) {
    if (depth > kMaxDepth) return Fail("regions nest deeper than " + std::to_string(kMaxDepth));
    Region* region = b_.NewRegion();
    *out = region;
    const size_t mark = visible_.size();
    uint64_t blocks;
    BERTH_RETURN_IF_ERROR(Count(&blocks, 2, "blocks"));
    // StableHLO regions have one block; code walking the IR takes the
    // entry block of every region without asking.
    if (blocks == 0) return Fail("a region without a block");
    for (uint64_t i = 0; i < blocks; ++i) {
      visible_.resize(mark);
      Block* block = b_.NewBlock(region);
      uint64_t args;
      BERTH_RETURN_IF_ERROR(Count(&args, 2, "block arguments"));
      for (uint64_t a = 0; a < args; ++a) {
        Type type;
        std::string_view name;
        BERTH_RETURN_IF_ERROR(TypeRef(&type));
        BERTH_RETURN_IF_ERROR(String(&name));
        visible_.push_back(b_.AddArgument(block, type, name));
      }
      uint64_t ops;
      BERTH_RETURN_IF_ERROR(Count(&ops, 8, "ops"));
      for (uint64_t o = 0; o < ops; ++o) {
        Operation* op;
        BERTH_RETURN_IF_ERROR(ReadOp(&op, depth));
        b_.Append(block, op);
      }
    }
    visible_.resize(mark);
    return OkStatus();
  }

  Status ReadOp(Operation** out, int depth = 0) {
    uint64_t kind;
    BERTH_RETURN_IF_ERROR(Varint(&kind));
    if (kind >= static_cast<uint64_t>(kNumOpKinds)) return Fail("op kind " + std::to_string(kind) + " is out of range");
    Location loc;
    BERTH_RETURN_IF_ERROR(ReadLocation(&loc));
    uint64_t n;
    BERTH_RETURN_IF_ERROR(Count(&n, 1, "operands"));
    operands_.resize(n);
    for (Value*& v : operands_) {
      uint64_t i;
      BERTH_RETURN_IF_ERROR(Index(&i, visible_.size(), "value"));
      v = visible_[i];
    }
    std::vector<Value*> operands = operands_;
    std::vector<Type> result_types;
    BERTH_RETURN_IF_ERROR(TypeList(&result_types));
    std::string_view result_name;
    BERTH_RETURN_IF_ERROR(String(&result_name));
    std::vector<NamedAttribute> attrs;
    BERTH_RETURN_IF_ERROR(NamedAttributes(&attrs));
    BERTH_RETURN_IF_ERROR(Count(&n, 1, "regions"));
    std::vector<Region*> regions(n);
    for (Region*& r : regions) BERTH_RETURN_IF_ERROR(ReadRegion(&r, depth + 1));
    Operation* op = b_.NewOp(static_cast<OpKind>(kind), loc, operands, result_types, attrs, regions, result_name);
    for (Value* result : op->results()) visible_.push_back(result);
    *out = op;
    return OkStatus();
  }

  std::string_view in_;
  size_t pos_ = 0;
  Module& module_;
  detail::IrBuilder b_;
  std::vector<std::string_view> strings_;
  std::vector<Type> types_;
  std::vector<const Attribute*> attrs_;
  std::vector<Value*> visible_;
  std::vector<Value*> operands_;
};

}  // namespace

std::string WriteBytecode(const Module& module) {
  return Writer().Run(module);
}

Result<Module> ReadBytecode(std::string_view bytes, std::string_view filename, const BytecodeReadOptions& options) {
  Module module;
  module.storage().filename = std::string(filename);
  Reader reader(bytes, module);
  BERTH_RETURN_IF_ERROR(reader.Run());
  if (options.verify) {
    Status verified = Verify(module);
    if (!verified.ok()) {
      return Status(verified.code(), "stablehlo bytecode " + std::string(filename) + ": " + verified.message());
    }
  }
  return module;
}

}  // namespace berth::stablehlo
