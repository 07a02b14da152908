#include "referee/service/lobby.h"

#include <sodium.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "referee/crypto/bytes.h"

namespace pyramid {
namespace {

constexpr size_t kMaxNameBytes = 64;
constexpr uint32_t kDefaultPageSize = 100;
constexpr uint32_t kMaxPageSize = 1000;

bool AllZero(const v1::ClockSettings& clocks) {
  return clocks.commit_timeout_ms() == 0 && clocks.reveal_timeout_ms() == 0 &&
         clocks.time_bank_ms() == 0 && clocks.time_bank_increment_ms() == 0;
}

std::string RandomHex(size_t bytes) {
  std::string raw(bytes, '\0');
  randombytes_buf(raw.data(), raw.size());
  return ToHex(raw);
}

}  // namespace

Lobby::Lobby(LobbyOptions options)
    : options_(std::move(options)),
      public_key_(options_.referee_key.public_key()) {
  if (sodium_init() < 0) std::abort();
  Principal admin;
  admin.kind = Principal::Kind::kAdmin;
  tokens_.AddRaw(options_.admin_token, admin);
  scheduler_ = std::make_unique<DeadlineScheduler>(
      [this](const std::string& match_id) {
        if (std::shared_ptr<MatchHost> host = FindMatch(match_id)) {
          host->CheckDeadlines();
        }
      });
}

Lobby::~Lobby() { scheduler_.reset(); }

std::optional<Principal> Lobby::Authenticate(std::string_view token) const {
  return tokens_.Find(token);
}

absl::StatusOr<v1::RegisterBotResponse> Lobby::RegisterBot(
    const v1::RegisterBotRequest& request) {
  if (request.name().empty() || request.name().size() > kMaxNameBytes) {
    return absl::InvalidArgumentError("a bot name is 1 to 64 bytes");
  }
  if (!request.public_key().empty() &&
      request.public_key().size() != kPublicKeySize) {
    return absl::InvalidArgumentError("a public key is 32 bytes");
  }
  const MintedToken minted = MintToken();
  Principal principal;
  principal.kind = Principal::Kind::kBot;
  principal.bot_id = RandomHex(8);
  {
    absl::MutexLock lock(&mu_);
    principal.route = next_route_++;
    bots_[principal.bot_id] =
        Bot{request.name(), request.public_key(), principal.route, {}};
  }
  tokens_.Add(minted, principal);
  v1::RegisterBotResponse response;
  response.set_bot_id(principal.bot_id);
  response.set_bot_token(minted.token);
  return response;
}

absl::StatusOr<v1::CreateMatchResponse> Lobby::CreateMatch(
    const v1::CreateMatchRequest& request) {
  MatchConfig config;
  config.game = request.game();
  config.clocks =
      AllZero(request.clocks()) ? options_.default_clocks : request.clocks();
  config.forfeit_policy = request.forfeit_policy() ==
                                  v1::FORFEIT_POLICY_UNSPECIFIED
                              ? v1::FORFEIT_POLICY_FORFEIT
                              : request.forfeit_policy();
  if (!v1::ForfeitPolicy_IsValid(config.forfeit_policy)) {
    return absl::InvalidArgumentError("unknown forfeit policy");
  }
  config.checkpoint_interval = options_.checkpoint_interval;
  config.fsync = options_.fsync;
  std::vector<HostedSeat> hosted;
  {
    absl::MutexLock lock(&mu_);
    for (int i = 0; i < request.seats_size(); ++i) {
      const v1::SeatSpec& spec = request.seats(i);
      if (spec.name().size() > kMaxNameBytes) {
        return absl::InvalidArgumentError("a seat name is at most 64 bytes");
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
  }
  const std::filesystem::path dir = options_.log_dir;
  const std::string pending =
      (dir / absl::StrCat(".pending-", RandomHex(8), ".pyrlog")).string();
  absl::StatusOr<std::unique_ptr<FileLogSink>> sink =
      FileLogSink::Create(pending);
  if (!sink.ok()) return absl::InternalError(sink.status().message());
  const SystemClock* clock = SystemClock::Get();
  const int64_t created = absl::ToUnixMillis(clock->Now());
  absl::StatusOr<std::unique_ptr<Match>> match = Match::Create(
      std::move(config), options_.referee_key, *std::move(sink), clock);
  if (!match.ok()) {
    std::filesystem::remove(pending);
    return match.status();
  }
  const std::string match_id = ToHex((*match)->match_id());
  const std::string path =
      (dir / absl::StrCat(request.game().game(), "-", match_id, ".pyrlog"))
          .string();
  std::error_code rename_error;
  std::filesystem::rename(pending, path, rename_error);
  if (rename_error) return absl::InternalError(rename_error.message());

  v1::CreateMatchResponse response;
  response.set_match_id(match_id);
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
    tokens_.Add(minted, seat);
    response.add_seat_tokens(minted.token);
  }
  auto host = std::make_shared<MatchHost>(
      *std::move(match), request.game(), std::move(hosted),
      AllZero(request.clocks()) ? options_.default_clocks : request.clocks(),
      request.forfeit_policy() == v1::FORFEIT_POLICY_UNSPECIFIED
          ? v1::FORFEIT_POLICY_FORFEIT
          : request.forfeit_policy(),
      path, created, &connections_,
      [this, match_id](absl::Time when) { scheduler_->Schedule(match_id, when); });
  {
    absl::MutexLock lock(&mu_);
    matches_[match_id] = host;
    order_.push_back(host);
    for (int i = 0; i < host->num_seats(); ++i) {
      if (!host->seat(i).bot_id.empty()) {
        bots_[host->seat(i).bot_id].seats.emplace_back(match_id, i);
      }
    }
  }
  host->Start();
  return response;
}

std::vector<std::pair<std::shared_ptr<MatchHost>, int>> Lobby::SeatsOf(
    const Principal& principal) {
  std::vector<std::pair<std::shared_ptr<MatchHost>, int>> seats;
  absl::MutexLock lock(&mu_);
  if (principal.kind == Principal::Kind::kSeat) {
    auto it = matches_.find(principal.match_id);
    if (it != matches_.end()) seats.emplace_back(it->second, principal.seat);
  } else if (principal.kind == Principal::Kind::kBot) {
    // A bot's running matches only: finished ones are dropped from its list
    // (a reconnecting bot is not sent every result of its history).
    auto bot = bots_.find(principal.bot_id);
    if (bot == bots_.end()) return seats;
    auto& list = bot->second.seats;
    list.erase(std::remove_if(list.begin(), list.end(),
                              [this](const std::pair<std::string, int>& entry)
                                  ABSL_NO_THREAD_SAFETY_ANALYSIS {
                                auto it = matches_.find(entry.first);
                                return it == matches_.end() ||
                                       it->second->finished();
                              }),
               list.end());
    for (const auto& [match_id, seat] : list) {
      seats.emplace_back(matches_.at(match_id), seat);
    }
  }
  return seats;
}

std::shared_ptr<MatchHost> Lobby::FindMatch(const std::string& match_id) const {
  absl::ReaderMutexLock lock(&mu_);
  auto it = matches_.find(match_id);
  return it == matches_.end() ? nullptr : it->second;
}

absl::StatusOr<v1::ListMatchesResponse> Lobby::ListMatches(
    const v1::ListMatchesRequest& request) const {
  uint32_t page_size = request.page_size() == 0 ? kDefaultPageSize
                                                : request.page_size();
  page_size = std::min(page_size, kMaxPageSize);
  // A page token is the creation position just above the next match to list
  // (newest first), so pages stay stable while matches are created.
  std::vector<std::shared_ptr<MatchHost>> candidates;
  size_t end = 0;
  {
    absl::MutexLock lock(&mu_);
    end = order_.size();
    if (!request.page_token().empty() &&
        (!absl::SimpleAtoi(request.page_token(), &end) || end > order_.size())) {
      return absl::InvalidArgumentError("bad page_token");
    }
    for (size_t i = end; i-- > 0;) candidates.push_back(order_[i]);
  }
  v1::ListMatchesResponse response;
  size_t listed = 0;
  for (; listed < candidates.size() &&
         response.matches_size() < static_cast<int>(page_size);
       ++listed) {
    v1::MatchInfo info = candidates[listed]->Info(connections_);
    if (request.status() != v1::MATCH_STATUS_UNSPECIFIED &&
        info.status() != request.status()) {
      continue;
    }
    *response.add_matches() = std::move(info);
  }
  if (listed < candidates.size()) {
    response.set_next_page_token(absl::StrCat(end - listed));
  }
  return response;
}

void Lobby::SuspendAll() {
  std::vector<std::shared_ptr<MatchHost>> hosts;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [id, host] : matches_) hosts.push_back(host);
  }
  for (const auto& host : hosts) host->Suspend();
}

}  // namespace pyramid
