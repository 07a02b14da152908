// Tests of the standalone verifier (VerifyLog) on logs written in memory by
// real matches: Match::Create with a StringLogSink, a FakeClock and
// DeterministicEntropy, driven either by RunLocalMatch with random players or
// by hand (to produce timeouts, mismatched reveals and illegal actions).
//
// Each corruption mode has its own test and checks the verdict's reason. Most
// forgeries are re-framed, re-chained and re-signed with the referee key (the
// test holds it), so the hash chain and the signatures are valid and only
// the verifier's replay of the protocol and the rules can catch them.
#include "replay/verifier.h"

#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/message.h"
#include "gtest/gtest.h"
#include "pyramid/referee/v1/game.pb.h"
#include "pyramid/referee/v1/log.pb.h"
#include "referee/core/clock.h"
#include "referee/core/local_runner.h"
#include "referee/core/log_format.h"
#include "referee/core/log_reader.h"
#include "referee/core/log_sink.h"
#include "referee/core/match.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/ed25519.h"
#include "referee/crypto/protocol.h"
#include "referee/crypto/random_stream.h"
#include "referee/crypto/sha256.h"
#include "referee/games/game.h"
#include "tests/forked_child.h"
#include "tests/heap_bound.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

using ::testing::HasSubstr;
using ::testing::Not;
using Kind = Verdict::Kind;
using RecordKind = v1::LogRecord::KindCase;

constexpr int kSeats = 3;
constexpr uint32_t kTimeoutMs = 1000;

// ---------------------------------------------------------------------------
// Helpers: keys, seeds, serialization.

SigningKey RefereeKey() {
  return *SigningKey::FromSeed(std::string(kKeySeedSize, '\x11'));
}

SigningKey SeatKey(int seat) {
  return *SigningKey::FromSeed(
      std::string(kKeySeedSize, static_cast<char>(0x20 + seat)));
}

Digest SeedOf(std::string_view label, uint64_t n) {
  return Sha256(absl::StrCat(std::string(label), "/", n));
}

std::string Serialize(const google::protobuf::Message& message) {
  std::string bytes;
  {
    google::protobuf::io::StringOutputStream stream(&bytes);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    message.SerializeToCodedStream(&coded);
  }
  return bytes;
}

bool SameMessage(const google::protobuf::Message& a,
                 const google::protobuf::Message& b) {
  return Serialize(a) == Serialize(b);
}

v1::GameConfig Rpp(bool red = false, v1::RppWinnerTakes takes =
                                         v1::RPP_WINNER_TAKES_UNSPECIFIED) {
  v1::GameConfig config;
  config.set_game("rock_paper_pyramid");
  config.mutable_rock_paper_pyramid()->set_red(red);
  config.mutable_rock_paper_pyramid()->set_winner_takes(takes);
  return config;
}

Verdict Verify(std::string_view log, bool pin = true) {
  VerifyOptions options;
  if (pin) options.pinned_key = RefereeKey().public_key();
  return VerifyLog(log, options);
}

std::string Describe(const Verdict& v) {
  return absl::StrCat(VerdictKindName(v.kind), " (record ", v.bad_record, ": ",
                      v.reason, ")");
}

// ---------------------------------------------------------------------------
// Helpers: taking logs apart and putting them back together.

std::vector<v1::LogRecord> ParseLog(std::string_view log) {
  const SplitLogResult split = SplitLog(log);
  EXPECT_EQ(split.tail, SplitLogResult::Tail::kClean) << split.tail_reason;
  std::vector<v1::LogRecord> records;
  for (const RawRecord& raw : split.records) {
    EXPECT_TRUE(records.emplace_back().ParseFromArray(
        raw.bytes.data(), static_cast<int>(raw.bytes.size())));
  }
  return records;
}

std::string Varint(uint64_t n) {
  std::string out;
  for (; n >= 0x80; n >>= 7)
    out.push_back(static_cast<char>((n & 0x7f) | 0x80));
  out.push_back(static_cast<char>(n));
  return out;
}

struct Forge {
  bool rechain = true;  // Recompute every prev_hash.
  bool resign = true;   // Recompute every checkpoint and the seal.
  // Move the checkpoints to where the writer would put them (after records
  // were added or removed). Only when re-signing.
  bool recheckpoint = true;
  // Signs instead of the referee's key when set (with resign).
  std::string (*sign)(std::string_view message) = nullptr;
  // With resign: the signature record at this index is kept as it is
  // (record_count, chain_hash and signature).
  int keep_signature_of = -1;
};

// `records` with their checkpoints where a writer with `interval` puts them.
std::vector<v1::LogRecord> Recheckpoint(
    const std::vector<v1::LogRecord>& records, uint32_t interval) {
  std::vector<v1::LogRecord> out;
  uint32_t since = 0;
  for (const v1::LogRecord& record : records) {
    if (record.has_checkpoint()) continue;
    out.push_back(record);
    if (record.has_seal()) continue;
    if (record.has_header()) {  // The writer signs the header at once.
      out.emplace_back().mutable_checkpoint();
      since = 0;
      continue;
    }
    if (interval != 0 && ++since == interval) {
      out.emplace_back().mutable_checkpoint();
      since = 0;
    }
  }
  return out;
}

// Frames `records` as the writer does. With the defaults the result has a
// valid hash chain and valid referee signatures whatever the records say.
std::string Reframe(std::vector<v1::LogRecord> records, Forge how = {}) {
  if (how.recheckpoint && how.resign && !records.empty()) {
    records = Recheckpoint(records, records[0].header().checkpoint_interval());
  }
  std::string out(log_format::kMagic);
  const std::string match_id =
      records.empty() ? std::string() : records[0].header().match_id();
  const SigningKey key = RefereeKey();
  Digest chain{};
  for (size_t i = 0; i < records.size(); ++i) {
    v1::LogRecord& record = records[i];
    if (how.rechain) record.set_prev_hash(std::string(AsView(chain)));
    v1::Signature* signature = record.has_checkpoint()
                                   ? record.mutable_checkpoint()
                               : record.has_seal() ? record.mutable_seal()
                                                   : nullptr;
    if (signature != nullptr && how.resign &&
        static_cast<int>(i) != how.keep_signature_of) {
      signature->set_record_count(i);
      signature->set_chain_hash(std::string(AsView(chain)));
      const std::string message =
          LogSignatureMessage(match_id, i, AsView(chain));
      signature->set_signature(how.sign ? how.sign(message)
                                        : key.Sign(message));
    }
    const std::string body = Serialize(record);
    out += Varint(body.size()) + body;
    chain = Sha256(body);
  }
  return out;
}

// Index of the `nth` record of `kind`; -1 when there is none.
int FindIn(const std::vector<v1::LogRecord>& records, RecordKind kind,
           int nth = 0) {
  for (size_t i = 0; i < records.size(); ++i) {
    if (records[i].kind_case() == kind && nth-- == 0)
      return static_cast<int>(i);
  }
  return -1;
}

int Count(const std::vector<v1::LogRecord>& records, RecordKind kind) {
  int n = 0;
  for (const v1::LogRecord& record : records) n += record.kind_case() == kind;
  return n;
}

// ---------------------------------------------------------------------------
// Helpers: matches.

struct MatchSetup {
  v1::GameConfig game = Rpp();
  v1::ForfeitPolicy policy = v1::FORFEIT_POLICY_FORFEIT;
  uint32_t checkpoint_interval = 4;
  bool seat_keys = false;
  // The seats' seed contributions name the log header (Driver only).
  bool name_header = false;
};

struct PlayedMatch {
  std::string log;
  v1::Outcome outcome;
};

// A whole match between random players, through RunLocalMatch.
PlayedMatch PlayRandomMatch(const MatchSetup& setup, uint64_t seed) {
  PlayedMatch played;
  FakeClock clock;
  const EntropySource entropy = DeterministicEntropy(SeedOf("entropy", seed));
  MatchConfig config;
  config.game = setup.game;
  config.seats.resize(kSeats);
  config.forfeit_policy = setup.policy;
  config.checkpoint_interval = setup.checkpoint_interval;
  absl::StatusOr<std::unique_ptr<Match>> match = Match::Create(
      config, RefereeKey(), std::make_unique<StringLogSink>(&played.log),
      &clock, entropy);
  EXPECT_TRUE(match.ok()) << match.status();
  if (!match.ok()) return played;
  std::vector<std::unique_ptr<RandomPlayer>> players;
  std::vector<Player*> seats;
  for (int s = 0; s < kSeats; ++s) {
    players.push_back(
        std::make_unique<RandomPlayer>(SeedOf("player", seed * 8 + s)));
    seats.push_back(players.back().get());
  }
  const absl::Status status = RunLocalMatch(**match, seats, entropy);
  EXPECT_TRUE(status.ok()) << status;
  EXPECT_TRUE((*match)->finished());
  played.outcome = (*match)->outcome();
  return played;
}

// Drives a Match by hand through its public protocol calls, as remote seats
// would, so a test can make any seat late, inconsistent or illegal.
class Driver {
 public:
  explicit Driver(const MatchSetup& setup, uint64_t seed = 1)
      : entropy_(DeterministicEntropy(SeedOf("driver-entropy", seed))),
        chooser_(SeedOf("driver-player", seed)),
        pending_(kSeats) {
    MatchConfig config;
    config.game = setup.game;
    for (int s = 0; s < kSeats; ++s) {
      v1::Seat& seat = config.seats.emplace_back();
      seat.set_name(absl::StrCat("seat-", s));
      if (setup.seat_keys) seat.set_public_key(SeatKey(s).public_key());
    }
    seat_keys_ = setup.seat_keys;
    name_header_ = setup.name_header;
    config.clocks.set_commit_timeout_ms(kTimeoutMs);
    config.clocks.set_reveal_timeout_ms(kTimeoutMs);
    config.forfeit_policy = setup.policy;
    config.checkpoint_interval = setup.checkpoint_interval;
    absl::StatusOr<std::unique_ptr<Match>> match = Match::Create(
        config, RefereeKey(), std::make_unique<StringLogSink>(&log_), &clock_,
        entropy_);
    EXPECT_TRUE(match.ok()) << match.status();
    match_ = *std::move(match);
  }

  Match& match() { return *match_; }
  const std::string& log() const { return log_; }
  bool finished() const { return match_->finished(); }
  uint64_t id() const { return match_->decision()->id; }
  // The seats of the open decision.
  std::vector<int> Seats() const {
    const std::optional<DecisionView> decision = match_->decision();
    return {decision->seats.begin(), decision->seats.end()};
  }

  // What `seat` would honestly play now: a seed contribution (naming the
  // log header when the setup says so) in decision 0, else a random legal
  // action.
  v1::Action Choose(int seat) {
    v1::Action action;
    if (id() == 0) {
      std::string contribution(kSeedContributionSize, '\0');
      entropy_(contribution.data(), contribution.size());
      action.mutable_seed()->set_contribution(contribution);
      if (name_header_) {
        action.mutable_seed()->set_header_hash(
            std::string(AsView(match_->header_hash())));
      }
      return action;
    }
    const std::vector<v1::Action> legal = match_->LegalActions(seat);
    EXPECT_FALSE(legal.empty());
    return legal[chooser_.Uniform(legal.size())];
  }

  absl::Status CommitBytes(int seat, std::string action_bytes) {
    Pending& p = pending_[seat];
    p.salt.assign(kSaltSize, '\0');
    entropy_(p.salt.data(), p.salt.size());
    p.action_bytes = std::move(action_bytes);
    const Digest c =
        CommitmentHash(match_->match_id(), seat, id(), p.salt, p.action_bytes);
    std::string signature;
    if (seat_keys_) {
      signature = SeatKey(seat).Sign(
          CommitSignatureMessage(match_->match_id(), seat, id(), AsView(c)));
    }
    return match_->Commit(seat, id(), AsView(c), signature);
  }
  absl::Status Commit(int seat, const v1::Action& action) {
    return CommitBytes(seat, action.SerializeAsString());
  }
  // Reveals what the seat committed to.
  absl::Status Reveal(int seat) {
    return match_->Reveal(seat, id(), pending_[seat].salt,
                          pending_[seat].action_bytes);
  }
  // Reveals the committed action with another salt: does not match.
  absl::Status RevealMismatch(int seat) {
    std::string salt = pending_[seat].salt;
    salt[0] = static_cast<char>(salt[0] ^ 0x01);
    return match_->Reveal(seat, id(), salt, pending_[seat].action_bytes);
  }

  void CommitAllBut(const std::set<int>& skip) {
    for (int seat : Seats()) {
      if (skip.count(seat) || !match_->AwaitsCommit(seat)) continue;
      const absl::Status s = Commit(seat, Choose(seat));
      ASSERT_TRUE(s.ok()) << s;
    }
  }
  void RevealAllBut(const std::set<int>& skip) {
    if (finished()) return;
    for (int seat : Seats()) {
      if (skip.count(seat) || !match_->AwaitsReveal(seat)) continue;
      const absl::Status s = Reveal(seat);
      ASSERT_TRUE(s.ok()) << s;
    }
  }
  void PlayDecision() {
    CommitAllBut({});
    RevealAllBut({});
  }
  void PlayToEnd() {
    for (int guard = 0; !finished() && guard < 1000; ++guard) PlayDecision();
    ASSERT_TRUE(finished());
  }
  // Lets every deadline of the open phase pass.
  void Timeout() {
    clock_.Advance(absl::Milliseconds(kTimeoutMs + 1));
    const absl::Status s = match_->CheckDeadlines();
    ASSERT_TRUE(s.ok()) << s;
  }

 private:
  struct Pending {
    std::string salt;
    std::string action_bytes;
  };
  std::string log_;  // Declared before match_: outlives its sink.
  FakeClock clock_;
  EntropySource entropy_;
  RandomStream chooser_;
  bool seat_keys_ = false;
  bool name_header_ = false;
  std::vector<Pending> pending_;
  std::unique_ptr<Match> match_;
};

// The log most forgery tests start from: a genuine classic match with
// checkpoints every 4 records.
class ForgeryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    played_ = PlayRandomMatch(MatchSetup{}, 7);
    records_ = ParseLog(played_.log);
    ASSERT_EQ(Verify(played_.log).kind, Kind::kGenuine);
  }

  // Re-frames the edited records (valid chain and signatures) and verifies.
  Verdict Forged(Forge how = {}) { return Verify(Reframe(records_, how)); }

  int Find(RecordKind kind, int nth = 0) const {
    return FindIn(records_, kind, nth);
  }

  // records_ hold a checkpoint at `checkpoint` whose signature is bad (its
  // bytes are chained as written). Sealed, a later signature, over the
  // changed chain, no longer holds; cut right after that checkpoint, the
  // checkpoint itself is checked and refused.
  void ExpectBadCheckpointSignatureRejected(int checkpoint) {
    const Forge keep = {
        .rechain = true, .resign = false, .recheckpoint = false};
    const Verdict sealed = Forged(keep);
    EXPECT_EQ(sealed.kind, Kind::kNotGenuine) << Describe(sealed);
    EXPECT_GT(sealed.bad_record, static_cast<uint64_t>(checkpoint));
    records_.resize(checkpoint + 1);
    const Verdict cut = Forged(keep);
    EXPECT_EQ(cut.kind, Kind::kNotGenuine) << Describe(cut);
    EXPECT_EQ(cut.bad_record, static_cast<uint64_t>(checkpoint));
    EXPECT_THAT(cut.reason, HasSubstr("referee signature does not verify"));
  }

  PlayedMatch played_;
  std::vector<v1::LogRecord> records_;
};

void ExpectRejected(const Verdict& v, int bad_record, std::string_view reason) {
  EXPECT_EQ(v.kind, Kind::kNotGenuine) << Describe(v);
  EXPECT_EQ(v.bad_record, static_cast<uint64_t>(bad_record)) << Describe(v);
  EXPECT_THAT(v.reason, HasSubstr(std::string(reason))) << Describe(v);
}

// For forgeries that add or remove records (so later indices move).
void ExpectRejectedBecause(const Verdict& v, std::string_view reason) {
  EXPECT_EQ(v.kind, Kind::kNotGenuine) << Describe(v);
  EXPECT_THAT(v.reason, HasSubstr(std::string(reason))) << Describe(v);
}

constexpr Forge kRaw{.rechain = true, .resign = true, .recheckpoint = false};

// ---------------------------------------------------------------------------
// Genuine logs and keys.

TEST(VerifierTest, GenuineMatchVerifies) {
  const PlayedMatch played = PlayRandomMatch(MatchSetup{}, 1);
  const Verdict v = Verify(played.log);
  ASSERT_EQ(v.kind, Kind::kGenuine) << Describe(v);
  EXPECT_TRUE(SameMessage(v.outcome, played.outcome));
  EXPECT_EQ(v.outcome.termination(), v1::TERMINATION_NORMAL);
  EXPECT_EQ(v.moves, 9u * kSeats);
  const std::vector<v1::LogRecord> records = ParseLog(played.log);
  EXPECT_EQ(v.records, records.size());
  EXPECT_EQ(v.signed_records, records.size() - 1);
  EXPECT_FALSE(v.key_from_header);
  EXPECT_EQ(v.header.game().game(), "rock_paper_pyramid");
  EXPECT_EQ(v.reason, "");
}

TEST(VerifierTest, GenuineWithEveryOptionAndCheckpointInterval) {
  uint64_t seed = 100;
  for (bool red : {false, true}) {
    for (v1::RppWinnerTakes takes :
         {v1::RPP_TAKES_CAPTURED, v1::RPP_TAKES_ALL}) {
      for (uint32_t interval : {0u, 1u, 2u, 3u, 7u, 64u}) {
        MatchSetup setup;
        setup.game = Rpp(red, takes);
        setup.checkpoint_interval = interval;
        const PlayedMatch played = PlayRandomMatch(setup, ++seed);
        const Verdict v = Verify(played.log);
        ASSERT_EQ(v.kind, Kind::kGenuine)
            << Describe(v) << " red=" << red << " takes=" << takes
            << " interval=" << interval;
        EXPECT_TRUE(SameMessage(v.outcome, played.outcome));
        EXPECT_EQ(v.moves, (red ? 10u : 9u) * kSeats);
      }
    }
  }
}

// What a ReplayObserver saw: each position's game, public view and whether
// it ends the match.
class PositionLog : public ReplayObserver {
 public:
  void OnPosition(const v1::Header& header, const State& state) override {
    games.push_back(header.game().game());
    views.push_back(state.PublicView());
    terminal.push_back(state.IsTerminal());
  }
  std::vector<std::string> games;
  std::vector<v1::Observation> views;
  std::vector<bool> terminal;
};

// The observer sees the deal (the seed reveal's initial view), then one
// position per Applied record, automatic moves included, in log order; only
// the last ends the match. The verdict is the one given without observer.
TEST(VerifierTest, TheObserverSeesEveryPositionOfTheReplayInLogOrder) {
  int automatic = 0;
  for (const char* game : {"rock_paper_pyramid", "pyramid_shambo",
                           "flaming_pyramids", "pyramid_scheme"}) {
    SCOPED_TRACE(game);
    MatchSetup setup;
    setup.game.Clear();
    setup.game.set_game(game);
    const PlayedMatch played = PlayRandomMatch(setup, 7);
    PositionLog positions;
    VerifyOptions options;
    options.pinned_key = RefereeKey().public_key();
    const Verdict v = VerifyLog(played.log, options, &positions);
    ASSERT_EQ(v.kind, Kind::kGenuine) << Describe(v);
    EXPECT_EQ(Describe(v), Describe(Verify(played.log)));
    const std::vector<v1::LogRecord> records = ParseLog(played.log);
    ASSERT_EQ(static_cast<int>(positions.views.size()),
              1 + Count(records, v1::LogRecord::kApplied));
    EXPECT_TRUE(SameMessage(positions.views[0],
                            records[FindIn(records, v1::LogRecord::kSeedReveal)]
                                .seed_reveal()
                                .initial_view()));
    for (size_t k = 0; k < positions.views.size(); ++k) {
      EXPECT_EQ(positions.games[k], game);
      EXPECT_EQ(positions.terminal[k], k + 1 == positions.views.size()) << k;
    }
    for (const v1::LogRecord& record : records) {
      if (record.has_applied() && !record.applied().has_decision_id()) {
        ++automatic;
      }
    }
  }
  EXPECT_GT(automatic, 0);  // Automatic moves were seen, in order.
}

// An observer changes no verdict, and at the chain level (no rule
// replayed) sees nothing.
TEST(VerifierTest, AnObserverChangesNoVerdict) {
  const std::string log = PlayRandomMatch(MatchSetup{}, 8).log;
  for (size_t at : {log.size() / 3, log.size() / 2, log.size() - 4}) {
    for (bool cut : {false, true}) {
      std::string bad = log;
      if (cut) {
        bad.resize(at);
      } else {
        bad[at] = static_cast<char>(bad[at] ^ 0x01);
      }
      PositionLog positions;
      EXPECT_EQ(Describe(VerifyLog(bad, VerifyOptions(), &positions)),
                Describe(VerifyLog(bad, VerifyOptions())))
          << at << (cut ? " cut" : " flipped");
    }
  }
  PositionLog positions;
  VerifyOptions chain;
  chain.level = VerifyOptions::Level::kChain;
  EXPECT_EQ(VerifyLog(log, chain, &positions).kind, Kind::kGenuine);
  EXPECT_TRUE(positions.views.empty());
}

// The verifier serializes messages without a CodedOutputStream (no
// deterministic flag) to compare them with stored bytes; that is the
// canonical encoding only while no message of the log has a map field,
// whose entries the default serialization may write in any order.
TEST(VerifierTest, NoLogMessageHasAMapField) {
  std::vector<const google::protobuf::Descriptor*> pending = {
      v1::LogRecord::descriptor()};
  std::set<const google::protobuf::Descriptor*> seen(pending.begin(),
                                                     pending.end());
  while (!pending.empty()) {
    const google::protobuf::Descriptor* message = pending.back();
    pending.pop_back();
    for (int i = 0; i < message->field_count(); ++i) {
      const google::protobuf::FieldDescriptor* field = message->field(i);
      EXPECT_FALSE(field->is_map()) << field->full_name();
      const google::protobuf::Descriptor* type = field->message_type();
      if (type != nullptr && seen.insert(type).second) pending.push_back(type);
    }
  }
  EXPECT_GT(seen.size(), 50u);  // Every game's actions, results and views.
}

TEST(VerifierTest, KeyFromHeaderWhenNotPinned) {
  const PlayedMatch played = PlayRandomMatch(MatchSetup{}, 2);
  const Verdict v = Verify(played.log, /*pin=*/false);
  EXPECT_EQ(v.kind, Kind::kGenuine) << Describe(v);
  EXPECT_TRUE(v.key_from_header);
  EXPECT_EQ(v.header.referee_public_key(), RefereeKey().public_key());
}

// A file of many tiny records (here 256 Mi empty ones: the magic, then
// zeros, which compress to nothing) is judged at its first bad record
// without an index of them all: SplitLog's took 24 bytes a record, 6 GiB
// here, and aborted the verifier (an adversarial tester's finding). In a
// child that may take at most 768 MiB more (tests/heap_bound.h).
TEST(VerifierTest, AFileOfTinyRecordsIsJudgedWithoutIndexingThemAll) {
  std::string file(log_format::kMagic);
  file.resize(file.size() + (size_t{256} << 20), '\0');
  ForkedChild child([&file](int) {
    if (!BoundHeapGrowth(size_t{768} << 20)) _exit(2);
    const Verdict v = VerifyLog(file, VerifyOptions{});
    _exit(v.kind == Verdict::Kind::kNotGenuine && v.bad_record == 0 ? 0 : 3);
  });
  ASSERT_TRUE(child.ok()) << std::strerror(errno);
  const ChildEnd end = child.Wait();
  EXPECT_EQ(end.exit_code, 0)
      << end.ToString() << " (" << ForkedChild::kThrew << " or "
      << kHeapBoundExceeded
      << ": out of memory; 2: no bound; 3: another verdict)";
}

// ReadLog stops reading a log once its seal and what the splitter frames
// after it are read (replay/log_file.h; LogFileTest.
// ALogFollowedByGigabytesIsReadNoFurtherThanAfterItsSeal): the next record
// whole, or a length prefix it refuses. The verdict on what it keeps is
// the verdict on the whole file, however the file goes on; given the
// file's size, it says how many bytes follow the seal.
TEST(VerifierTest, WhatTheReaderKeepsAfterTheSealIsJudgedAsTheWholeFile) {
  const PlayedMatch played = PlayRandomMatch(MatchSetup{}, 1);
  ASSERT_EQ(Verify(played.log).kind, Kind::kGenuine);
  const std::string more_records(1 << 20, '\0');
  const std::string junk(1 << 20, '\xff');
  VerifyOptions options;
  options.pinned_key = RefereeKey().public_key();
  for (const std::string& kept :
       {std::string(1, '\0'),
        std::string("\x03"
                    "abc"),
        std::string("\x80\x80\x80\x80"), std::string("\x80\x80\x80\x10")}) {
    const std::string read = played.log + kept;
    EXPECT_EQ(Verify(read).kind, Kind::kNotGenuine) << ToHex(kept);
    for (const std::string& rest : {more_records, junk}) {
      const std::string file = read + rest;
      for (const uint64_t size : {uint64_t{0}, uint64_t{file.size()}}) {
        const Verdict cut = VerifyLog(read, size, options);
        const Verdict whole = VerifyLog(file, size, options);
        EXPECT_EQ(whole.kind, cut.kind) << ToHex(kept);
        EXPECT_EQ(whole.bad_record, cut.bad_record) << ToHex(kept);
        EXPECT_EQ(whole.reason, cut.reason) << ToHex(kept);
        EXPECT_EQ(whole.records, cut.records) << ToHex(kept);
        EXPECT_EQ(whole.signed_records, cut.signed_records) << ToHex(kept);
      }
    }
  }
  // The size known: how many bytes follow the seal. Not known (0, or
  // VerifyLog without it): said as before.
  const std::string file = played.log + std::string(1, '\0') + more_records;
  EXPECT_EQ(
      VerifyLog(played.log + std::string(1, '\0'), file.size(), options).reason,
      absl::StrCat("record after the seal (", 1 + more_records.size(),
                   " bytes follow it, from byte ", played.log.size(),
                   " to the end of the file)"));
  EXPECT_EQ(Verify(played.log + std::string(1, '\0')).reason,
            "record after the seal");
  const std::string stray = played.log +
                            "\x05"
                            "ab";
  EXPECT_EQ(VerifyLog(stray, stray.size(), options).reason,
            absl::StrCat("bytes after the seal (3 bytes follow it, from byte ",
                         played.log.size(), " to the end of the file)"));
  EXPECT_EQ(Verify(stray).reason, "bytes after the seal");
}

TEST(VerifierTest, WrongPinnedKeyIsRejected) {
  const PlayedMatch played = PlayRandomMatch(MatchSetup{}, 2);
  VerifyOptions options;
  options.pinned_key = SeatKey(0).public_key();
  const Verdict v = VerifyLog(played.log, options);
  ExpectRejected(v, 0, "not the pinned key");
  EXPECT_FALSE(v.key_from_header);
  // Both keys are named, the header's first.
  EXPECT_EQ(v.reason,
            absl::StrCat("the referee key in the header is not the pinned key "
                         "(header ",
                         ToHex(RefereeKey().public_key()), ", pinned ",
                         ToHex(SeatKey(0).public_key()), ")"));
}

// The referee's secret key (its seed, as a secret key file holds it) pinned
// in place of its public key is named as such, and never printed.
TEST(VerifierTest, ThePinnedSecretKeyOfTheHeadersKeyIsNamedNotPrinted) {
  const PlayedMatch played = PlayRandomMatch(MatchSetup{}, 2);
  VerifyOptions options;
  options.pinned_key = RefereeKey().seed();
  const Verdict v = VerifyLog(played.log, options);
  ExpectRejected(v, 0, "not the pinned key");
  EXPECT_THAT(v.reason, HasSubstr("the pinned key is the secret key (seed) "
                                  "of the header's key"));
  EXPECT_THAT(v.reason, HasSubstr(ToHex(RefereeKey().public_key())));
  EXPECT_THAT(v.reason, Not(HasSubstr(ToHex(RefereeKey().seed()))));
}

TEST(VerifierTest, LogSignedByAnotherKeyIsRejectedWhenPinned) {
  // A complete, self-consistent log by an impostor referee.
  PlayedMatch played;
  {
    FakeClock clock;
    const EntropySource entropy = DeterministicEntropy(SeedOf("impostor", 0));
    MatchConfig config;
    config.game = Rpp();
    config.seats.resize(kSeats);
    auto match = Match::Create(config, SeatKey(1),
                               std::make_unique<StringLogSink>(&played.log),
                               &clock, entropy);
    ASSERT_TRUE(match.ok());
    RandomPlayer a(SeedOf("a", 0)), b(SeedOf("b", 0)), c(SeedOf("c", 0));
    ASSERT_TRUE(RunLocalMatch(**match, {&a, &b, &c}, entropy).ok());
  }
  EXPECT_EQ(Verify(played.log, /*pin=*/false).kind, Kind::kGenuine);
  ExpectRejected(Verify(played.log), 0, "not the pinned key");
}

TEST(VerifierTest, EmptyAndGarbageFiles) {
  EXPECT_EQ(Verify("").kind, Kind::kNotGenuine);
  EXPECT_EQ(Verify(log_format::kMagic).kind, Kind::kNotGenuine);
  const Verdict v = Verify("not a log at all");
  EXPECT_EQ(v.kind, Kind::kNotGenuine);
  EXPECT_THAT(v.reason, HasSubstr("magic"));
}

// ---------------------------------------------------------------------------
// The re-framing helper itself: unedited, it reproduces the writer's bytes,
// so every forgery below differs from a genuine log only by its edit.

TEST_F(ForgeryTest, ReframingAnUneditedLogIsIdentity) {
  EXPECT_EQ(Reframe(records_), played_.log);
}

// A match whose seats have keys and, when `name_header`, name the log
// header in their seed contributions: its records.
std::vector<v1::LogRecord> KeyedMatch(bool name_header) {
  Driver d(MatchSetup{.seat_keys = true, .name_header = name_header});
  d.PlayToEnd();
  const Verdict v = Verify(d.log());
  EXPECT_EQ(v.kind, Kind::kGenuine) << Describe(v);
  EXPECT_EQ(v.seats_naming_header,
            name_header ? static_cast<uint32_t>(kSeats) : 0u);
  EXPECT_EQ(v.keyed_seats_naming_header, v.seats_naming_header);
  return ParseLog(d.log());
}

// A seat without a key that names the header proves nothing by it (the
// referee could have written its commitment): it is counted apart.
TEST(HeaderBindingTest, OnlySeatsWithKeysCountAsNamingTheHeader) {
  Driver d(MatchSetup{.seat_keys = false, .name_header = true});
  d.PlayToEnd();
  const Verdict v = Verify(d.log());
  EXPECT_EQ(v.kind, Kind::kGenuine) << Describe(v);
  EXPECT_EQ(v.seats_naming_header, static_cast<uint32_t>(kSeats));
  EXPECT_EQ(v.keyed_seats_naming_header, 0u);
}

// Every seat's signed seed commitment named the header (the hash of record
// 0), so no header the referee writes afterwards (another seed commitment
// to grind the seed, other options or seats, here only another label)
// passes with those commitments: the seeds' reveals no longer name the
// log's header, a reveal that names another is illegal, and the log does
// not say so.
TEST(HeaderBindingTest, AHeaderTheSeatsDidNotNameIsRejected) {
  std::vector<v1::LogRecord> records = KeyedMatch(/*name_header=*/true);
  records[0].mutable_header()->set_label("another label");
  // Found at the record after the first reveal, where its fault is due.
  ExpectRejected(Verify(Reframe(records, kRaw)),
                 FindIn(records, v1::LogRecord::kReveal) + 1,
                 "a reveal that cannot be used must be followed by its fault");
}

// Without that, the same forgery verifies, as DESIGN.md's protocol alone
// allows (docs/log-format.md, "What a log proves against its referee"); the
// verdict says that no seat named the header.
TEST(HeaderBindingTest, AHeaderNobodyNamedCanBeRewritten) {
  std::vector<v1::LogRecord> records = KeyedMatch(/*name_header=*/false);
  records[0].mutable_header()->set_label("another label");
  const Verdict relabelled = Verify(Reframe(records, kRaw));
  EXPECT_EQ(relabelled.kind, Kind::kGenuine) << Describe(relabelled);
  EXPECT_EQ(relabelled.seats_naming_header, 0u);
}

// ---------------------------------------------------------------------------
// One flipped byte in each kind of record. The hash chain (or, for the seal,
// its signature) catches it at that record or the next.

class FlipByteTest : public ::testing::TestWithParam<RecordKind> {};

TEST_P(FlipByteTest, RejectedAtThatRecordOrTheNext) {
  std::string log;
  std::vector<v1::LogRecord> records;
  if (GetParam() == v1::LogRecord::kFault) {
    Driver d(MatchSetup{});
    d.PlayDecision();
    d.CommitAllBut({2});
    d.Timeout();
    log = d.log();
  } else {
    log = PlayRandomMatch(MatchSetup{}, 3).log;
  }
  records = ParseLog(log);
  const int index = FindIn(records, GetParam(), 1) >= 0
                        ? FindIn(records, GetParam(), 1)
                        : FindIn(records, GetParam());
  ASSERT_GE(index, 0);
  const RawRecord raw = SplitLog(log).records[index];
  const size_t record_start = raw.bytes.data() - log.data();
  // Every byte of the record, each flipped on its own.
  for (size_t i = 0; i < raw.bytes.size(); ++i) {
    for (uint8_t mask : {0x01, 0x80}) {
      std::string bad = log;
      bad[record_start + i] = static_cast<char>(bad[record_start + i] ^ mask);
      const Verdict v = Verify(bad);
      ASSERT_EQ(v.kind, Kind::kNotGenuine)
          << "byte " << i << " mask " << int(mask);
      EXPECT_TRUE(v.bad_record == static_cast<uint64_t>(index) ||
                  v.bad_record == static_cast<uint64_t>(index) + 1)
          << "byte " << i << ": " << Describe(v);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    EachRecordKind, FlipByteTest,
    ::testing::Values(v1::LogRecord::kHeader, v1::LogRecord::kDecisionOpened,
                      v1::LogRecord::kCommit, v1::LogRecord::kReveal,
                      v1::LogRecord::kFault, v1::LogRecord::kSeedReveal,
                      v1::LogRecord::kApplied, v1::LogRecord::kCheckpoint,
                      v1::LogRecord::kOutcome, v1::LogRecord::kSeal),
    [](const ::testing::TestParamInfo<RecordKind>& info) {
      return std::to_string(static_cast<int>(info.param));
    });

// ---------------------------------------------------------------------------
// The hash chain and the referee signatures.

TEST_F(ForgeryTest, EditedInformativeFieldBreaksTheChain) {
  // A timestamp is not judged, but it is part of the stored bytes.
  const int commit = Find(v1::LogRecord::kCommit, 4);
  records_[commit].mutable_commit()->set_received_unix_ms(1);
  // Named at the record after it, whose prev_hash no longer matches: the
  // reason names the record before, whose bytes the hash is of.
  ExpectRejected(
      Forged({.rechain = false, .resign = false, .recheckpoint = false}),
      commit + 1,
      absl::StrCat("prev_hash does not match the chain hash of record ", commit,
                   " (the SHA-256 of its bytes): record ", commit,
                   " or this prev_hash was altered (hash chain)"));
}

TEST_F(ForgeryTest, WrongPrevHash) {
  const int reveal = Find(v1::LogRecord::kReveal, 2);
  records_[reveal].set_prev_hash(std::string(32, '\x5a'));
  ExpectRejected(
      Forged({.rechain = false, .resign = false, .recheckpoint = false}),
      reveal,
      absl::StrCat("prev_hash does not match the chain hash of record ",
                   reveal - 1, " (the SHA-256 of its bytes)"));
}

TEST_F(ForgeryTest, HeaderPrevHashMustBeZero) {
  records_[0].set_prev_hash(std::string(32, '\x01'));
  ExpectRejected(
      Forged({.rechain = false, .resign = false, .recheckpoint = false}), 0,
      "prev_hash does not match the 32 zero bytes record 0's must hold (hash "
      "chain: no record comes before it)");
}

// Only the last signature is checked (docs/log-format.md, "Which signatures
// are checked"). A bad checkpoint signature changes the checkpoint's bytes,
// so a later signature, over the chain through them, no longer holds; with
// the log cut right after that checkpoint, the checkpoint itself is checked.
TEST_F(ForgeryTest, BadCheckpointSignature) {
  const int checkpoint = Find(v1::LogRecord::kCheckpoint, 2);
  std::string& sig =
      *records_[checkpoint].mutable_checkpoint()->mutable_signature();
  sig[10] = static_cast<char>(sig[10] ^ 0x04);
  ExpectBadCheckpointSignatureRejected(checkpoint);
}

// The rule of docs/log-format.md, "Which signatures are checked": a sealed
// log's checkpoint signatures are redundant, since the seal signs the chain
// through every record before it, each checkpoint's bytes included. So a
// log whose referee signed a middle checkpoint badly but everything else
// well verifies (its record_count and chain_hash are still checked); cut
// right after that checkpoint it does not (the last checkpoint's signature
// is checked), and cut after a later, good checkpoint it is an unsealed
// prefix.
TEST_F(ForgeryTest, BadMiddleCheckpointSignatureUnderAGoodSealVerifies) {
  const int checkpoint = Find(v1::LogRecord::kCheckpoint, 2);
  const int later = Find(v1::LogRecord::kCheckpoint, 3);
  ASSERT_GT(later, checkpoint);
  std::string& sig =
      *records_[checkpoint].mutable_checkpoint()->mutable_signature();
  sig[10] = static_cast<char>(sig[10] ^ 0x04);
  Forge how = kRaw;
  how.keep_signature_of = checkpoint;
  const Verdict sealed = Forged(how);
  EXPECT_EQ(sealed.kind, Kind::kGenuine) << Describe(sealed);
  const std::vector<v1::LogRecord> all = records_;
  records_.resize(later + 1);
  const Verdict prefix = Forged(how);
  EXPECT_EQ(prefix.kind, Kind::kUnsealedPrefix) << Describe(prefix);
  EXPECT_EQ(prefix.signed_records, static_cast<uint64_t>(later));
  records_ = all;
  records_.resize(checkpoint + 1);
  ExpectRejected(Forged(how), checkpoint, "referee signature does not verify");
}

// The checks that cost no signature stay on every checkpoint of a sealed
// log: its record_count and chain_hash must name the chain where it stands,
// even when the seal signs a chain through it.
TEST_F(ForgeryTest, MiddleCheckpointNamingAnotherChainUnderAGoodSeal) {
  const int checkpoint = Find(v1::LogRecord::kCheckpoint, 2);
  Forge how = kRaw;
  how.keep_signature_of = checkpoint;
  const std::vector<v1::LogRecord> genuine = records_;
  records_[checkpoint].mutable_checkpoint()->set_record_count(checkpoint + 1);
  ExpectRejected(Forged(how), checkpoint,
                 "record_count is not the record's index");
  records_ = genuine;
  std::string& hash =
      *records_[checkpoint].mutable_checkpoint()->mutable_chain_hash();
  hash[0] = static_cast<char>(hash[0] ^ 0x01);
  ExpectRejected(Forged(how), checkpoint,
                 "the signed chain hash is not the hash of the previous "
                 "record");
}

TEST_F(ForgeryTest, CheckpointSignedByAnotherKey) {
  const int checkpoint = Find(v1::LogRecord::kCheckpoint, 1);
  v1::Signature* sig = records_[checkpoint].mutable_checkpoint();
  sig->set_signature(SeatKey(0).Sign(
      LogSignatureMessage(records_[0].header().match_id(), sig->record_count(),
                          sig->chain_hash())));
  ExpectBadCheckpointSignatureRejected(checkpoint);
}

TEST_F(ForgeryTest, BadSealSignature) {
  const int seal = static_cast<int>(records_.size()) - 1;
  ASSERT_TRUE(records_[seal].has_seal());
  std::string& sig = *records_[seal].mutable_seal()->mutable_signature();
  sig[63] = static_cast<char>(sig[63] ^ 0x01);
  ExpectRejected(
      Forged({.rechain = true, .resign = false, .recheckpoint = false}), seal,
      "referee signature does not verify");
}

TEST_F(ForgeryTest, SealWithWrongRecordCount) {
  const int seal = static_cast<int>(records_.size()) - 1;
  records_[seal].mutable_seal()->set_record_count(seal - 1);
  ExpectRejected(
      Forged({.rechain = true, .resign = false, .recheckpoint = false}), seal,
      "record_count is not the record's index");
}

TEST_F(ForgeryTest, StaleSignaturesOverAnEditedChainAreRejected) {
  // Edit an informative field and re-chain, but keep the referee's original
  // checkpoints and seal: their signatures are genuine, over the old chain
  // hash. The signed chain hash must be the one the log actually has.
  const int commit = Find(v1::LogRecord::kCommit, 1);
  records_[commit].mutable_commit()->set_received_unix_ms(1);
  int next_signature = commit + 1;
  while (!records_[next_signature].has_checkpoint() &&
         !records_[next_signature].has_seal()) {
    ++next_signature;
  }
  const Verdict v =
      Forged({.rechain = true, .resign = false, .recheckpoint = false});
  EXPECT_EQ(v.kind, Kind::kNotGenuine) << Describe(v);
  EXPECT_EQ(v.bad_record, static_cast<uint64_t>(next_signature)) << Describe(v);
  EXPECT_THAT(v.reason, HasSubstr("the signed chain hash is not the hash of "
                                  "the previous record"));
}

TEST_F(ForgeryTest, MissingCheckpoint) {
  const int checkpoint = Find(v1::LogRecord::kCheckpoint, 1);
  records_.erase(records_.begin() + checkpoint);
  ExpectRejected(Forged(kRaw), checkpoint,
                 "a checkpoint is due after every 4 records");
}

TEST_F(ForgeryTest, EarlyCheckpointIsAccepted) {
  // The writer may sign before the interval is up (e.g. at shutdown).
  const int checkpoint = Find(v1::LogRecord::kCheckpoint, 1);
  records_.insert(records_.begin() + checkpoint - 1, v1::LogRecord());
  records_[checkpoint - 1].mutable_checkpoint();
  const Verdict v = Forged(kRaw);
  EXPECT_EQ(v.kind, Kind::kGenuine) << Describe(v);
}

TEST_F(ForgeryTest, TwoCheckpointsInARow) {
  const int checkpoint = Find(v1::LogRecord::kCheckpoint, 1);
  records_.insert(records_.begin() + checkpoint + 1, records_[checkpoint]);
  ExpectRejected(Forged(kRaw), checkpoint + 1, "two signatures in a row");
}

TEST_F(ForgeryTest, CheckpointIntervalChangedInHeader) {
  records_[0].mutable_header()->set_checkpoint_interval(3);
  // The header's checkpoint is record 1; 3 records later, one is due.
  ExpectRejected(Forged(kRaw), 5, "a checkpoint is due after every 3 records");
}

TEST_F(ForgeryTest, RecordAfterTheSeal) {
  records_.push_back(records_[Find(v1::LogRecord::kCommit)]);
  ExpectRejected(Forged(kRaw), static_cast<int>(records_.size()) - 1,
                 "record after the seal");
}

TEST_F(ForgeryTest, SecondSeal) {
  records_.push_back(records_.back());
  ExpectRejected(Forged(kRaw), static_cast<int>(records_.size()) - 1,
                 "record after the seal");
}

TEST_F(ForgeryTest, BytesAfterTheSeal) {
  for (const std::string& extra :
       {std::string("\x05", 1), std::string("\x81", 1),
        std::string("\x02\x08\x01", 3)}) {
    const Verdict v = Verify(played_.log + extra);
    EXPECT_EQ(v.kind, Kind::kNotGenuine) << ToHex(extra);
    EXPECT_EQ(v.bad_record, records_.size()) << Describe(v);
  }
  ExpectRejected(Verify(played_.log + std::string("\x05", 1)),
                 static_cast<int>(records_.size()), "bytes after the seal");
}

TEST_F(ForgeryTest, SealBeforeTheOutcome) {
  const int outcome = Find(v1::LogRecord::kOutcome);
  records_.erase(records_.begin() + outcome);
  ExpectRejectedBecause(Forged(), "seal before the outcome");
}

TEST_F(ForgeryTest, UnsealedPrefixEndingAtACheckpoint) {
  const int checkpoint = Find(v1::LogRecord::kCheckpoint, 3);
  records_.resize(checkpoint + 1);
  const Verdict v = Forged();
  EXPECT_EQ(v.kind, Kind::kUnsealedPrefix) << Describe(v);
  EXPECT_EQ(v.signed_records, static_cast<uint64_t>(checkpoint));
  EXPECT_THAT(v.reason, HasSubstr("0 later records are unsigned"));
  // The kind says "unsealed prefix"; the reason, shown after it, says how
  // far the prefix goes and does not repeat the word.
  EXPECT_EQ(v.reason,
            absl::StrCat("records 0..", checkpoint,
                         " verify (signed by the checkpoint at "
                         "record ",
                         checkpoint, "); 0 later records are unsigned"));
}

// A file cut inside a record says where the file ends and where the
// record it cuts begins (it said "file ends inside a record at byte M", M
// being where the record begins).
TEST_F(ForgeryTest, ACutFileSaysWhereItEndsAndWhereTheCutRecordBegins) {
  const std::string log = Reframe(records_, {});
  // The last record (the seal) begins where the file without it ends.
  std::vector<v1::LogRecord> but_last = records_;
  but_last.pop_back();
  const size_t seal_at = Reframe(but_last, {}).size();
  const std::string cut = log.substr(0, log.size() - 5);
  const Verdict v = Verify(cut);
  EXPECT_EQ(v.kind, Kind::kUnsealedPrefix) << Describe(v);
  EXPECT_THAT(v.reason,
              HasSubstr(absl::StrCat("; the file (", cut.size(),
                                     " bytes) ends inside the record that "
                                     "begins at byte ",
                                     seal_at)));
  // Cut inside its length prefix (two bytes: the seal is over 127), and
  // inside the magic: said alike.
  EXPECT_THAT(Verify(log.substr(0, seal_at + 1)).reason,
              HasSubstr(absl::StrCat("the file (", seal_at + 1,
                                     " bytes) ends inside the length prefix "
                                     "that begins at byte ",
                                     seal_at)));
  EXPECT_THAT(Verify(log.substr(0, 3)).reason,
              HasSubstr("the file (3 bytes) ends inside the magic that "
                        "begins at byte 0"));
}

TEST_F(ForgeryTest, UnsignedStartIsNotGenuine) {
  records_.resize(Find(v1::LogRecord::kCheckpoint));
  const Verdict v = Forged(kRaw);
  EXPECT_EQ(v.kind, Kind::kNotGenuine) << Describe(v);
  EXPECT_THAT(v.reason, HasSubstr("no seal and no checkpoint"));
}

// ---------------------------------------------------------------------------
// The header.

TEST_F(ForgeryTest, FormatVersion2IsRejected) {
  records_[0].mutable_header()->set_format_version(2);
  ExpectRejected(Forged(), 0, "unsupported log format version 2");
}

TEST_F(ForgeryTest, UnknownRulesVersionIsRejected) {
  records_[0].mutable_header()->set_rules_version(7);
  ExpectRejected(Forged(), 0,
                 "rules version 7 of rock_paper_pyramid is not implemented");
}

TEST_F(ForgeryTest, UnknownGameIsRejected) {
  records_[0].mutable_header()->mutable_game()->set_game("tic_tac_toe");
  const Verdict v = Forged();
  EXPECT_EQ(v.kind, Kind::kNotGenuine);
  EXPECT_EQ(v.bad_record, 0u);
}

TEST_F(ForgeryTest, WrongSeatCountIsRejected) {
  records_[0].mutable_header()->add_seats()->set_name("intruder");
  ExpectRejected(Forged(), 0, "seat count");
}

TEST_F(ForgeryTest, FirstRecordMustBeTheHeader) {
  std::swap(records_[0], records_[2]);  // Record 1 is the header's checkpoint.
  const Verdict v = Forged();
  EXPECT_EQ(v.kind, Kind::kNotGenuine);
  EXPECT_EQ(v.bad_record, 0u);
}

TEST_F(ForgeryTest, SecondHeader) {
  records_.insert(records_.begin() + 2, records_[0]);
  ExpectRejected(Forged(), 2, "a second header");  // Before any checkpoint.
}

TEST_F(ForgeryTest, ChangedGameOptionsAreCaughtByTheReplay) {
  // Same moves, winner_takes ALL: the recorded results no longer follow.
  records_[0]
      .mutable_header()
      ->mutable_game()
      ->mutable_rock_paper_pyramid()
      ->set_winner_takes(v1::RPP_TAKES_ALL);
  const Verdict v = Forged();
  EXPECT_EQ(v.kind, Kind::kNotGenuine) << Describe(v);
}

// ---------------------------------------------------------------------------
// Commit-reveal.

TEST_F(ForgeryTest, MismatchedRevealWithoutFault) {
  // The reveal no longer hashes to the commitment, and the log goes on as if
  // it did.
  const int reveal = Find(v1::LogRecord::kReveal, 4);
  std::string& salt = *records_[reveal].mutable_reveal()->mutable_salt();
  salt[0] = static_cast<char>(salt[0] ^ 0x01);
  const Verdict v = Forged();
  EXPECT_EQ(v.kind, Kind::kNotGenuine) << Describe(v);
  EXPECT_GT(v.bad_record, static_cast<uint64_t>(reveal));
  EXPECT_THAT(
      v.reason,
      HasSubstr("a reveal that cannot be used must be followed by its fault"));
}

// A reveal whose bytes carry an unknown field, re-committed so that the
// commitment matches, applied as if legal: the verifier refuses it as the
// referee does (an illegal action is owed its fault).
TEST_F(ForgeryTest, AnActionWithUnknownFieldsAppliedAsIfLegal) {
  const int reveal = Find(v1::LogRecord::kReveal, 5);
  v1::Reveal& r = *records_[reveal].mutable_reveal();
  r.mutable_action()->append(std::string("\x98\x06\x01", 3));
  for (v1::LogRecord& record : records_) {
    if (record.has_commit() &&
        record.commit().decision_id() == r.decision_id() &&
        record.commit().seat() == r.seat()) {
      record.mutable_commit()->set_commitment(std::string(
          AsView(CommitmentHash(records_[0].header().match_id(), r.seat(),
                                r.decision_id(), r.salt(), r.action()))));
    }
  }
  const Verdict v = Forged();
  EXPECT_EQ(v.kind, Kind::kNotGenuine) << Describe(v);
  EXPECT_THAT(
      v.reason,
      HasSubstr("a reveal that cannot be used must be followed by its fault"));
}

TEST_F(ForgeryTest, ARevealLongerThanTheGamesActionsIsRefused) {
  const int reveal = Find(v1::LogRecord::kReveal, 5);
  records_[reveal].mutable_reveal()->mutable_action()->append(100, '\0');
  ExpectRejected(Forged(), reveal,
                 "rock_paper_pyramid actions are at most 64 bytes");
}

TEST_F(ForgeryTest, RevealedActionSwappedForAnother) {
  // A different (legal) action under the same salt does not match either.
  const int reveal = Find(v1::LogRecord::kReveal, 5);
  v1::Action action;
  ASSERT_TRUE(action.ParseFromString(records_[reveal].reveal().action()));
  v1::RppPiece* piece = action.mutable_rock_paper_pyramid()->mutable_piece();
  piece->set_size(piece->size() == v1::RPP_LARGE ? v1::RPP_SMALL
                                                 : v1::RPP_LARGE);
  records_[reveal].mutable_reveal()->set_action(action.SerializeAsString());
  EXPECT_THAT(
      Forged().reason,
      HasSubstr("a reveal that cannot be used must be followed by its fault"));
}

TEST_F(ForgeryTest, CommitmentChanged) {
  const int commit = Find(v1::LogRecord::kCommit, 3);
  std::string& c = *records_[commit].mutable_commit()->mutable_commitment();
  c[5] = static_cast<char>(c[5] ^ 0x10);
  EXPECT_THAT(
      Forged().reason,
      HasSubstr("a reveal that cannot be used must be followed by its fault"));
}

TEST_F(ForgeryTest, RevealBeforeEveryCommit) {
  // Move the first reveal of a decision before its last commit (the first
  // reveal, from the third on, whose last record before it other than a
  // checkpoint is a commit; the forger re-places the checkpoints).
  int reveal = -1, commit = -1;
  for (int nth = 3, at;
       reveal < 0 && (at = Find(v1::LogRecord::kReveal, nth)) > 0; ++nth) {
    int before = at - 1;
    while (records_[before].has_checkpoint()) --before;
    if (records_[before].has_commit()) reveal = at, commit = before;
  }
  ASSERT_GT(reveal, 0) << "no reveal right after a commit";
  const v1::LogRecord moved = records_[reveal];
  records_.erase(records_.begin() + reveal);
  records_.insert(records_.begin() + commit, moved);
  ExpectRejectedBecause(Forged(), "reveal before every commitment is in");
}

TEST_F(ForgeryTest, SecondCommitFromASeat) {
  const int commit = Find(v1::LogRecord::kCommit, 3);
  records_.insert(records_.begin() + commit + 1, records_[commit]);
  ExpectRejectedBecause(Forged(), "the seat has already committed");
}

TEST_F(ForgeryTest, CommitForAnotherDecision) {
  const int commit = Find(v1::LogRecord::kCommit, 3);
  records_[commit].mutable_commit()->set_decision_id(5);
  ExpectRejected(Forged(), commit, "record for a decision that is not open");
}

TEST_F(ForgeryTest, CommitSignedByAKeylessSeat) {
  const int commit = Find(v1::LogRecord::kCommit, 3);
  records_[commit].mutable_commit()->set_signature(std::string(64, 's'));
  ExpectRejected(Forged(), commit,
                 "the seat has no key: commits must not be signed");
}

TEST_F(ForgeryTest, RevealOmitted) {
  // Without the third reveal the decision never closes; its Applied is out
  // of turn.
  const int reveal = Find(v1::LogRecord::kReveal, 5);
  records_.erase(records_.begin() + reveal);
  ExpectRejectedBecause(Forged(), "record where none is due");
}

// ---------------------------------------------------------------------------
// The seed.

TEST_F(ForgeryTest, ForgedSeed) {
  const int seed = Find(v1::LogRecord::kSeedReveal);
  std::string& bytes = *records_[seed].mutable_seed_reveal()->mutable_seed();
  bytes[0] = static_cast<char>(bytes[0] ^ 0x01);
  ExpectRejected(Forged(), seed,
                 "the seed is not derived from the contributions");
}

TEST_F(ForgeryTest, RefereeContributionNotMatchingTheHeaderCommitment) {
  const int seed = Find(v1::LogRecord::kSeedReveal);
  v1::SeedReveal* reveal = records_[seed].mutable_seed_reveal();
  std::string contribution = reveal->referee_contribution();
  contribution[31] = static_cast<char>(contribution[31] ^ 0x01);
  reveal->set_referee_contribution(contribution);
  // Even with the seed recomputed from the new contribution.
  std::vector<std::string> seats;
  for (int i = 0; i < kSeats; ++i) {
    v1::Action action;
    ASSERT_TRUE(action.ParseFromString(
        records_[Find(v1::LogRecord::kReveal, i)].reveal().action()));
    seats.push_back(action.seed().contribution());
  }
  reveal->set_seed(std::string(AsView(
      DeriveSeed(records_[0].header().match_id(), contribution, seats))));
  ExpectRejected(
      Forged(), seed,
      "the referee's seed contribution does not match its commitment");
}

TEST_F(ForgeryTest, HeaderCommitmentChanged) {
  std::string& c = *records_[0].mutable_header()->mutable_referee_commitment();
  c[3] = static_cast<char>(c[3] ^ 0x01);
  ExpectRejected(Forged(), Find(v1::LogRecord::kSeedReveal),
                 "does not match its commitment in the header");
}

TEST_F(ForgeryTest, ForgedInitialView) {
  const int seed = Find(v1::LogRecord::kSeedReveal);
  records_[seed]
      .mutable_seed_reveal()
      ->mutable_initial_view()
      ->mutable_rock_paper_pyramid()
      ->set_total_rounds(3);
  ExpectRejected(Forged(), seed, "the initial public view differs");
}

// ---------------------------------------------------------------------------
// Decisions, results and the outcome.

TEST_F(ForgeryTest, DecisionOpenedForTheWrongSeats) {
  const int opened = Find(v1::LogRecord::kDecisionOpened, 3);
  records_[opened].mutable_decision_opened()->mutable_seats()->RemoveLast();
  ExpectRejected(Forged(), opened,
                 "the decision's seats are not the seats the rules say act");
}

TEST_F(ForgeryTest, DecisionOpenedNotSimultaneous) {
  const int opened = Find(v1::LogRecord::kDecisionOpened, 3);
  records_[opened].mutable_decision_opened()->set_simultaneous(false);
  ExpectRejected(Forged(), opened,
                 "the decision's seats are not the seats the rules say act");
}

TEST_F(ForgeryTest, DecisionIdSkipped) {
  const int opened = Find(v1::LogRecord::kDecisionOpened, 3);
  records_[opened].mutable_decision_opened()->set_decision_id(4);
  ExpectRejected(Forged(), opened, "decision 4 opened where decision 3 is due");
}

TEST_F(ForgeryTest, ForgedAppliedResult) {
  const int applied = Find(v1::LogRecord::kApplied, 2);
  auto* round = records_[applied]
                    .mutable_applied()
                    ->mutable_result()
                    ->mutable_rock_paper_pyramid();
  round->set_scores(0, round->scores(0) + 3);
  ExpectRejected(Forged(), applied,
                 "the applied moves or result differ from the replay");
}

TEST_F(ForgeryTest, ForgedAppliedMoveSource) {
  const int applied = Find(v1::LogRecord::kApplied, 1);
  records_[applied].mutable_applied()->mutable_moves(1)->set_source(
      v1::MOVE_DEFAULT);
  ExpectRejected(Forged(), applied,
                 "the applied moves or result differ from the replay");
}

TEST_F(ForgeryTest, AppliedWithoutDecisionId) {
  const int applied = Find(v1::LogRecord::kApplied, 1);
  records_[applied].mutable_applied()->clear_decision_id();
  ExpectRejected(Forged(), applied,
                 "the applied moves or result differ from the replay");
}

TEST_F(ForgeryTest, AppliedDropped) {
  const int applied = Find(v1::LogRecord::kApplied, 1);
  records_.erase(records_.begin() + applied);
  ExpectRejectedBecause(Forged(), "a decision opened out of turn");
}

TEST_F(ForgeryTest, ForgedOutcomeRanks) {
  const int outcome = Find(v1::LogRecord::kOutcome);
  v1::Outcome* o = records_[outcome].mutable_outcome();
  for (v1::SeatOutcome& seat : *o->mutable_seats()) seat.set_rank(1);
  if (SameMessage(*o, played_.outcome)) o->mutable_seats(0)->set_rank(2);
  ExpectRejected(Forged(), outcome, "the outcome differs from the replay");
}

TEST_F(ForgeryTest, ForgedOutcomeScore) {
  const int outcome = Find(v1::LogRecord::kOutcome);
  v1::SeatOutcome* seat = records_[outcome].mutable_outcome()->mutable_seats(2);
  seat->set_score(seat->score() + 1);
  ExpectRejected(Forged(), outcome, "the outcome differs from the replay");
}

TEST_F(ForgeryTest, ForgedOutcomeTermination) {
  const int outcome = Find(v1::LogRecord::kOutcome);
  records_[outcome].mutable_outcome()->set_termination(
      v1::TERMINATION_MOVE_LIMIT);
  ExpectRejected(Forged(), outcome, "the outcome differs from the replay");
}

TEST_F(ForgeryTest, OutcomeTooEarly) {
  // The last decision cut out: the real outcome and seal follow round 8.
  const int last_opened = Find(v1::LogRecord::kDecisionOpened, 9);
  const int outcome = Find(v1::LogRecord::kOutcome);
  records_.erase(records_.begin() + last_opened, records_.begin() + outcome);
  ExpectRejectedBecause(Forged(), "outcome out of turn");
}

TEST_F(ForgeryTest, FaultWithoutJustification) {
  // A commit-timeout fault for a seat that did commit.
  const int commit = Find(v1::LogRecord::kCommit, 3);
  v1::LogRecord fault;
  fault.mutable_fault()->set_decision_id(
      records_[commit].commit().decision_id());
  fault.mutable_fault()->set_seat(records_[commit].commit().seat());
  fault.mutable_fault()->set_reason(v1::FAULT_COMMIT_TIMEOUT);
  fault.mutable_fault()->set_consequence(v1::FAULT_FORFEIT);
  records_.insert(records_.begin() + commit + 1, fault);
  ExpectRejectedBecause(Forged(),
                        "commit timeout for a seat that did not owe a commit");
}

TEST_F(ForgeryTest, UnknownRecordKind) {
  records_.insert(records_.begin() + 3, v1::LogRecord());
  ExpectRejected(Forged(), 3, "record of unknown kind");
}

TEST_F(ForgeryTest, GarbageRecord) {
  std::string log = Reframe(records_);
  // Replace the whole log by its first record and an unparsable one.
  const SplitLogResult split = SplitLog(log);
  std::string bad(log.substr(0, split.records[1].offset));
  bad += Varint(3) + std::string("\xff\xff\xff", 3);
  ExpectRejected(Verify(bad), 1, "not a LogRecord message");
}

// ---------------------------------------------------------------------------
// Seat keys: every commit signed by its seat.

TEST(VerifierTest, SignedCommitsVerify) {
  MatchSetup setup;
  setup.seat_keys = true;
  Driver d(setup);
  d.PlayToEnd();
  const Verdict v = Verify(d.log());
  ASSERT_EQ(v.kind, Kind::kGenuine) << Describe(v);
  EXPECT_TRUE(SameMessage(v.outcome, d.match().outcome()));
}

TEST(VerifierTest, ForgedSeatSignatureIsRejected) {
  MatchSetup setup;
  setup.seat_keys = true;
  Driver d(setup);
  d.PlayToEnd();
  std::vector<v1::LogRecord> records = ParseLog(d.log());
  const int commit = FindIn(records, v1::LogRecord::kCommit, 7);
  std::string& sig = *records[commit].mutable_commit()->mutable_signature();
  sig[0] = static_cast<char>(sig[0] ^ 0x01);
  ExpectRejected(Verify(Reframe(records)), commit,
                 "the commit signature does not verify");
  sig.clear();
  ExpectRejected(Verify(Reframe(records)), commit,
                 "the seat has a key: its commits must be signed");
}

TEST(VerifierTest, SkippingSignatureChecksStillReplays) {
  // check_signatures=false (benchmarks) skips Ed25519 but nothing else.
  std::vector<v1::LogRecord> records =
      ParseLog(PlayRandomMatch(MatchSetup{}, 4).log);
  const int outcome = FindIn(records, v1::LogRecord::kOutcome);
  records[outcome].mutable_outcome()->mutable_seats(0)->set_score(99);
  VerifyOptions options;
  options.check_signatures = false;
  const Verdict v = VerifyLog(Reframe(records), options);
  EXPECT_EQ(v.kind, Kind::kNotGenuine);
  EXPECT_THAT(v.reason, HasSubstr("the outcome differs"));
}

// Ed25519 as libsodium checks it (docs/log-format.md, "Ed25519"): the
// identity point as the referee key, in its canonical and a non-canonical
// encoding, with the signature (R = identity, S = 0) that satisfies the
// verification equation for it, and a signature whose S is not reduced
// (S + L), are each refused, where a lax verifier would accept them.
std::string IdentitySignature(std::string_view) {
  std::string signature(64, '\0');
  signature[0] = 0x01;  // R: the identity point (y = 1).
  return signature;
}

TEST(VerifierTest, TheIdentityPointAsRefereeKeyIsRefused) {
  std::string identity(32, '\0');
  identity[0] = 0x01;
  // y = p + 1 (2^255 - 18): the identity again, not reduced.
  std::string non_canonical(32, '\xff');
  non_canonical[0] = '\xee';
  non_canonical[31] = '\x7f';
  for (const std::string& key : {identity, non_canonical}) {
    std::vector<v1::LogRecord> records =
        ParseLog(PlayRandomMatch(MatchSetup{}, 8).log);
    records[0].mutable_header()->set_referee_public_key(key);
    const Verdict v = VerifyLog(Reframe(records, {.sign = IdentitySignature}),
                                VerifyOptions{});
    EXPECT_EQ(v.kind, Kind::kNotGenuine) << Describe(v);
    EXPECT_THAT(v.reason, HasSubstr("referee signature does not verify"));
  }
}

TEST(VerifierTest, ASignatureWithAnUnreducedSIsRefused) {
  const std::string log = PlayRandomMatch(MatchSetup{}, 9).log;
  ASSERT_EQ(Verify(log).kind, Kind::kGenuine);
  std::vector<v1::LogRecord> records = ParseLog(log);
  std::string& signature = *records.back().mutable_seal()->mutable_signature();
  // S += L, little-endian (L = 2^252 + 27742317777372353535851937790883648493).
  static constexpr uint8_t kL[32] = {
      0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7,
      0xa2, 0xde, 0xf9, 0xde, 0x14, 0,    0,    0,    0,    0,    0,
      0,    0,    0,    0,    0,    0,    0,    0,    0,    0x10};
  unsigned carry = 0;
  for (int i = 0; i < 32; ++i) {
    const unsigned sum =
        static_cast<uint8_t>(signature[32 + i]) + kL[i] + carry;
    signature[32 + i] = static_cast<char>(sum & 0xff);
    carry = sum >> 8;
  }
  ASSERT_EQ(carry, 0u);  // S < L < 2^253: S + L fits in 32 bytes.
  ExpectRejected(
      Verify(Reframe(
          records, {.rechain = true, .resign = false, .recheckpoint = false})),
      static_cast<int>(records.size()) - 1,
      "referee signature does not verify");
}

// Level::kChain: signatures and chain, no rules.
Verdict VerifyChain(std::string_view log) {
  VerifyOptions options;
  options.pinned_key = RefereeKey().public_key();
  options.level = VerifyOptions::Level::kChain;
  return VerifyLog(log, options);
}

TEST(VerifierTest, ChainLevelAcceptsAGenuineLogWithItsLoggedOutcome) {
  const PlayedMatch played = PlayRandomMatch(MatchSetup{}, 5);
  const Verdict v = VerifyChain(played.log);
  ASSERT_EQ(v.kind, Kind::kGenuine) << Describe(v);
  EXPECT_TRUE(SameMessage(v.outcome, played.outcome));
  EXPECT_EQ(v.moves, 0u);  // Nothing replayed.
}

TEST(VerifierTest, ChainLevelTakesARuleBreakingButSignedLogThatFullRefuses) {
  // A referee that signs a made-up outcome: only the replay can tell.
  std::vector<v1::LogRecord> records =
      ParseLog(PlayRandomMatch(MatchSetup{}, 6).log);
  const int outcome = FindIn(records, v1::LogRecord::kOutcome);
  records[outcome].mutable_outcome()->mutable_seats(0)->set_score(99);
  const std::string forged = Reframe(records);
  const Verdict chain = VerifyChain(forged);
  ASSERT_EQ(chain.kind, Kind::kGenuine) << Describe(chain);
  EXPECT_EQ(chain.outcome.seats(0).score(), 99);
  ExpectRejected(Verify(forged), outcome, "the outcome differs");
  // A game this verifier lacks still checks at chain level.
  records[0].mutable_header()->mutable_game()->set_game("tic_tac_toe");
  EXPECT_EQ(VerifyChain(Reframe(records)).kind, Kind::kGenuine);
}

TEST(VerifierTest, ChainLevelRefusesWhatNoSignatureVouchesFor) {
  const std::string log = PlayRandomMatch(MatchSetup{}, 7).log;
  std::vector<v1::LogRecord> records = ParseLog(log);
  // An edited record breaks the hash chain.
  std::string edited = log;
  edited[edited.size() / 2] ^= 0x01;
  EXPECT_EQ(VerifyChain(edited).kind, Kind::kNotGenuine);
  // Re-chained without re-signing, the seal no longer verifies.
  const int outcome = FindIn(records, v1::LogRecord::kOutcome);
  records[outcome].mutable_outcome()->mutable_seats(0)->set_score(99);
  const Verdict unsigned_edit = VerifyChain(Reframe(
      records, {.rechain = true, .resign = false, .recheckpoint = false}));
  EXPECT_EQ(unsigned_edit.kind, Kind::kNotGenuine) << Describe(unsigned_edit);
  // A second outcome, and a record after the outcome, are refused.
  std::vector<v1::LogRecord> twice = ParseLog(log);
  twice.insert(twice.begin() + outcome + 1, twice[outcome]);
  ExpectRejectedBecause(VerifyChain(Reframe(twice)), "a second outcome");
  std::vector<v1::LogRecord> after = ParseLog(log);
  after.insert(after.begin() + outcome + 1,
               after[FindIn(after, v1::LogRecord::kCommit)]);
  ExpectRejectedBecause(VerifyChain(Reframe(after)),
                        "a record after the outcome");
}

// ---------------------------------------------------------------------------
// Faults: real matches in which seats time out, reveal something that does
// not match, or reveal an illegal action, under both forfeit policies. Each
// log must verify as genuine, with the outcome the policy prescribes.

enum class FaultKind {
  kCommitTimeout,
  kRevealTimeout,
  kMismatch,
  kIllegal,
  kUnparsable,
};

std::string FaultKindName(FaultKind kind) {
  switch (kind) {
    case FaultKind::kCommitTimeout:
      return "CommitTimeout";
    case FaultKind::kRevealTimeout:
      return "RevealTimeout";
    case FaultKind::kMismatch:
      return "Mismatch";
    case FaultKind::kIllegal:
      return "Illegal";
    case FaultKind::kUnparsable:
      return "Unparsable";
  }
  return "?";
}

// Test names show the fault kind, not its bytes.
void PrintTo(FaultKind kind, std::ostream* out) { *out << FaultKindName(kind); }

v1::FaultReason ReasonOf(FaultKind kind) {
  switch (kind) {
    case FaultKind::kCommitTimeout:
      return v1::FAULT_COMMIT_TIMEOUT;
    case FaultKind::kRevealTimeout:
      return v1::FAULT_REVEAL_TIMEOUT;
    case FaultKind::kMismatch:
      return v1::FAULT_REVEAL_MISMATCH;
    case FaultKind::kIllegal:
    case FaultKind::kUnparsable:
      return v1::FAULT_ILLEGAL_ACTION;
  }
  return v1::FAULT_REASON_UNSPECIFIED;
}

// An action the seat may not play in decision `id`.
v1::Action IllegalAction(uint64_t id) {
  v1::Action action;
  if (id == 0) {
    action.mutable_seed()->set_contribution(std::string(31, 's'));  // Short.
  } else {
    v1::RppPiece* piece = action.mutable_rock_paper_pyramid()->mutable_piece();
    piece->set_colour(v1::RPP_RED);  // No red pieces without the option.
    piece->set_size(v1::RPP_LARGE);
  }
  return action;
}

struct FaultCase {
  FaultKind kind;
  v1::ForfeitPolicy policy;
  uint64_t decision;     // Where the fault happens (0: the seed decision).
  std::set<int> faulty;  // Seats at fault.
  uint32_t checkpoint_interval;
};

struct FaultRun {
  std::string log;
  v1::Outcome outcome;
  std::map<int, v1::Action> defaults;  // Expected default action per seat.
};

// Plays `c`: honest decisions up to c.decision, the fault there, then the
// rest of the match (if it goes on).
void RunFaultCase(const FaultCase& c, FaultRun& run) {
  MatchSetup setup;
  setup.policy = c.policy;
  setup.checkpoint_interval = c.checkpoint_interval;
  Driver d(setup, 11 + c.decision);
  while (d.id() < c.decision) {
    d.PlayDecision();
    ASSERT_FALSE(d.finished());
  }
  if (c.decision > 0) {
    for (int seat : c.faulty)
      run.defaults[seat] = d.match().LegalActions(seat).front();
  }
  const std::set<int> none;
  switch (c.kind) {
    case FaultKind::kCommitTimeout:
      d.CommitAllBut(c.faulty);
      d.Timeout();
      d.RevealAllBut(none);
      break;
    case FaultKind::kRevealTimeout:
      d.CommitAllBut(none);
      d.RevealAllBut(c.faulty);
      ASSERT_FALSE(d.finished());
      d.Timeout();
      break;
    case FaultKind::kMismatch:
      d.CommitAllBut(none);
      for (int seat : c.faulty) {
        const absl::Status s = d.RevealMismatch(seat);
        EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
        EXPECT_THAT(s.message(), HasSubstr("does not match"));
      }
      d.RevealAllBut(c.faulty);
      break;
    case FaultKind::kIllegal:
    case FaultKind::kUnparsable:
      for (int seat : d.Seats()) {
        const absl::Status s =
            !c.faulty.count(seat) ? d.Commit(seat, d.Choose(seat))
            : c.kind == FaultKind::kIllegal
                ? d.Commit(seat, IllegalAction(c.decision))
                : d.CommitBytes(seat, std::string("\xff\xff\xff", 3));
        ASSERT_TRUE(s.ok()) << s;
      }
      for (int seat : c.faulty) {
        const absl::Status s = d.Reveal(seat);
        EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
      }
      d.RevealAllBut(c.faulty);
      break;
  }
  if (c.policy == v1::FORFEIT_POLICY_FORFEIT) {
    ASSERT_TRUE(d.finished());
  } else {
    d.PlayToEnd();
  }
  run.log = d.log();
  run.outcome = d.match().outcome();
}

class FaultTest
    : public ::testing::TestWithParam<
          std::tuple<FaultKind, v1::ForfeitPolicy, uint64_t, int, uint32_t>> {
 protected:
  FaultCase Case() const {
    const auto& [kind, policy, decision, faulty, interval] = GetParam();
    FaultCase c{kind, policy, decision, {}, interval};
    c.faulty = faulty == 1 ? std::set<int>{1} : std::set<int>{0, 2};
    return c;
  }
};

std::string FaultTestName(
    const ::testing::TestParamInfo<FaultTest::ParamType>& info) {
  const auto& [kind, policy, decision, faulty, interval] = info.param;
  return absl::StrCat(
      FaultKindName(kind),
      policy == v1::FORFEIT_POLICY_FORFEIT ? "_Forfeit" : "_Default",
      "_Decision", decision, faulty == 1 ? "_OneSeat" : "_TwoSeats",
      "_Checkpoint", interval);
}

TEST_P(FaultTest, VerifiesWithThePolicysOutcome) {
  const FaultCase c = Case();
  FaultRun run;
  ASSERT_NO_FATAL_FAILURE(RunFaultCase(c, run));
  const Verdict v = Verify(run.log);
  ASSERT_EQ(v.kind, Kind::kGenuine) << Describe(v);
  EXPECT_TRUE(SameMessage(v.outcome, run.outcome));

  // The faults, as logged.
  const std::vector<v1::LogRecord> records = ParseLog(run.log);
  std::set<int> faulted;
  for (const v1::LogRecord& record : records) {
    if (!record.has_fault()) continue;
    const v1::Fault& fault = record.fault();
    faulted.insert(fault.seat());
    EXPECT_EQ(fault.decision_id(), c.decision);
    EXPECT_EQ(fault.reason(), ReasonOf(c.kind));
    EXPECT_EQ(fault.consequence(), c.policy == v1::FORFEIT_POLICY_FORFEIT
                                       ? v1::FAULT_FORFEIT
                                       : v1::FAULT_DEFAULT_ACTION);
    EXPECT_FALSE(fault.detail().empty());
  }
  EXPECT_EQ(faulted, c.faulty);

  const v1::Outcome& outcome = v.outcome;
  ASSERT_EQ(outcome.seats_size(), kSeats);
  if (c.policy == v1::FORFEIT_POLICY_FORFEIT) {
    // Forfeiting seats share the last rank; the others rank by score.
    EXPECT_EQ(outcome.termination(), v1::TERMINATION_FORFEIT);
    const uint32_t last = kSeats - static_cast<uint32_t>(c.faulty.size()) + 1;
    for (int seat = 0; seat < kSeats; ++seat) {
      const v1::SeatOutcome& o = outcome.seats(seat);
      EXPECT_EQ(o.forfeited(), c.faulty.count(seat) == 1) << seat;
      if (o.forfeited()) {
        EXPECT_EQ(o.rank(), last) << seat;
        continue;
      }
      uint32_t better = 0;
      for (int other = 0; other < kSeats; ++other) {
        if (!c.faulty.count(other) &&
            outcome.seats(other).score() > o.score()) {
          ++better;
        }
      }
      EXPECT_EQ(o.rank(), better + 1) << seat;
    }
    // The match ends at the fault: no decision after it, no more moves.
    EXPECT_EQ(Count(records, v1::LogRecord::kDecisionOpened),
              static_cast<int>(c.decision) + 1);
    EXPECT_EQ(Count(records, v1::LogRecord::kApplied),
              static_cast<int>(c.decision > 0 ? c.decision - 1 : 0));
  } else {
    // Default actions: the game goes on to its normal end.
    EXPECT_EQ(outcome.termination(), v1::TERMINATION_NORMAL);
    for (const v1::SeatOutcome& o : outcome.seats())
      EXPECT_FALSE(o.forfeited());
    EXPECT_EQ(Count(records, v1::LogRecord::kApplied), 9);
    EXPECT_EQ(v.moves, 9u * kSeats);
    for (const v1::LogRecord& record : records) {
      if (!record.has_applied()) continue;
      const v1::Applied& applied = record.applied();
      for (const v1::Move& move : applied.moves()) {
        const bool at_fault = applied.has_decision_id() &&
                              applied.decision_id() == c.decision &&
                              c.faulty.count(move.seat()) == 1;
        EXPECT_EQ(move.source(),
                  at_fault ? v1::MOVE_DEFAULT : v1::MOVE_REVEALED);
        if (at_fault) {
          EXPECT_TRUE(SameMessage(move.action(), run.defaults[move.seat()]))
              << move.action().ShortDebugString();
        }
      }
    }
    if (c.decision == 0) {
      // A faulted seat's seed contribution counts as 32 zero bytes.
      const v1::SeedReveal& seed =
          records[FindIn(records, v1::LogRecord::kSeedReveal)].seed_reveal();
      std::vector<std::string> contributions(kSeats, std::string(32, '\0'));
      for (const v1::LogRecord& record : records) {
        if (!record.has_reveal() || record.reveal().decision_id() != 0 ||
            c.faulty.count(record.reveal().seat())) {
          continue;
        }
        v1::Action action;
        ASSERT_TRUE(action.ParseFromString(record.reveal().action()));
        contributions[record.reveal().seat()] = action.seed().contribution();
      }
      EXPECT_EQ(seed.seed(),
                AsView(DeriveSeed(records[0].header().match_id(),
                                  seed.referee_contribution(), contributions)));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    AllFaults, FaultTest,
    ::testing::Combine(
        ::testing::Values(FaultKind::kCommitTimeout, FaultKind::kRevealTimeout,
                          FaultKind::kMismatch, FaultKind::kIllegal,
                          FaultKind::kUnparsable),
        ::testing::Values(v1::FORFEIT_POLICY_FORFEIT,
                          v1::FORFEIT_POLICY_DEFAULT_ACTION),
        ::testing::Values(uint64_t{0}, uint64_t{1}, uint64_t{5}),
        ::testing::Values(1, 2),  // One faulty seat, or two at once.
        // Checkpoint intervals; with 1, a checkpoint falls between an
        // unusable reveal and its fault.
        ::testing::Values(0u, 1u, 4u)),
    FaultTestName);

TEST(VerifierTest, AllSeatsTimeOutAtTheSeedDecision) {
  for (v1::ForfeitPolicy policy :
       {v1::FORFEIT_POLICY_FORFEIT, v1::FORFEIT_POLICY_DEFAULT_ACTION}) {
    MatchSetup setup;
    setup.policy = policy;
    Driver d(setup);
    d.Timeout();
    if (policy == v1::FORFEIT_POLICY_FORFEIT) {
      ASSERT_TRUE(d.finished());
      for (const v1::SeatOutcome& o : d.match().outcome().seats()) {
        EXPECT_TRUE(o.forfeited());
        EXPECT_EQ(o.rank(), 1u);  // Everybody shares the last rank.
      }
    } else {
      d.PlayToEnd();
    }
    const Verdict v = Verify(d.log());
    ASSERT_EQ(v.kind, Kind::kGenuine) << Describe(v);
    EXPECT_TRUE(SameMessage(v.outcome, d.match().outcome()));
  }
}

TEST(VerifierTest, TimeoutsAtSeveralDecisionsUnderDefaultPolicy) {
  MatchSetup setup;
  setup.policy = v1::FORFEIT_POLICY_DEFAULT_ACTION;
  setup.checkpoint_interval = 3;
  Driver d(setup);
  d.PlayDecision();
  for (int round = 1; !d.finished(); ++round) {
    const int late = round % kSeats;
    if (round % 2 == 0) {
      d.CommitAllBut({late});
      d.Timeout();
      d.RevealAllBut({});
    } else {
      d.CommitAllBut({});
      d.RevealAllBut({late});
      if (!d.finished() && d.match().decision()->reveal_phase) d.Timeout();
    }
  }
  const Verdict v = Verify(d.log());
  ASSERT_EQ(v.kind, Kind::kGenuine) << Describe(v);
  EXPECT_EQ(Count(ParseLog(d.log()), v1::LogRecord::kFault), 9);
}

// Forgeries of fault logs: the fault record is what the replay checks.
class FaultForgeryTest : public ::testing::Test {
 protected:
  void Load(FaultKind kind, v1::ForfeitPolicy policy) {
    FaultRun run;
    ASSERT_NO_FATAL_FAILURE(RunFaultCase({kind, policy, 3, {1}, 4}, run));
    ASSERT_EQ(Verify(run.log).kind, Kind::kGenuine);
    records_ = ParseLog(run.log);
    fault_ = FindIn(records_, v1::LogRecord::kFault);
    ASSERT_GE(fault_, 0);
  }
  Verdict Forged() { return Verify(Reframe(records_)); }

  std::vector<v1::LogRecord> records_;
  int fault_ = -1;
};

TEST_F(FaultForgeryTest, MismatchWithItsFaultDropped) {
  Load(FaultKind::kMismatch, v1::FORFEIT_POLICY_FORFEIT);
  records_.erase(records_.begin() + fault_);
  ExpectRejectedBecause(
      Forged(), "a reveal that cannot be used must be followed by its fault");
}

TEST_F(FaultForgeryTest, MismatchWithTheWrongFaultReason) {
  Load(FaultKind::kMismatch, v1::FORFEIT_POLICY_DEFAULT_ACTION);
  records_[fault_].mutable_fault()->set_reason(v1::FAULT_ILLEGAL_ACTION);
  ExpectRejected(Forged(), fault_,
                 "the fault does not match the reveal before it");
}

TEST_F(FaultForgeryTest, FaultWithTheWrongConsequence) {
  Load(FaultKind::kIllegal, v1::FORFEIT_POLICY_FORFEIT);
  records_[fault_].mutable_fault()->set_consequence(v1::FAULT_DEFAULT_ACTION);
  ExpectRejected(Forged(), fault_,
                 "fault consequence differs from the match's forfeit policy");
}

TEST_F(FaultForgeryTest, ForfeitPolicyChangedInTheHeader) {
  Load(FaultKind::kCommitTimeout, v1::FORFEIT_POLICY_FORFEIT);
  records_[0].mutable_header()->set_forfeit_policy(
      v1::FORFEIT_POLICY_DEFAULT_ACTION);
  ExpectRejected(Forged(), fault_,
                 "fault consequence differs from the match's forfeit policy");
}

TEST_F(FaultForgeryTest, ForfeitOutcomeWithTheForfeitingSeatFirst) {
  Load(FaultKind::kRevealTimeout, v1::FORFEIT_POLICY_FORFEIT);
  const int outcome = FindIn(records_, v1::LogRecord::kOutcome);
  v1::Outcome* o = records_[outcome].mutable_outcome();
  for (int seat = 0; seat < kSeats; ++seat) {
    o->mutable_seats(seat)->set_rank(seat == 1 ? 1 : 3);
  }
  ExpectRejected(Forged(), outcome, "the outcome differs from the replay");
}

TEST_F(FaultForgeryTest, ForfeitOutcomeWithoutTheForfeitFlag) {
  Load(FaultKind::kMismatch, v1::FORFEIT_POLICY_FORFEIT);
  const int outcome = FindIn(records_, v1::LogRecord::kOutcome);
  records_[outcome].mutable_outcome()->mutable_seats(1)->set_forfeited(false);
  ExpectRejected(Forged(), outcome, "the outcome differs from the replay");
}

TEST_F(FaultForgeryTest, TimeoutTurnedIntoAnotherSeat) {
  Load(FaultKind::kCommitTimeout, v1::FORFEIT_POLICY_DEFAULT_ACTION);
  records_[fault_].mutable_fault()->set_seat(0);  // Seat 0 did commit.
  ExpectRejected(Forged(), fault_, "did not owe a commit");
}

TEST_F(FaultForgeryTest, DefaultActionReplacedByAChosenOne) {
  // The referee may not pick a better move for a late seat.
  Load(FaultKind::kRevealTimeout, v1::FORFEIT_POLICY_DEFAULT_ACTION);
  for (size_t i = fault_; i < records_.size(); ++i) {
    if (!records_[i].has_applied()) continue;
    v1::Move* move = records_[i].mutable_applied()->mutable_moves(1);
    ASSERT_EQ(move->source(), v1::MOVE_DEFAULT);
    v1::RppPiece* piece =
        move->mutable_action()->mutable_rock_paper_pyramid()->mutable_piece();
    piece->set_size(piece->size() == v1::RPP_SMALL ? v1::RPP_MEDIUM
                                                   : v1::RPP_SMALL);
    ExpectRejected(Forged(), static_cast<int>(i),
                   "the applied moves or result differ from the replay");
    return;
  }
  FAIL() << "no Applied after the fault";
}

}  // namespace
}  // namespace pyramid
