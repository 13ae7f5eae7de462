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

class WaitAborter;

// Keys are stored as `prefix` + key. Gloo's interface reports failures by
// exceptions: a failed or timed-out call throws GlooStoreError carrying the
// key-value store's message (the job error when the job failed).
class GlooStore final : public gloo::rendezvous::Store {
 public:
  // `store` is borrowed and must outlive this object. Waits end early, with
  // the abort reason, once `aborter` (borrowed; may be null) is aborted.
  GlooStore(const plugin::KeyValueStore& store, std::string prefix,
            std::chrono::milliseconds timeout, const WaitAborter* aborter = nullptr)
      : store_(store), prefix_(std::move(prefix)), timeout_(timeout), aborter_(aborter) {}

  void set(const std::string& key, const std::vector<char>& data) override;
  // Waits up to the store's timeout for the key.
  std::vector<char> get(const std::string& key) override;
  void wait(const std::vector<std::string>& keys) override;
  void wait(const std::vector<std::string>& keys,
            const std::chrono::milliseconds& timeout) override;

 private:
  // The key's value, waiting up to `timeout` in slices so that an abort ends
  // the wait; throws GlooStoreError.
  std::string Get(const std::string& key, std::chrono::milliseconds timeout) const;

  const plugin::KeyValueStore& store_;
  std::string prefix_;
  std::chrono::milliseconds timeout_;
  const WaitAborter* aborter_;
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
