// Gloo's rendezvous store over the host's key-value store: how the Gloo
// contexts of a job's processes find each other's TCP addresses.
#ifndef BERTH_PLUGINS_CPU_DISTRIBUTED_GLOO_STORE_HPP_
#define BERTH_PLUGINS_CPU_DISTRIBUTED_GLOO_STORE_HPP_

#include <chrono>
#include <string>
#include <vector>

#include <gloo/rendezvous/store.h>

#include "berth/plugin/key_value.hpp"

namespace berth::cpu {

// Keys are stored as `prefix` + key. Gloo's interface reports failures by
// exceptions: a failed or timed-out call throws GlooStoreError carrying the
// key-value store's message (the job error when the job failed).
class GlooStore final : public gloo::rendezvous::Store {
 public:
  // `store` is borrowed and must outlive this object.
  GlooStore(const plugin::KeyValueStore& store, std::string prefix,
            std::chrono::milliseconds timeout)
      : store_(store), prefix_(std::move(prefix)), timeout_(timeout) {}

  void set(const std::string& key, const std::vector<char>& data) override;
  // Waits up to the store's timeout for the key.
  std::vector<char> get(const std::string& key) override;
  void wait(const std::vector<std::string>& keys) override;
  void wait(const std::vector<std::string>& keys,
            const std::chrono::milliseconds& timeout) override;

 private:
  const plugin::KeyValueStore& store_;
  std::string prefix_;
  std::chrono::milliseconds timeout_;
};

// What GlooStore throws; Gloo lets it through to the caller of
// connectFullMesh.
class GlooStoreError : public std::runtime_error {
 public:
  explicit GlooStoreError(const Status& status)
      : std::runtime_error(status.ToString()), status_(status) {}
  const Status& status() const { return status_; }

 private:
  Status status_;
};

}  // namespace berth::cpu

#endif  // BERTH_PLUGINS_CPU_DISTRIBUTED_GLOO_STORE_HPP_
