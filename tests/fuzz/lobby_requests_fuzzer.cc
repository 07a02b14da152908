// Fuzz target: the referee service's unary requests as its Lobby takes them
// (referee/service/lobby.h; gRPC's framing and the admin-token check
// aside): CreateMatch, RegisterBot and ListMatches requests as raw bytes,
// and tokens and match ids from anyone. The input is a sequence of
// operations, each one byte (which operation), two bytes (little-endian
// length) and that many bytes (its argument; cut short at the input's end):
//   0  CreateMatchRequest bytes: CreateMatch (a seat's bot_id "#N" names
//      the N-th bot registered so far, modulo their number: bot ids are
//      random);
//   1  RegisterBotRequest bytes: RegisterBot;
//   2  ListMatchesRequest bytes: ListMatches;
//   3  a token: Authenticate;
//   4  a match id: FindMatch;
//   5  time passes: up to 20 ms (the argument's first byte), for deadlines.
// One lobby serves every input (bots and ended matches accumulate). Its
// matches have deadlines of at most kMaxClockMs (a request's clocks are
// cut to that, and a commit deadline of at least 1 ms is always set; no
// clocks take the lobby's default of 1 ms), so that, with nobody playing,
// each ends by itself within a few seconds at most (by forfeit, or played
// out with default actions) and is archived; at most kMaxLive are live at once
// (beyond that, CreateMatch's checks still run and only admission refuses). Its
// log directory is removed at exit. Whatever the requests, the lobby must
// not crash, and what it accepts must hold together: a created match is
// found by its id, with as many seats as were asked for, each token seat's
// token authenticating as that seat and every bot seat without one; a
// registered bot's token authenticates as that bot; a listed page holds no
// more matches than asked for (or the default), each with the status asked
// for.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/time/time.h"
#include "pyramid/referee/v1/referee_service.pb.h"
#include "referee/crypto/ed25519.h"
#include "referee/service/lobby.h"
#include "referee/service/token.h"
#include "tests/fuzz/fuzz_target.h"

namespace {

namespace v1 = ::pyramid::referee::v1;

constexpr int kMaxLive = 8;
constexpr uint32_t kMaxClockMs = 20;
constexpr uint32_t kDefaultPage = 100;
constexpr uint32_t kMaxPage = 1000;

using ::pyramid::fuzz::Check;

std::string& LogDir() {
  static std::string* dir = new std::string;
  return *dir;
}

void RemoveLogDir() {
  std::error_code ignored;
  std::filesystem::remove_all(LogDir(), ignored);
}

pyramid::Lobby& TheLobby() {
  static pyramid::Lobby* lobby = [] {
    char dir[] = "/tmp/lobby-requests-fuzzer-XXXXXX";
    Check(mkdtemp(dir) != nullptr);
    LogDir() = dir;
    // Strings that are not UTF-8 are refused as they are in the service;
    // protobuf's line about each would drown the fuzzer's output.
    pyramid::fuzz::QuietProtobuf();
    std::atexit(RemoveLogDir);
    pyramid::LobbyOptions options;
    options.log_dir = dir;
    options.default_clocks.set_seed_timeout_ms(1);
    options.default_clocks.set_commit_timeout_ms(1);
    options.default_clocks.set_reveal_timeout_ms(1);
    options.referee_key = *pyramid::SigningKey::FromSeed(std::string(32, 'l'));
    options.admin_token = "fuzz-admin";
    options.sync_threads = 0;
    options.ack_hold = absl::ZeroDuration();
    options.fsync = pyramid::FsyncPolicy::kNever;
    options.max_live_matches = kMaxLive;
    options.checkpoint_every = absl::ZeroDuration();
    return new pyramid::Lobby(std::move(options));
  }();
  return *lobby;
}

// `bytes` parsed as a `Request`, as the service parses a request; nullopt
// when they do not parse.
template <typename Request>
std::optional<Request> Parsed(std::string_view bytes) {
  Request request;
  if (!request.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return std::nullopt;
  }
  return request;
}

// The ids of the bots registered so far, in order.
std::vector<std::string>& Bots() {
  static std::vector<std::string>* bots = new std::vector<std::string>;
  return *bots;
}

void CreateMatch(pyramid::Lobby& lobby, std::string_view bytes) {
  std::optional<v1::CreateMatchRequest> parsed =
      Parsed<v1::CreateMatchRequest>(bytes);
  if (!parsed.has_value()) return;
  v1::CreateMatchRequest& request = *parsed;
  // Every match must end by itself: deadlines short, and a commit deadline
  // always (with none, a seat that never commits holds it for ever).
  v1::ClockSettings& clocks = *request.mutable_clocks();
  if (request.has_clocks()) {
    clocks.set_commit_timeout_ms(
        std::clamp(clocks.commit_timeout_ms(), uint32_t{1}, kMaxClockMs));
  }
  clocks.set_reveal_timeout_ms(
      std::min(clocks.reveal_timeout_ms(), kMaxClockMs));
  clocks.set_seed_timeout_ms(std::min(clocks.seed_timeout_ms(), kMaxClockMs));
  clocks.set_time_bank_ms(std::min(clocks.time_bank_ms(), kMaxClockMs));
  clocks.set_time_bank_increment_ms(
      std::min(clocks.time_bank_increment_ms(), kMaxClockMs));
  for (v1::SeatSpec& seat : *request.mutable_seats()) {
    size_t n = 0;
    if (!Bots().empty() && absl::StartsWith(seat.bot_id(), "#") &&
        absl::SimpleAtoi(seat.bot_id().substr(1), &n)) {
      seat.set_bot_id(Bots()[n % Bots().size()]);
    }
  }
  absl::StatusOr<v1::CreateMatchResponse> created = lobby.CreateMatch(request);
  if (!created.ok()) return;
  std::shared_ptr<pyramid::MatchHost> host =
      lobby.FindMatch(created->match_id());
  Check(host != nullptr);
  Check(created->seat_tokens_size() == request.seats_size());
  for (int seat = 0; seat < request.seats_size(); ++seat) {
    const std::string& token = created->seat_tokens(seat);
    Check(token.empty() == !request.seats(seat).bot_id().empty());
    if (token.empty()) continue;
    std::optional<pyramid::Principal> principal = lobby.Authenticate(token);
    Check(principal.has_value());
    Check(principal->kind == pyramid::Principal::Kind::kSeat);
    Check(principal->match_id == created->match_id());
    Check(principal->seat == seat);
  }
}

void RegisterBot(pyramid::Lobby& lobby, std::string_view bytes) {
  std::optional<v1::RegisterBotRequest> parsed =
      Parsed<v1::RegisterBotRequest>(bytes);
  if (!parsed.has_value()) return;
  v1::RegisterBotRequest& request = *parsed;
  absl::StatusOr<v1::RegisterBotResponse> bot = lobby.RegisterBot(request);
  if (!bot.ok()) return;
  std::optional<pyramid::Principal> principal =
      lobby.Authenticate(bot->bot_token());
  Check(principal.has_value());
  Check(principal->kind == pyramid::Principal::Kind::kBot);
  Check(principal->bot_id == bot->bot_id());
  Bots().push_back(bot->bot_id());
}

void ListMatches(pyramid::Lobby& lobby, std::string_view bytes) {
  std::optional<v1::ListMatchesRequest> parsed =
      Parsed<v1::ListMatchesRequest>(bytes);
  if (!parsed.has_value()) return;
  v1::ListMatchesRequest& request = *parsed;
  absl::StatusOr<v1::ListMatchesResponse> page = lobby.ListMatches(request);
  if (!page.ok()) return;
  const uint32_t limit = request.page_size() == 0
                             ? kDefaultPage
                             : std::min(request.page_size(), kMaxPage);
  Check(page->matches_size() <= static_cast<int>(limit));
  for (const v1::MatchInfo& info : page->matches()) {
    Check(request.status() == v1::MATCH_STATUS_UNSPECIFIED ||
          info.status() == request.status());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  pyramid::Lobby& lobby = TheLobby();
  size_t at = 0;
  while (at + 3 <= size) {
    const int op = data[at] % 6;
    size_t length = data[at + 1] | (static_cast<size_t>(data[at + 2]) << 8);
    at += 3;
    length = std::min(length, size - at);
    const std::string_view argument(reinterpret_cast<const char*>(data) + at,
                                    length);
    at += length;
    switch (op) {
      case 0:
        CreateMatch(lobby, argument);
        break;
      case 1:
        RegisterBot(lobby, argument);
        break;
      case 2:
        ListMatches(lobby, argument);
        break;
      case 3:
        (void)lobby.Authenticate(argument);
        break;
      case 4:
        (void)lobby.FindMatch(std::string(argument));
        break;
      case 5:
        std::this_thread::sleep_for(std::chrono::milliseconds(
            argument.empty() ? 1 : static_cast<uint8_t>(argument[0]) % 21));
        break;
    }
  }
  return 0;
}
