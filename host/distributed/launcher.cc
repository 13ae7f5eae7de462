#include "distributed/launcher.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <random>
#include <set>

#include "berth/log.hpp"
#include "distributed/coordination_server.hpp"
#include "distributed/format.hpp"

extern char** environ;

namespace berth::distributed {
namespace {

constexpr std::string_view kLogCategory = "distributed";
// A line longer than this is written in pieces (each with the prefix).
constexpr size_t kMaxLineBytes = 64 * 1024;
constexpr int kPollMillis = 50;

using SteadyTime = std::chrono::steady_clock::time_point;

// ------------------------------------------------------------ small helpers

void WriteAll(int fd, std::string_view data) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // EPIPE and the like: nobody reads; drop the output
    data.remove_prefix(static_cast<size_t>(n));
  }
}

std::string RandomToken() {
  std::random_device device;
  static constexpr char kHex[] = "0123456789abcdef";
  std::string token;
  for (int i = 0; i < 8; ++i) {
    uint32_t word = device();
    for (int j = 0; j < 8; ++j) {
      token += kHex[word & 0xf];
      word >>= 4;
    }
  }
  return token;
}

// ------------------------------------------------------- signal forwarding

std::atomic<int> g_signal_pipe{-1};

extern "C" void ForwardSignalHandler(int signal) {
  const int saved_errno = errno;
  const int fd = g_signal_pipe.load(std::memory_order_relaxed);
  if (fd >= 0) {
    const unsigned char byte = static_cast<unsigned char>(signal);
    [[maybe_unused]] ssize_t n = ::write(fd, &byte, 1);
  }
  errno = saved_errno;
}

// Catches SIGINT and SIGTERM into a pipe for as long as it lives.
class SignalForwarding {
 public:
  SignalForwarding() = default;
  SignalForwarding(const SignalForwarding&) = delete;
  SignalForwarding& operator=(const SignalForwarding&) = delete;

  bool Install(int write_fd) {
    int expected = -1;
    if (!g_signal_pipe.compare_exchange_strong(expected, write_fd)) return false;
    struct sigaction action {};
    action.sa_handler = ForwardSignalHandler;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    ::sigaction(SIGINT, &action, &old_int_);
    ::sigaction(SIGTERM, &action, &old_term_);
    installed_ = true;
    return true;
  }

  ~SignalForwarding() {
    if (!installed_) return;
    ::sigaction(SIGINT, &old_int_, nullptr);
    ::sigaction(SIGTERM, &old_term_, nullptr);
    g_signal_pipe.store(-1);
  }

 private:
  bool installed_ = false;
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

// Blocks SIGPIPE on this thread while it lives, so writing to a closed
// stdout gives EPIPE rather than killing the process; a SIGPIPE that became
// pending meanwhile is consumed before the old mask comes back.
class SigpipeBlock {
 public:
  SigpipeBlock() {
    sigemptyset(&set_);
    sigaddset(&set_, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &set_, &old_);
  }
  ~SigpipeBlock() {
    const timespec zero{0, 0};
    while (sigtimedwait(&set_, nullptr, &zero) > 0) {
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }

 private:
  sigset_t set_;
  sigset_t old_;
};

// ---------------------------------------------------------------- children

// One of a child's output pipes, cut into prefixed whole lines.
struct Stream {
  int fd = -1;
  int out_fd = -1;
  std::string prefix;
  std::string pending;

  void Emit(std::string_view data) {
    pending.append(data);
    size_t start = 0;
    std::string out;
    for (size_t nl; (nl = pending.find('\n', start)) != std::string::npos; start = nl + 1) {
      out += prefix;
      out.append(pending, start, nl + 1 - start);
    }
    pending.erase(0, start);
    while (pending.size() >= kMaxLineBytes) {
      out += prefix;
      out.append(pending, 0, kMaxLineBytes);
      out += '\n';
      pending.erase(0, kMaxLineBytes);
    }
    WriteAll(out_fd, out);
  }

  // At end of file: the unfinished last line gets a newline.
  void Close() {
    if (!pending.empty()) {
      WriteAll(out_fd, prefix + pending + "\n");
      pending.clear();
    }
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

struct Child {
  NodeExit exit;
  bool running = false;
  std::array<Stream, 2> streams;  // stdout, stderr
};

// A posix_spawn argument object, initialized and destroyed with its scope.
template <typename T, int (*Init)(T*), int (*Destroy)(T*)>
class SpawnObject {
 public:
  SpawnObject() { Init(&object_); }
  ~SpawnObject() { Destroy(&object_); }
  SpawnObject(const SpawnObject&) = delete;
  SpawnObject& operator=(const SpawnObject&) = delete;
  T* get() { return &object_; }

 private:
  T object_;
};
using FileActions = SpawnObject<posix_spawn_file_actions_t, posix_spawn_file_actions_init,
                                posix_spawn_file_actions_destroy>;
using SpawnAttributes =
    SpawnObject<posix_spawnattr_t, posix_spawnattr_init, posix_spawnattr_destroy>;

bool IsJobVariable(std::string_view entry) {
  static constexpr std::string_view kNames[] = {kEnvCoordinator, kEnvNodeId,    kEnvNumNodes,
                                                kEnvToken,       kEnvTokenFile, kEnvDevicesPerNode,
                                                kEnvNumSlices,   kEnvSliceId};
  for (std::string_view name : kNames) {
    if (entry.size() > name.size() && entry.starts_with(name) && entry[name.size()] == '=') {
      return true;
    }
  }
  return false;
}

// posix_spawnp rather than fork + execvp: the process runs gRPC threads, and
// between fork and exec only async-signal-safe calls are allowed; the
// program is still executed directly, without a shell.
Result<pid_t> Spawn(const std::vector<std::string>& command, const std::vector<std::string>& env,
                    int stdout_fd, int stderr_fd) {
  FileActions actions;
  posix_spawn_file_actions_addopen(actions.get(), STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(actions.get(), stdout_fd, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(actions.get(), stderr_fd, STDERR_FILENO);

  SpawnAttributes attributes;
  posix_spawnattr_setflags(attributes.get(),
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(attributes.get(), 0);  // a process group of its own
  sigset_t empty;
  sigemptyset(&empty);
  posix_spawnattr_setsigmask(attributes.get(), &empty);
  sigset_t defaults;
  sigemptyset(&defaults);
  for (int signal : {SIGINT, SIGTERM, SIGPIPE, SIGHUP, SIGQUIT, SIGCHLD, SIGUSR1, SIGUSR2}) {
    sigaddset(&defaults, signal);
  }
  posix_spawnattr_setsigdefault(attributes.get(), &defaults);

  std::vector<char*> argv;
  for (const std::string& arg : command) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> envp;
  for (const std::string& entry : env) envp.push_back(const_cast<char*>(entry.c_str()));
  envp.push_back(nullptr);

  pid_t pid = 0;
  const int rc =
      posix_spawnp(&pid, argv[0], actions.get(), attributes.get(), argv.data(), envp.data());
  if (rc != 0) {
    return Status(rc == ENOENT ? StatusCode::kNotFound : StatusCode::kFailedPrecondition,
                  "cannot run " + Quote(command[0]) + ": " + std::strerror(rc));
  }
  return pid;
}

std::string Plural(const std::vector<int>& nodes) { return FormatNodeList(nodes); }

}  // namespace

std::string SignalName(int signal) {
  switch (signal) {
    case SIGHUP:
      return "SIGHUP";
    case SIGINT:
      return "SIGINT";
    case SIGQUIT:
      return "SIGQUIT";
    case SIGILL:
      return "SIGILL";
    case SIGTRAP:
      return "SIGTRAP";
    case SIGABRT:
      return "SIGABRT";
    case SIGBUS:
      return "SIGBUS";
    case SIGFPE:
      return "SIGFPE";
    case SIGKILL:
      return "SIGKILL";
    case SIGUSR1:
      return "SIGUSR1";
    case SIGSEGV:
      return "SIGSEGV";
    case SIGUSR2:
      return "SIGUSR2";
    case SIGPIPE:
      return "SIGPIPE";
    case SIGALRM:
      return "SIGALRM";
    case SIGTERM:
      return "SIGTERM";
    case SIGXCPU:
      return "SIGXCPU";
    case SIGXFSZ:
      return "SIGXFSZ";
    default:
      return "signal " + std::to_string(signal);
  }
}

std::string NodeExit::Describe() const {
  std::string text = "node " + std::to_string(node_id);
  text += signaled ? " was killed by " + SignalName(signal)
                   : " exited with code " + std::to_string(exit_code);
  if (stopped_by_launcher) text += " (stopped by the launcher)";
  return text;
}

int SliceOfNode(int node, int num_nodes, int num_slices) {
  return static_cast<int>(static_cast<int64_t>(node) * num_slices / num_nodes);
}

Result<LaunchResult> LaunchJob(const LaunchOptions& options) {
  if (options.num_nodes < 1) {
    return InvalidArgumentError("launch: the number of nodes must be at least 1, got " +
                                std::to_string(options.num_nodes));
  }
  if (options.command.empty() || options.command[0].empty()) {
    return InvalidArgumentError("launch: no command to run");
  }
  if (options.devices_per_node && *options.devices_per_node < 1) {
    return InvalidArgumentError("launch: devices per node must be at least 1");
  }
  if (options.num_slices < 1 || options.num_slices > options.num_nodes) {
    return InvalidArgumentError("launch: " + std::to_string(options.num_slices) + " slices for " +
                                std::to_string(options.num_nodes) +
                                " nodes (each slice holds at least one node)");
  }

  CoordinationServerOptions server_options;
  server_options.listen_address = "127.0.0.1:0";
  server_options.num_nodes = options.num_nodes;
  server_options.token = RandomToken();
  server_options.heartbeat_timeout = options.heartbeat_timeout;
  BERTH_ASSIGN_OR_RETURN(std::unique_ptr<CoordinationServer> server,
                         CoordinationServer::Start(server_options));

  LaunchResult result;
  result.coordinator_address = server->address();

  std::vector<std::string> base_env;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    if (!IsJobVariable(*entry)) base_env.emplace_back(*entry);
  }
  base_env.push_back(std::string(kEnvCoordinator) + "=" + result.coordinator_address);
  base_env.push_back(std::string(kEnvNumNodes) + "=" + std::to_string(options.num_nodes));
  base_env.push_back(std::string(kEnvToken) + "=" + server_options.token);
  if (options.devices_per_node) {
    base_env.push_back(std::string(kEnvDevicesPerNode) + "=" +
                       std::to_string(*options.devices_per_node));
  }
  if (options.num_slices > 1) {
    base_env.push_back(std::string(kEnvNumSlices) + "=" + std::to_string(options.num_slices));
  }
  for (const auto& [name, value] : options.extra_env) base_env.push_back(name + "=" + value);

  SigpipeBlock sigpipe_block;
  int signal_pipe[2] = {-1, -1};
  if (::pipe2(signal_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
    return UnavailableError(std::string("launch: cannot create a pipe: ") + std::strerror(errno));
  }
  SignalForwarding forwarding;
  if (options.forward_signals && !forwarding.Install(signal_pipe[1])) {
    Log(LogLevel::kWarning, kLogCategory,
        "launch: another job launched by this process already forwards signals; this one "
        "does not");
  }

  auto say = [&options](const std::string& line) {
    WriteAll(options.stderr_fd, "berth launch: " + line + "\n");
  };

  std::vector<Child> children(static_cast<size_t>(options.num_nodes));
  auto kill_groups = [&children](int signal, bool mark) {
    for (Child& child : children) {
      if (child.exit.pid <= 0) continue;
      if (mark && child.running) child.exit.stopped_by_launcher = true;
      ::kill(-child.exit.pid, signal);
    }
  };
  auto close_all = [&children, &signal_pipe]() {
    for (Child& child : children) {
      for (Stream& stream : child.streams) stream.Close();
    }
    ::close(signal_pipe[0]);
    ::close(signal_pipe[1]);
  };

  for (int i = 0; i < options.num_nodes; ++i) {
    Child& child = children[static_cast<size_t>(i)];
    child.exit.node_id = i;
    int pipes[2][2] = {{-1, -1}, {-1, -1}};
    bool piped = ::pipe2(pipes[0], O_CLOEXEC) == 0 && ::pipe2(pipes[1], O_CLOEXEC) == 0;
    Result<pid_t> pid =
        UnavailableError(std::string("cannot create pipes: ") + std::strerror(errno));
    if (piped) {
      std::vector<std::string> env = base_env;
      env.push_back(std::string(kEnvNodeId) + "=" + std::to_string(i));
      if (options.num_slices > 1) {
        env.push_back(std::string(kEnvSliceId) + "=" +
                      std::to_string(SliceOfNode(i, options.num_nodes, options.num_slices)));
      }
      pid = Spawn(options.command, env, pipes[0][1], pipes[1][1]);
    }
    for (auto& p : pipes) {
      if (p[1] >= 0) ::close(p[1]);
    }
    if (!pid.ok()) {
      for (auto& p : pipes) {
        if (p[0] >= 0) ::close(p[0]);
      }
      kill_groups(SIGKILL, true);
      for (Child& started : children) {
        if (started.exit.pid > 0) ::waitpid(started.exit.pid, nullptr, 0);
      }
      close_all();
      return pid.status().WithContext("launch: node " + std::to_string(i));
    }
    child.exit.pid = *pid;
    child.running = true;
    for (int s = 0; s < 2; ++s) {
      Stream& stream = child.streams[static_cast<size_t>(s)];
      stream.fd = pipes[s][0];
      ::fcntl(stream.fd, F_SETFL, ::fcntl(stream.fd, F_GETFL) | O_NONBLOCK);
      stream.out_fd = s == 0 ? options.stdout_fd : options.stderr_fd;
      stream.prefix = "[node " + std::to_string(i) + "] ";
    }
  }
  Log(LogLevel::kInfo, kLogCategory,
      "launched " + std::to_string(options.num_nodes) + " nodes of " + Quote(options.command[0]) +
          " with the coordination service at " + result.coordinator_address);

  const auto grace =
      std::chrono::duration_cast<std::chrono::steady_clock::duration>(options.grace_period);
  bool terminating = false;
  bool killed = false;
  SteadyTime kill_at{};
  std::optional<SteadyTime> all_exited_at;
  bool leftovers_killed = false;
  int interrupted_by = 0;
  std::optional<NodeExit> first_failure;
  std::vector<char> buffer(64 * 1024);

  while (true) {
    std::vector<pollfd> fds;
    std::vector<Stream*> polled;
    fds.push_back(pollfd{signal_pipe[0], POLLIN, 0});
    for (Child& child : children) {
      for (Stream& stream : child.streams) {
        if (stream.fd < 0) continue;
        fds.push_back(pollfd{stream.fd, POLLIN, 0});
        polled.push_back(&stream);
      }
    }
    ::poll(fds.data(), fds.size(), kPollMillis);
    SteadyTime now = std::chrono::steady_clock::now();

    if (fds[0].revents & POLLIN) {
      unsigned char signals[16];
      const ssize_t n = ::read(signal_pipe[0], signals, sizeof(signals));
      for (ssize_t k = 0; k < n; ++k) {
        const int signal = signals[k];
        if (interrupted_by != 0) {
          say("second " + SignalName(signal) + "; killing every node now");
          kill_groups(SIGKILL, true);
          killed = true;
          continue;
        }
        interrupted_by = signal;
        say("got " + SignalName(signal) + "; passing it to every node");
        kill_groups(signal, true);
        terminating = true;
        kill_at = now + grace;
      }
    }

    for (size_t k = 0; k < polled.size(); ++k) {
      if ((fds[k + 1].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      Stream& stream = *polled[k];
      const ssize_t n = ::read(stream.fd, buffer.data(), buffer.size());
      if (n > 0) {
        stream.Emit(std::string_view(buffer.data(), static_cast<size_t>(n)));
      } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
        stream.Close();
      }
    }

    for (Child& child : children) {
      if (!child.running) continue;
      int status = 0;
      const pid_t reaped = ::waitpid(child.exit.pid, &status, WNOHANG);
      if (reaped != child.exit.pid) continue;
      child.running = false;
      child.exit.signaled = WIFSIGNALED(status);
      child.exit.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
      child.exit.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
      const bool failed = child.exit.signaled || child.exit.exit_code != 0;
      if (failed && !child.exit.stopped_by_launcher && !first_failure) {
        first_failure = child.exit;
        if (!terminating) {
          say(child.exit.Describe() + "; stopping the other nodes");
          kill_groups(SIGTERM, true);
          terminating = true;
          kill_at = now + grace;
        }
      }
    }

    if (terminating && !killed && now >= kill_at) {
      kill_groups(SIGKILL, true);
      killed = true;
    }

    const bool all_exited =
        std::none_of(children.begin(), children.end(), [](const Child& c) { return c.running; });
    if (!all_exited) continue;
    const bool all_closed = std::all_of(children.begin(), children.end(), [](const Child& c) {
      return c.streams[0].fd < 0 && c.streams[1].fd < 0;
    });
    if (!all_exited_at) {
      all_exited_at = now;
      // Whatever the nodes left running in their process groups goes too.
      kill_groups(SIGTERM, false);
    }
    if (all_closed) break;
    if (!leftovers_killed && now >= *all_exited_at + grace) {
      kill_groups(SIGKILL, false);
      leftovers_killed = true;
    }
    if (now >= *all_exited_at + grace + std::chrono::milliseconds(500)) break;
  }
  // Every group once more: nothing of the job may outlive this call.
  kill_groups(SIGKILL, false);
  close_all();
  server->Shutdown();

  for (const Child& child : children) result.nodes.push_back(child.exit);
  if (interrupted_by != 0) {
    result.exit_code = 128 + interrupted_by;
    result.failure = "interrupted by " + SignalName(interrupted_by);
  } else if (first_failure) {
    result.exit_code =
        first_failure->signaled ? 128 + first_failure->signal : first_failure->exit_code;
    result.failure = first_failure->Describe();
  }
  if (!result.failure.empty()) {
    std::vector<int> stopped;
    for (const NodeExit& node : result.nodes) {
      if (node.stopped_by_launcher) stopped.push_back(node.node_id);
    }
    std::string line = "job failed: " + result.failure;
    if (!stopped.empty()) line += "; " + Plural(stopped) + " stopped by the launcher";
    say(line);
  }
  return result;
}

}  // namespace berth::distributed
