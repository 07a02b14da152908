#include "referee/service/watch_stream.h"

#include <memory>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "referee/service/match_host.h"
#include "referee/service/match_id.h"
#include "referee/service/parse_request.h"
#include "referee/service/serialized_message.h"
#include "referee/service/stream_writer.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

// One Watch call, served on the Play streams' completion queues
// (AsyncWriterStream). A spectator's (any caller but the admin token)
// counts against ServiceLimits::max_watchers from its start to its OnDone,
// or to its refusal (`watching` is the service's count); its events reach
// it serialized, shared with the match's other watchers.
class WatchReactor final : public AsyncWriterStream {
 public:
  WatchReactor(const RefereeService* service, Lobby* lobby,
               const ServiceLimits& limits, std::atomic<size_t>* watching)
      : service_(service),
        lobby_(lobby),
        limits_(limits),
        watching_(watching) {}

 private:
  using WatchWriter =
      StreamWriter<SerializedMessage, WatchReactor, SerializedMessage>;

  void OnStart() override {
    writer_ = std::make_shared<WatchWriter>(this, limits_.max_queued_messages,
                                            limits_.watch_queue_bytes);
    writer_->WatchStalls(service_->write_stalls(), context());
    if (absl::Status s = Admit(); !s.ok()) {
      // A refused watcher holds no place by the time its caller hears so: a
      // client that retries at once after another watcher's refusal, or
      // after ending one of its own, finds the room the limits promise.
      Release();
      writer_->Close(static_cast<int>(s.code()), std::string(s.message()));
    }
  }

  // Parses the request, counts the caller against the limits and adds it to
  // its match's watchers; the first refusal otherwise.
  absl::Status Admit() {
    v1::WatchRequest watch;
    if (absl::Status s = ParseRequest(request(), &watch); !s.ok()) return s;
    request().Clear();
    const absl::StatusOr<Principal> caller = service_->Caller(context());
    if (absl::Status s = service_->CheckReader(caller); !s.ok()) return s;
    if (absl::Status s =
            service_->CountNonAdminWatcher(context(), caller, &peer_);
        !s.ok()) {
      return s;
    }
    // The admin token's watches are the operator's (the tournament
    // runner's), not spectators': no spectator limit refuses them, nor do
    // they take a spectator's place.
    const bool spectator =
        !caller.ok() || caller->kind != Principal::Kind::kAdmin;
    if (spectator) {
      counted_ = true;
      if (watching_->fetch_add(1) >= limits_.max_watchers) {
        return absl::ResourceExhaustedError(
            limits_.max_watchers == 0
                ? "this referee takes no watchers (--max_watchers=0)"
                : absl::StrCat("this referee already serves ",
                               limits_.max_watchers,
                               " watchers, as many as it takes "
                               "(--max_watchers)"));
      }
    }
    if (absl::Status form = CheckMatchIdForm(watch.match_id()); !form.ok()) {
      return form;
    }
    std::shared_ptr<MatchHost> host = lobby_->FindMatch(watch.match_id());
    if (host == nullptr) return absl::NotFoundError("unknown match");
    return host->AddWatcher(
        writer_, spectator
                     ? std::optional<size_t>(limits_.max_watchers_per_match)
                     : std::nullopt);
  }

  // Gives back the places this call holds (its count and its address's).
  void Release() {
    if (counted_) watching_->fetch_sub(1);
    counted_ = false;
    peer_ = PeerSlot();
  }

  void OnWriteDone(bool ok) override { writer_->OnWriteDone(ok); }
  void OnCancel() override {
    writer_->Close(grpc::StatusCode::CANCELLED, "cancelled");
  }
  void OnDone() override {
    writer_->Detach();
    Release();
    delete this;
  }

  const RefereeService* const service_;
  Lobby* const lobby_;
  const ServiceLimits& limits_;  // The service's.
  std::atomic<size_t>* const watching_;
  std::shared_ptr<WatchWriter> writer_;  // Made when the call comes.
  bool counted_ = false;                 // In `watching` (a spectator).
  // Its place among its address's watchers without the admin token (empty
  // for the admin token).
  PeerSlot peer_;
};

}  // namespace

AsyncWriterStream* NewWatchStream(const RefereeService* service, Lobby* lobby,
                                  const ServiceLimits& limits,
                                  std::atomic<size_t>* watching) {
  return new WatchReactor(service, lobby, limits, watching);
}

}  // namespace pyramid
