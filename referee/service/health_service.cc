#include "referee/service/health_service.h"

#include <optional>
#include <utility>

namespace pyramid {

using grpc::health::v1::HealthCheckRequest;
using grpc::health::v1::HealthCheckResponse;

// One Watch call: writes the latest status it was given, one write at a
// time; a status that changes while a write is in flight is sent after it
// (only the latest). Deletes itself when the call is done.
class HealthService::Watcher final
    : public grpc::ServerWriteReactor<HealthCheckResponse> {
 public:
  Watcher(HealthService* service, std::string name)
      : service_(service), name_(std::move(name)) {}

  const std::string& name() const { return name_; }

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
    StartWrite(&response_);
  }
  void FinishLocked(const grpc::Status& status)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (finished_) return;
    finished_ = true;
    Finish(status);
  }

  HealthService* const service_;
  const std::string name_;
  absl::Mutex mu_;
  HealthCheckResponse response_ ABSL_GUARDED_BY(mu_);  // The one in flight.
  bool writing_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  std::optional<Status> last_queued_ ABSL_GUARDED_BY(mu_);
  std::optional<Status> pending_ ABSL_GUARDED_BY(mu_);
};

namespace {

std::set<std::string> WithServer(std::vector<std::string> services) {
  std::set<std::string> names(services.begin(), services.end());
  names.insert("");
  return names;
}

}  // namespace

HealthService::HealthService(std::vector<std::string> services)
    : services_(WithServer(std::move(services))) {}

HealthService::Status HealthService::StatusOf(
    const std::string& service) const {
  if (services_.count(service) == 0)
    return HealthCheckResponse::SERVICE_UNKNOWN;
  return serving_ ? HealthCheckResponse::SERVING
                  : HealthCheckResponse::NOT_SERVING;
}

void HealthService::SetServing(bool serving) {
  absl::MutexLock lock(&mu_);
  serving_ = serving;
  for (Watcher* watcher : watchers_) {
    // A watcher of an unknown service stays SERVICE_UNKNOWN.
    watcher->Update(StatusOf(watcher->name()));
  }
}

grpc::ServerUnaryReactor* HealthService::Check(
    grpc::CallbackServerContext* context, const HealthCheckRequest* request,
    HealthCheckResponse* response) {
  grpc::ServerUnaryReactor* reactor = context->DefaultReactor();
  absl::MutexLock lock(&mu_);
  const Status status = StatusOf(request->service());
  if (status == HealthCheckResponse::SERVICE_UNKNOWN) {
    std::string known;
    for (const std::string& name : services_) {
      if (!name.empty()) known += (known.empty() ? "" : ", ") + name;
    }
    reactor->Finish(grpc::Status(grpc::StatusCode::NOT_FOUND,
                                 "unknown service \"" + request->service() +
                                     "\"; this server serves \"\" (itself), " +
                                     known));
    return reactor;
  }
  response->set_status(status);
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

grpc::ServerWriteReactor<HealthCheckResponse>* HealthService::Watch(
    grpc::CallbackServerContext* context, const HealthCheckRequest* request) {
  auto* watcher = new Watcher(this, request->service());
  absl::MutexLock lock(&mu_);
  watchers_.insert(watcher);
  watcher->Update(StatusOf(request->service()));
  return watcher;
}

}  // namespace pyramid
