// A value while a program runs: a tensor (element type, dims, storage), a
// token, or a tuple of values. Values are immutable once produced, so copies
// share storage freely.
#ifndef BERTH_PLUGINS_CPU_INTERPRETER_TENSOR_HPP_
#define BERTH_PLUGINS_CPU_INTERPRETER_TENSOR_HPP_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "berth/stablehlo/types.hpp"
#include "berth/status.hpp"
#include "interpreter/storage.hpp"

namespace berth::cpu {

using stablehlo::ElementType;

class Tensor {
 public:
  enum class Kind : uint8_t { kTensor, kToken, kTuple };

  Tensor() = default;
  // Uninitialized contents. RESOURCE_EXHAUSTED when memory runs out.
  static Result<Tensor> Allocate(ElementType type, std::vector<int64_t> dims);
  // A tensor over existing storage (e.g. a buffer's); `storage` holds at
  // least the tensor's bytes.
  static Tensor Wrap(ElementType type, std::vector<int64_t> dims,
                     std::shared_ptr<Storage> storage);
  static Tensor Token();
  static Tensor Tuple(std::vector<Tensor> elements);

  Kind kind() const { return kind_; }
  bool is_tensor() const { return kind_ == Kind::kTensor; }
  ElementType type() const { return type_; }
  const std::vector<int64_t>& dims() const { return dims_; }
  int64_t rank() const { return static_cast<int64_t>(dims_.size()); }
  int64_t num_elements() const { return num_elements_; }
  size_t byte_size() const;
  const std::vector<Tensor>& elements() const { return elements_; }

  std::byte* bytes() { return storage_ ? storage_->data() : nullptr; }
  const std::byte* bytes() const { return storage_ ? storage_->data() : nullptr; }
  template <typename T>
  T* data() { return reinterpret_cast<T*>(bytes()); }
  template <typename T>
  const T* data() const { return reinterpret_cast<const T*>(bytes()); }
  const std::shared_ptr<Storage>& storage() const { return storage_; }

  // Same bytes seen with other dims (reshape); the element count must match.
  Tensor Reshaped(std::vector<int64_t> dims) const;

  // "tensor<2x3xf32>", "!stablehlo.token", "tuple<...>".
  std::string TypeString() const;

 private:
  Kind kind_ = Kind::kToken;
  ElementType type_ = ElementType::kI1;
  std::vector<int64_t> dims_;
  int64_t num_elements_ = 0;
  std::shared_ptr<Storage> storage_;
  std::vector<Tensor> elements_;
};

// Row-major strides (in elements) of `dims`.
std::vector<int64_t> RowMajorStrides(std::span<const int64_t> dims);

}  // namespace berth::cpu

#endif  // BERTH_PLUGINS_CPU_INTERPRETER_TENSOR_HPP_
