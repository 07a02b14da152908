#include "referee/service/health_service.h"

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "referee/service/counted_reply.h"

namespace pyramid {

using grpc::health::v1::HealthCheckRequest;
using grpc::health::v1::HealthCheckResponse;

// One Watch call: writes the latest status it was given, one write at a
// time; a status that changes while a write is in flight is sent after it
// (only the latest). Deletes itself when the call is done.
class HealthService::Watcher final
    : public grpc::ServerWriteReactor<HealthCheckResponse> {
 public:
  // `known`: the watched service's name in the service's list (null: a
  // name it does not serve).
  Watcher(HealthService* service, grpc::CallbackServerContext* context,
          const std::string* known, PeerSlot slot)
      : service_(service), known_(known), slot_(std::move(slot)) {
    stall_.Arm(service->stalls_, context);
  }

  const std::string* known() const { return known_; }

  // Called under the service's lock.
  void Update(Status status) {
    absl::MutexLock lock(&mu_);
    if (finished_ || status == last_queued_) return;
    last_queued_ = status;
    if (writing_) {
      pending_ = status;
      return;
    }
    WriteLocked(status);
  }

  void OnWriteDone(bool ok) override {
    absl::MutexLock lock(&mu_);
    writing_ = false;
    stall_.Stop();
    if (!ok) {
      FinishLocked(grpc::Status(grpc::StatusCode::CANCELLED, "write failed"));
      return;
    }
    if (pending_.has_value()) {
      const Status next = *pending_;
      pending_.reset();
      WriteLocked(next);
    }
  }

  void OnCancel() override {
    absl::MutexLock lock(&mu_);
    FinishLocked(grpc::Status::CANCELLED);
  }

  void OnDone() override {
    stall_.Done();
    {
      absl::MutexLock lock(&service_->mu_);
      service_->watchers_.erase(this);
    }
    delete this;
  }

 private:
  void WriteLocked(Status status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    response_.set_status(status);
    writing_ = true;
    stall_.Start();
    StartWrite(&response_);
  }
  void FinishLocked(const grpc::Status& status)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (finished_) return;
    finished_ = true;
    stall_.Start();  // The Finish is in flight until OnDone.
    Finish(status);
  }

  HealthService* const service_;
  const std::string* const known_;
  PeerSlot slot_;  // Its place among its address's; given back as it goes.
  absl::Mutex mu_;
  HealthCheckResponse response_ ABSL_GUARDED_BY(mu_);  // The one in flight.
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  std::optional<Status> last_queued_ ABSL_GUARDED_BY(mu_);
  std::optional<Status> pending_ ABSL_GUARDED_BY(mu_);
  WriteStall stall_;  // Started and stopped under mu_.
};

namespace {

// The longest service name an error message repeats.
constexpr size_t kMaxNameEchoed = 256;

// A Watch stream refused before it starts: finishes with `status`.
class Refused final : public grpc::ServerWriteReactor<HealthCheckResponse> {
 public:
  explicit Refused(const grpc::Status& status) { Finish(status); }
  void OnDone() override { delete this; }
};

// What sets a limit, to name in a refusal: " (--flag)", or nothing.
std::string SetBy(const std::string& name) {
  return name.empty() ? "" : absl::StrCat(" (", name, ")");
}

// Releases all of a request gRPC keeps until its call is done (a name, and
// any fields unknown here, either as long as the largest message taken),
// swapped into an empty request that goes at once. (The request is gRPC's
// own, not const.)
void Release(const HealthCheckRequest* request) {
  HealthCheckRequest().Swap(const_cast<HealthCheckRequest*>(request));
}

std::set<std::string> WithServer(std::vector<std::string> services) {
  std::set<std::string> names(services.begin(), services.end());
  names.insert("");
  return names;
}

}  // namespace

HealthService::HealthService(std::vector<std::string> services,
                             size_t max_watchers, std::string limit_name,
                             WriteStallGuard* stalls)
    : services_(WithServer(std::move(services))),
      max_watchers_(max_watchers),
      limit_name_(std::move(limit_name)),
      stalls_(stalls) {}

HealthService::Status HealthService::StatusOf(
    const std::string& service) const {
  auto it = services_.find(service);
  return StatusOf(it == services_.end() ? nullptr : &*it);
}

HealthService::Status HealthService::StatusOf(const std::string* known) const {
  if (known == nullptr) return HealthCheckResponse::SERVICE_UNKNOWN;
  return serving_ ? HealthCheckResponse::SERVING
                  : HealthCheckResponse::NOT_SERVING;
}

void HealthService::LimitWatchersPerPeer(size_t limit, std::string limit_name) {
  absl::MutexLock lock(&mu_);
  watchers_per_peer_ = {limit, std::move(limit_name)};
}

void HealthService::LimitChecksPerPeer(size_t limit, std::string limit_name) {
  absl::MutexLock lock(&mu_);
  checks_per_peer_ = {limit, std::move(limit_name)};
}

void HealthService::SetServing(bool serving) {
  absl::MutexLock lock(&mu_);
  serving_ = serving;
  for (Watcher* watcher : watchers_) {
    // A watcher of an unknown service stays SERVICE_UNKNOWN.
    watcher->Update(StatusOf(watcher->known()));
  }
}

grpc::Status HealthService::Answer(const std::string& service,
                                   HealthCheckResponse* response) const {
  const Status status = StatusOf(service);
  if (status == HealthCheckResponse::SERVICE_UNKNOWN) {
    std::string known;
    for (const std::string& name : services_) {
      if (!name.empty()) known += (known.empty() ? "" : ", ") + name;
    }
    // A name too long to be one is not sent back (a status message over
    // the client's metadata limit would reach it as another error).
    const std::string named =
        service.size() <= kMaxNameEchoed
            ? absl::StrCat("\"", service, "\"")
            : absl::StrCat("(a name of ", service.size(), " bytes)");
    return grpc::Status(
        grpc::StatusCode::NOT_FOUND,
        absl::StrCat("unknown service ", named,
                     "; this server serves \"\" (itself), ", known));
  }
  response->set_status(status);
  return grpc::Status::OK;
}

grpc::ServerUnaryReactor* HealthService::Check(
    grpc::CallbackServerContext* context, const HealthCheckRequest* request,
    HealthCheckResponse* response) {
  absl::MutexLock lock(&mu_);
  // Counted until its answer is taken: the call's reactor holds its place.
  PeerSlot slot;
  const grpc::Status answer =
      check_peers_.TryAdd(context->peer(), checks_per_peer_.limit, &slot)
          ? Answer(request->service(), response)
          : grpc::Status(
                grpc::StatusCode::RESOURCE_EXHAUSTED,
                absl::StrCat("this server already has ", checks_per_peer_.limit,
                             " health Check calls of your address in "
                             "progress, as many as it takes",
                             SetBy(checks_per_peer_.name),
                             "; retry once one is done"));
  // gRPC keeps the request until the call is done, which a client that
  // takes nothing puts off: released now.
  Release(request);
  auto* reactor = new CountedReply(context, stalls_, std::move(slot));
  reactor->Reply(answer);
  return reactor;
}

grpc::ServerWriteReactor<HealthCheckResponse>* HealthService::Watch(
    grpc::CallbackServerContext* context, const HealthCheckRequest* request) {
  auto it = services_.find(request->service());
  const std::string* known = it == services_.end() ? nullptr : &*it;
  // gRPC keeps the request until the stream is done: released now.
  Release(request);
  absl::MutexLock lock(&mu_);
  if (watchers_.size() >= max_watchers_) {
    return new Refused(
        grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                     absl::StrCat("this server already serves ", max_watchers_,
                                  " health Watch streams, as many as it takes",
                                  SetBy(limit_name_))));
  }
  PeerSlot slot;
  if (!watch_peers_.TryAdd(context->peer(), watchers_per_peer_.limit, &slot)) {
    return new Refused(grpc::Status(
        grpc::StatusCode::RESOURCE_EXHAUSTED,
        absl::StrCat("this server already serves ", watchers_per_peer_.limit,
                     " health Watch streams of your address, as many as it "
                     "takes",
                     SetBy(watchers_per_peer_.name), "; end one first")));
  }
  auto* watcher = new Watcher(this, context, known, std::move(slot));
  watchers_.insert(watcher);
  watcher->Update(StatusOf(known));
  return watcher;
}

}  // namespace pyramid
