#include "cpu/distributed/gloo_store.hpp"

#include <algorithm>

#include "cpu/distributed/gloo_collectives.hpp"

namespace berth::cpu {
namespace {

// How long one wait for a key lasts when an abort may end it.
constexpr std::chrono::milliseconds kAbortableSlice{100};

}  // namespace

void GlooStore::set(const std::string& key, const std::vector<char>& data) {
  Status status = store_.Put(prefix_ + key, std::string_view(data.data(), data.size()),
                             /*allow_overwrite=*/false);
  if (!status.ok()) throw GlooStoreError(status.WithContext("gloo rendezvous"));
}

std::string GlooStore::Get(const std::string& key, std::chrono::milliseconds timeout) const {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    left = std::max(left, std::chrono::milliseconds::zero());
    const bool sliced = aborter_ != nullptr && left > kAbortableSlice;
    Result<std::string> value = store_.Get(prefix_ + key, sliced ? kAbortableSlice : left);
    if (value.ok()) return std::move(value).value();
    if (aborter_ != nullptr) {
      if (Status aborted = aborter_->reason(); !aborted.ok()) throw GlooStoreError(aborted);
    }
    if (!sliced || value.status().code() != StatusCode::kDeadlineExceeded) {
      throw GlooStoreError(value.status().WithContext("gloo rendezvous"));
    }
  }
}

std::vector<char> GlooStore::get(const std::string& key) {
  std::string value = Get(key, timeout_);
  return std::vector<char>(value.begin(), value.end());
}

void GlooStore::wait(const std::vector<std::string>& keys) { wait(keys, timeout_); }

void GlooStore::wait(const std::vector<std::string>& keys,
                     const std::chrono::milliseconds& timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (const std::string& key : keys) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    (void)Get(key, std::max(left, std::chrono::milliseconds::zero()));
  }
}

}  // namespace berth::cpu
