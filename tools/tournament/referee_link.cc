#include "tools/tournament/referee_link.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "referee/cli/log_fetch.h"
#include "referee/cli/referee_client.h"
#include "referee/cli/silence_watchdog.h"
#include "referee/cli/token_text.h"
#include "referee/core/log_format.h"
#include "referee/core/log_journal.h"
#include "referee/core/log_sink.h"
#include "referee/core/steady_duration.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/ed25519.h"
#include "referee/crypto/sha256.h"
#include "referee/games/printable_text.h"
#include "referee/service/embedded_referee.h"
#include "referee/service/grpc_status.h"
#include "referee/service/transparency_log.h"
#include "replay/key_arguments.h"
#include "replay/verifier.h"
#include "tools/tournament/remote_match_bounds.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

// Waits in-process for the end of a match (MatchHost::CallWhenOver).
class EndWaiter {
 public:
  void Over() {
    absl::MutexLock lock(&mu_);
    closed_ = true;
  }
  // True once the match is over; false if `cancelled` came first.
  bool Wait(const std::atomic<bool>& cancelled) {
    absl::MutexLock lock(&mu_);
    while (!closed_ && !cancelled.load()) {
      mu_.AwaitWithTimeout(absl::Condition(&closed_), absl::Milliseconds(100));
    }
    return closed_;
  }

 private:
  absl::Mutex mu_;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
};

// The message of a call whose wait to retry an interruption ended.
constexpr char kInterrupted[] = "interrupted";

// How often a wait before a retry asks whether the link is interrupted
// (WaitBeforeRetry).
constexpr absl::Duration kRetrySlice = absl::Milliseconds(100);

// True for the status of such a call.
bool InterruptedStatus(const grpc::Status& status) {
  return status.error_code() == grpc::StatusCode::CANCELLED &&
         status.error_message() == kInterrupted;
}

// The limit a referee at its --max_live_matches names when it answers
// CreateMatch UNAVAILABLE, in the call's kMaxLiveMatchesTrailer
// (docs/protocol.md, "Trailers of a refusal"); 0 when the call has none
// (not such a refusal). Such a refusal is not an outage, so not retried
// with backoff.
int LimitIn(const grpc::ClientContext& context) {
  const auto& trailers = context.GetServerTrailingMetadata();
  auto it = trailers.find(kMaxLiveMatchesTrailer);
  int limit = 0;
  if (it == trailers.end() ||
      !absl::SimpleAtoi(absl::string_view(it->second.data(), it->second.size()),
                        &limit) ||
      limit < 0) {
    return 0;
  }
  return limit;
}

// A status message of the referee's, as the runner shows it: escaped
// (printable_text.h), since a referee the runner does not control could
// put terminal escapes or a forged line in it.
std::string RefereeText(const grpc::Status& status) {
  return PrintableText(status.error_message());
}

absl::Status FromGrpc(const grpc::Status& status, const std::string& what) {
  return absl::Status(static_cast<absl::StatusCode>(status.error_code()),
                      absl::StrCat(what, ": ", RefereeText(status)));
}

}  // namespace

RefereeLink::RefereeLink() : watchdog_(std::make_unique<SilenceWatchdog>()) {}

std::optional<RefereeLink::SealedLog> RefereeLink::ReadSealedLog(
    const std::string& path, const std::string& key) {
  absl::StatusOr<std::string> bytes = ReadFileToString(path);
  if (!bytes.ok()) return std::nullopt;
  VerifyOptions verify;
  verify.pinned_key = key;
  const Verdict verdict = VerifyLog(*bytes, verify);
  if (verdict.kind != Verdict::Kind::kGenuine) return std::nullopt;
  return SealedLog{.match_id = ToHex(verdict.header.match_id()),
                   .sha256 = Sha256(*bytes)};
}

absl::StatusOr<std::unique_ptr<RefereeLink>> RefereeLink::StartEmbedded(
    const std::string& key_path, const std::string& log_dir,
    const std::string& tlog_path, const std::string& journal_dir,
    const LogReader& read_log) {
  if (!std::filesystem::exists(key_path)) {
    if (absl::Status s = WriteKeyFiles(key_path, SigningKey::Generate());
        !s.ok()) {
      return s;
    }
  }
  absl::StatusOr<SigningKey> key = ReadSigningKey(key_path);
  if (!key.ok()) return key.status();
  // Replayed before any log is read: a power loss may have cut them. Its
  // entries name the logs by their file names in `log_dir`, wherever that
  // is (LogJournal::Options::log_dir).
  LogJournal::Options journal_options;
  journal_options.log_dir = log_dir;
  absl::StatusOr<std::unique_ptr<LogJournal>> journal =
      LogJournal::Open(journal_dir, journal_options);
  if (!journal.ok()) return journal.status();
  auto link = std::unique_ptr<RefereeLink>(new RefereeLink());
  link->public_key_ = key->public_key();
  absl::StatusOr<std::unique_ptr<TransparencyLog>> tlog = TransparencyLog::Open(
      tlog_path, *key, TransparencyLog::DefaultOrigin(key->public_key()));
  if (!tlog.ok()) return tlog.status();
  // As a referee does on start (Lobby::Recover), enter every sealed log
  // the tree lacks: a run killed between sealing a log and appending it
  // (appends are idempotent; files in name order).
  std::vector<std::filesystem::path> logs;
  std::error_code error;
  for (const auto& entry :
       std::filesystem::directory_iterator(log_dir, error)) {
    if (entry.path().extension() == log_format::kFileExtension)
      logs.push_back(entry.path());
  }
  std::sort(logs.begin(), logs.end());
  for (const std::filesystem::path& path : logs) {
    const std::optional<SealedLog> sealed =
        read_log(path.string(), key->public_key());
    if (!sealed.has_value() || (*tlog)->Contains(sealed->match_id)) continue;
    if (absl::Status s =
            (*tlog)->Append(sealed->match_id, sealed->sha256).status();
        !s.ok()) {
      return s;
    }
  }
  LobbyOptions options;
  options.log_dir = log_dir;
  options.referee_key = *std::move(key);
  options.tlog = *std::move(tlog);
  options.journal = *std::move(journal);
  absl::StatusOr<std::unique_ptr<EmbeddedReferee>> embedded =
      EmbeddedReferee::Start(std::move(options));
  if (!embedded.ok()) return embedded.status();
  link->embedded_ = *std::move(embedded);
  link->address_ = link->embedded_->address();
  link->admin_token_ = link->embedded_->admin_token();
  link->stub_ = v1::Referee::NewStub(
      grpc::CreateChannel(link->address_, grpc::InsecureChannelCredentials()));
  return link;
}

absl::StatusOr<std::unique_ptr<RefereeLink>> RefereeLink::Connect(
    const std::string& address, const std::string& public_key,
    const std::string& admin_token_file, absl::Duration retry_for,
    const std::string& tls_ca) {
  if (public_key.empty()) {
    return absl::InvalidArgumentError(
        "a remote referee needs referee_key to verify the logs");
  }
  // A secret key file (DATA_DIR/referee.key beside its .pub) is refused,
  // never printed as the key the logs must have.
  absl::StatusOr<std::string> key = ParseRefereeKeyArgument(public_key);
  if (!key.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("referee_key is 64 hex digits or a file of them: ",
                     key.status().message()));
  }
  // A named file first, else the environment, as refctl and the referee
  // take it (FindAdminToken); no default file.
  absl::StatusOr<FoundAdminToken> token =
      FindAdminToken(admin_token_file, "admin_token_file", "");
  if (!token.ok()) {
    return absl::InvalidArgumentError(token.status().message());
  }
  if (token->from == FoundAdminToken::From::kNone) {
    return absl::InvalidArgumentError(
        "a remote referee needs admin_token_file, the file of its admin "
        "token (or $PYRAMID_ADMIN_TOKEN, the token itself)");
  }
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
      ClientCredentials(tls_ca);
  if (!credentials.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("tls_ca: ", credentials.status().message()));
  }
  auto link = std::unique_ptr<RefereeLink>(new RefereeLink());
  link->address_ = address;
  link->public_key_ = *std::move(key);
  link->admin_token_ = std::move(token->token);
  link->admin_token_source_ =
      token->from == FoundAdminToken::From::kNamedFile
          ? absl::StrCat("admin_token_file ", token->source)
          : token->source;
  // A referee that restarts is found again within seconds.
  link->channel_ = FastReconnectChannel(address, *credentials);
  link->stub_ = v1::Referee::NewStub(link->channel_);
  link->retry_for_ = retry_for;
  return link;
}

void RefereeLink::SetRetryHooks(std::function<bool(Waiting)> interrupted,
                                std::function<void(const std::string&)> note) {
  interrupted_ = std::move(interrupted);
  note_ = std::move(note);
}

bool RefereeLink::Interrupted(Waiting what) {
  return cancelled_.load() || (interrupted_ && interrupted_(what));
}

bool RefereeLink::RetryNoteDue(absl::Duration delay) {
  absl::MutexLock lock(&mu_);
  const absl::Time now = SteadyNow();
  if (delay == noted_delay_ && now - noted_at_ < absl::Seconds(1)) {
    return false;
  }
  noted_delay_ = delay;
  noted_at_ = now;
  return true;
}

std::string RefereeLink::RetryNote(const grpc::Status& status,
                                   Exhausted refused,
                                   absl::Duration delay) const {
  const std::string said =
      absl::StrCat(absl::StatusCodeToString(
                       static_cast<absl::StatusCode>(status.error_code())),
                   ": ", RefereeText(status));
  const std::string retrying = absl::StrCat(
      "retrying in ", absl::FormatDuration(delay), " (--referee_retry_s)");
  switch (refused) {
    case Exhausted::kNoSpace:
      return absl::StrCat("tournament: the referee at ", address_,
                          " has no space to record (", said,
                          "): waiting for space; ", retrying);
    case Exhausted::kNoWatchPlace:
      return absl::StrCat("tournament: the referee at ", address_,
                          " refuses the runner's Watch of a match (", said,
                          "): creating no more matches until it takes it; ",
                          retrying);
    case Exhausted::kAnswer:
      break;
  }
  return absl::StrCat("tournament: the referee at ", address_,
                      " did not answer (", said, "); ", retrying);
}

grpc::Status RefereeLink::StillRefused(const grpc::Status& status,
                                       Exhausted refused) const {
  const char* still = refused == Exhausted::kNoWatchPlace
                          ? "refuses the runner's Watch"
                          : "has no space to record";
  // (The embedded referee is given no window.)
  const std::string waited =
      retry_for_ > absl::ZeroDuration()
          ? absl::StrCat(" still ", still, " after ",
                         absl::FormatDuration(retry_for_),
                         " (--referee_retry_s): ")
          : absl::StrCat(" ", still, ": ");
  return grpc::Status(grpc::StatusCode::UNAVAILABLE,
                      absl::StrCat("the referee at ", address_, waited,
                                   status.error_message()));
}

RefereeLink::Attempt RefereeLink::Classify(const grpc::Status& status,
                                           const grpc::ClientContext& context,
                                           Exhausted exhausted) const {
  switch (status.error_code()) {
    case grpc::StatusCode::UNAVAILABLE:
      // A refusal naming the referee's limit of live matches is an answer.
      return LimitIn(context) == 0 ? Attempt::kLost : Attempt::kAnswered;
    case grpc::StatusCode::CANCELLED:
      // The link's own cancellation is no lost connection.
      return cancelled_.load() ? Attempt::kAnswered : Attempt::kLost;
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
      return exhausted == Exhausted::kAnswer ? Attempt::kAnswered
                                             : Attempt::kRefused;
    default:
      return Attempt::kAnswered;
  }
}

void RefereeLink::MarkGone() {
  // (The embedded referee is given no window: a call it does not answer
  // fails at once, and is not said.)
  if (!gone_.exchange(true) && note_ && retry_for_ > absl::ZeroDuration()) {
    note_(absl::StrCat(
        "tournament: the referee at ", address_, " has not answered for ",
        absl::FormatDuration(retry_for_),
        " (--referee_retry_s): until it answers again, each call to it "
        "gives up at its first unanswered attempt"));
  }
}

bool RefereeLink::WaitBeforeRetry(Backoff& backoff) {
  const absl::Time retry_at = SteadyNow() + backoff.delay();
  backoff.Grow();
  for (absl::Time now = SteadyNow(); now < retry_at; now = SteadyNow()) {
    if (Interrupted(Waiting::kAnswer)) return false;
    absl::SleepFor(std::min(now + kRetrySlice, retry_at) - now);
  }
  if (channel_ == nullptr) return true;  // The embedded referee: no channel.
  // AwaitConnected's deadline is on the wall clock.
  return AwaitConnected(*channel_, absl::Now() + backoff.delay(),
                        {.slice = kRetrySlice, .stop = [this] {
                           return Interrupted(Waiting::kAnswer);
                         }}) != Awaited::kStopped;
}

grpc::Status RefereeLink::Retrying(
    const std::function<grpc::Status(grpc::ClientContext&)>& call,
    const bool* answered, Exhausted exhausted) {
  const grpc::Status interrupted(grpc::StatusCode::CANCELLED, kInterrupted);
  absl::Time give_up = SteadyNow() + retry_for_;
  // What was heard from the referee when the window began: a window that
  // runs out with something heard since (by another call) is no sign that
  // the referee has gone.
  uint64_t heard_at_start = heard_.load();
  Backoff backoff;
  while (true) {
    grpc::ClientContext context;
    Authorize(context);
    grpc::Status status = call(context);
    const Attempt attempt = Classify(status, context, exhausted);
    if (attempt != Attempt::kLost) Heard();
    if (attempt == Attempt::kAnswered) return status;
    // A refusal (no space, no place to watch) is an answer, but one waited
    // out as an outage is (the referee may lift it).
    const bool refused = attempt == Attempt::kRefused;
    // The outage began at this break.
    if (answered != nullptr && *answered) {
      give_up = SteadyNow() + retry_for_;
      heard_at_start = heard_.load();
    }
    if (Interrupted(Waiting::kAnswer)) return interrupted;
    // A referee that another call waited out a whole window for, unheard
    // from since, has gone: this call gives up with it, not a window later.
    if (!refused && gone_.load()) return status;
    if (SteadyNow() + backoff.delay() > give_up) {
      if (refused) return StillRefused(status, exhausted);
      if (heard_.load() == heard_at_start) MarkGone();
      return status;
    }
    if (note_ && RetryNoteDue(backoff.delay())) {
      note_(RetryNote(status, refused ? exhausted : Exhausted::kAnswer,
                      backoff.delay()));
    }
    if (!WaitBeforeRetry(backoff)) return interrupted;
  }
}

RefereeLink::~RefereeLink() = default;

void RefereeLink::Authorize(grpc::ClientContext& context) const {
  AddBearer(context, admin_token_);
}

absl::StatusOr<v1::RegisterBotResponse> RefereeLink::RegisterBot(
    const v1::RegisterBotRequest& request) {
  v1::RegisterBotResponse response;
  grpc::Status status = Retrying([&](grpc::ClientContext& context) {
    return stub_->RegisterBot(&context, request, &response);
  });
  if (!status.ok()) {
    return FromGrpc(status, absl::StrCat("registering ", request.name()));
  }
  return response;
}

absl::Status RefereeLink::CheckAdminToken() {
  if (embedded_ != nullptr) return absl::OkStatus();
  // No name: an admin's call is refused for it (INVALID_ARGUMENT) after
  // the token is checked, and nothing is registered.
  v1::RegisterBotResponse response;
  grpc::Status status = Retrying([&](grpc::ClientContext& context) {
    return stub_->RegisterBot(&context, v1::RegisterBotRequest(), &response);
  });
  switch (status.error_code()) {
    case grpc::StatusCode::OK:  // A referee that takes an empty name.
    case grpc::StatusCode::INVALID_ARGUMENT:
      return absl::OkStatus();
    case grpc::StatusCode::UNAUTHENTICATED:
      return absl::FailedPreconditionError(
          absl::StrCat(admin_token_source_, ": the referee at ", address_,
                       " does not know this admin token (", RefereeText(status),
                       "); give the token of its data directory's admin.token "
                       "or its $PYRAMID_ADMIN_TOKEN"));
    case grpc::StatusCode::PERMISSION_DENIED:
      return absl::FailedPreconditionError(
          absl::StrCat(admin_token_source_, ": the referee at ", address_,
                       " knows this token, but not as its admin token (a "
                       "bot's or a seat's?)"));
    default:
      return FromGrpc(status, "checking the admin token");
  }
}

absl::StatusOr<v1::CreateMatchResponse> RefereeLink::CreateMatch(
    const v1::CreateMatchRequest& request) {
  {
    absl::MutexLock lock(&place_mu_);
    // The tournament's first creation starts the clock of its progress.
    if (progress_at_ == absl::InfinitePast()) progress_at_ = SteadyNow();
  }
  Backoff backoff;  // Between tries the link's own ends do not pace.
  while (true) {
    if (absl::Status s = AwaitPlace(); !s.ok()) return s;
    v1::CreateMatchResponse response;
    int said = 0;  // The limit the referee's refusal names.
    grpc::Status status = Retrying([&](grpc::ClientContext& context) {
      grpc::Status called = stub_->CreateMatch(&context, request, &response);
      said = LimitIn(context);
      return called;
    });
    absl::MutexLock lock(&place_mu_);
    --reserved_;
    place_cv_.SignalAll();
    if (status.ok()) {
      live_.insert(response.match_id());
      progress_at_ = SteadyNow();
      space_noted_ = false;
      // More of the link's matches live than the limit it learnt: the
      // referee takes more now (restarted with a larger
      // --max_live_matches, or other clients' matches ended). No limit
      // until the next refusal says one.
      if (static_cast<int>(live_.size()) > limit_) limit_ = kNoLimit;
      return response;
    }
    // The referee is full (its limit of live matches), or has no space to
    // record a new match (its disk: RESOURCE_EXHAUSTED, "try again when
    // space returns"). Neither is an outage: the referee answered.
    const bool full =
        status.error_code() == grpc::StatusCode::UNAVAILABLE && said != 0;
    // (The embedded referee's disk is the runner's own, given no window:
    // its refusal is the match's verdict at once.)
    const bool no_space =
        status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED &&
        embedded_ == nullptr;
    if (!full && !no_space) return FromGrpc(status, "creating a match");
    const int ours = static_cast<int>(live_.size()) + reserved_;
    refusal_ = RefereeText(status);
    out_of_space_ = no_space;
    if (full) {
      // At most its limit in flight from now on, each further match
      // starting as one ends.
      limit_ = said;
      probe_at_ = SteadyNow() + kProbeEvery;
      ++full_refusals_;
      if (!full_noted_ && note_) {
        full_noted_ = true;
        note_(absl::StrCat("tournament: the referee at ", address_,
                           " is full (", refusal_, "): matches beyond ",
                           said > 0 ? absl::StrCat("its ", said) : "those live",
                           " wait for a place, each created as one ends"));
      }
    } else if (!space_noted_ && note_) {
      // Space may return (the operator frees some, or a match ends and its
      // files are archived elsewhere): waited for as a place is, without a
      // limit learnt. Said again if it runs out again after a creation.
      space_noted_ = true;
      note_(absl::StrCat(
          "tournament: the referee at ", address_,
          " cannot record new matches (", refusal_,
          "): each match waits, tried again as one of this tournament's "
          "matches ends or after a backoff, until space returns or none has "
          "ended or been created for ",
          absl::FormatDuration(retry_for_), " (--referee_retry_s)"));
    }
    if (absl::Status s = StalledStatus(); !s.ok()) return s;
    // A place this link counted as free was refused: other clients' matches
    // hold it, or the referee has not yet counted out a match that ended.
    // Tried again at the next end of one of this link's matches, or after
    // the backoff (100 ms doubling to 5 s).
    if (ours < limit_) {
      const uint64_t ends = ends_;
      const absl::Time retry_at = SteadyNow() + backoff.delay();
      backoff.Grow();
      while (ends_ == ends && SteadyNow() < retry_at) {
        if (Interrupted(Waiting::kPlace)) {
          return absl::CancelledError(kInterrupted);
        }
        if (absl::Status s = StalledStatus(); !s.ok()) return s;
        place_cv_.WaitWithTimeout(&place_mu_, absl::Milliseconds(100));
      }
    } else {
      backoff.Reset();
    }
  }
}

absl::Status RefereeLink::AwaitPlace() {
  absl::MutexLock lock(&place_mu_);
  while (true) {
    if (unwatchable_) return UnwatchableStatus();
    // A refused Watch holds every creation until the referee takes it or
    // its wait gives up (unwatchable_): no other clock runs meanwhile.
    const bool watch_refused = refused_watches_ > 0;
    if (!watch_refused && static_cast<int>(live_.size()) + reserved_ < limit_) {
      break;
    }
    if (Interrupted(Waiting::kPlace)) {
      return absl::CancelledError(kInterrupted);
    }
    if (!watch_refused) {
      if (absl::Status s = StalledStatus(); !s.ok()) return s;
      // Once a second, one creation is tried beyond the limit, whether or
      // not the link's matches end meanwhile: the referee may take more
      // now (other clients' matches ended, or it was restarted with a
      // larger limit), which only a try can tell.
      if (SteadyNow() >= probe_at_) {
        probe_at_ = SteadyNow() + kProbeEvery;
        break;
      }
    }
    place_cv_.WaitWithTimeout(&place_mu_, absl::Milliseconds(100));
  }
  ++reserved_;
  return absl::OkStatus();
}

absl::Status RefereeLink::UnwatchableStatus() const {
  return absl::UnavailableError(absl::StrCat(
      "creating a match: the referee at ", address_,
      " refused the runner's Watch of a match for ",
      absl::FormatDuration(retry_for_),
      " (--referee_retry_s), and no match is created until it takes one "
      "again: ",
      watch_refusal_));
}

void RefereeLink::NoteStream(RemoteWatch& watch, Stream stream) {
  absl::MutexLock lock(&place_mu_);
  const bool refused = stream == Stream::kRefused;
  if (refused) watch_refusal_ = RefereeText(watch.status);
  if (stream == Stream::kTaken) unwatchable_ = false;
  if (watch.refused == refused) return;
  watch.refused = refused;
  refused_watches_ += refused ? 1 : -1;
  place_cv_.SignalAll();
}

void RefereeLink::EndWatchRefusal(RemoteWatch& watch, bool given_up) {
  absl::MutexLock lock(&place_mu_);
  if (!watch.refused) return;
  watch.refused = false;
  --refused_watches_;
  if (given_up) unwatchable_ = true;
  place_cv_.SignalAll();
}

absl::Status RefereeLink::StalledStatus() {
  // While the link's own live matches hold every place it counts, the
  // wait is for one of them to end, however long they play: no stall.
  if (static_cast<int>(live_.size()) >= limit_) {
    progress_at_ = std::max(progress_at_, SteadyNow());
    return absl::OkStatus();
  }
  if (SteadyNow() < progress_at_ + retry_for_) return absl::OkStatus();
  return absl::UnavailableError(absl::StrCat(
      "creating a match: the referee at ", address_,
      out_of_space_ ? " cannot record new matches" : " is full",
      ", and none of this tournament's matches has ended or been "
      "created for ",
      absl::FormatDuration(retry_for_), " (--referee_retry_s): ", refusal_));
}

void RefereeLink::Ended(const std::string& match_id, bool over) {
  absl::MutexLock lock(&place_mu_);
  if (over) progress_at_ = std::max(progress_at_, SteadyNow());
  if (live_.erase(match_id) == 0) return;
  ++ends_;
  place_cv_.SignalAll();
}

int RefereeLink::full_refusals() {
  absl::MutexLock lock(&place_mu_);
  return full_refusals_;
}

absl::StatusOr<v1::MatchInfo> RefereeLink::GetMatch(
    const std::string& match_id) {
  v1::GetMatchRequest request;
  request.set_match_id(match_id);
  v1::MatchInfo response;
  grpc::Status status = Retrying([&](grpc::ClientContext& context) {
    return stub_->GetMatch(&context, request, &response);
  });
  if (!status.ok()) {
    return FromGrpc(status, absl::StrCat("getting match ", match_id));
  }
  return response;
}

absl::StatusOr<v1::ListMatchesResponse> RefereeLink::ListMatches(
    const v1::ListMatchesRequest& request) {
  v1::ListMatchesResponse response;
  grpc::Status status = Retrying([&](grpc::ClientContext& context) {
    return stub_->ListMatches(&context, request, &response);
  });
  if (!status.ok()) return FromGrpc(status, "listing matches");
  return response;
}

absl::Status RefereeLink::AwaitEnd(const std::string& match_id,
                                   const v1::ClockSettings& clocks,
                                   const v1::GameConfig& game, int seats) {
  absl::Status status = embedded_ != nullptr
                            ? AwaitEmbedded(match_id)
                            : AwaitRemote(match_id, clocks, game, seats);
  // Over, or no longer waited for: its place is free for the link's next
  // match (a match abandoned at an interruption starts none). Only an end
  // seen is the tournament's progress.
  Ended(match_id, status.ok() || absl::IsDataLoss(status));
  return status;
}

absl::Status RefereeLink::AwaitEmbedded(const std::string& match_id) {
  std::shared_ptr<MatchHost> host = embedded_->lobby().FindMatch(match_id);
  if (host == nullptr) return absl::NotFoundError("unknown match");
  auto waiter = std::make_shared<EndWaiter>();
  host->CallWhenOver([waiter] { waiter->Over(); });
  if (!waiter->Wait(cancelled_)) return absl::CancelledError("interrupted");
  return absl::OkStatus();
}

// Follows the match's Watch stream until the referee closes it, watching
// again by match id when the connection is lost. The stream carries the
// admin token: a referee started with --public_watch=false answers only
// token holders. A stream with no event for longer than the match's clocks
// allow (SilenceLimit) is cancelled by the watchdog and ends the wait; so
// does one that goes beyond the game's bounds (MaxMoves, MaxWatchEvents),
// cancelled here.
absl::Status RefereeLink::AwaitRemote(const std::string& match_id,
                                      const v1::ClockSettings& clocks,
                                      const v1::GameConfig& game, int seats) {
  RemoteWatch watch;
  watch.match_id = match_id;
  watch.clocks = clocks;
  watch.game = game;
  watch.seats = seats;
  watch.moves = MaxMoves(game, seats);
  if (watch.moves.has_value()) {
    watch.max_decision = *watch.moves;
    watch.max_events = MaxWatchEvents(*watch.moves, seats);
  }
  watch.limit = SilenceLimit(clocks, watch.decision, silence_margin_);
  // A stream the referee refuses (RESOURCE_EXHAUSTED: a referee whose
  // watcher limits count the admin token) says nothing of the match: it is
  // watched again as after a lost connection, and no match is created
  // meanwhile (NoteStream).
  const grpc::Status retried = Retrying(
      [&](grpc::ClientContext& context) { return WatchOnce(context, watch); },
      &watch.answered, Exhausted::kNoWatchPlace);
  // Cancelled, or a wait to watch again ended by an interruption.
  const bool interrupted = cancelled_.load() || InterruptedStatus(retried);
  if (watch.refused) watch.status = retried;  // StillRefused's, said so.
  EndWatchRefusal(watch, /*given_up=*/!interrupted);
  if (interrupted) return absl::CancelledError("interrupted");
  return WatchEnd(watch);
}

grpc::Status RefereeLink::WatchOnce(grpc::ClientContext& context,
                                    RemoteWatch& watch) {
  watch.answered = false;
  uint64_t events = 0;  // Of this stream: each begins anew.
  {
    absl::MutexLock lock(&mu_);
    if (cancelled_.load()) return grpc::Status::CANCELLED;
    watches_.insert(&context);
  }
  v1::WatchRequest request;
  request.set_match_id(watch.match_id);
  auto reader = stub_->Watch(&context, request);
  const bool bounded = watch.limit != absl::InfiniteDuration();
  if (bounded) watchdog_->Add(&context, watch.limit);
  v1::WatchEvent event;
  while (reader->Read(&event)) {
    if (events == 0) NoteStream(watch, Stream::kTaken);
    // The match went on: what every new stream begins with (the match and
    // its snapshot) is no sign of it, else a referee that dies at each
    // start after resuming the match would be watched again for good.
    watch.answered =
        watch.answered || (!event.has_match() && !event.has_snapshot());
    Heard();
    if (event.has_match() && event.match().status() == v1::MATCH_BROKEN) {
      watch.broken = PrintableText(event.match().broken_reason());
    }
    uint64_t opened = 0;
    if (event.has_decision()) {
      opened = event.decision().decision_id();
    } else if (event.has_snapshot() && event.snapshot().has_decision()) {
      opened = event.snapshot().decision().decision_id();
    }
    if (++events > watch.max_events) {
      watch.beyond = absl::StrCat(
          "sent more than ", watch.max_events, " events about match ",
          watch.match_id, " on one Watch stream, the most one stream of ",
          MatchOf(watch.game, watch.seats), " carries");
    } else if (opened > watch.max_decision) {
      watch.beyond =
          absl::StrCat("opened decision ", opened, " of match ", watch.match_id,
                       ", beyond decision ", watch.max_decision,
                       ", the last of ", MatchOf(watch.game, watch.seats));
    }
    if (!watch.beyond.empty()) {
      context.TryCancel();
      break;
    }
    watch.decision = std::max(watch.decision, opened);
    watch.limit = SilenceLimit(watch.clocks, watch.decision, silence_margin_);
    if (bounded) watchdog_->Heard(&context, watch.limit);
  }
  watch.status = reader->Finish();
  // Neither is a lost connection, to be watched again: the referee is not
  // playing the match.
  if (!watch.beyond.empty()) {
    watch.status = grpc::Status(grpc::StatusCode::OUT_OF_RANGE, "beyond");
  }
  if (bounded && watchdog_->Remove(&context) && !watch.status.ok()) {
    watch.silenced = true;
    watch.status = grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED, "silent");
  }
  if (events == 0) {
    NoteStream(watch,
               watch.status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED
                   ? Stream::kRefused
                   : Stream::kEnded);
  }
  absl::MutexLock lock(&mu_);
  watches_.erase(&context);
  return watch.status;
}

absl::Status RefereeLink::WatchEnd(const RemoteWatch& watch) const {
  const v1::ClockSettings& clocks = watch.clocks;
  if (watch.silenced) {
    return absl::DeadlineExceededError(absl::StrCat(
        "the referee at ", address_, " sent nothing about match ",
        watch.match_id, " for ", absl::FormatDuration(watch.limit),
        ", longer than any decision may take under its clocks (commit ",
        absl::FormatDuration(CommitTimeout(clocks)), " + time bank ",
        absl::FormatDuration(BankAt(clocks, watch.decision)), " + reveal ",
        absl::FormatDuration(absl::Milliseconds(clocks.reveal_timeout_ms())),
        ", + ", absl::FormatDuration(silence_margin_),
        " for the referee's own delays): it is not playing the match; not "
        "waiting for its end"));
  }
  if (!watch.beyond.empty()) {
    return absl::OutOfRangeError(absl::StrCat(
        "the referee at ", address_, " ", watch.beyond, " (", *watch.moves,
        " moves after the seed decision at most): it is not playing the "
        "match; not waiting for its end"));
  }
  if (!watch.status.ok()) return FromGrpc(watch.status, "watching");
  if (!watch.broken.empty()) {
    return absl::DataLossError(absl::StrCat("the match broke: ", watch.broken));
  }
  return absl::OkStatus();
}

void RefereeLink::Cancel() {
  absl::MutexLock lock(&mu_);
  cancelled_ = true;
  for (grpc::ClientContext* context : watches_) context->TryCancel();
}

absl::StatusOr<v1::TlogCheckpoint> RefereeLink::GetCheckpoint() {
  v1::TlogCheckpoint response;
  // The tree's disk full (its waiting logs could not be entered, or the
  // checkpoint not signed): waited out as an outage is, since space may
  // come back.
  grpc::Status status = Retrying(
      [&](grpc::ClientContext& context) {
        return stub_->GetCheckpoint(&context, v1::GetCheckpointRequest(),
                                    &response);
      },
      /*answered=*/nullptr, Exhausted::kNoSpace);
  if (!status.ok()) return FromGrpc(status, "getting a checkpoint");
  return response;
}

absl::StatusOr<v1::InclusionProof> RefereeLink::GetInclusionProof(
    const std::string& match_id, uint64_t tree_size) {
  v1::GetInclusionProofRequest request;
  request.set_match_id(match_id);
  request.set_tree_size(tree_size);
  v1::InclusionProof response;
  grpc::Status status = Retrying([&](grpc::ClientContext& context) {
    return stub_->GetInclusionProof(&context, request, &response);
  });
  if (!status.ok()) {
    return FromGrpc(status, absl::StrCat("proving match ", match_id));
  }
  return response;
}

absl::StatusOr<v1::ConsistencyProof> RefereeLink::GetConsistencyProof(
    uint64_t old_size, uint64_t new_size) {
  v1::GetConsistencyProofRequest request;
  request.set_old_size(old_size);
  request.set_new_size(new_size);
  v1::ConsistencyProof response;
  grpc::Status status = Retrying([&](grpc::ClientContext& context) {
    return stub_->GetConsistencyProof(&context, request, &response);
  });
  if (!status.ok()) {
    return FromGrpc(status, absl::StrCat("proving the checkpoint of ", new_size,
                                         " consistent with ", old_size));
  }
  return response;
}

LogFetchOptions RefereeLink::LogFetch() const {
  return {.max_bytes = max_log_bytes_,
          .stall_limit = log_stall_limit_,
          .address = address_,
          .taker = "the runner",
          .what = "fetching the log"};
}

absl::Status RefereeLink::DownloadLog(const std::string& match_id,
                                      const LogChunks& chunks) {
  if (embedded_ != nullptr) {
    return absl::FailedPreconditionError(
        "the embedded referee keeps no logs but those in its log directory");
  }
  return pyramid::DownloadLog(
      *stub_, match_id, LogFetch(),
      [&](const std::function<grpc::Status(grpc::ClientContext&)>& attempt) {
        return Retrying(attempt);
      },
      chunks);
}

absl::StatusOr<std::string> RefereeLink::GetLog(const std::string& match_id) {
  std::string bytes;
  const absl::Status status =
      DownloadLog(match_id, {.restart =
                                 [&] {
                                   bytes.clear();
                                   return absl::OkStatus();
                                 },
                             .append =
                                 [&](std::string_view chunk) {
                                   bytes.append(chunk);
                                   return absl::OkStatus();
                                 }});
  if (!status.ok()) return status;
  return bytes;
}

absl::Status RefereeLink::FetchLog(const std::string& match_id,
                                   const std::string& dir,
                                   const std::string& file) {
  if (embedded_ != nullptr) return absl::OkStatus();
  // Synced, with its directory, before the journal line that names it.
  return DownloadLogToFile(
             *stub_, match_id, LogFetch(),
             [&](const std::function<grpc::Status(grpc::ClientContext&)>&
                     attempt) { return Retrying(attempt); },
             (std::filesystem::path(dir) / file).string())
      .status();
}

std::optional<std::string> WrongRefereeKey(const Verdict& verdict,
                                           const std::string& pinned_key) {
  if (verdict.kind == Verdict::Kind::kGenuine) return std::nullopt;
  const std::string& key = verdict.header.referee_public_key();
  if (key.size() != pinned_key.size() || key == pinned_key) {
    return std::nullopt;
  }
  return key;
}

}  // namespace pyramid
