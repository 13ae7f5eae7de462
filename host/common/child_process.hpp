// Running host code that touches a plugin in a forked child process, so that
// a plugin that aborts, crashes, exits or hangs ends the child, not the
// caller: `berth conformance` (the suite) and `berth validate` (opening each
// library as the loader would). The child sends text lines through a pipe.
#ifndef BERTH_HOST_COMMON_CHILD_PROCESS_HPP_
#define BERTH_HOST_COMMON_CHILD_PROCESS_HPP_

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "berth/status.hpp"

namespace berth::common {

// Sends one line (no newline in it) to the parent; false once the parent
// stopped reading.
using SendLine = std::function<bool(const std::string& line)>;

struct ChildOutcome {
  std::vector<std::string> lines;  // every line the child sent, in order
  bool timed_out = false;          // silent for the idle timeout: killed
  bool exited_cleanly = false;     // the body returned and the child exited 0
  // How the child ended when it did not exit cleanly: "died of signal 11
  // (SIGSEGV)", "exited with status 3", "sent nothing for 30 s and was
  // killed (a hang?)".
  std::string end;
};

// Forks; the child runs `body` with its standard output sent to standard
// error (the parent's output stays its own), then exits without running the
// parent's exit handlers. The parent calls `on_line` for each line as it
// arrives and kills the child when it sends nothing for `idle_timeout` (or
// closes its pipe and does not exit within that time). An error only when
// the process cannot be made.
Result<ChildOutcome> RunInChild(const std::function<void(const SendLine& send)>& body,
                                std::chrono::seconds idle_timeout,
                                const std::function<void(const std::string& line)>& on_line = {});

}  // namespace berth::common

#endif  // BERTH_HOST_COMMON_CHILD_PROCESS_HPP_
