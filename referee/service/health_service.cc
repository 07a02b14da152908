#include "referee/service/health_service.h"

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "referee/service/grpc_status.h"
#include "referee/service/one_request.h"
#include "referee/service/parse_request.h"

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
          const std::string* known)
      : service_(service), known_(known) {
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

// The position of `method` in the health service, as the generated code
// numbers methods.
int MethodIndex(const std::string& method) {
  return google::protobuf::DescriptorPool::generated_pool()
      ->FindServiceByName(grpc::health::v1::Health::service_full_name())
      ->FindMethodByName(method)
      ->index();
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
      stalls_(stalls) {
  // Taken at their headers (one_request.h).
  auto check = [this](grpc::CallbackServerContext* context) {
    return StartCheck(context);
  };
  auto watch = [this](grpc::CallbackServerContext* context) {
    return StartWatch(context);
  };
  MarkMethodStreamed(MethodIndex("Check"),
                     OneRequestHandler<HealthCheckResponse>(check));
  MarkMethodRawCallback(MethodIndex("Check"),
                        OneRequestHandler<HealthCheckResponse>(check));
  MarkMethodStreamed(MethodIndex("Watch"),
                     OneRequestHandler<HealthCheckResponse>(watch));
  MarkMethodRawCallback(MethodIndex("Watch"),
                        OneRequestHandler<HealthCheckResponse>(watch));
}

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

grpc::ServerBidiReactor<grpc::ByteBuffer, HealthCheckResponse>*
HealthService::StartCheck(grpc::CallbackServerContext* context) {
  // Counted from its headers until its answer is taken: the call's reactor
  // holds its place.
  PeerSlot slot;
  grpc::Status admitted;
  {
    absl::MutexLock lock(&mu_);
    if (!check_peers_.TryAdd(context->peer(), checks_per_peer_.limit, &slot)) {
      admitted = grpc::Status(
          grpc::StatusCode::RESOURCE_EXHAUSTED,
          absl::StrCat("this server already has ", checks_per_peer_.limit,
                       " health Check calls of your address in "
                       "progress, as many as it takes",
                       SetBy(checks_per_peer_.name),
                       "; retry once one is done"));
    }
  }
  return new OneRequestUnary<HealthCheckResponse>(
      context, stalls_, std::move(slot), admitted,
      [this](grpc::ByteBuffer* raw, HealthCheckResponse* response) {
        HealthCheckRequest request;
        const absl::Status parsed = ParseRequest(*raw, &request);
        if (!parsed.ok()) return ToGrpc(parsed);
        absl::MutexLock lock(&mu_);
        return Answer(request.service(), response);
      });
}

grpc::ServerBidiReactor<grpc::ByteBuffer, HealthCheckResponse>*
HealthService::StartWatch(grpc::CallbackServerContext* context) {
  // Counted from its headers until done: the call's reactor holds its place.
  PeerSlot slot;
  grpc::Status admitted;
  {
    absl::MutexLock lock(&mu_);
    if (!watch_peers_.TryAdd(context->peer(), watchers_per_peer_.limit,
                             &slot)) {
      admitted = grpc::Status(
          grpc::StatusCode::RESOURCE_EXHAUSTED,
          absl::StrCat("this server already serves ", watchers_per_peer_.limit,
                       " health Watch streams of your address, as many as it "
                       "takes",
                       SetBy(watchers_per_peer_.name), "; end one first"));
    }
  }
  return new OneRequestStream<HealthCheckResponse>(
      context, stalls_, std::move(slot), admitted,
      [this, context](grpc::ByteBuffer* raw) { return Watch(context, raw); });
}

grpc::ServerWriteReactor<HealthCheckResponse>* HealthService::Watch(
    grpc::CallbackServerContext* context, grpc::ByteBuffer* raw) {
  HealthCheckRequest request;
  if (absl::Status parsed = ParseRequest(*raw, &request); !parsed.ok()) {
    return new Refused(ToGrpc(parsed));
  }
  // Nothing of the request is kept (the caller releases its bytes).
  auto it = services_.find(request.service());
  const std::string* known = it == services_.end() ? nullptr : &*it;
  absl::MutexLock lock(&mu_);
  if (watchers_.size() >= max_watchers_) {
    return new Refused(
        grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                     absl::StrCat("this server already serves ", max_watchers_,
                                  " health Watch streams, as many as it takes",
                                  SetBy(limit_name_))));
  }
  auto* watcher = new Watcher(this, context, known);
  watchers_.insert(watcher);
  watcher->Update(StatusOf(known));
  return watcher;
}

}  // namespace pyramid
