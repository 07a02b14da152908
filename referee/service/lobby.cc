#include "referee/service/lobby.h"

#include <sodium.h>
#include <sys/statvfs.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <system_error>

#include "absl/cleanup/cleanup.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "google/protobuf/util/message_differencer.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/protocol.h"
#include "referee/games/printable_text.h"
#include "referee/games/registry.h"
#include "referee/service/grpc_status.h"

namespace pyramid {
namespace {

constexpr size_t kMaxNameBytes = 64;
constexpr size_t kMaxLabelBytes = 128;
constexpr size_t kMaxRequestIdBytes = 128;
constexpr uint32_t kDefaultPageSize = 100;
constexpr uint32_t kMaxPageSize = 1000;
// Registry rows a ListMatches page may read per match it may list.
constexpr uint32_t kListScanPerMatch = 10;
// After a write failure, new matches wait for this much free space.
constexpr uint64_t kMinFreeBytes = 1 << 20;

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

std::string RandomHex(size_t bytes) {
  std::string raw(bytes, '\0');
  randombytes_buf(raw.data(), raw.size());
  return ToHex(raw);
}

}  // namespace

absl::Status CheckMatchIdForm(absl::string_view match_id) {
  if (match_id.size() != 2 * kMatchIdSize) {
    return absl::InvalidArgumentError(absl::StrCat(
        "match_id: ", 2 * kMatchIdSize, " lower-case hex digits, not ",
        match_id.size(), " bytes"));
  }
  for (const char c : match_id) {
    if (!absl::ascii_isdigit(c) && !(c >= 'a' && c <= 'f')) {
      return absl::InvalidArgumentError(absl::StrCat(
          "match_id: ", 2 * kMatchIdSize, " lower-case hex digits, not \"",
          absl::CHexEscape(match_id), "\""));
    }
  }
  return absl::OkStatus();
}

Lobby::Lobby(LobbyOptions options)
    : options_(std::move(options)),
      public_key_(options_.referee_key.public_key()) {
  if (sodium_init() < 0) std::abort();
  if (options_.registry == nullptr) options_.registry = NewMemoryRegistry();
  Principal admin;
  admin.kind = Principal::Kind::kAdmin;
  tokens_.AddRaw(options_.admin_token, admin);
  if (options_.tlog != nullptr) {
    sealed_logs_ = std::make_unique<SealedLogQueue>(
        options_.tlog.get(), options_.checkpoint_every_matches,
        options_.messages);
  }
  scheduler_ =
      std::make_unique<DeadlineScheduler>([this](const std::string& match_id) {
        std::shared_ptr<MatchHost> host;
        {
          absl::ReaderMutexLock lock(&mu_);
          host = FindRunningLocked(match_id);
        }
        if (host != nullptr) host->CheckDeadlines();
      });
  if (options_.checkpoint_every > absl::ZeroDuration()) {
    checkpointer_ = std::thread([this] { CheckpointLoop(); });
  }
  if (options_.sync_threads > 0) {
    sync_pool_ = std::make_unique<SyncPool>(options_.sync_threads);
  }
  if (options_.ack_hold > absl::ZeroDuration()) {
    ack_holder_ = std::make_unique<DelayedRunner>(options_.ack_hold,
                                                  options_.ack_hold / 10);
  }
}

Lobby::~Lobby() {
  {
    absl::MutexLock lock(&stop_mu_);
    stopping_ = true;
  }
  if (checkpointer_.joinable()) checkpointer_.join();
  // Stopped, not destroyed (unique_ptr::reset would null scheduler_ before
  // joining the thread): a deadline that fires meanwhile reaches scheduler_
  // again, through its host's deadline setter (DeadlineSetter). It goes
  // with the members, once nothing can fire.
  scheduler_->Stop();
  // The last chance to record them before a restart, which would resume
  // them (a broken match too) as running.
  SayIfFailed(RecordUnrecorded());
}

void Lobby::CheckpointLoop() {
  absl::MutexLock lock(&stop_mu_);
  while (!stop_mu_.AwaitWithTimeout(absl::Condition(&stopping_),
                                    options_.checkpoint_every)) {
    SayIfFailed(RecordUnrecorded());
    if (options_.tlog == nullptr) continue;
    sealed_logs_->EnterWaiting();
    SayIfFailed(options_.tlog->CheckpointIfGrown().status());
  }
}

absl::StatusOr<TransparencyLog*> Lobby::TlogAsOf(uint64_t tree_size) {
  if (options_.tlog == nullptr) {
    return absl::FailedPreconditionError(
        "this referee keeps no transparency log");
  }
  // Only for the latest: a checkpoint of a given size is already signed,
  // or never will be.
  if (tree_size == 0) sealed_logs_->EnterWaiting();
  return options_.tlog.get();
}

std::optional<Principal> Lobby::Authenticate(std::string_view token) const {
  if (std::optional<Principal> known = tokens_.Find(token)) return known;
  // A seat token of a match that ended: the registry has it (bots' tokens
  // and running matches' are all in memory). Any caller may make the
  // referee ask it about any well-formed token: one indexed SQLite query,
  // 8 us with 90,000 tokens recorded (as with 9,000), where a call refused
  // UNAUTHENTICATED costs 370 us of CPU (client and server on loopback,
  // either way), so that a flood of unknown tokens costs the referee
  // little more than the calls themselves (and no memory: nothing is
  // remembered of a token not found). No bound, then.
  const std::optional<std::string_view> id = TokenId(token);
  if (!id) return std::nullopt;
  absl::StatusOr<StoredToken> stored =
      options_.registry->FindToken(std::string(*id));
  if (!stored.ok()) {
    if (!absl::IsNotFound(stored.status())) SayIfFailed(stored.status());
    return std::nullopt;
  }
  if (stored->principal.kind != Principal::Kind::kSeat ||
      !SecretMatches(token, stored->secret_hash)) {
    return std::nullopt;
  }
  Principal seat = std::move(stored->principal);
  absl::MutexLock lock(&mu_);
  auto open = seat_routes_.find({seat.match_id, seat.seat});
  if (open != seat_routes_.end()) {
    seat.route = open->second;
  } else {
    seat.route = next_route_++;
    AddSeatRouteLocked(seat.match_id, seat.seat, seat.route);
  }
  return seat;
}

void Lobby::AddSeatRouteLocked(const std::string& match_id, int seat,
                               uint64_t route) const {
  if (seat_routes_.size() >= 2 * std::max<size_t>(seat_routes_pruned_, 64)) {
    absl::erase_if(seat_routes_, [this](const auto& entry) {
      return connections_.Find(entry.second) == nullptr;
    });
    seat_routes_pruned_ = seat_routes_.size();
  }
  seat_routes_[{match_id, seat}] = route;
}

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
  if (request.request_id().size() > kMaxRequestIdBytes) {
    return absl::InvalidArgumentError(
        absl::StrCat("request_id: at most ", kMaxRequestIdBytes, " bytes, not ",
                     request.request_id().size()));
  }
  // Shown by refctl and in MatchInfo, as names are.
  if (absl::Status s = RequirePrintable("request_id", request.request_id());
      !s.ok()) {
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
    // It will never be played nor sealed (e.g. its log could not be
    // resumed after a restart): the retry gets a match that will, unless
    // another retry took the request_id over meanwhile. Unless its end is
    // recorded, though, a restart would resume it as running: no other
    // match is made for the request_id until it is.
    if (host != nullptr) {
      if (absl::Status s = RecordUnrecorded(*named); !s.ok()) {
        const std::string why =
            absl::StrCat("request_id names match ", *named,
                         ", which broke, and whose end cannot be recorded "
                         "yet (",
                         s.message(), "); try again later");
        return absl::IsResourceExhausted(s) ? absl::ResourceExhaustedError(why)
                                            : absl::UnavailableError(why);
      }
    }
    if (reserved_here) {
      std::move(release).Cancel();
      return std::nullopt;
    }
    // (Recording its end let go of the request_id: taken again.)
    if (absl::Status s = requests_.TakeOver(request.request_id(), *named);
        !s.ok()) {
      return s;
    }
    return std::nullopt;
  }
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

namespace {

// What the registry keeps of a new match (its summary, log path and
// referee contribution; seat tokens are added by MintSeatTokens).
StoredMatch NewStoredMatch(const std::string& match_id, const std::string& path,
                           const std::string& contribution,
                           const v1::GameConfig& game,
                           const std::vector<HostedSeat>& hosted,
                           const MatchConfig& config, int64_t created) {
  StoredMatch stored;
  stored.log_path = path;
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
  // Ends the registry could not record are recorded before it records a
  // new match (one that cannot be yet waits for the next try).
  RecordUnrecorded().IgnoreError();
  if (absl::Status s = CheckWritable(); !s.ok()) return s;
  if (absl::Status s = AdmitMatch(); !s.ok()) return s;
  absl::Cleanup count_out = [this] { live_matches_.fetch_sub(1); };
  // The match id and the referee's seed contribution are drawn first and
  // recorded with the match before its log (which commits to the
  // contribution) is written: a restart can then resume it. A restart that
  // finds its log without its first checkpoint (written and synced before
  // this answers) forgets it instead, as never acknowledged
  // (ForgetUnacknowledged), and a retry creates it.
  std::string ids(kMatchIdSize + kSeedContributionSize, '\0');
  randombytes_buf(ids.data(), ids.size());
  const std::string match_id = ToHex(ids.substr(0, kMatchIdSize));
  const std::string path =
      (std::filesystem::path(options_.log_dir) /
       absl::StrCat(request.game().game(), "-", match_id, ".pyrlog"))
          .string();
  const SystemClock* clock = SystemClock::Get();
  const int64_t created = absl::ToUnixMillis(clock->Now());
  StoredMatch stored =
      NewStoredMatch(match_id, path, ids.substr(kMatchIdSize), request.game(),
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
  if (!match.ok()) {
    std::error_code ignored;  // What it cannot remove stays.
    std::filesystem::remove(path, ignored);
    options_.registry->RemoveMatch(match_id).IgnoreError();
    if (match.status().code() == absl::StatusCode::kResourceExhausted) {
      NoteWriteFailure(std::string(match.status().message()));
    }
    return match.status();
  }
  std::vector<std::string> token_ids;
  for (const auto& [minted, principal] : seat_tokens) {
    tokens_.Add(minted, principal);
    token_ids.push_back(minted.id);
  }
  auto host = std::make_shared<MatchHost>(
      *std::move(match), request.game(), *std::move(hosted),
      stored.info.clocks(), stored.info.forfeit_policy(), path, created,
      &connections_, DeadlineSetter(match_id));
  host->set_request(request.request_id(), request.label());
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

void Lobby::Host(std::shared_ptr<MatchHost> host,
                 std::vector<std::string> token_ids) {
  const std::string match_id = host->match_id();
  host->set_sync_pool(sync_pool_.get());
  host->set_ack_holder(ack_holder_.get());
  host->set_messages(options_.messages);
  host->set_on_end(
      [this, log_path = host->log_path(),
       routes = RoutesOf(host->seats())](const v1::MatchInfo& info) {
        live_matches_.fetch_sub(1);
        if (info.status() == v1::MATCH_BROKEN)
          NoteWriteFailure(info.broken_reason());
        // A broken log is marked so (0444) before its end is recorded: if
        // the registry cannot record it and the referee dies before it can,
        // the next start finds the mark and does not resume the match.
        const absl::Status marked = info.status() == v1::MATCH_BROKEN
                                        ? MarkLogBroken(log_path)
                                        : MakeLogPublic(log_path);
        SayIfFailed(marked);
        // Entered before the registry records the end: after a crash between
        // the two, the match resumes as finished and is entered again (which
        // changes nothing).
        if (info.status() == v1::MATCH_FINISHED && options_.tlog != nullptr) {
          sealed_logs_->Enter(info.match_id(), log_path);
        }
        const absl::Status recorded = options_.registry->EndMatch(info);
        if (!recorded.ok()) SayEndNotRecorded(info.match_id(), recorded);
        Archive(info, log_path, routes, recorded.ok());
      });
  {
    absl::MutexLock lock(&mu_);
    matches_[match_id] = Live{host, std::move(token_ids)};
    requests_.Name(host->request_id(), match_id);
    for (int i = 0; i < host->num_seats(); ++i) {
      if (host->seat(i).bot_id.empty()) continue;
      Bot& bot = bots_[host->seat(i).bot_id];
      bot.seats.emplace_back(match_id, i);
      // Amortized: a prune asks each listed match once, and the list has
      // grown by as many new seats since the last.
      if (bot.seats.size() >= 2 * std::max<size_t>(bot.pruned_size, 64)) {
        PruneLocked(bot);
      }
      // The bot's stream may queue more with more seats.
      if (std::shared_ptr<PlaySink> stream = connections_.Find(bot.route)) {
        stream->SetSeats(bot.seats.size());
      }
    }
  }
  host->Start();
}

absl::Status Lobby::RegistryWriteFailed(absl::string_view doing,
                                        const absl::Status& failure) {
  const std::string message = absl::StrCat(doing, failure.message());
  if (!absl::IsResourceExhausted(failure)) {
    return absl::UnavailableError(message);
  }
  // A full disk: the client waits for space rather than retry at once, and
  // the next match is refused at once (CheckWritable).
  NoteWriteFailure(message);
  return absl::ResourceExhaustedError(
      absl::StrCat(message, "; try again when space returns"));
}

void Lobby::SayEndNotRecorded(const std::string& match_id,
                              const absl::Status& recorded) {
  Say(absl::StrCat("match ", match_id,
                   ": its end is not recorded yet (tried again before the "
                   "next match is created, at the next checkpoint and at "
                   "shutdown): ",
                   recorded.message()));
  if (absl::IsResourceExhausted(recorded)) {
    NoteWriteFailure(std::string(recorded.message()));
  }
}

void Lobby::Say(std::string_view message) const {
  pyramid::Say(options_.messages, message);
}

void Lobby::SayIfFailed(const absl::Status& status) const {
  if (!status.ok()) Say(std::string(status.message()));
}

void Lobby::NoteWriteFailure(const std::string& reason) {
  absl::MutexLock lock(&write_mu_);
  write_failure_ = reason;
}

absl::Status Lobby::CheckWritable() {
  absl::MutexLock lock(&write_mu_);
  if (write_failure_.empty()) return absl::OkStatus();
  // Space returned? A new log needs room for its header and more, and so
  // do the journal its checkpoints go through and the registry that
  // records the match, either of which may be on another file system.
  auto has_room = [](const std::string& dir) {
    struct statvfs fs;
    return dir.empty() ||
           (statvfs(dir.c_str(), &fs) == 0 &&
            static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize >= kMinFreeBytes);
  };
  if (has_room(options_.log_dir) && has_room(options_.registry->dir()) &&
      (!journal_in_use() || has_room(options_.journal->dir()))) {
    write_failure_.clear();
    return absl::OkStatus();
  }
  return absl::ResourceExhaustedError(absl::StrCat(
      "the referee cannot record new matches now (", write_failure_,
      "); new matches are refused until space returns"));
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

void Lobby::Archive(const v1::MatchInfo& info, std::string log_path,
                    std::vector<uint64_t> routes, bool recorded,
                    std::vector<std::string> token_ids) {
  std::shared_ptr<MatchHost> running;  // Let go after the lock.
  {
    absl::MutexLock lock(&mu_);
    auto it = matches_.find(info.match_id());
    if (it != matches_.end()) {
      running = std::move(it->second.host);
      token_ids = std::move(it->second.token_ids);
      matches_.erase(it);
    }
    if (recorded) {
      ForgetRecordedLocked(info, routes);
    } else {
      // Who is connected is asked of the connections when the match is.
      Unrecorded& kept = unrecorded_[info.match_id()];
      kept.info = info;
      for (v1::MatchSeatInfo& seat : *kept.info.mutable_seats()) {
        seat.clear_connected();
      }
      kept.log_path = std::move(log_path);
      kept.routes = std::move(routes);
      kept.token_ids = std::move(token_ids);
    }
  }
  if (recorded) tokens_.Remove(token_ids);
}

void Lobby::ForgetRecordedLocked(const v1::MatchInfo& info,
                                 const std::vector<uint64_t>& routes) {
  requests_.Forget(info.request_id(), info.match_id());
  // A token seat's stream may stay open after the end: its route is kept
  // while it is (its info says it is connected; a new stream of the seat
  // replaces it).
  for (int i = 0; i < info.seats_size() && i < static_cast<int>(routes.size());
       ++i) {
    if (info.seats(i).bot_id().empty() &&
        connections_.Find(routes[i]) != nullptr) {
      AddSeatRouteLocked(info.match_id(), i, routes[i]);
    }
  }
}

absl::Status Lobby::RecordUnrecorded() {
  std::vector<std::string> waiting;
  {
    absl::ReaderMutexLock lock(&mu_);
    waiting.reserve(unrecorded_.size());
    for (const auto& [match_id, kept] : unrecorded_) {
      waiting.push_back(match_id);
    }
  }
  absl::Status first;
  for (const std::string& match_id : waiting) {
    first.Update(RecordUnrecorded(match_id));
  }
  if (first.ok()) return first;
  return absl::Status(
      first.code(),
      absl::StrCat("the end of ", waiting.size() == 1 ? "a match" : "matches",
                   " still not recorded in the registry (tried again before "
                   "the next match is created, at the next checkpoint and at "
                   "shutdown): ",
                   first.message()));
}

absl::Status Lobby::RecordUnrecorded(const std::string& match_id) {
  v1::MatchInfo info;
  {
    absl::ReaderMutexLock lock(&mu_);
    auto it = unrecorded_.find(match_id);
    if (it == unrecorded_.end()) return absl::OkStatus();
    info = it->second.info;
  }
  // Outside the lock: the registry may take a while (its busy timeout).
  // Recording the same end twice (two threads trying at once) does no harm.
  if (absl::Status s = options_.registry->EndMatch(info); !s.ok()) {
    if (absl::IsResourceExhausted(s)) {
      NoteWriteFailure(std::string(s.message()));
    }
    return s;
  }
  std::vector<std::string> token_ids;
  {
    absl::MutexLock lock(&mu_);
    auto it = unrecorded_.find(match_id);
    if (it == unrecorded_.end()) return absl::OkStatus();
    ForgetRecordedLocked(it->second.info, it->second.routes);
    token_ids = std::move(it->second.token_ids);
    unrecorded_.erase(it);
  }
  tokens_.Remove(token_ids);
  return absl::OkStatus();
}

std::shared_ptr<MatchHost> Lobby::ArchivedHost(const v1::MatchInfo& info,
                                               std::string log_path,
                                               const Principal* seat_of) const {
  std::vector<uint64_t> routes(info.seats_size(), 0);
  {
    absl::ReaderMutexLock lock(&mu_);
    for (int i = 0; i < info.seats_size(); ++i) {
      if (info.seats(i).bot_id().empty()) {
        auto open = seat_routes_.find({info.match_id(), i});
        if (open != seat_routes_.end()) routes[i] = open->second;
      } else if (auto bot = bots_.find(info.seats(i).bot_id());
                 bot != bots_.end()) {
        routes[i] = bot->second.route;
      }
    }
  }
  if (seat_of != nullptr && seat_of->kind == Principal::Kind::kSeat &&
      seat_of->match_id == info.match_id() && seat_of->seat >= 0 &&
      seat_of->seat < info.seats_size()) {
    routes[seat_of->seat] = seat_of->route;
  }
  return std::make_shared<MatchHost>(info, std::move(log_path), routes,
                                     &connections_);
}

std::shared_ptr<MatchHost> Lobby::FindRunningLocked(
    const std::string& match_id) const {
  auto it = matches_.find(match_id);
  return it == matches_.end() ? nullptr : it->second.host;
}

std::shared_ptr<MatchHost> Lobby::FindInMemoryLocked(
    const std::string& match_id) const {
  if (std::shared_ptr<MatchHost> running = FindRunningLocked(match_id)) {
    return running;
  }
  auto it = unrecorded_.find(match_id);
  if (it == unrecorded_.end()) return nullptr;
  return std::make_shared<MatchHost>(it->second.info, it->second.log_path,
                                     it->second.routes, &connections_);
}

size_t Lobby::BotSeatCount(const std::string& bot_id) const {
  absl::MutexLock lock(&mu_);
  auto bot = bots_.find(bot_id);
  return bot == bots_.end() ? 1 : std::max<size_t>(bot->second.seats.size(), 1);
}

std::vector<std::pair<std::shared_ptr<MatchHost>, int>> Lobby::SeatsOf(
    const Principal& principal) {
  std::vector<std::pair<std::shared_ptr<MatchHost>, int>> seats;
  if (principal.kind == Principal::Kind::kSeat) {
    if (std::shared_ptr<MatchHost> host =
            FindMatch(principal.match_id, &principal)) {
      seats.emplace_back(std::move(host), principal.seat);
    }
  } else if (principal.kind == Principal::Kind::kBot) {
    // A bot's running matches only: finished ones are dropped from its list
    // (a reconnecting bot is not sent every result of its history).
    absl::MutexLock lock(&mu_);
    auto bot = bots_.find(principal.bot_id);
    if (bot == bots_.end()) return seats;
    PruneLocked(bot->second);
    for (const auto& [match_id, seat] : bot->second.seats) {
      seats.emplace_back(matches_.at(match_id).host, seat);
    }
  }
  return seats;
}

void Lobby::PruneLocked(Bot& bot) {
  auto& list = bot.seats;
  list.erase(std::remove_if(list.begin(), list.end(),
                            [this](const std::pair<std::string, int>& entry)
                                ABSL_NO_THREAD_SAFETY_ANALYSIS {
                                  // An ended match's end has been recorded
                                  // (Archive): it is no longer running.
                                  return !matches_.contains(entry.first);
                                }),
             list.end());
  bot.pruned_size = list.size();
}

std::function<void(absl::Time)> Lobby::DeadlineSetter(
    const std::string& match_id) {
  return [this, deadline = scheduler_->Track(match_id)](absl::Time when) {
    scheduler_->Schedule(deadline, when);
  };
}

std::shared_ptr<MatchHost> Lobby::FindMatch(const std::string& match_id,
                                            const Principal* seat_of) const {
  {
    absl::ReaderMutexLock lock(&mu_);
    if (std::shared_ptr<MatchHost> host = FindInMemoryLocked(match_id)) {
      return host;
    }
  }
  absl::StatusOr<StoredMatch> stored = options_.registry->FindMatch(match_id);
  if (!stored.ok()) {
    if (!absl::IsNotFound(stored.status())) SayIfFailed(stored.status());
    return nullptr;
  }
  // Recorded as running but not hosted: its creation is under way (or
  // failed). Its end is recorded before it leaves matches_, so a match that
  // ended meanwhile is found there, or recorded as ended here.
  if (stored->info.status() == v1::MATCH_RUNNING) {
    absl::ReaderMutexLock lock(&mu_);
    return FindInMemoryLocked(match_id);
  }
  return ArchivedHost(stored->info, std::move(stored->log_path), seat_of);
}

absl::StatusOr<v1::ListMatchesResponse> Lobby::ListMatches(
    const v1::ListMatchesRequest& request) const {
  uint32_t page_size =
      request.page_size() == 0 ? kDefaultPageSize : request.page_size();
  page_size = std::min(page_size, kMaxPageSize);
  // A page token is the registry's creation number (seq) of the last match
  // listed: the next page lists those created before it (newest first), so
  // pages stay stable while matches are created.
  // Only a token this gives is taken, as it gave it (SimpleAtoi alone
  // would also take " 5" and "+5").
  int64_t before = 0;
  if (!request.page_token().empty() &&
      (!absl::SimpleAtoi(request.page_token(), &before) || before <= 0 ||
       absl::StrCat(before) != request.page_token())) {
    return absl::InvalidArgumentError(
        "bad page_token: give a next_page_token of an earlier ListMatches "
        "answer, as it is");
  }
  // The registry is read a page at a time, filtered by its recorded status;
  // each match's info is taken from its running host (without the lobby's
  // lock: a match's info waits while its end is being entered in the
  // transparency log) or its registry entry, and filtered again, since a
  // running match may have ended meanwhile.
  if (!v1::MatchStatus_IsValid(request.status())) {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown match status ", request.status()));
  }
  const v1::MatchStatus wanted = request.status();
  // Ended matches the registry could not record are recorded as running
  // there: while there are any, the registry does not filter.
  v1::MatchStatus recorded_status = wanted;
  {
    absl::ReaderMutexLock lock(&mu_);
    if (!unrecorded_.empty()) recorded_status = v1::MATCH_STATUS_UNSPECIFIED;
  }
  // A page reads at most kListScanPerMatch registry rows per match it may
  // list: while the registry does not filter (or its status is stale), a
  // page whose status few matches have ends short, with a token to go on
  // from, rather than read every match ever recorded in one call.
  const int max_read = static_cast<int>(kListScanPerMatch * page_size);
  int read = 0;
  v1::ListMatchesResponse response;
  bool more = true;
  while (more && response.matches_size() < static_cast<int>(page_size) &&
         read < max_read) {
    const int asked = std::min(
        static_cast<int>(page_size) - response.matches_size(), max_read - read);
    absl::StatusOr<std::vector<StoredMatch>> page =
        options_.registry->ListMatches(before, asked, recorded_status);
    if (!page.ok()) {
      return absl::UnavailableError(
          absl::StrCat("cannot read the registry: ", page.status().message()));
    }
    more = static_cast<int>(page->size()) == asked;
    read += static_cast<int>(page->size());
    for (StoredMatch& stored : *page) {
      before = stored.seq;
      std::shared_ptr<MatchHost> host;
      {
        absl::ReaderMutexLock lock(&mu_);
        host = FindInMemoryLocked(stored.info.match_id());
      }
      if (host == nullptr) {
        // Recorded as running but not in memory: it ended since it was read
        // (asked again: its end is recorded before it leaves memory), or it
        // is being created (not listed).
        host = stored.info.status() == v1::MATCH_RUNNING
                   ? FindMatch(stored.info.match_id())
                   : ArchivedHost(stored.info, std::move(stored.log_path),
                                  nullptr);
        if (host == nullptr) continue;
      }
      v1::MatchInfo info = host->Info(connections_);
      if (wanted != v1::MATCH_STATUS_UNSPECIFIED && info.status() != wanted) {
        continue;
      }
      *response.add_matches() = std::move(info);
    }
  }
  if (more) response.set_next_page_token(absl::StrCat(before));
  return response;
}

Lobby::Held Lobby::held() const {
  Held held;
  {
    absl::ReaderMutexLock lock(&mu_);
    held.running = matches_.size();
    held.unrecorded = unrecorded_.size();
    held.seat_routes = seat_routes_.size();
  }
  held.request_ids = requests_.size();
  held.tokens = tokens_.size();
  return held;
}

void Lobby::SuspendAll() {
  // What the lobby plays itself: its deadlines, stopped (for good), and the
  // checkpoint syncs, whose seals are waited for below.
  scheduler_->Stop();
  std::vector<std::shared_ptr<MatchHost>> hosts;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [id, live] : matches_) hosts.push_back(live.host);
  }
  for (const auto& host : hosts) {
    host->Suspend();
    // Sealed, its end may wait for the seal's sync: once that is done, its
    // log is entered in the transparency log (or waits for its entry, in
    // sealed_logs_), before the checkpoint below is signed.
    if (!host->finished()) continue;
    absl::Notification over;
    host->CallWhenOver([&over] { over.Notify(); });
    over.WaitForNotification();
  }
  SayIfFailed(RecordUnrecorded());
  if (options_.tlog != nullptr) {
    sealed_logs_->EnterWaiting();
    SayIfFailed(options_.tlog->CheckpointIfGrown().status());
  }
}

}  // namespace pyramid
