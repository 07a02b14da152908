// WrongRefereeKey, the runner's check of a fetched log's header against the
// pinned referee key (StopOnWrongKey in runner.cc): what stops a tournament
// on a referee that serves no transparency log checkpoint. (The whole of it,
// against such a referee, is in tests/tournament_test.cc.) And the lines a
// link says while it waits for a referee that does not answer.
#include "tools/tournament/referee_link.h"

#include <fstream>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"
#include "referee/crypto/ed25519.h"
#include "replay/verifier.h"
#include "tests/temp_dir.h"

namespace pyramid {
namespace {

Verdict WithHeaderKey(Verdict::Kind kind, const std::string& key) {
  Verdict verdict;
  verdict.kind = kind;
  verdict.header.set_referee_public_key(key);
  return verdict;
}

TEST(WrongRefereeKeyTest, ALogThatFailsUnderAnotherKeyNamesThatKey) {
  const std::string pinned = SigningKey::Generate().public_key();
  const std::string other = SigningKey::Generate().public_key();
  for (Verdict::Kind kind :
       {Verdict::Kind::kNotGenuine, Verdict::Kind::kUnsealedPrefix}) {
    EXPECT_EQ(WrongRefereeKey(WithHeaderKey(kind, other), pinned),
              std::optional<std::string>(other))
        << VerdictKindName(kind);
  }
}

TEST(WrongRefereeKeyTest, AGenuineLogOrThePinnedKeyIsNoWrongKey) {
  const std::string pinned = SigningKey::Generate().public_key();
  const std::string other = SigningKey::Generate().public_key();
  // Verified against the pinned key: whatever its header says.
  EXPECT_EQ(
      WrongRefereeKey(WithHeaderKey(Verdict::Kind::kGenuine, other), pinned),
      std::nullopt);
  // The right key, and still not genuine: a fault of that log alone.
  EXPECT_EQ(WrongRefereeKey(WithHeaderKey(Verdict::Kind::kNotGenuine, pinned),
                            pinned),
            std::nullopt);
}

TEST(WrongRefereeKeyTest, AHeaderWithoutAWellFormedKeyIsNoWrongKey) {
  const std::string pinned = SigningKey::Generate().public_key();
  for (const std::string& key :
       {std::string(), std::string(31, 'k'), std::string(33, 'k')}) {
    EXPECT_EQ(
        WrongRefereeKey(WithHeaderKey(Verdict::Kind::kNotGenuine, key), pinned),
        std::nullopt)
        << key.size() << " bytes";
  }
}

// Calls that wait out the same outage together say each step of the wait
// once, not once per call: a tournament of many matches in flight while its
// referee restarts gives a line per step.
TEST(RefereeLinkTest, CallsWaitingTogetherSayEachWaitOnce) {
  TempDir dir("referee-link");
  ASSERT_TRUE(dir.ok());
  const std::string token_file = dir.File("admin.token");
  std::ofstream(token_file) << "some-token\n";
  // Port 1 on loopback: every call fails at once, UNAVAILABLE. The window
  // takes the waits of 100, 200 and 400 ms and not the next of 800.
  absl::StatusOr<std::unique_ptr<RefereeLink>> link = RefereeLink::Connect(
      "127.0.0.1:1", std::string(64, 'a'), token_file, absl::Seconds(1));
  ASSERT_TRUE(link.ok()) << link.status();
  absl::Mutex mu;
  std::vector<std::string> lines;
  (*link)->SetRetryHooks([] { return false; },
                         [&](const std::string& line) {
                           absl::MutexLock lock(&mu);
                           lines.push_back(line);
                         });
  constexpr int kCalls = 8;
  std::vector<std::thread> calls;
  for (int i = 0; i < kCalls; ++i) {
    calls.emplace_back([&] {
      EXPECT_EQ((*link)->CheckAdminToken().code(),
                absl::StatusCode::kUnavailable);
    });
  }
  for (std::thread& call : calls) call.join();
  int first_waits = 0;
  for (const std::string& line : lines) {
    EXPECT_TRUE(absl::StartsWith(
        line,
        "tournament: the referee at 127.0.0.1:1 did not answer "
        "(UNAVAILABLE: "))
        << line;
    if (absl::EndsWith(line, "retrying in 100ms (--referee_retry_s)")) {
      ++first_waits;
    }
  }
  // Eight calls began their first wait together (within a second): said
  // once. The later waits drift apart with the calls' own timing, so only
  // that they are fewer than one per call is certain.
  EXPECT_EQ(first_waits, 1) << absl::StrJoin(lines, "\n");
  EXPECT_LT(lines.size(), 3u * kCalls) << absl::StrJoin(lines, "\n");
}

}  // namespace
}  // namespace pyramid
