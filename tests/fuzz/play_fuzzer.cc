// Fuzz target: the Play stream's handling of client messages, in process,
// against a live match (MatchHost, as the referee service runs it; gRPC's
// framing aside). The input picks a game, seat count, forfeit policy and
// clocks, then a sequence of operations:
//   0  raw bytes parsed as a PlayRequest, as the service parses a stream
//      message, and handed on as the service does (a commit or reveal for
//      a seat the stream holds);
//   1  an honest commit for a seat: to one of the actions its latest
//      DecisionRequest lists, or to any bytes;
//   2  that seat's honest reveal;
//   3  time passes (up to 20 s) and deadlines are checked.
// Whatever the clients send, the referee must not crash, and the log it
// writes must verify (genuine once sealed, else an unsealed prefix): the
// referee never signs something the verifier refuses.
#include <fuzzer/FuzzedDataProvider.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "pyramid/referee/v1/referee_service.pb.h"
#include "referee/core/clock.h"
#include "referee/core/local_runner.h"
#include "referee/core/log_sink.h"
#include "referee/core/match.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/ed25519.h"
#include "referee/crypto/protocol.h"
#include "referee/crypto/sha256.h"
#include "referee/service/connections.h"
#include "referee/service/match_host.h"
#include "replay/verifier.h"
#include "tests/fuzz/fuzz_target.h"

namespace {

namespace v1 = ::pyramid::referee::v1;

using ::pyramid::fuzz::Check;

// Keeps what the referee sends one seat.
class SeatStream final : public pyramid::PlaySink {
 public:
  void Send(pyramid::SerializedMessage bytes) override {
    v1::PlayResponse message;
    Check(bytes.ParseTo(message));
    if (message.has_decision()) latest = message.decision();
  }
  void Close(int, std::string) override {}
  v1::DecisionRequest latest;
};

const pyramid::SigningKey& RefereeKey() {
  static const pyramid::SigningKey* key = new pyramid::SigningKey(
      *pyramid::SigningKey::FromSeed(std::string(32, 'r')));
  return *key;
}

std::string Salt(int seat) { return std::string(32, static_cast<char>(seat)); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  static const char* const kGames[] = {"rock_paper_pyramid", "pyramid_shambo",
                                       "flaming_pyramids", "pyramid_scheme"};
  static const int kSeats[][2] = {{3, 3}, {2, 5}, {2, 4}, {2, 4}};
  const int g = in.ConsumeIntegralInRange(0, 3);
  pyramid::MatchConfig config;
  config.game.set_game(kGames[g]);
  const int seats = in.ConsumeIntegralInRange(kSeats[g][0], kSeats[g][1]);
  for (int i = 0; i < seats; ++i) {
    config.seats.emplace_back().set_name("seat " + std::to_string(i));
  }
  config.checkpoint_interval = in.ConsumeIntegralInRange(0, 8);
  config.forfeit_policy = in.ConsumeBool() ? v1::FORFEIT_POLICY_FORFEIT
                                           : v1::FORFEIT_POLICY_DEFAULT_ACTION;
  if (in.ConsumeBool()) {
    config.clocks.set_commit_timeout_ms(1000);
    config.clocks.set_reveal_timeout_ms(1000);
    if (in.ConsumeBool()) config.clocks.set_time_bank_ms(3000);
  }
  pyramid::FakeClock clock;
  std::string log;
  absl::StatusOr<std::unique_ptr<pyramid::Match>> match =
      pyramid::Match::Create(
          config, RefereeKey(), std::make_unique<pyramid::StringLogSink>(&log),
          &clock,
          pyramid::DeterministicEntropy(pyramid::Sha256("play-fuzzer")));
  Check(match.ok());
  pyramid::Connections connections;
  std::vector<pyramid::HostedSeat> hosted;
  std::vector<std::shared_ptr<SeatStream>> streams;
  for (int i = 0; i < seats; ++i) {
    hosted.push_back(
        {config.seats[i].name(), "", static_cast<uint64_t>(i + 1)});
    streams.push_back(std::make_shared<SeatStream>());
    connections.Attach(hosted.back().route, streams.back());
  }
  auto host = std::make_unique<pyramid::MatchHost>(
      *std::move(match), config.game, std::move(hosted), config.clocks,
      config.forfeit_policy, "fuzz.pyrlog", 0, &connections, [](absl::Time) {});
  host->Start();
  const std::string match_id_hex = host->match_id();
  const std::string match_id = *pyramid::FromHex(match_id_hex);
  std::map<int, std::pair<uint64_t, std::string>> committed;  // Seat's.
  for (int op = 0; op < 600 && in.remaining_bytes() > 0 && !host->finished();
       ++op) {
    switch (in.ConsumeIntegralInRange(0, 3)) {
      case 0: {
        v1::PlayRequest request;
        if (!request.ParseFromString(in.ConsumeRandomLengthString(512))) break;
        if (request.has_commit() &&
            request.commit().seat() < static_cast<uint32_t>(seats)) {
          host->Commit(request.commit().seat(), request.commit());
        } else if (request.has_reveal() &&
                   request.reveal().seat() < static_cast<uint32_t>(seats)) {
          host->Reveal(request.reveal().seat(), request.reveal());
        }
        break;
      }
      case 1: {
        const int seat = in.ConsumeIntegralInRange(0, seats - 1);
        const v1::DecisionRequest& request = streams[seat]->latest;
        std::string action;
        if (request.decision_id() == 0) {
          v1::Action seed;
          seed.mutable_seed()->set_contribution(in.ConsumeBytesAsString(32));
          action = seed.SerializeAsString();
        } else if (request.legal_actions_size() > 0 && in.ConsumeBool()) {
          action = request
                       .legal_actions(in.ConsumeIntegralInRange(
                           0, request.legal_actions_size() - 1))
                       .SerializeAsString();
        } else {
          action = in.ConsumeRandomLengthString(64);
        }
        v1::CommitMove commit;
        commit.set_match_id(match_id_hex);
        commit.set_seat(seat);
        commit.set_decision_id(request.decision_id());
        commit.set_commitment(
            std::string(pyramid::AsView(pyramid::CommitmentHash(
                match_id, seat, request.decision_id(), Salt(seat), action))));
        host->Commit(seat, commit);
        committed[seat] = {request.decision_id(), action};
        break;
      }
      case 2: {
        const int seat = in.ConsumeIntegralInRange(0, seats - 1);
        auto it = committed.find(seat);
        if (it == committed.end()) break;
        v1::RevealMove reveal;
        reveal.set_match_id(match_id_hex);
        reveal.set_seat(seat);
        reveal.set_decision_id(it->second.first);
        reveal.set_salt(Salt(seat));
        reveal.set_action(it->second.second);
        host->Reveal(seat, reveal);
        break;
      }
      default:
        clock.Advance(absl::Milliseconds(in.ConsumeIntegralInRange(0, 20000)));
        host->CheckDeadlines();
        break;
    }
  }
  if (!host->finished()) host->Suspend();  // A checkpoint: a prefix.
  pyramid::VerifyOptions options;
  options.pinned_key = RefereeKey().public_key();
  const pyramid::Verdict verdict = pyramid::VerifyLog(log, options);
  Check(verdict.kind != pyramid::Verdict::Kind::kNotGenuine);
  Check(host->finished() == (verdict.kind == pyramid::Verdict::Kind::kGenuine));
  return 0;
}
