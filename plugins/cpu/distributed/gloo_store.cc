#include "cpu/distributed/gloo_store.hpp"

namespace berth::cpu {

void GlooStore::set(const std::string& key, const std::vector<char>& data) {
  Status status = store_.Put(prefix_ + key, std::string_view(data.data(), data.size()),
                             /*allow_overwrite=*/false);
  if (!status.ok()) throw GlooStoreError(status.WithContext("gloo rendezvous"));
}

std::vector<char> GlooStore::get(const std::string& key) {
  Result<std::string> value = store_.Get(prefix_ + key, timeout_);
  if (!value.ok()) throw GlooStoreError(value.status().WithContext("gloo rendezvous"));
  return std::vector<char>(value->begin(), value->end());
}

void GlooStore::wait(const std::vector<std::string>& keys) { wait(keys, timeout_); }

void GlooStore::wait(const std::vector<std::string>& keys,
                     const std::chrono::milliseconds& timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (const std::string& key : keys) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    Result<std::string> value =
        store_.Get(prefix_ + key, std::max(left, std::chrono::milliseconds::zero()));
    if (!value.ok()) throw GlooStoreError(value.status().WithContext("gloo rendezvous"));
  }
}

}  // namespace berth::cpu
