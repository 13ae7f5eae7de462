#include "common/child_process.hpp"

#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace berth::common {
namespace {

// Writes all of `line` and a newline to `fd`; false when the reader is gone.
bool WriteLine(int fd, std::string line) {
  line += '\n';
  size_t done = 0;
  while (done < line.size()) {
    ssize_t n = ::write(fd, line.data() + done, line.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

std::string SignalName(int signal) {
  const char* abbrev = ::sigabbrev_np(signal);
  return std::to_string(signal) + (abbrev != nullptr ? " (SIG" + std::string(abbrev) + ")" : "");
}

}  // namespace

Result<ChildOutcome> RunInChild(const std::function<void(const SendLine& send)>& body,
                                std::chrono::seconds idle_timeout,
                                const std::function<void(const std::string& line)>& on_line) {
  int fds[2];
  if (::pipe(fds) != 0) return InternalError(std::string("pipe: ") + ::strerror(errno));
  ::fflush(nullptr);
  pid_t child = ::fork();
  if (child < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return InternalError(std::string("fork: ") + ::strerror(errno));
  }
  if (child == 0) {
    ::close(fds[0]);
    // The parent may stop reading (a timeout); a write must then fail, not
    // kill. What the plugin prints goes to standard error.
    ::signal(SIGPIPE, SIG_IGN);
    ::dup2(STDERR_FILENO, STDOUT_FILENO);
    const int fd = fds[1];
    body([fd](const std::string& line) { return WriteLine(fd, line); });
    ::fflush(nullptr);
    ::close(fd);
    // No exit handlers: they belong to the parent's copy of the process.
    ::_exit(0);
  }
  ::close(fds[1]);

  ChildOutcome outcome;
  std::string buffer;
  auto deadline = std::chrono::steady_clock::now() + idle_timeout;
  char chunk[4096];
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      outcome.timed_out = true;
      break;
    }
    pollfd poll_fd{fds[0], POLLIN, 0};
    int ready = ::poll(&poll_fd, 1, static_cast<int>(std::min<int64_t>(left.count(), 1000)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    ssize_t n = ::read(fds[0], chunk, sizeof(chunk));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // the child closed its end (finished or died)
    deadline = std::chrono::steady_clock::now() + idle_timeout;
    buffer.append(chunk, static_cast<size_t>(n));
    for (size_t newline; (newline = buffer.find('\n')) != std::string::npos;) {
      outcome.lines.push_back(buffer.substr(0, newline));
      buffer.erase(0, newline + 1);
      if (on_line) on_line(outcome.lines.back());
    }
  }
  ::close(fds[0]);
  // A child that closed its end but does not exit gets the same time.
  int status = 0;
  bool reaped = false;
  if (!outcome.timed_out) {
    auto exit_deadline = std::chrono::steady_clock::now() + idle_timeout;
    for (;;) {
      pid_t done = ::waitpid(child, &status, WNOHANG);
      if (done == child || (done < 0 && errno != EINTR)) {
        reaped = done == child;
        child = 0;  // reaped (or not ours to wait for)
        break;
      }
      if (std::chrono::steady_clock::now() >= exit_deadline) {
        outcome.timed_out = true;
        break;
      }
      ::usleep(10000);
    }
  }
  if (child != 0) {
    ::kill(child, SIGKILL);
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (outcome.timed_out) {
    outcome.end = "sent nothing for " + std::to_string(idle_timeout.count()) +
                  " s and was killed (a hang?)";
  } else if (reaped && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    outcome.exited_cleanly = true;
  } else if (reaped && WIFSIGNALED(status)) {
    outcome.end = "died of signal " + SignalName(WTERMSIG(status));
  } else if (reaped && WIFEXITED(status)) {
    outcome.end = "exited with status " + std::to_string(WEXITSTATUS(status));
  } else {
    outcome.end = "ended abnormally";
  }
  return outcome;
}

}  // namespace berth::common
