#include "referee/service/watch_stream.h"

#include <memory>
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
// (AsyncWriterStream). It counts against ServiceLimits::max_watchers from
// its start to its OnDone (`watching` is the service's count); its events
// reach it serialized, shared with the match's other watchers.
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
    v1::WatchRequest watch;
    if (absl::Status s = ParseRequest(request(), &watch); !s.ok()) {
      writer_->Close(static_cast<int>(s.code()), std::string(s.message()));
      return;
    }
    request().Clear();
    const absl::StatusOr<Principal> caller = service_->Caller(context());
    if (absl::Status s = service_->CheckReader(caller); !s.ok()) {
      writer_->Close(static_cast<int>(s.code()), std::string(s.message()));
      return;
    }
    if (absl::Status s =
            service_->CountAnonymousWatcher(context(), caller, &peer_);
        !s.ok()) {
      writer_->Close(static_cast<int>(s.code()), std::string(s.message()));
      return;
    }
    counted_ = true;
    if (watching_->fetch_add(1) >= limits_.max_watchers) {
      writer_->Close(grpc::StatusCode::RESOURCE_EXHAUSTED,
                     limits_.max_watchers == 0
                         ? "this referee takes no watchers (--max_watchers=0)"
                         : absl::StrCat("this referee already serves ",
                                        limits_.max_watchers,
                                        " watchers, as many as it takes "
                                        "(--max_watchers)"));
      return;
    }
    if (absl::Status form = CheckMatchIdForm(watch.match_id()); !form.ok()) {
      writer_->Close(grpc::StatusCode::INVALID_ARGUMENT,
                     std::string(form.message()));
      return;
    }
    std::shared_ptr<MatchHost> host = lobby_->FindMatch(watch.match_id());
    if (host == nullptr) {
      writer_->Close(grpc::StatusCode::NOT_FOUND, "unknown match");
      return;
    }
    if (absl::Status added =
            host->AddWatcher(writer_, limits_.max_watchers_per_match);
        !added.ok()) {
      writer_->Close(static_cast<int>(added.code()),
                     std::string(added.message()));
    }
  }
  void OnWriteDone(bool ok) override { writer_->OnWriteDone(ok); }
  void OnCancel() override {
    writer_->Close(grpc::StatusCode::CANCELLED, "cancelled");
  }
  void OnDone() override {
    writer_->Detach();
    if (counted_) watching_->fetch_sub(1);
    delete this;
  }

  const RefereeService* const service_;
  Lobby* const lobby_;
  const ServiceLimits& limits_;  // The service's.
  std::atomic<size_t>* const watching_;
  std::shared_ptr<WatchWriter> writer_;  // Made when the call comes.
  bool counted_ = false;                 // In `watching`.
  // Its place among its address's watchers without a token (empty for a
  // caller with one).
  PeerSlot peer_;
};

}  // namespace

AsyncWriterStream* NewWatchStream(const RefereeService* service, Lobby* lobby,
                                  const ServiceLimits& limits,
                                  std::atomic<size_t>* watching) {
  return new WatchReactor(service, lobby, limits, watching);
}

}  // namespace pyramid
