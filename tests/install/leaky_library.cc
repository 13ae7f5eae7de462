// A library that exports what libberth must not: a host internal, a member
// of a type nested in a public class, and a std:: template instance beside
// one public name. check_exports.py must reject it (meson test
// check_exports_rejects_internal_symbols), so its pass on libberth means
// something.
#include <string>
#include <vector>

#define LEAK __attribute__((visibility("default")))

namespace berth {
namespace core {
LEAK int InternalCounter() { return 1; }
}  // namespace core
struct HostOptions {};
class LEAK Host {
 public:
  static int Create(const HostOptions& options);
};
int Host::Create(const HostOptions&) { return 0; }
class LEAK Job {
 public:
  struct Impl {
    void OnError();
  };
};
void Job::Impl::OnError() {}
}  // namespace berth

LEAK std::vector<std::string> LeakedVector() { return {"x"}; }
