// Status and Result<T>: how Berth's C++ code (host, SDK, plugins) reports
// errors. Codes are the canonical ones, numerically equal to BERTH_Error_Code.
// Header-only and dependency-free so plugin authors and applications share it.
#ifndef BERTH_STATUS_HPP_
#define BERTH_STATUS_HPP_

#include <cassert>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>

namespace berth {

enum class StatusCode : int {
  kOk = 0,
  kCancelled = 1,
  kUnknown = 2,
  kInvalidArgument = 3,
  kDeadlineExceeded = 4,
  kNotFound = 5,
  kAlreadyExists = 6,
  kPermissionDenied = 7,
  kResourceExhausted = 8,
  kFailedPrecondition = 9,
  kAborted = 10,
  kOutOfRange = 11,
  kUnimplemented = 12,
  kInternal = 13,
  kUnavailable = 14,
  kDataLoss = 15,
  kUnauthenticated = 16,
};

// The canonical upper-case name, e.g. "INVALID_ARGUMENT".
constexpr std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "OK";
    case StatusCode::kCancelled: return "CANCELLED";
    case StatusCode::kUnknown: return "UNKNOWN";
    case StatusCode::kInvalidArgument: return "INVALID_ARGUMENT";
    case StatusCode::kDeadlineExceeded: return "DEADLINE_EXCEEDED";
    case StatusCode::kNotFound: return "NOT_FOUND";
    case StatusCode::kAlreadyExists: return "ALREADY_EXISTS";
    case StatusCode::kPermissionDenied: return "PERMISSION_DENIED";
    case StatusCode::kResourceExhausted: return "RESOURCE_EXHAUSTED";
    case StatusCode::kFailedPrecondition: return "FAILED_PRECONDITION";
    case StatusCode::kAborted: return "ABORTED";
    case StatusCode::kOutOfRange: return "OUT_OF_RANGE";
    case StatusCode::kUnimplemented: return "UNIMPLEMENTED";
    case StatusCode::kInternal: return "INTERNAL";
    case StatusCode::kUnavailable: return "UNAVAILABLE";
    case StatusCode::kDataLoss: return "DATA_LOSS";
    case StatusCode::kUnauthenticated: return "UNAUTHENTICATED";
  }
  return "UNKNOWN";
}

// Maps any integer (e.g. a code read from a plugin) onto a valid StatusCode;
// values outside 0..16 become kUnknown.
constexpr StatusCode StatusCodeFromInt(int code) {
  return code >= 0 && code <= 16 ? static_cast<StatusCode>(code)
                                 : StatusCode::kUnknown;
}

// Success, or a canonical code with a message naming what failed and where.
class [[nodiscard]] Status {
 public:
  Status() = default;
  Status(StatusCode code, std::string message)
      : code_(code), message_(code == StatusCode::kOk ? std::string() : std::move(message)) {}

  static Status Ok() { return Status(); }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // "OK" or "NOT_FOUND: <message>".
  std::string ToString() const {
    if (ok()) return "OK";
    std::string out(StatusCodeName(code_));
    out += ": ";
    out += message_;
    return out;
  }

  // The same code with "<context>: " put before the message.
  Status WithContext(std::string_view context) const {
    if (ok()) return *this;
    std::string message(context);
    message += ": ";
    message += message_;
    return Status(code_, std::move(message));
  }

  // Marks a status as deliberately dropped.
  void IgnoreError() const {}

  friend bool operator==(const Status& a, const Status& b) {
    return a.code_ == b.code_ && a.message_ == b.message_;
  }

 private:
  StatusCode code_ = StatusCode::kOk;
  std::string message_;
};

inline Status OkStatus() { return Status(); }
inline Status CancelledError(std::string m) { return {StatusCode::kCancelled, std::move(m)}; }
inline Status UnknownError(std::string m) { return {StatusCode::kUnknown, std::move(m)}; }
inline Status InvalidArgumentError(std::string m) { return {StatusCode::kInvalidArgument, std::move(m)}; }
inline Status DeadlineExceededError(std::string m) { return {StatusCode::kDeadlineExceeded, std::move(m)}; }
inline Status NotFoundError(std::string m) { return {StatusCode::kNotFound, std::move(m)}; }
inline Status AlreadyExistsError(std::string m) { return {StatusCode::kAlreadyExists, std::move(m)}; }
inline Status PermissionDeniedError(std::string m) { return {StatusCode::kPermissionDenied, std::move(m)}; }
inline Status ResourceExhaustedError(std::string m) { return {StatusCode::kResourceExhausted, std::move(m)}; }
inline Status FailedPreconditionError(std::string m) { return {StatusCode::kFailedPrecondition, std::move(m)}; }
inline Status AbortedError(std::string m) { return {StatusCode::kAborted, std::move(m)}; }
inline Status OutOfRangeError(std::string m) { return {StatusCode::kOutOfRange, std::move(m)}; }
inline Status UnimplementedError(std::string m) { return {StatusCode::kUnimplemented, std::move(m)}; }
inline Status InternalError(std::string m) { return {StatusCode::kInternal, std::move(m)}; }
inline Status UnavailableError(std::string m) { return {StatusCode::kUnavailable, std::move(m)}; }
inline Status DataLossError(std::string m) { return {StatusCode::kDataLoss, std::move(m)}; }
inline Status UnauthenticatedError(std::string m) { return {StatusCode::kUnauthenticated, std::move(m)}; }

// A value of type T, or the error that prevented making one.
template <typename T>
class [[nodiscard]] Result {
  static_assert(!std::is_same_v<std::decay_t<T>, Status>, "Result<Status> is meaningless");

 public:
  // An error. Constructing from an OK status is a programming error and is
  // turned into an INTERNAL error rather than an empty value.
  Result(Status status) : state_(std::move(status)) {  // NOLINT(implicit)
    if (std::get<Status>(state_).ok()) {
      state_ = InternalError("Result constructed from an OK status without a value");
    }
  }
  Result(T value) : state_(std::move(value)) {}  // NOLINT(implicit)
  template <typename U,
            typename = std::enable_if_t<std::is_constructible_v<T, U&&> &&
                                        !std::is_same_v<std::decay_t<U>, Status> &&
                                        !std::is_same_v<std::decay_t<U>, Result>>>
  Result(U&& value) : state_(T(std::forward<U>(value))) {}  // NOLINT(implicit)

  bool ok() const { return std::holds_alternative<T>(state_); }

  // OK when a value is held.
  Status status() const { return ok() ? Status() : std::get<Status>(state_); }

  T& value() & { assert(ok()); return std::get<T>(state_); }
  const T& value() const& { assert(ok()); return std::get<T>(state_); }
  T&& value() && { assert(ok()); return std::get<T>(std::move(state_)); }

  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T&& operator*() && { return std::move(*this).value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

  T value_or(T fallback) const& { return ok() ? std::get<T>(state_) : std::move(fallback); }

 private:
  std::variant<Status, T> state_;
};

namespace internal {
inline Status AsStatus(Status s) { return s; }
template <typename T>
Status AsStatus(const Result<T>& r) { return r.status(); }
}  // namespace internal

}  // namespace berth

#define BERTH_STATUS_CONCAT_INNER_(a, b) a##b
#define BERTH_STATUS_CONCAT_(a, b) BERTH_STATUS_CONCAT_INNER_(a, b)

// Returns the error of `expr` (a Status or Result) from the enclosing function.
#define BERTH_RETURN_IF_ERROR(expr)                                            \
  do {                                                                         \
    ::berth::Status berth_status_ = ::berth::internal::AsStatus(expr);         \
    if (!berth_status_.ok()) return berth_status_;                             \
  } while (0)

#define BERTH_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                 \
  if (!tmp.ok()) return tmp.status();                \
  lhs = std::move(tmp).value()

// Declares or assigns `lhs` from the value of a Result, or returns its error.
#define BERTH_ASSIGN_OR_RETURN(lhs, expr) \
  BERTH_ASSIGN_OR_RETURN_IMPL_(BERTH_STATUS_CONCAT_(berth_result_, __LINE__), lhs, expr)

#endif  // BERTH_STATUS_HPP_
