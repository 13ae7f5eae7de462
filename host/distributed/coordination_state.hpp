// The semantics of the coordination service, independent of any transport:
// nodes and their incarnations, heartbeats, the key-value store, barriers,
// the shutdown barrier and the job-level error state. The gRPC service
// (coordination_server.hpp) is a thin adapter over this class; unit tests use
// it directly with a FakeClock. See README.md for the rules in prose.
#ifndef BERTH_HOST_DISTRIBUTED_COORDINATION_STATE_HPP_
#define BERTH_HOST_DISTRIBUTED_COORDINATION_STATE_HPP_

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "berth/status.hpp"
#include "distributed/clock.hpp"

namespace berth::distributed {

inline constexpr size_t kDefaultMaxKeyBytes = 4 * 1024;
inline constexpr size_t kDefaultMaxValueBytes = 4 * 1024 * 1024;
inline constexpr Duration kDefaultHeartbeatTimeout = std::chrono::seconds(10);

struct CoordinationStateOptions {
  int num_nodes = 0;  // node ids are 0..num_nodes-1; must be > 0
  // A connected node whose last heartbeat is this old is declared dead.
  Duration heartbeat_timeout = kDefaultHeartbeatTimeout;
  size_t max_key_bytes = kDefaultMaxKeyBytes;  // also bounds barrier ids
  size_t max_value_bytes = kDefaultMaxValueBytes;
  // Sum of all key and value sizes; a Set beyond it is RESOURCE_EXHAUSTED.
  size_t max_total_bytes = size_t{1} << 30;
  // Starts the thread that expires heartbeats and deadlines. Tests that want
  // full control leave it off and call CheckNow() after advancing the clock.
  bool run_checker_thread = true;
  Clock* clock = nullptr;  // borrowed, must outlive the state; null: RealClock()
};

// A connected node.
struct NodeInfo {
  int node_id = 0;
  uint64_t incarnation = 0;
  int restarts = 0;  // registrations with a new incarnation in this job epoch
  friend bool operator==(const NodeInfo&, const NodeInfo&) = default;
};

// Why the job failed, and which node caused it (-1: none in particular).
struct JobError {
  Status status;
  int node_id = -1;
};

// What a WatchJob long poll ends with.
struct WatchEvent {
  enum class Kind {
    kNoError,          // the poll duration passed; poll again
    kJobFailed,        // `error` says why
    kServiceStopping,  // the service is shutting down
    kCancelled,        // Cancel() was called for this wait
  };
  Kind kind = Kind::kNoError;
  JobError error;
};

class CoordinationState {
 public:
  // Identifies a pending wait, for Cancel(). 0 is never used: an *Async call
  // that completed at once returns 0.
  using WaitId = uint64_t;
  using StatusCallback = std::function<void(Status)>;
  using ValueCallback = std::function<void(Result<std::string>)>;
  using WatchCallback = std::function<void(WatchEvent)>;

  // INVALID_ARGUMENT when num_nodes < 1 or a limit or timeout is not positive.
  static Result<std::unique_ptr<CoordinationState>> Create(CoordinationStateOptions options);

  // Stops the checker thread; pending waits end as if Stop() had been called.
  ~CoordinationState();

  CoordinationState(const CoordinationState&) = delete;
  CoordinationState& operator=(const CoordinationState&) = delete;

  int num_nodes() const { return options_.num_nodes; }
  Duration heartbeat_timeout() const { return options_.heartbeat_timeout; }
  size_t max_key_bytes() const { return options_.max_key_bytes; }
  size_t max_value_bytes() const { return options_.max_value_bytes; }

  // ---------------------------------------------------------------- nodes

  // Registers `node_id` with its process's incarnation id.
  // - out of range: INVALID_ARGUMENT;
  // - first time, or the same incarnation again (a retry): OK;
  // - another incarnation while the old one is connected: ALREADY_EXISTS
  //   ("duplicate node id?");
  // - another incarnation after the old one died or shut down: OK, recorded
  //   as a restart, and (other nodes still being connected) a job error
  //   "node N restarted (incarnation a -> b)";
  // - the same incarnation after it was declared dead: ABORTED; after it
  //   shut down: FAILED_PRECONDITION.
  // When no node at all is connected and some node was before (the previous
  // job ended or died), this registration starts a new job epoch: the store,
  // the barriers and the job error are cleared.
  // `address` (may be empty) is where the registration came from, named
  // when the node is declared dead.
  Status Register(int node_id, uint64_t incarnation, std::string_view address = {});

  // Records a heartbeat. A stale incarnation or a node declared dead gets
  // ABORTED; an unregistered or shut-down node FAILED_PRECONDITION.
  Status Heartbeat(int node_id, uint64_t incarnation);

  // OK when `node_id` is connected with this incarnation; otherwise the error
  // Heartbeat() would give. The transport checks every call with it.
  Status CheckCaller(int node_id, uint64_t incarnation) const;

  // Fails the job with ABORTED "node N reported an error: <error>".
  // `error` must not be OK (INVALID_ARGUMENT).
  Status ReportError(int node_id, const Status& error);

  // Connected nodes, by id.
  std::vector<NodeInfo> GetLiveNodes() const;

  // The first error of the current job epoch, if any.
  std::optional<JobError> GetJobError() const;

  // ------------------------------------------------------- key-value store

  // ALREADY_EXISTS when the key exists and !allow_overwrite. Wakes waiting Gets.
  Status Set(std::string_view key, std::string_view value, bool allow_overwrite);

  // NOT_FOUND when absent.
  Result<std::string> TryGet(std::string_view key) const;

  // Calls `done` with the value once the key exists; DEADLINE_EXCEEDED naming
  // the key after `timeout`; the job error as soon as the job fails.
  WaitId GetAsync(std::string_view key, Duration timeout, ValueCallback done);
  Result<std::string> Get(std::string_view key, Duration timeout);

  // Entries under the directory `prefix` ("a/b" lists "a/b/c", not "a/bc"),
  // sorted by key. A trailing '/' is ignored; "" lists every key.
  Result<std::vector<std::pair<std::string, std::string>>> GetDir(std::string_view prefix) const;

  // Deletes `key` and every key under `key/`. Deleting nothing is OK.
  Status Delete(std::string_view key);

  // Adds `delta` to the decimal integer stored at `key` (absent: 0) and
  // returns the new value. INVALID_ARGUMENT when the value is not a decimal
  // int64; OUT_OF_RANGE on overflow.
  Result<int64_t> Increment(std::string_view key, int64_t delta);

  // ------------------------------------------------------------- barriers

  // `node_id` arrives at barrier `barrier_id`. `participants` empty means all
  // nodes. The first caller of an instance sets its deadline (now + timeout)
  // and participant set; others must name the same set or the barrier fails
  // for everyone with INVALID_ARGUMENT. `done` gets OK when every participant
  // has arrived, DEADLINE_EXCEEDED naming the missing nodes at the deadline,
  // or the job error. Callers after the barrier failed get the same result;
  // a participant calling again after it passed starts the next instance.
  WaitId BarrierAsync(int node_id, std::string_view barrier_id, Duration timeout,
                      std::vector<int> participants, StatusCallback done);
  Status Barrier(int node_id, std::string_view barrier_id, Duration timeout,
                 std::vector<int> participants = {});

  // The shutdown barrier: passes when every connected node has called it.
  // However it ends (OK, DEADLINE_EXCEEDED, job error) the caller is then
  // disconnected: its missing heartbeats are no longer an error.
  WaitId ShutdownAsync(int node_id, Duration timeout, StatusCallback done);
  Status Shutdown(int node_id, Duration timeout);

  // Long poll on the job state: `done` gets kJobFailed as soon as the job has
  // an error (at once if it already has one), kNoError after `poll_timeout`.
  WaitId WatchAsync(int node_id, Duration poll_timeout, WatchCallback done);

  // Ends a pending wait now: CANCELLED (kCancelled for a watch). A barrier
  // arrival is not withdrawn. Unknown or finished ids are ignored.
  void Cancel(WaitId id);

  // Ends every pending wait with UNAVAILABLE `reason` (kServiceStopping for
  // watches) and makes new waits fail the same way at once. Other calls keep
  // working. Used when the server shuts down.
  void Stop(const Status& reason);

  // Expires heartbeats and deadlines as of the clock's current time (what the
  // checker thread does when it wakes).
  void CheckNow();

  // Waits not yet ended (tests use it to know a call is blocked).
  size_t NumPendingWaits() const;

  // Counts job epochs; the first is 1.
  uint64_t epoch() const;

  // Threading: every method is thread-safe. Callbacks (`done`) run exactly
  // once, never with the state's lock held: on the calling thread before the
  // *Async call returns (when the outcome is already known), or on the thread
  // whose call or check completed the wait (a Set, the checker thread...).
  // A callback may call back into the state.

 private:
  enum class NodeState { kUnregistered, kConnected, kDead, kDisconnected };

  struct Node {
    NodeState state = NodeState::kUnregistered;
    uint64_t incarnation = 0;
    TimePoint last_heartbeat{};
    int restarts = 0;
    std::string death_reason;  // why it was declared dead
    std::string address;       // where it registered from; may be empty
  };

  struct Waiter {
    enum class Kind { kGet, kBarrier, kShutdown, kWatch };
    Kind kind = Kind::kGet;
    int node_id = -1;
    std::string key;        // kGet: the key; kBarrier: the barrier id
    uint64_t instance = 0;  // kBarrier: which instance of the barrier
    TimePoint deadline = TimePoint::max();
    Duration timeout{};  // kGet: for the expiry message
    ValueCallback on_value;
    StatusCallback on_status;
    WatchCallback on_watch;
  };

  struct BarrierRecord {
    uint64_t instance = 0;
    std::vector<int> participants;  // sorted
    Duration timeout{};
    TimePoint deadline{};
    std::set<int> arrived;
    std::optional<Status> result;  // set once the instance passed or failed
    std::vector<WaitId> waiters;
  };

  struct ShutdownRecord {
    bool started = false;
    Duration timeout{};
    TimePoint deadline{};
    std::set<int> arrived;
    std::optional<Status> result;
    std::vector<WaitId> waiters;
  };

  // Callbacks collected under the lock and run after it is released: declare
  // one before taking the lock, so it is destroyed (and runs) after.
  class Deferred {
   public:
    Deferred() = default;
    Deferred(const Deferred&) = delete;
    Deferred& operator=(const Deferred&) = delete;
    ~Deferred();
    void Add(std::function<void()> fn) { fns_.push_back(std::move(fn)); }
    bool empty() const { return fns_.empty(); }
    void RunNow();
    // Answers a wait that fails before it starts: done(status) runs once the
    // lock is released. Returns 0, the id of no wait.
    WaitId Fail(StatusCallback& done, Status status);

   private:
    std::vector<std::function<void()>> fns_;
  };

  explicit CoordinationState(CoordinationStateOptions options);

  void CheckerLoop();
  TimePoint NextWakeLocked() const;
  void CheckLocked(TimePoint now, Deferred& deferred);

  Status ValidateNodeId(int node_id) const;
  Status ValidateKey(std::string_view key, std::string_view what) const;
  Status NodeRefusalLocked(int node_id, uint64_t incarnation) const;
  void StartNewEpochLocked(int node_id, Deferred& deferred);
  void SetJobErrorLocked(Status status, int node_id, Deferred& deferred);

  WaitId AddWaiterLocked(Waiter waiter);
  // Removes a waiter and schedules its callback with the outcome.
  void FinishGetLocked(WaitId id, Result<std::string> outcome, Deferred& deferred);
  void FinishStatusLocked(WaitId id, Status outcome, Deferred& deferred);
  void FinishWatchLocked(WaitId id, WatchEvent event, Deferred& deferred);
  void FinishWaiterLocked(WaitId id, const Status& status, Deferred& deferred);
  void EraseWaiterLocked(WaitId id, Waiter& waiter);

  void CompleteBarrierLocked(BarrierRecord& barrier, Status result, Deferred& deferred);
  void CompleteShutdownLocked(Status result, Deferred& deferred);
  // "node 1 at 10.0.0.2, node 3 at 10.0.0.4" for those of `nodes` whose
  // address is known; empty when none is.
  std::string AddressesLocked(const std::vector<int>& nodes) const;
  Status BarrierTimeoutStatusLocked(std::string_view barrier_id,
                                    const BarrierRecord& barrier) const;
  void ExpireWaiterLocked(WaitId id, Deferred& deferred);

  const CoordinationStateOptions options_;
  Clock& clock_;

  mutable std::mutex mu_;
  std::condition_variable checker_cv_;
  bool checker_stop_ = false;
  std::thread checker_;

  uint64_t epoch_ = 1;
  bool epoch_used_ = false;  // some node registered in this epoch
  std::vector<Node> nodes_;
  std::optional<JobError> job_error_;
  std::optional<Status> stopped_;

  std::map<std::string, std::string, std::less<>> kv_;
  size_t kv_bytes_ = 0;

  std::map<std::string, BarrierRecord, std::less<>> barriers_;
  ShutdownRecord shutdown_;

  WaitId next_wait_id_ = 1;
  std::map<WaitId, Waiter> waiters_;
  std::set<std::pair<TimePoint, WaitId>> deadlines_;
  std::multimap<std::string, WaitId, std::less<>> key_waiters_;
};

}  // namespace berth::distributed

#endif  // BERTH_HOST_DISTRIBUTED_COORDINATION_STATE_HPP_
