#include "interpreter/tensor.hpp"

#include <new>

#include "berth/shape.hpp"

namespace berth::cpu {

Result<Tensor> Tensor::Allocate(ElementType type, std::vector<int64_t> dims) {
  Tensor t;
  t.kind_ = Kind::kTensor;
  t.type_ = type;
  t.num_elements_ = ElementCount(dims);
  t.dims_ = std::move(dims);
  if (t.num_elements_ < 0) {
    return InvalidArgumentError("tensor shape is negative or too large: " + t.TypeString());
  }
  try {
    t.storage_ = Storage::Allocate(t.byte_size());
  } catch (const std::bad_alloc&) {
    return ResourceExhaustedError("out of memory allocating " + std::to_string(t.byte_size()) +
                                  " bytes for " + t.TypeString());
  }
  return t;
}

Tensor Tensor::Wrap(ElementType type, std::vector<int64_t> dims, std::shared_ptr<Storage> storage) {
  Tensor t;
  t.kind_ = Kind::kTensor;
  t.type_ = type;
  t.num_elements_ = ElementCount(dims);
  t.dims_ = std::move(dims);
  t.storage_ = std::move(storage);
  return t;
}

Tensor Tensor::Token() { return Tensor(); }

Tensor Tensor::Tuple(std::vector<Tensor> elements) {
  Tensor t;
  t.kind_ = Kind::kTuple;
  t.elements_ = std::move(elements);
  return t;
}

size_t Tensor::byte_size() const {
  return static_cast<size_t>(num_elements_) * stablehlo::StorageBytes(type_);
}

Tensor Tensor::Reshaped(std::vector<int64_t> dims) const {
  Tensor t = *this;
  t.dims_ = std::move(dims);
  return t;
}

std::string Tensor::TypeString() const {
  switch (kind_) {
    case Kind::kToken:
      return "!stablehlo.token";
    case Kind::kTuple: {
      std::string out = "tuple<";
      for (size_t i = 0; i < elements_.size(); ++i) {
        out += (i ? ", " : "") + elements_[i].TypeString();
      }
      return out + ">";
    }
    case Kind::kTensor:
      break;
  }
  std::string out = "tensor<";
  for (int64_t dim : dims_) out += std::to_string(dim) + "x";
  out += stablehlo::ElementTypeName(type_);
  return out + ">";
}

std::vector<int64_t> RowMajorStrides(std::span<const int64_t> dims) {
  std::vector<int64_t> strides(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) strides[i - 1] = strides[i] * dims[i];
  return strides;
}

}  // namespace berth::cpu
