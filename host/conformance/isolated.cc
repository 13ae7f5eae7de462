// The suite in a child process: a plugin that crashes or hangs ends the child,
// not `berth conformance`, which reports it as a failed check. The child sends
// one JSON line per result, then one line with the negotiated version (or the
// error that stopped the suite), through a pipe.
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <nlohmann/json.hpp>

#include "conformance/conformance.hpp"
#include "manifest/manifest.hpp"

namespace berth::conformance {
namespace {

constexpr const char* kFinished = "suite.finished";

// Writes all of `line` (and a newline) to `fd`; false when the reader is gone.
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

[[noreturn]] void RunChild(const std::filesystem::path& manifest, int fd) {
  // The parent may stop reading (a timeout); a write must then fail, not kill.
  ::signal(SIGPIPE, SIG_IGN);
  // Standard output is the parent's report; what the plugin prints goes to
  // standard error.
  ::dup2(STDERR_FILENO, STDOUT_FILENO);
  auto send = [fd](const CheckResult& result) {
    WriteLine(fd, nlohmann::json{{"name", result.name},
                                 {"outcome", static_cast<int>(result.outcome)},
                                 {"message", result.message}}
                      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  };
  Result<Report> report = Run(manifest, send);
  nlohmann::json end;
  if (report.ok()) {
    end = {{"end", "report"}, {"negotiated_version", report->negotiated_version}};
  } else {
    end = {{"end", "error"},
           {"code", static_cast<int>(report.status().code())},
           {"message", report.status().message()}};
  }
  bool sent = WriteLine(fd, end.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  ::close(fd);
  // No exit handlers: they belong to the parent's copy of the process.
  ::_exit(sent ? 0 : 1);
}

std::string SignalName(int signal) {
  const char* abbrev = ::sigabbrev_np(signal);
  return std::to_string(signal) + (abbrev != nullptr ? " (SIG" + std::string(abbrev) + ")" : "");
}

// Why the child ended without its last line.
std::string ChildEnd(int status) {
  if (WIFSIGNALED(status)) return "the plugin's process died of signal " + SignalName(WTERMSIG(status));
  if (WIFEXITED(status)) {
    return "the plugin's process exited with status " + std::to_string(WEXITSTATUS(status)) +
           " in the middle of the suite";
  }
  return "the plugin's process ended abnormally";
}

}  // namespace

Result<Report> RunIsolated(const std::filesystem::path& manifest,
                           const std::function<void(const CheckResult&)>& on_result,
                           std::chrono::seconds idle_timeout) {
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
    RunChild(manifest, fds[1]);
  }
  ::close(fds[1]);

  Report report;
  report.manifest = manifest.string();
  // The child reports results and the negotiated version; the plugin's name
  // comes from the manifest here, so a report names it even after a crash.
  host::ManifestParseResult parsed = host::LoadManifestFile(manifest);
  if (parsed.manifest) report.plugin = parsed.manifest->name;
  std::optional<nlohmann::json> end;
  std::string last_check;
  std::string buffer;
  bool timed_out = false;
  auto handle_line = [&](const std::string& line) {
    nlohmann::json message = nlohmann::json::parse(line, nullptr, false);
    if (!message.is_object()) return;
    if (message.contains("end")) {
      end = std::move(message);
      return;
    }
    CheckResult result;
    result.name = message.value("name", "");
    int outcome = message.value("outcome", static_cast<int>(Outcome::kFail));
    result.outcome = outcome == 0 ? Outcome::kPass : outcome == 2 ? Outcome::kSkip : Outcome::kFail;
    result.message = message.value("message", "");
    last_check = result.name;
    if (on_result) on_result(result);
    report.results.push_back(std::move(result));
  };
  auto deadline = std::chrono::steady_clock::now() + idle_timeout;
  char chunk[4096];
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
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
      handle_line(buffer.substr(0, newline));
      buffer.erase(0, newline + 1);
    }
  }
  ::close(fds[0]);
  // A child that closed its end but does not exit gets the same time.
  int status = 0;
  if (!timed_out) {
    auto exit_deadline = std::chrono::steady_clock::now() + idle_timeout;
    for (;;) {
      pid_t done = ::waitpid(child, &status, WNOHANG);
      if (done == child || (done < 0 && errno != EINTR)) {
        child = 0;  // reaped (or not ours to wait for)
        break;
      }
      if (std::chrono::steady_clock::now() >= exit_deadline) {
        timed_out = !end;
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

  if (end && end->value("end", "") == "error") {
    return Status(StatusCodeFromInt(end->value("code", static_cast<int>(StatusCode::kInternal))),
                  end->value("message", "the suite stopped"));
  }
  if (end) {
    report.negotiated_version = end->value("negotiated_version", "");
    return report;
  }
  std::string where = last_check.empty() ? "before the first check ended"
                                         : "after check '" + last_check + "'";
  std::string why = timed_out ? "no check ended for " + std::to_string(idle_timeout.count()) +
                                    " s " + where + "; the plugin's process was killed (a hang?)"
                              : ChildEnd(status) + " " + where;
  CheckResult crashed{kFinished, Outcome::kFail, why + "; the checks after it did not run"};
  if (on_result) on_result(crashed);
  report.results.push_back(std::move(crashed));
  return report;
}

}  // namespace berth::conformance
