#include "berth/event.hpp"

#include "berth/log.hpp"
#include "loader/plugin_library.hpp"

namespace berth {

Event::Event(std::shared_ptr<const core::PluginLibrary> library, BERTH_Event* event)
    : library_(std::move(library)), event_(event) {}

Event::Event(Event&& other) noexcept
    : library_(std::move(other.library_)), event_(std::exchange(other.event_, nullptr)) {}

Event& Event::operator=(Event&& other) noexcept {
  if (this != &other) {
    Reset();
    library_ = std::move(other.library_);
    event_ = std::exchange(other.event_, nullptr);
  }
  return *this;
}

Event::~Event() { Reset(); }

void Event::Reset() {
  if (event_ == nullptr) return;
  BERTH_Event_Destroy_Args args{};
  args.struct_size = BERTH_Event_Destroy_Args_STRUCT_SIZE;
  args.event = std::exchange(event_, nullptr);
  if (Status status = BERTH_CALL(*library_, BERTH_Event_Destroy, &args); !status.ok()) {
    Log(LogLevel::kWarning, "client", "destroying an event failed: " + status.ToString());
  }
}

bool Event::IsReady() const {
  if (event_ == nullptr) return true;
  BERTH_Event_IsReady_Args args{};
  args.struct_size = BERTH_Event_IsReady_Args_STRUCT_SIZE;
  args.event = event_;
  if (!BERTH_CALL(*library_, BERTH_Event_IsReady, &args).ok()) return false;
  return args.is_ready;
}

Status Event::Await() const {
  if (event_ == nullptr) return OkStatus();
  BERTH_Event_Await_Args args{};
  args.struct_size = BERTH_Event_Await_Args_STRUCT_SIZE;
  args.event = event_;
  return BERTH_CALL(*library_, BERTH_Event_Await, &args);
}

namespace {

struct OnReadyContext {
  std::shared_ptr<const core::PluginLibrary> library;
  std::function<void(Status)> callback;
};

void OnReadyTrampoline(BERTH_Error* error, void* user_arg) {
  std::unique_ptr<OnReadyContext> context(static_cast<OnReadyContext*>(user_arg));
  Status status = context->library->TakeError(error, "BERTH_Event_OnReady callback");
  context->callback(std::move(status));
}

}  // namespace

Status Event::OnReady(std::function<void(Status)> callback) const {
  if (event_ == nullptr) {
    callback(OkStatus());
    return OkStatus();
  }
  auto context = std::make_unique<OnReadyContext>(OnReadyContext{library_, std::move(callback)});
  BERTH_Event_OnReady_Args args{};
  args.struct_size = BERTH_Event_OnReady_Args_STRUCT_SIZE;
  args.event = event_;
  args.callback = OnReadyTrampoline;
  args.user_arg = context.get();
  Status status = BERTH_CALL(*library_, BERTH_Event_OnReady, &args);
  // On success the trampoline owns the context (it may have run already).
  if (status.ok()) (void)context.release();
  return status;
}

}  // namespace berth
