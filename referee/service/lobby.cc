#include "referee/service/lobby.h"

#include <sodium.h>
#include <sys/statvfs.h>

#include <algorithm>
#include <filesystem>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/notification.h"
#include "referee/core/log_format.h"

namespace pyramid {
namespace {

constexpr uint32_t kDefaultPageSize = 100;
constexpr uint32_t kMaxPageSize = 1000;
// Registry rows a ListMatches page may read per match it may list.
constexpr uint32_t kListScanPerMatch = 10;
// After a write failure, new matches wait for this much free space.
constexpr uint64_t kMinFreeBytes = 1 << 20;

}  // namespace

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
  checkpoint_stop_.Stop();
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
  while (!checkpoint_stop_.WaitFor(options_.checkpoint_every)) {
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

absl::StatusOr<std::string> Lobby::LogPath(const StoredMatch& stored) const {
  const std::string_view name = log_format::LogFileName(stored.log_name);
  if (name.empty()) {
    return absl::DataLossError(absl::StrCat(
        "the registry's entry of match ", stored.info.match_id(),
        " names no log file (it holds \"", stored.log_name, "\")"));
  }
  return (std::filesystem::path(options_.log_dir) / name).string();
}

std::shared_ptr<MatchHost> Lobby::NewHost(std::unique_ptr<Match> match,
                                          const v1::MatchInfo& info,
                                          std::vector<HostedSeat> hosted,
                                          const std::string& log_path) {
  auto host = std::make_shared<MatchHost>(
      std::move(match), info.game(), std::move(hosted), info.clocks(),
      info.forfeit_policy(), log_path, info.created_unix_ms(), &connections_,
      DeadlineSetter(info.match_id()));
  host->set_request(info.request_id(), info.label());
  return host;
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
  std::string returned;  // Said after the lock.
  {
    absl::MutexLock lock(&write_mu_);
    if (write_failure_.empty()) return absl::OkStatus();
    // Space returned? A new log needs room for its header and more, and so
    // do the journal its checkpoints go through and the registry that
    // records the match, either of which may be on another file system.
    auto has_room = [](const std::string& dir) {
      struct statvfs fs;
      return dir.empty() || (statvfs(dir.c_str(), &fs) == 0 &&
                             static_cast<uint64_t>(fs.f_bavail) * fs.f_frsize >=
                                 kMinFreeBytes);
    };
    const bool journal = journal_in_use();
    const std::string registry_dir = options_.registry->dir();
    // The directories checked (a memory registry has none).
    std::vector<std::string> dirs;
    if (!options_.log_dir.empty()) dirs.push_back("log");
    if (journal && !options_.journal->dir().empty()) dirs.push_back("journal");
    if (!registry_dir.empty()) dirs.push_back("registry");
    std::string where;
    if (!dirs.empty()) {
      const std::string last = dirs.back();
      dirs.pop_back();
      where = absl::StrCat(" in the ", absl::StrJoin(dirs, ", "),
                           dirs.empty() ? "" : " and ", last,
                           dirs.empty() ? " directory" : " directories");
    }
    const std::string room =
        absl::StrCat("at least ", kMinFreeBytes >> 20, " MiB free", where);
    if (!has_room(options_.log_dir) || !has_room(registry_dir) ||
        (journal && !has_room(options_.journal->dir()))) {
      // The journal's file is a second copy of bytes the logs hold: let it
      // go now (LogJournal::RetireCurrentFile), as it would be once
      // checkpoints stop.
      if (journal) options_.journal->RetireCurrentFile();
      return absl::ResourceExhaustedError(absl::StrCat(
          "the referee cannot record new matches now (", write_failure_,
          "); new matches are refused until space returns (", room, ")",
          journal ? absl::StrCat(
                        ": the referee deletes its journal's copy of the "
                        "logs' last bytes once they are synced (at once if "
                        "it holds 1 MiB or more, else ",
                        absl::FormatDuration(
                            options_.journal->options().retire_after_idle),
                        " after the last checkpoint); beyond that, free "
                        "space on that disk")
                  : ": free space on that disk"));
    }
    write_failure_.clear();
    returned = absl::StrCat("space returned (", room,
                            "): new matches are taken again");
  }
  Say(returned);
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
  // The counterpart of SayEndNotRecorded's line, said by the one thread
  // that took the match out of unrecorded_.
  Say(absl::StrCat("match ", match_id,
                   ": its end, which could not be recorded before, is "
                   "recorded now"));
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
  // failed). A match's end is written to the registry before it leaves
  // matches_, and one the registry could not record stays in memory
  // (unrecorded_): a match that ended meanwhile is found in memory, or
  // recorded as ended here.
  if (stored->info.status() == v1::MATCH_RUNNING) {
    absl::ReaderMutexLock lock(&mu_);
    return FindInMemoryLocked(match_id);
  }
  // An entry naming no log file: the match is served without its log
  // (GetLog answers DATA_LOSS), and no file is opened in its name.
  return ArchivedHost(stored->info, LogPath(*stored).value_or(""), seat_of);
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
        // (asked again: it leaves memory, matches_ and then unrecorded_ if
        // its end could not be recorded at once, only once its end is
        // recorded), or it is being created (not listed).
        host = stored.info.status() == v1::MATCH_RUNNING
                   ? FindMatch(stored.info.match_id())
                   : ArchivedHost(stored.info, LogPath(stored).value_or(""),
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
