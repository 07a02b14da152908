// Lobby::RegisterBot and Lobby::CreateMatch: what a client's request
// creates, with the checks of what it names (names and labels shown as
// written, request_ids, seats, clocks) and, for a match, the steps that
// make it durable before it is answered: its registry entry, then its
// log's header (docs/durability.md). A retry of a request_id is answered
// here too (ReserveRequest).
#include <sodium.h>

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/util/message_differencer.h"
#include "referee/core/log_format.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/protocol.h"
#include "referee/games/printable_text.h"
#include "referee/games/registry.h"
#include "referee/service/grpc_status.h"
#include "referee/service/lobby.h"

namespace pyramid {
namespace {

constexpr size_t kMaxNameBytes = 64;
constexpr size_t kMaxLabelBytes = 128;
constexpr size_t kMaxRequestIdBytes = 128;
// Matches ReserveLabel reads from the registry at once (more than one only
// in a registry that took a label twice before the rule).
constexpr int kLabelPage = 16;

// "running", "finished": how a match's status is named in a refusal.
std::string StatusName(v1::MatchStatus status) {
  switch (status) {
    case v1::MATCH_RUNNING:
      return "running";
    case v1::MATCH_FINISHED:
      return "finished";
    case v1::MATCH_BROKEN:
      return "broken";
    default:
      return absl::StrCat("status ", static_cast<int>(status));
  }
}

// OK when `text` shows as it is written (referee/games/printable_text.h
// escapes nothing in it); else INVALID_ARGUMENT naming `what`. A name or a
// label is shown to people by every tool: one that needs escaping (a
// control, bidirectional or invisible character) is refused here rather
// than shown escaped, or unescaped by another program.
absl::Status RequirePrintable(const std::string& what,
                              const std::string& text) {
  if (PrintableText(text) == text) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      what, " ", QuotedText(text),
      " holds a character shown only escaped (a control, bidirectional or "
      "invisible character); names and labels are shown as they are "
      "written"));
}

// Whether a request leaves the deadlines to the referee's defaults (its
// seed_timeout_ms, if any, still applies).
bool AllZero(const v1::ClockSettings& clocks) {
  return clocks.commit_timeout_ms() == 0 && clocks.reveal_timeout_ms() == 0 &&
         clocks.time_bank_ms() == 0 && clocks.time_bank_increment_ms() == 0;
}

// What a match created for a request_id (`info`) has that a retry of it
// (`request`, which would create a match of `config` and `hosted`) does
// not ask for: "another game ...", "other seats", "other clocks", "another
// forfeit policy"; empty when the retry asks for the same match. A request
// that leaves its clocks to the referee's defaults accepts those the match
// was given (the defaults may have changed with a restart).
std::string DifferenceFrom(const v1::MatchInfo& info,
                           const v1::CreateMatchRequest& request,
                           const MatchConfig& config,
                           const std::vector<HostedSeat>& hosted) {
  if (!google::protobuf::util::MessageDifferencer::Equals(info.game(),
                                                          config.game)) {
    return "another game or other game options";
  }
  bool same_seats = info.seats_size() == static_cast<int>(hosted.size());
  for (int i = 0; same_seats && i < info.seats_size(); ++i) {
    same_seats = info.seats(i).bot_id() == hosted[i].bot_id &&
                 info.seats(i).name() == hosted[i].name;
  }
  if (!same_seats) return "other seats";
  const uint32_t seed_timeout = request.clocks().seed_timeout_ms();
  if (AllZero(request.clocks())
          ? seed_timeout != 0 && seed_timeout != info.clocks().seed_timeout_ms()
          : !google::protobuf::util::MessageDifferencer::Equals(
                info.clocks(), config.clocks)) {
    return "other clocks";
  }
  if (info.forfeit_policy() != config.forfeit_policy) {
    return "another forfeit policy";
  }
  // The label is in the log's signed header: a retry answered with a match
  // of another label would record a match the caller did not ask for.
  if (info.label() != config.label) return "another label";
  return "";
}

// OK when `request_id` may name a request: at most kMaxRequestIdBytes,
// shown as written (by refctl and in MatchInfo, as names are); else
// INVALID_ARGUMENT saying why.
absl::Status CheckRequestIdForm(const std::string& request_id) {
  if (request_id.size() > kMaxRequestIdBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("request_id: at most ", kMaxRequestIdBytes, " bytes, not ",
                     request_id.size()));
  }
  return RequirePrintable("request_id", request_id);
}

// The answer to a retry of the request that created the running (or
// finished) match `info`, which asks for the match `config` and `hosted`:
// its id, and "" for each seat's token (given only in the first answer);
// FAILED_PRECONDITION when the retry asks for another match, ALREADY_EXISTS
// when a seat is played with a token.
absl::StatusOr<v1::CreateMatchResponse> AnswerRetry(
    const v1::MatchInfo& info, const v1::CreateMatchRequest& request,
    const MatchConfig& config, const std::vector<HostedSeat>& hosted) {
  if (const std::string differs = DifferenceFrom(info, request, config, hosted);
      !differs.empty()) {
    return absl::FailedPreconditionError(
        absl::StrCat("request_id already names match ", info.match_id(),
                     ", created with ", differs));
  }
  bool token_seat = false;
  for (const v1::MatchSeatInfo& seat : info.seats()) {
    token_seat = token_seat || seat.bot_id().empty();
  }
  if (token_seat) {
    return absl::AlreadyExistsError(
        absl::StrCat("request_id already names match ", info.match_id(),
                     "; its seat tokens were given only in the first answer"));
  }
  v1::CreateMatchResponse response;
  response.set_match_id(info.match_id());
  for (int i = 0; i < info.seats_size(); ++i) response.add_seat_tokens("");
  return response;
}

std::string RandomHex(size_t bytes) {
  std::string raw(bytes, '\0');
  randombytes_buf(raw.data(), raw.size());
  return ToHex(raw);
}

// What the registry keeps of a new match (its summary, its log's file name
// `log_name` and referee contribution; seat tokens are added by
// MintSeatTokens).
StoredMatch NewStoredMatch(const std::string& match_id,
                           const std::string& log_name,
                           const std::string& contribution,
                           const v1::GameConfig& game,
                           const std::vector<HostedSeat>& hosted,
                           const MatchConfig& config, int64_t created) {
  StoredMatch stored;
  stored.log_name = log_name;
  stored.referee_contribution = contribution;
  v1::MatchInfo& info = stored.info;
  info.set_match_id(match_id);
  *info.mutable_game() = game;
  for (const HostedSeat& seat : hosted) {
    v1::MatchSeatInfo* s = info.add_seats();
    s->set_name(seat.name);
    s->set_bot_id(seat.bot_id);
  }
  info.set_status(v1::MATCH_RUNNING);
  info.set_label(config.label);
  info.set_created_unix_ms(created);
  *info.mutable_clocks() = config.clocks;
  info.set_forfeit_policy(config.forfeit_policy);
  return stored;
}

// A token for every seat not played by a bot, in `stored` (hashed) and
// `response` (the token, shown once; "" for a bot's seat). Returns them
// for the token table, which takes them once the match exists.
std::vector<std::pair<MintedToken, Principal>> MintSeatTokens(
    const std::string& match_id, const std::vector<HostedSeat>& hosted,
    StoredMatch& stored, v1::CreateMatchResponse& response) {
  std::vector<std::pair<MintedToken, Principal>> seat_tokens;
  for (int i = 0; i < static_cast<int>(hosted.size()); ++i) {
    if (!hosted[i].bot_id.empty()) {
      response.add_seat_tokens("");
      continue;
    }
    Principal seat;
    seat.kind = Principal::Kind::kSeat;
    seat.match_id = match_id;
    seat.seat = i;
    seat.route = hosted[i].route;
    const MintedToken minted = MintToken();
    stored.seat_tokens.push_back({minted.id, minted.secret_hash, seat});
    seat_tokens.emplace_back(minted, seat);
    response.add_seat_tokens(minted.token);
  }
  return seat_tokens;
}

}  // namespace

absl::StatusOr<v1::RegisterBotResponse> Lobby::RegisterBot(
    const v1::RegisterBotRequest& request) {
  if (request.name().empty() || request.name().size() > kMaxNameBytes) {
    return absl::InvalidArgumentError("a bot name is 1 to 64 bytes");
  }
  if (absl::Status s = RequirePrintable("bot name", request.name()); !s.ok()) {
    return s;
  }
  if (!request.public_key().empty() &&
      request.public_key().size() != kPublicKeySize) {
    return absl::InvalidArgumentError("a public key is 32 bytes");
  }
  if (!request.public_key().empty() &&
      !IsValidPublicKey(request.public_key())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "bot \"", absl::CHexEscape(request.name()), "\": public key ",
        ToHex(request.public_key()),
        " is not a valid Ed25519 public key (every signature by it would be "
        "refused)"));
  }
  const MintedToken minted = MintToken();
  Principal principal;
  principal.kind = Principal::Kind::kBot;
  principal.bot_id = RandomHex(8);
  principal.route = next_route_++;
  {
    absl::MutexLock lock(&mu_);
    bots_[principal.bot_id] =
        Bot{request.name(), request.public_key(), principal.route, {}};
  }
  StoredBot stored{principal.bot_id, request.name(), request.public_key(),
                   StoredToken{minted.id, minted.secret_hash, principal}};
  if (absl::Status s = options_.registry->AddBot(stored); !s.ok()) {
    absl::MutexLock lock(&mu_);
    bots_.erase(principal.bot_id);
    return RegistryWriteFailed("cannot record the bot: ", s);
  }
  tokens_.Add(minted, principal);
  v1::RegisterBotResponse response;
  response.set_bot_id(principal.bot_id);
  response.set_bot_token(minted.token);
  return response;
}

absl::StatusOr<MatchConfig> Lobby::ConfigFor(
    const v1::CreateMatchRequest& request) const {
  // The game and its options, checked before anything is recorded (the
  // game's id also names the log file, which an unknown one may not).
  if (absl::StatusOr<std::unique_ptr<Game>> game = MakeGame(request.game());
      !game.ok()) {
    return game.status();
  }
  MatchConfig config;
  config.game = request.game();
  config.clocks =
      AllZero(request.clocks()) ? options_.default_clocks : request.clocks();
  if (request.clocks().seed_timeout_ms() != 0) {
    config.clocks.set_seed_timeout_ms(request.clocks().seed_timeout_ms());
  }
  config.forfeit_policy =
      request.forfeit_policy() == v1::FORFEIT_POLICY_UNSPECIFIED
          ? v1::FORFEIT_POLICY_FORFEIT
          : request.forfeit_policy();
  if (!v1::ForfeitPolicy_IsValid(config.forfeit_policy)) {
    return absl::InvalidArgumentError("unknown forfeit policy");
  }
  config.checkpoint_interval = options_.checkpoint_interval;
  config.fsync = options_.fsync;
  if (request.label().size() > kMaxLabelBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("label: at most ", kMaxLabelBytes, " bytes, not ",
                     request.label().size()));
  }
  if (absl::Status s = RequirePrintable("label", request.label()); !s.ok()) {
    return s;
  }
  config.label = request.label();
  return config;
}

absl::StatusOr<std::optional<v1::CreateMatchResponse>> Lobby::ReserveRequest(
    const v1::CreateMatchRequest& request, const MatchConfig& config,
    const std::vector<HostedSeat>& hosted) {
  if (absl::Status s = CheckRequestIdForm(request.request_id()); !s.ok()) {
    return s;
  }
  // The match named by the request_id: a running one's is in memory, an
  // ended one's in the registry; while it is asked there, the request_id
  // is reserved here (so a concurrent retry waits).
  absl::StatusOr<std::string> named = requests_.Reserve(request.request_id());
  if (!named.ok()) return named.status();
  const bool reserved_here = named->empty();
  if (reserved_here) {
    absl::StatusOr<std::string> recorded =
        options_.registry->FindRequest(request.request_id());
    if (absl::IsNotFound(recorded.status())) return std::nullopt;
    if (!recorded.ok()) {
      requests_.Release(request.request_id());
      return absl::UnavailableError(absl::StrCat("cannot read the registry: ",
                                                 recorded.status().message()));
    }
    named = *std::move(recorded);
  }
  // Unless this call reserved the request_id, it is answered without
  // creating anything: the reservation goes with the answer.
  absl::Cleanup release = [&] {
    if (reserved_here) requests_.Release(request.request_id());
  };
  std::shared_ptr<MatchHost> host = FindMatch(*named);
  // Read without the lobby's lock: a match's info waits while its end is
  // being entered in the transparency log (up to SQLite's busy timeout).
  const v1::MatchInfo info =
      host != nullptr ? host->Info(connections_) : v1::MatchInfo();
  if (host == nullptr || info.status() == v1::MATCH_BROKEN) {
    if (absl::Status s = ReclaimBrokenRequest(request.request_id(), *named,
                                              host != nullptr, reserved_here);
        !s.ok()) {
      return s;
    }
    std::move(release).Cancel();  // Reserved for the new match.
    return std::nullopt;
  }
  absl::StatusOr<v1::CreateMatchResponse> answer =
      AnswerRetry(info, request, config, hosted);
  if (!answer.ok()) return answer.status();
  return *std::move(answer);
}

absl::Status Lobby::ReclaimBrokenRequest(const std::string& request_id,
                                         const std::string& match_id,
                                         bool hosted, bool reserved_here) {
  // It will never be played nor sealed (e.g. its log could not be
  // resumed after a restart): the retry gets a match that will, unless
  // another retry took the request_id over meanwhile. Unless its end is
  // recorded, though, a restart would resume it as running: no other
  // match is made for the request_id until it is.
  if (hosted) {
    if (absl::Status s = RecordUnrecorded(match_id); !s.ok()) {
      const std::string why =
          absl::StrCat("request_id names match ", match_id,
                       ", which broke, and whose end cannot be recorded "
                       "yet (",
                       s.message(), "); try again later");
      return absl::IsResourceExhausted(s) ? absl::ResourceExhaustedError(why)
                                          : absl::UnavailableError(why);
    }
  }
  if (reserved_here) return absl::OkStatus();
  // (Recording its end let go of the request_id: taken again.)
  return requests_.TakeOver(request_id, match_id);
}

absl::StatusOr<v1::MatchStatus> Lobby::StatusOfRunning(
    const std::string& match_id) {
  std::shared_ptr<MatchHost> host;
  {
    absl::ReaderMutexLock lock(&mu_);
    host = FindInMemoryLocked(match_id);
  }
  // Read without the lobby's lock, as ReserveRequest does.
  if (host != nullptr) return host->Info(connections_).status();
  // Not hosted: it ended since it was read (its end is written to the
  // registry before it leaves memory), or its creation failed and its
  // entry could not be removed.
  absl::StatusOr<StoredMatch> again = options_.registry->FindMatch(match_id);
  if (!again.ok()) {
    return absl::UnavailableError(
        absl::StrCat("whose entry the registry cannot read (",
                     again.status().message(), ")"));
  }
  if (again->info.status() == v1::MATCH_RUNNING) {
    return absl::NotFoundError(
        "recorded as running but not hosted (its creation failed, and its "
        "entry could not be removed: the next start resumes it or forgets "
        "it)");
  }
  return again->info.status();
}

absl::Status Lobby::ReserveLabel(const std::string& label,
                                 const std::string& request_id) {
  if (!labels_.Reserve(label).ok()) {
    return absl::UnavailableError(
        absl::StrCat("a CreateMatch with label ", QuotedText(label),
                     " is still being answered; try again"));
  }
  absl::Cleanup release = [&] { labels_.Release(label); };
  // The matches recorded with the label that did not break, newest first:
  // one that ended is the registry's to answer; one recorded as running is
  // asked of this run (its end may not be recorded yet). Whatever cannot be
  // told holds the label: a refusal is retried, a label given twice is not
  // taken back.
  for (int64_t before = 0;;) {
    absl::StatusOr<std::vector<StoredMatch>> page =
        options_.registry->FindLabelled(label, before, kLabelPage);
    if (!page.ok()) {
      return absl::UnavailableError(
          absl::StrCat("cannot read the registry: ", page.status().message()));
    }
    if (page->empty()) break;
    for (const StoredMatch& stored : *page) {
      before = stored.seq;
      const std::string& match_id = stored.info.match_id();
      v1::MatchStatus status = stored.info.status();
      if (status == v1::MATCH_RUNNING) {
        absl::StatusOr<v1::MatchStatus> now = StatusOfRunning(match_id);
        // This request's own attempt, cut short: its retry replaces it, as
        // it does for the request_id (ReserveRequest).
        if (absl::IsNotFound(now.status()) && !request_id.empty() &&
            stored.info.request_id() == request_id) {
          continue;
        }
        if (!now.ok()) {
          return absl::UnavailableError(absl::StrCat(
              "label ", QuotedText(label), " is the label of match ", match_id,
              ", ", now.status().message(), "; try again later"));
        }
        status = *now;
      }
      if (status != v1::MATCH_BROKEN) {
        return absl::AlreadyExistsError(absl::StrCat(
            "label ", QuotedText(label), " is already the label of match ",
            match_id, " (", StatusName(status),
            "): a label names one match (--unique_labels)"));
      }
      // It broke, and its end is not recorded yet: the label is free once
      // it is (until then a restart could resume it as running).
      if (absl::Status s = RecordUnrecorded(match_id); !s.ok()) {
        const std::string why = absl::StrCat(
            "label ", QuotedText(label), " is the label of match ", match_id,
            ", which broke, and whose end cannot be recorded yet (",
            s.message(), "); try again later");
        return absl::IsResourceExhausted(s) ? absl::ResourceExhaustedError(why)
                                            : absl::UnavailableError(why);
      }
    }
  }
  std::move(release).Cancel();  // Until the match is hosted, or not made.
  return absl::OkStatus();
}

absl::StatusOr<std::vector<HostedSeat>> Lobby::SeatsFor(
    const v1::CreateMatchRequest& request, MatchConfig& config) {
  std::vector<HostedSeat> hosted;
  absl::MutexLock lock(&mu_);
  for (int i = 0; i < request.seats_size(); ++i) {
    const v1::SeatSpec& spec = request.seats(i);
    if (spec.name().size() > kMaxNameBytes) {
      return absl::InvalidArgumentError("a seat name is at most 64 bytes");
    }
    if (absl::Status s =
            RequirePrintable(absl::StrCat("seat ", i, "'s name"), spec.name());
        !s.ok()) {
      return s;
    }
    // A key no signature verifies by would make each of the seat's commits
    // refused (the size is Match::Create's to check).
    if (spec.public_key().size() == kPublicKeySize &&
        !IsValidPublicKey(spec.public_key())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "seat ", i, ": public key ", ToHex(spec.public_key()),
          " is not a valid Ed25519 public key (every signature by it would "
          "be refused)"));
    }
    v1::Seat seat;
    seat.set_public_key(spec.public_key());
    HostedSeat host_seat;
    if (!spec.bot_id().empty()) {
      auto bot = bots_.find(spec.bot_id());
      if (bot == bots_.end()) {
        return absl::NotFoundError(
            absl::StrCat("unknown bot \"", spec.bot_id(), "\""));
      }
      seat.set_name(spec.name().empty() ? bot->second.name : spec.name());
      if (spec.public_key().empty()) {
        seat.set_public_key(bot->second.public_key);
      }
      host_seat.bot_id = spec.bot_id();
      host_seat.route = bot->second.route;
    } else {
      seat.set_name(spec.name().empty() ? absl::StrCat("seat ", i)
                                        : spec.name());
      host_seat.route = next_route_++;
    }
    host_seat.name = seat.name();
    config.seats.push_back(std::move(seat));
    hosted.push_back(std::move(host_seat));
  }
  return hosted;
}

absl::StatusOr<v1::CreateMatchResponse> Lobby::CreateMatch(
    const v1::CreateMatchRequest& request) {
  absl::StatusOr<MatchConfig> config = ConfigFor(request);
  if (!config.ok()) return config.status();
  absl::StatusOr<std::vector<HostedSeat>> hosted = SeatsFor(request, *config);
  if (!hosted.ok()) return hosted.status();
  // A retry of a request already answered is answered again, even while
  // no match can be created; a new request_id is reserved until the match
  // is hosted (or its creation failed).
  if (!request.request_id().empty()) {
    absl::StatusOr<std::optional<v1::CreateMatchResponse>> repeated =
        ReserveRequest(request, *config, *hosted);
    if (!repeated.ok()) return repeated.status();
    if (repeated->has_value()) return **repeated;
  }
  absl::Cleanup release = [this, &request] {
    requests_.Release(request.request_id());
  };
  // The label is checked after the request_id (a retry is answered with
  // its match, which holds the label), and reserved until the match is
  // hosted (the registry and the lobby answer for it then) or not made.
  const std::string label =
      options_.unique_labels ? config->label : std::string();
  if (!label.empty()) {
    if (absl::Status s = ReserveLabel(label, request.request_id()); !s.ok())
      return s;
  }
  absl::Cleanup release_label = [this, &label] {
    if (!label.empty()) labels_.Release(label);
  };
  // Ends the registry could not record are recorded before it records a
  // new match (one that cannot be yet waits for the next try).
  RecordUnrecorded().IgnoreError();
  if (absl::Status s = CheckWritable(); !s.ok()) return s;
  if (absl::Status s = AdmitMatch(); !s.ok()) return s;
  absl::Cleanup count_out = [this] { live_matches_.fetch_sub(1); };
  // The match id and the referee's seed contribution are drawn first and
  // recorded with the match before its log (which commits to the
  // contribution) is written: a restart can then resume it. Once its log
  // holds its first checkpoint (written and synced), the registry marks it
  // acknowledged, and only then is it answered: a restart that finds the
  // log of a match not so marked without that checkpoint forgets it
  // (ForgetUnacknowledged), and a retry creates it.
  std::string ids(kMatchIdSize + kSeedContributionSize, '\0');
  randombytes_buf(ids.data(), ids.size());
  const std::string match_id = ToHex(ids.substr(0, kMatchIdSize));
  // The registry names the log by its file name (LogPath resolves it).
  const std::string name =
      log_format::FileName(request.game().game(), match_id);
  const std::string path =
      (std::filesystem::path(options_.log_dir) / name).string();
  const SystemClock* clock = SystemClock::Get();
  const int64_t created = absl::ToUnixMillis(clock->Now());
  StoredMatch stored =
      NewStoredMatch(match_id, name, ids.substr(kMatchIdSize), request.game(),
                     *hosted, *config, created);
  stored.info.set_request_id(request.request_id());
  v1::CreateMatchResponse response;
  response.set_match_id(match_id);
  const std::vector<std::pair<MintedToken, Principal>> seat_tokens =
      MintSeatTokens(match_id, *hosted, stored, response);
  if (absl::Status s = options_.registry->AddMatch(stored); !s.ok()) {
    return RegistryWriteFailed("cannot record the match: ", s);
  }
  absl::StatusOr<std::unique_ptr<Match>> match =
      StartLog(*std::move(config), path, ids, clock);
  // Recorded before the answer: a restart that finds the log missing or
  // short ends the match broken, never forgets it (RecoverMatch).
  absl::Status acknowledged =
      match.ok() ? options_.registry->MarkAcknowledged(match_id)
                 : match.status();
  if (!acknowledged.ok()) {
    if (match.ok()) {
      match->reset();  // Its log closed before it goes.
      acknowledged =
          RegistryWriteFailed("cannot record the match: ", acknowledged);
    } else if (absl::IsResourceExhausted(acknowledged)) {
      NoteWriteFailure(std::string(acknowledged.message()));
    }
    std::error_code ignored;  // What it cannot remove stays.
    std::filesystem::remove(path, ignored);
    options_.registry->RemoveMatch(match_id).IgnoreError();
    return acknowledged;
  }
  std::vector<std::string> token_ids;
  for (const auto& [minted, principal] : seat_tokens) {
    tokens_.Add(minted, principal);
    token_ids.push_back(minted.id);
  }
  std::shared_ptr<MatchHost> host =
      NewHost(*std::move(match), stored.info, *std::move(hosted), path);
  std::move(count_out).Cancel();  // Its end counts it out.
  // Its request_id now names it: nothing to release.
  Host(std::move(host), std::move(token_ids));
  std::move(release).Cancel();
  return response;
}

absl::StatusOr<std::unique_ptr<Match>> Lobby::StartLog(MatchConfig config,
                                                       const std::string& path,
                                                       const std::string& ids,
                                                       const Clock* clock) {
  absl::StatusOr<std::unique_ptr<FileLogSink>> sink = FileLogSink::Create(path);
  if (!sink.ok()) {
    // Out of file descriptors or space: the client may try again later.
    if (absl::IsResourceExhausted(sink.status())) {
      return absl::ResourceExhaustedError(
          absl::StrCat("the referee cannot open a new match log now (",
                       sink.status().message(), "); try again later"));
    }
    return absl::InternalError(sink.status().message());
  }
  if (journal_in_use()) (*sink)->set_journal(options_.journal);
  absl::StatusOr<std::unique_ptr<Match>> match =
      Match::Create(std::move(config), options_.referee_key, *std::move(sink),
                    clock, FixedEntropy(ids));
  if (!match.ok() && absl::IsInternal(match.status())) {
    // The log could not be written (a full disk, an I/O error).
    return absl::ResourceExhaustedError(absl::StrCat(
        "the referee cannot write match logs now (", match.status().message(),
        "); try again when space returns"));
  }
  return match;
}

absl::Status Lobby::AdmitMatch() {
  const int limit = options_.max_live_matches;
  int live = live_matches_.load();
  do {
    if (limit > 0 && live >= limit) {
      return WithTrailer(absl::UnavailableError(absl::StrCat(
                             "the referee's limit of live matches is reached (",
                             "--max_live_matches=", limit, ", ", live,
                             " live); try again when one ends")),
                         kMaxLiveMatchesTrailer, absl::StrCat(limit));
    }
  } while (!live_matches_.compare_exchange_weak(live, live + 1));
  return absl::OkStatus();
}

}  // namespace pyramid
