#include "referee/service/match_host.h"

#include <algorithm>
#include <iterator>
#include <utility>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/arena.h"
#include "referee/crypto/bytes.h"
#include "referee/service/decision_request.h"
#include "referee/service/public_reason.h"
#include "referee/service/scratch_arena.h"
#include "referee/service/view_delta.h"

namespace pyramid {
namespace {

constexpr int kOk = 0;

// What Match::Commit and Match::Reveal return once the match is over.
absl::Status MatchOver() {
  return absl::FailedPreconditionError("the match is over");
}

// What the seats are told of a match that broke (its log could not be
// written) and stopped.
absl::Status Broken(const std::string& reason) {
  return absl::DataLossError(
      absl::StrCat("the match is broken and stopped: ", reason,
                   " (its log verifies up to its last checkpoint)"));
}

// Closes `sink` with `status` (its code is gRPC's).
void CloseWith(PlaySink& sink, const absl::Status& status) {
  sink.Close(static_cast<int>(status.code()), std::string(status.message()));
}

int64_t UnixMs(absl::Time t) {
  return t == absl::InfiniteFuture() ? 0 : absl::ToUnixMillis(t);
}

// The index of `seat` in the decision, or -1.
int IndexIn(const DecisionView& decision, int seat) {
  auto it = std::find(decision.seats.begin(), decision.seats.end(), seat);
  return it == decision.seats.end()
             ? -1
             : static_cast<int>(it - decision.seats.begin());
}

}  // namespace

std::vector<uint64_t> RoutesOf(const std::vector<HostedSeat>& seats) {
  std::vector<uint64_t> routes;
  routes.reserve(seats.size());
  for (const HostedSeat& seat : seats) routes.push_back(seat.route);
  return routes;
}

MatchHost::MatchHost(std::unique_ptr<Match> match, v1::GameConfig game,
                     std::vector<HostedSeat> seats, v1::ClockSettings clocks,
                     v1::ForfeitPolicy policy, std::string log_path,
                     int64_t created_unix_ms, Connections* connections,
                     std::function<void(absl::Time)> on_deadline)
    : match_id_(ToHex(match->match_id())),
      game_(std::move(game)),
      seats_(std::move(seats)),
      clocks_(std::move(clocks)),
      policy_(policy),
      log_path_(std::move(log_path)),
      created_unix_ms_(created_unix_ms),
      connections_(connections),
      on_deadline_(std::move(on_deadline)),
      match_(std::move(match)) {
  // A resumed match: the decisions before the open one were applied.
  if (const std::optional<DecisionView> d = match_->decision(); d && d->id) {
    last_applied_ = d->id - 1;
    closed_ = d->id - 1;
  }
  match_->set_listener(
      [this](const v1::LogRecord& record, std::string_view seat_note)
          ABSL_NO_THREAD_SAFETY_ANALYSIS { OnRecord(record, seat_note); });
}

namespace {

std::vector<HostedSeat> ArchivedSeats(const v1::MatchInfo& info,
                                      absl::Span<const uint64_t> routes) {
  std::vector<HostedSeat> seats;
  for (int i = 0; i < info.seats_size(); ++i) {
    const v1::MatchSeatInfo& seat = info.seats(i);
    seats.push_back({seat.name(), seat.bot_id(),
                     static_cast<size_t>(i) < routes.size() ? routes[i] : 0});
  }
  return seats;
}

// Sends each message to its stream, in order, each stream corked meanwhile
// so that what one stream gets can go out as one write; then closes the
// streams whose last message was among them, once it is queued.
void SendTogether(std::vector<OutgoingMessage>& outbox) {
  absl::InlinedVector<PlaySink*, 4> corked;  // Few: the seats' streams.
  for (const OutgoingMessage& out : outbox) {
    if (std::find(corked.begin(), corked.end(), out.sink.get()) ==
        corked.end()) {
      corked.push_back(out.sink.get());
      out.sink->Cork();
    }
  }
  for (OutgoingMessage& out : outbox) out.sink->Send(std::move(out.message));
  for (PlaySink* sink : corked) sink->Uncork();
  for (const OutgoingMessage& out : outbox) {
    if (out.last) CloseWith(*out.sink, *out.last);
  }
}

}  // namespace

MatchHost::MatchHost(const v1::MatchInfo& info, std::string log_path,
                     absl::Span<const uint64_t> routes,
                     Connections* connections)
    : match_id_(info.match_id()),
      game_(info.game()),
      seats_(ArchivedSeats(info, routes)),
      clocks_(info.clocks()),
      policy_(info.forfeit_policy()),
      log_path_(std::move(log_path)),
      created_unix_ms_(info.created_unix_ms()),
      request_id_(info.request_id()),
      label_(info.label()),
      connections_(connections),
      on_deadline_([](absl::Time) {}),
      archived_status_(info.status()),
      outcome_(info.outcome()),
      // An entry recorded before reasons were made public may name the
      // log's directory.
      broken_reason_(PublicBrokenReason(info.broken_reason(), log_path_)) {}

std::shared_ptr<PlaySink> MatchHost::SendToSeat(int seat,
                                                const v1::PlayResponse& message,
                                                bool acknowledgement) {
  std::shared_ptr<PlaySink> sink = StreamOf(seat);
  if (sink != nullptr) SendTo(sink, message, acknowledgement);
  return sink;
}

std::shared_ptr<PlaySink> MatchHost::StreamOf(int seat) {
  // A match let go keeps no stream.
  if (match_ == nullptr) return connections_->Find(seats_[seat].route);
  if (streams_.empty()) streams_.resize(seats_.size());
  CachedStream& cached = streams_[seat];
  const uint64_t version = connections_->version();
  if (cached.version != version) {
    cached.sink = connections_->Find(seats_[seat].route);
    cached.version = version;
  }
  return cached.sink;
}

void MatchHost::SendTo(const std::shared_ptr<PlaySink>& sink,
                       const v1::PlayResponse& message, bool acknowledgement,
                       std::optional<absl::Status> last) {
  SerializedMessage bytes = SerializedMessage::Of(message);
  if (deferring_) {
    // Room for what a step usually sends (an acknowledgement, and a
    // request or result per seat) at once, instead of growing to it.
    if (outbox_.empty()) outbox_.reserve(2 * seats_.size() + 1);
    outbox_.push_back({sink, std::move(bytes), acknowledgement, last});
  } else if (awaiting_sync_) {
    sync_outbox_.push_back({sink, std::move(bytes), acknowledgement, last});
  } else {
    sink->Send(std::move(bytes));
    if (last) CloseWith(*sink, *last);  // Written first: Close drains it.
  }
}

void MatchHost::set_sync_pool(SyncPool* pool) {
  absl::MutexLock lock(&mu_);
  sync_pool_ = pool;
  if (pool != nullptr && match_ != nullptr) match_->DeferCheckpointSyncs();
}

void MatchHost::OnSynced(const absl::Status& status) {
  absl::MutexLock lock(&mu_);
  --syncs_pending_;
  if (!awaiting_sync_) return;  // A shutdown checkpoint synced all.
  if (status.ok()) {
    if (syncs_pending_ > 0) return;
    SendSyncedLocked();
    // Sealed, unless the seal failed after the checkpoint (then the match
    // broke, and was said to).
    if (match_ != nullptr && match_->finished() && match_->broken().ok()) {
      EndLocked();
    }
    return;
  }
  // Not durable: nothing that waited for it is sent, and the match stops.
  // A match that broke meanwhile was announced behind the sync: that
  // announcement (and what followed it) is sent now, once.
  awaiting_sync_ = false;
  std::vector<OutgoingMessage> since_broken;
  if (const std::optional<size_t> from =
          std::exchange(broken_in_sync_outbox_, std::nullopt)) {
    since_broken.assign(std::make_move_iterator(sync_outbox_.begin() + *from),
                        std::make_move_iterator(sync_outbox_.end()));
  }
  sync_outbox_.clear();
  end_unannounced_ = false;
  match_->Break(status);
  if (broken_reason_.empty()) {
    AnnounceBroken();
  } else {
    SendTogether(since_broken);
  }
}

void MatchHost::SendSyncedLocked() {
  awaiting_sync_ = false;
  broken_in_sync_outbox_.reset();
  std::vector<OutgoingMessage> synced = std::exchange(sync_outbox_, {});
  SendTogether(synced);
}

void MatchHost::PruneWatchersLocked() {
  watchers_.erase(std::remove_if(watchers_.begin(), watchers_.end(),
                                 [](const std::shared_ptr<WatchSink>& w) {
                                   return w->closed();
                                 }),
                  watchers_.end());
  if (watchers_.empty()) watched_view_.reset();
}

void MatchHost::SendToWatchers(const v1::WatchEvent& event) {
  if (!deferring_) {
    DeliverToWatchers(absl::MakeConstSpan(&event, 1));
  } else if (!watchers_.empty()) {
    watch_outbox_.push_back(event);
  }
}

void MatchHost::DeliverToWatchers(absl::Span<const v1::WatchEvent> events) {
  PruneWatchersLocked();
  if (watchers_.empty() || events.empty()) return;
  std::vector<SerializedMessage> bytes;
  bytes.reserve(events.size());
  for (const v1::WatchEvent& event : events) {
    bytes.push_back(SerializedMessage::Of(event));
  }
  std::optional<SerializedMessage> snapshot;
  for (const std::shared_ptr<WatchSink>& watcher : watchers_) {
    for (size_t i = 0; i < events.size(); ++i) {
      if (watcher->Offer(bytes[i])) continue;
      // Its queue was dropped: the snapshot (the state now, after every
      // one of `events`) replaces what it lost and what is left of them,
      // but for what a snapshot does not hold: faults and the end.
      if (!snapshot) snapshot = SerializedMessage::Of(SnapshotLocked());
      watcher->Offer(*snapshot);
      for (size_t j = i; j < events.size(); ++j) {
        if (!events[j].has_fault() && !events[j].has_outcome()) continue;
        // Still too full (a large snapshot): the end must arrive; a
        // fault, which the log keeps, may be skipped.
        if (!watcher->Offer(bytes[j]) && events[j].has_outcome()) {
          watcher->Offer(bytes[j]);
        }
      }
      break;
    }
  }
}

v1::WatchEvent MatchHost::SnapshotLocked() const {
  v1::WatchEvent event;
  v1::WatchSnapshot* snapshot = event.mutable_snapshot();
  if (watched_view_ &&
      watched_view_->game_case() != v1::Observation::GAME_NOT_SET) {
    snapshot->mutable_view()->set_decision_id(last_applied_);
    *snapshot->mutable_view()->mutable_view() = *watched_view_;
  }
  if (match_ == nullptr) return event;
  const std::optional<DecisionView> decision = match_->decision();
  if (!decision || (closed_ && decision->id <= *closed_)) return event;
  v1::PublicDecision* d = snapshot->mutable_decision();
  d->set_decision_id(decision->id);
  for (int seat : decision->seats) {
    d->add_seats(seat);
    if (match_->HasCommitted(seat)) snapshot->add_committed(seat);
  }
  d->set_simultaneous(decision->simultaneous);
  return event;
}

void MatchHost::SendError(int seat, uint64_t decision_id,
                          const absl::Status& status, bool faulted, bool last) {
  v1::PlayResponse message;
  v1::PlayError* error = message.mutable_error();
  error->set_match_id(match_id_);
  error->set_seat(seat);
  error->set_decision_id(decision_id);
  error->set_code(static_cast<int>(status.code()));
  error->set_message(std::string(status.message()));
  error->set_faulted(faulted);
  std::shared_ptr<PlaySink> sink = StreamOf(seat);
  if (sink == nullptr) return;
  SendTo(sink, message, /*acknowledgement=*/false,
         last ? std::optional<absl::Status>(status) : std::nullopt);
}

void MatchHost::SendBroken(int seat, uint64_t decision_id) {
  // A seat token plays this match alone: nothing more will be said on its
  // stream, which ends with the reason once the error is written. A bot's
  // stream carries its other matches and stays open.
  SendError(seat, decision_id, Broken(broken_reason_), /*faulted=*/false,
            /*last=*/PlaysAlone(seat));
}

void MatchHost::SendDecisionRequest(int seat) {
  const std::optional<DecisionView> decision = match_->decision();
  const int index = IndexIn(*decision, seat);
  // The result just sent to this seat's stream already shows the position.
  const bool in_result = static_cast<size_t>(seat) < result_streams_.size() &&
                         result_streams_[seat] != nullptr &&
                         result_streams_[seat] == StreamOf(seat);
  ScratchArena scratch;
  v1::PlayResponse& message = scratch.Make<v1::PlayResponse>();
  v1::DecisionRequest* request = message.mutable_decision();
  FillDecisionRequest(
      AskedDecision{.match_id = match_id_,
                    .game = game_.game(),
                    .num_seats = num_seats(),
                    .decision_id = decision->id,
                    .acting_seats = decision->seats,
                    .simultaneous = decision->simultaneous,
                    .header_hash = AsView(match_->header_hash())},
      seat, match_->ListsLegalActions(), *request);
  match_->LegalActionsInto(seat, *request->mutable_legal_actions());
  if (in_result) {
    request->set_observation_in_result(true);
  } else if (decision->id != 0) {
    match_->ObservationInto(seat, *request->mutable_observation());
  }
  request->set_commit_deadline_unix_ms(UnixMs(decision->deadlines[index]));
  request->set_committed(!match_->AwaitsCommit(seat));
  SendToSeat(seat, message);
}

void MatchHost::SendRevealRequest(int seat) {
  const std::optional<DecisionView> decision = match_->decision();
  const int index = IndexIn(*decision, seat);
  v1::PlayResponse message;
  v1::RevealRequest* request = message.mutable_reveal_request();
  request->set_match_id(match_id_);
  request->set_seat(seat);
  request->set_decision_id(decision->id);
  request->set_reveal_deadline_unix_ms(UnixMs(decision->deadlines[index]));
  SendToSeat(seat, message);
}

void MatchHost::SendRevealRequests() {
  const std::optional<DecisionView> decision = match_->decision();
  for (int seat : decision->seats) {
    if (match_->AwaitsReveal(seat)) SendRevealRequest(seat);
  }
}

void MatchHost::SendMatchEnded(int seat) {
  v1::PlayResponse message;
  v1::MatchEnded* ended = message.mutable_match_ended();
  ended->set_match_id(match_id_);
  ended->set_seat(seat);
  *ended->mutable_outcome() = OutcomeLocked();
  // A seat token plays this match alone: nothing more will be said on its
  // stream, which ends OK once MatchEnded is written (behind every
  // acknowledgement the match owed it: those were sent before the seal).
  // A bot's stream carries its other matches and stays open.
  std::shared_ptr<PlaySink> sink = StreamOf(seat);
  if (sink == nullptr) return;
  SendTo(sink, message, /*acknowledgement=*/false,
         PlaysAlone(seat) ? std::optional<absl::Status>(absl::OkStatus())
                          : std::nullopt);
}

void MatchHost::FlushRevealAck() {
  if (!pending_reveal_ack_) return;
  const auto [seat, decision_id] = *pending_reveal_ack_;
  pending_reveal_ack_.reset();
  v1::PlayResponse message;
  v1::RevealAck* ack = message.mutable_reveal_ack();
  ack->set_match_id(match_id_);
  ack->set_seat(seat);
  ack->set_decision_id(decision_id);
  SendToSeat(seat, message, /*acknowledgement=*/true);
}

// Called by the Match for every record it logs, with the game state exactly
// as it is right after that record.
void MatchHost::OnRecord(const v1::LogRecord& record,
                         std::string_view seat_note) {
  logged_ = true;
  if (record.kind_case() == v1::LogRecord::kFault && pending_reveal_ack_ &&
      pending_reveal_ack_->first == static_cast<int>(record.fault().seat())) {
    pending_reveal_ack_.reset();  // The reveal was not usable: no ack.
  }
  FlushRevealAck();
  std::optional<v1::WatchEvent> event;
  switch (record.kind_case()) {
    case v1::LogRecord::kDecisionOpened:
      event = OnDecisionOpened(record.decision_opened());
      break;
    case v1::LogRecord::kCommit:
      event = OnCommit(record.commit());
      break;
    case v1::LogRecord::kReveal:
      // Acked once no fault follows it; its contents are never forwarded.
      pending_reveal_ack_.emplace(static_cast<int>(record.reveal().seat()),
                                  record.reveal().decision_id());
      break;
    case v1::LogRecord::kFault:
      event = OnFault(record.fault(), seat_note);
      break;
    case v1::LogRecord::kSeedReveal:
      // The seed itself is never sent: it determines every hidden deal.
      event = OnMove(0, /*closes=*/true);
      break;
    case v1::LogRecord::kApplied:
      event = OnMove(record.applied().decision_id(),
                     record.applied().has_decision_id());
      break;
    case v1::LogRecord::kOutcome:
      // Announced by Run() once the call returns: the seal follows the
      // outcome, and nobody may learn of the end before the log is sealed.
      end_unannounced_ = true;
      break;
    default:
      break;
  }
  if (event) SendToWatchers(*event);
}

std::optional<v1::WatchEvent> MatchHost::OnDecisionOpened(
    const v1::DecisionOpened& opened) {
  for (uint32_t seat : opened.seats()) SendDecisionRequest(seat);
  if (watchers_.empty()) return std::nullopt;
  v1::WatchEvent event;
  v1::PublicDecision* d = event.mutable_decision();
  d->set_decision_id(opened.decision_id());
  *d->mutable_seats() = opened.seats();
  d->set_simultaneous(opened.simultaneous());
  return event;
}

std::optional<v1::WatchEvent> MatchHost::OnCommit(const v1::Commit& commit) {
  v1::PlayResponse message;
  v1::CommitAck* ack = message.mutable_commit_ack();
  ack->set_match_id(match_id_);
  ack->set_seat(commit.seat());
  ack->set_decision_id(commit.decision_id());
  ack->set_received_unix_ms(commit.received_unix_ms());
  SendToSeat(commit.seat(), message, /*acknowledgement=*/true);
  if (watchers_.empty()) return std::nullopt;
  v1::WatchEvent event;
  event.mutable_commit()->set_decision_id(commit.decision_id());
  event.mutable_commit()->set_seat(commit.seat());
  return event;
}

std::optional<v1::WatchEvent> MatchHost::OnFault(const v1::Fault& fault,
                                                 std::string_view seat_note) {
  // The codes of the proto's PlayError comment: a missed deadline is
  // FAILED_PRECONDITION; a mismatched reveal or an illegal action is
  // INVALID_ARGUMENT.
  const bool timeout = fault.reason() == v1::FAULT_COMMIT_TIMEOUT ||
                       fault.reason() == v1::FAULT_REVEAL_TIMEOUT;
  SendError(fault.seat(), fault.decision_id(),
            absl::Status(
                timeout ? absl::StatusCode::kFailedPrecondition
                        : absl::StatusCode::kInvalidArgument,
                absl::StrCat(
                    v1::FaultReason_Name(fault.reason()), ": ", fault.detail(),
                    seat_note.empty() ? "" : ": ", std::string(seat_note), " (",
                    v1::FaultConsequence_Name(fault.consequence()), ")")),
            /*faulted=*/true);
  if (watchers_.empty()) return std::nullopt;
  v1::WatchEvent event;
  *event.mutable_fault() = fault;
  return event;
}

std::optional<v1::WatchEvent> MatchHost::OnMove(uint64_t decision_id,
                                                bool closes) {
  // An observation is dozens of small messages: each connected seat's
  // result is built on a scratch arena and serialized once.
  ScratchArena scratch;
  for (int seat = 0; seat < num_seats(); ++seat) {
    std::shared_ptr<PlaySink> stream = StreamOf(seat);
    if (stream == nullptr) continue;
    auto* message = &scratch.Make<v1::PlayResponse>();
    v1::DecisionResult* result = message->mutable_result();
    result->set_match_id(match_id_);
    result->set_seat(seat);
    result->set_decision_id(decision_id);
    match_->ObservationInto(seat, *result->mutable_observation());
    SendTo(stream, *message);
    if (stream->observation_once()) {
      result_streams_.resize(num_seats());
      result_streams_[seat] = std::move(stream);
    }
  }
  last_applied_ = decision_id;
  if (closes) closed_ = decision_id;
  PruneWatchersLocked();
  if (watchers_.empty()) return std::nullopt;  // A view costs a full copy.
  v1::Observation view = match_->PublicView();
  v1::WatchEvent event;
  *event.mutable_delta() = DiffViews(*watched_view_, view, decision_id);
  watched_view_ = std::move(view);
  return event;
}

void MatchHost::AnnounceEnd() {
  end_unannounced_ = false;
  for (int seat = 0; seat < num_seats(); ++seat) SendMatchEnded(seat);
  v1::WatchEvent event;
  *event.mutable_outcome() = match_->outcome();
  SendToWatchers(event);
  for (const auto& watcher : watchers_) watcher->Close(kOk, "");
  watchers_.clear();
}

void MatchHost::AnnounceBroken() {
  std::string reason(match_->broken().message());
  if (reason.empty()) reason = "the log could not be written";
  // The referee's own line names the files in full; everyone else is told
  // their names only.
  Say(messages_, absl::StrCat("match ", match_id_, " broken: ", reason));
  broken_reason_ = PublicBrokenReason(reason, log_path_);
  // Entered first, as an end is (EndLocked): whoever hears of the break
  // finds it recorded, its place among the live matches free.
  if (on_end_) on_end_(InfoLocked(*connections_));
  // Told behind what waits for a sync, if any (see OnSynced).
  if (awaiting_sync_) broken_in_sync_outbox_ = sync_outbox_.size();
  const std::optional<DecisionView> decision = match_->decision();
  for (int seat = 0; seat < num_seats(); ++seat) {
    SendBroken(seat, decision ? decision->id : 0);
  }
  const absl::Status status = Broken(broken_reason_);
  for (const auto& watcher : watchers_) {
    watcher->Close(static_cast<int>(status.code()),
                   std::string(status.message()));
  }
  watchers_.clear();
  CallOverListenersLocked();
}

void MatchHost::CallOverListenersLocked() {
  for (const std::function<void()>& call : std::exchange(over_listeners_, {})) {
    call();
  }
}

bool MatchHost::OverLocked() const {
  return match_ == nullptr || (match_->finished() && !end_unannounced_) ||
         !match_->broken().ok();
}

void MatchHost::CallWhenOver(std::function<void()> call) {
  absl::MutexLock lock(&mu_);
  if (OverLocked()) {
    call();
    return;
  }
  over_listeners_.push_back(std::move(call));
}

bool MatchHost::Run(int seat, uint64_t decision_id, const Op& op) {
  absl::MutexLock lock(&mu_);
  if (match_ == nullptr) {
    // Over and let go: nothing is due, and a seat's call is refused as the
    // Match refuses it once finished.
    if (seat < 0) return true;
    SendError(seat, decision_id,
              archived_status_ == v1::MATCH_BROKEN ? Broken(broken_reason_)
                                                   : MatchOver(),
              /*faulted=*/false);
    return false;
  }
  const std::optional<DecisionView> before = match_->decision();
  logged_ = false;
  // What the call logs is written in one batch (with the held step's, if
  // one is held); what it causes is sent once that batch is written, and
  // dropped if it could not be.
  match_->BeginBatch();
  deferring_ = true;
  const absl::Status status = op(*match_);
  result_streams_.clear();
  FlushRevealAck();
  const std::optional<DecisionView> after = match_->decision();
  if (after && after->reveal_phase &&
      !(before && before->id == after->id && before->reveal_phase)) {
    SendRevealRequests();
  }
  deferring_ = false;
  if (MayHoldStepLocked(status)) {
    HoldStepLocked();
  } else {
    FinishStepLocked();
  }
  // Errors the match logged were pushed as faults; the others go here.
  const bool refused = !status.ok() && !logged_;
  if (refused && seat >= 0) {
    SendError(seat, decision_id, status, /*faulted=*/false);
  }
  HandOverDeadlineLocked();
  // Sealed (now, or before a restart) and durable.
  if (match_->finished() && match_->broken().ok() && !awaiting_sync_) {
    EndLocked();
  }
  return !refused;
}

bool MatchHost::MayHoldStepLocked(const absl::Status& status) const {
  if (ack_holder_ == nullptr || !status.ok() || outbox_.empty() ||
      !watch_outbox_.empty() || awaiting_sync_ || end_unannounced_ ||
      match_->finished() || !match_->broken().ok() || match_->OwesSync()) {
    return false;
  }
  return std::all_of(
      outbox_.begin(), outbox_.end(), [](const OutgoingMessage& out) {
        return out.acknowledgement && out.sink->holds_acknowledgements();
      });
}

void MatchHost::HoldStepLocked() {
  if (std::exchange(step_held_, true)) return;  // Its timer runs already.
  ack_holder_->Post([host = weak_from_this(), hold = ++holds_] {
    if (std::shared_ptr<MatchHost> self = host.lock()) self->EndHold(hold);
  });
}

void MatchHost::EndHold(uint64_t hold) {
  absl::MutexLock lock(&mu_);
  if (hold == holds_) EndHoldLocked();
}

void MatchHost::EndHoldLocked() {
  if (step_held_ && match_ != nullptr) FinishStepLocked();
}

void MatchHost::FinishStepLocked() {
  step_held_ = false;
  const bool written = match_->EndBatch().ok();
  // Taken out, so that an idle match holds no outbox memory. What a step
  // sends one stream goes out in one write where the stream allows it.
  std::vector<OutgoingMessage> outbox = std::exchange(outbox_, {});
  if (written && sync_pool_ != nullptr) {
    // A checkpoint whose sync is owed: it runs on the pool, and what the
    // seats are sent waits for it.
    if (std::optional<SyncJob> sync = match_->TakeOwedSync()) {
      ++syncs_pending_;
      awaiting_sync_ = true;
      // The host outlives its syncs, even once the lobby has let it go
      // (at its end, the seal's sync being the last).
      sync_pool_->Submit(
          std::move(*sync),
          [self = shared_from_this()](absl::Status s) { self->OnSynced(s); });
    }
  }
  if (written && awaiting_sync_) {
    std::move(outbox.begin(), outbox.end(), std::back_inserter(sync_outbox_));
  } else if (written) {
    SendTogether(outbox);
  }
  if (written) DeliverToWatchers(watch_outbox_);
  std::vector<v1::WatchEvent>().swap(watch_outbox_);  // Its memory too.
  // The end is announced only once the seal is durable (by Run when it
  // synced inline; when its sync is on the pool, by OnSynced): a match
  // whose seal could not be written is broken, and said to be.
  if (end_unannounced_ && !match_->broken().ok()) end_unannounced_ = false;
  if (!match_->broken().ok() && broken_reason_.empty()) AnnounceBroken();
}

void MatchHost::HandOverDeadlineLocked() {
  // Handed over under the lock: a call that finishes later must not hand
  // over an older deadline after a newer one (issue 19: a commit's stale
  // deadline replaced the reveal deadline, which then never fired).
  const absl::Time next = match_->NextDeadline();
  if (next != scheduled_) {
    scheduled_ = next;
    on_deadline_(next);
  }
}

void MatchHost::EndLocked() {
  // (A match resumed finished was announced before its restart.)
  const bool announce = std::exchange(end_unannounced_, false);
  outcome_ = match_->outcome();
  // Entered first (in the transparency log, by the lobby): whoever hears of
  // the end can have it proved at once.
  if (on_end_) on_end_(InfoLocked(*connections_));
  if (announce) AnnounceEnd();
  match_.reset();
  CallOverListenersLocked();
  std::vector<CachedStream>().swap(streams_);
}

void MatchHost::Start() {
  Run(-1, 0, [](Match&) { return absl::OkStatus(); });
  for (int seat = 0; seat < num_seats(); ++seat) SendOwedTo(seat);
}

void MatchHost::SendOwedTo(int seat) {
  absl::MutexLock lock(&mu_);
  if (match_ == nullptr) {
    // Over: the outcome, or (archived) why it broke.
    if (archived_status_ == v1::MATCH_BROKEN) {
      SendBroken(seat, 0);
    } else {
      SendMatchEnded(seat);
    }
    return;
  }
  if (!match_->broken().ok()) {
    // Broken, and said to be under the same lock (AnnounceBroken), but for
    // a shutdown checkpoint that failed (Suspend), which the next start
    // resumes from: nothing is owed then.
    if (!broken_reason_.empty()) {
      const std::optional<DecisionView> decision = match_->decision();
      SendBroken(seat, decision ? decision->id : 0);
    }
    return;
  }
  EndHoldLocked();  // What the seat is told may rest on the held records.
  const std::optional<DecisionView> decision = match_->decision();
  if (!decision) {
    // (An end that waits for its seal's sync is announced to every seat.)
    if (match_->finished() && !end_unannounced_) SendMatchEnded(seat);
    return;
  }
  if (IndexIn(*decision, seat) < 0) return;
  if (!decision->reveal_phase) {
    SendDecisionRequest(seat);
  } else if (match_->AwaitsReveal(seat)) {
    SendRevealRequest(seat);
  }
}

bool MatchHost::Commit(int seat, const v1::CommitMove& commit) {
  return Run(seat, commit.decision_id(), [&](Match& match) {
    return match.Commit(seat, commit.decision_id(), commit.commitment(),
                        commit.signature());
  });
}

bool MatchHost::Reveal(int seat, const v1::RevealMove& reveal) {
  return Run(seat, reveal.decision_id(), [&](Match& match) {
    return match.Reveal(seat, reveal.decision_id(), reveal.salt(),
                        reveal.action());
  });
}

void MatchHost::CheckDeadlines() {
  Run(-1, 0, [](Match& match) { return match.CheckDeadlines(); });
}

absl::Time MatchHost::NextDeadline() const {
  absl::MutexLock lock(&mu_);
  return match_ == nullptr ? absl::InfiniteFuture() : match_->NextDeadline();
}

absl::Status MatchHost::AddWatcher(std::shared_ptr<WatchSink> watcher,
                                   std::optional<size_t> max_watchers) {
  absl::MutexLock lock(&mu_);
  EndHoldLocked();  // What the watcher is shown may rest on held records.
  PruneWatchersLocked();
  if (max_watchers) {
    spectators_.erase(
        std::remove_if(spectators_.begin(), spectators_.end(),
                       [](const std::weak_ptr<const WatchSink>& w) {
                         const std::shared_ptr<const WatchSink> sink = w.lock();
                         return sink == nullptr || sink->closed();
                       }),
        spectators_.end());
    if (spectators_.size() >= *max_watchers) {
      return absl::ResourceExhaustedError(
          *max_watchers == 0 ? "the referee takes no watchers of a match "
                               "(--max_watchers_per_match=0)"
                             : absl::StrCat("match ", match_id_,
                                            " already has ", spectators_.size(),
                                            " watchers, as many as it takes "
                                            "(--max_watchers_per_match)"));
    }
  }
  v1::WatchEvent first;
  *first.mutable_match() = InfoLocked(*connections_);
  watcher->Send(SerializedMessage::Of(first));
  // A match whose end waits for its seal's sync is watched to its end.
  if (OverLocked()) {
    watcher->Close(kOk, "");
    return absl::OkStatus();
  }
  if (!watched_view_) watched_view_ = match_->PublicView();
  watcher->Send(SerializedMessage::Of(SnapshotLocked()));
  if (max_watchers) spectators_.push_back(watcher);
  watchers_.push_back(std::move(watcher));
  return absl::OkStatus();
}

bool MatchHost::finished() const {
  absl::MutexLock lock(&mu_);
  return match_ == nullptr || match_->finished();
}

v1::MatchInfo MatchHost::Info(const Connections& connections) const {
  absl::MutexLock lock(&mu_);
  return InfoLocked(connections);
}

v1::MatchInfo MatchHost::InfoLocked(const Connections& connections) const {
  v1::MatchInfo info;
  info.set_match_id(match_id_);
  *info.mutable_game() = game_;
  for (const HostedSeat& seat : seats_) {
    v1::MatchSeatInfo* s = info.add_seats();
    s->set_name(seat.name);
    s->set_bot_id(seat.bot_id);
    s->set_connected(connections.Find(seat.route) != nullptr);
  }
  if ((match_ != nullptr && !match_->broken().ok()) ||
      (match_ == nullptr && archived_status_ == v1::MATCH_BROKEN)) {
    info.set_status(v1::MATCH_BROKEN);
    info.set_broken_reason(
        match_ != nullptr
            ? PublicBrokenReason(match_->broken().message(), log_path_)
            : broken_reason_);
  } else if (match_ == nullptr || (match_->finished() && !end_unannounced_)) {
    info.set_status(v1::MATCH_FINISHED);
    *info.mutable_outcome() = OutcomeLocked();
  } else if (end_unannounced_) {
    // Its end waits for the seal's sync: running until it is announced, at
    // the last decision.
    info.set_status(v1::MATCH_RUNNING);
    info.set_decision_id(last_applied_);
  } else {
    info.set_status(v1::MATCH_RUNNING);
    info.set_decision_id(match_->decision()->id);
  }
  info.set_created_unix_ms(created_unix_ms_);
  *info.mutable_clocks() = clocks_;
  info.set_forfeit_policy(policy_);
  info.set_request_id(request_id_);
  info.set_label(label_);
  return info;
}

const v1::Outcome& MatchHost::OutcomeLocked() const {
  return match_ == nullptr ? outcome_ : match_->outcome();
}

void MatchHost::Suspend() {
  absl::MutexLock lock(&mu_);
  // A sealed match has nothing to checkpoint; what waits for its seal's
  // sync goes out when that is done.
  if (match_ == nullptr || match_->finished()) return;
  EndHoldLocked();
  // A broken match was said to be (AnnounceBroken), the held step's write
  // that failed just now included.
  if (match_ == nullptr || match_->finished() || !match_->broken().ok()) {
    return;
  }
  const absl::Status checkpointed = match_->Checkpoint();
  if (checkpointed.ok()) {
    if (awaiting_sync_) SendSyncedLocked();
    return;
  }
  // Nothing else says it: the match is not announced broken (its seats'
  // streams are closing, its log is not marked broken, the registry still
  // says running), so the next start resumes it from its log as after a
  // crash (Lobby::RecoverMatch, ResumeLog).
  Say(messages_,
      absl::StrCat("match ", match_id_,
                   ": its shutdown checkpoint could not be written (",
                   checkpointed.message(),
                   "); it will be resumed from its log at the next start, as "
                   "after a crash (from its last complete record)"));
}

}  // namespace pyramid
