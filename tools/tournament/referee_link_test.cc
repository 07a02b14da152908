// WrongRefereeKey, the runner's check of a fetched log's header against the
// pinned referee key (StopOnWrongKey in runner.cc): what stops a tournament
// on a referee that serves no transparency log checkpoint. (The whole of it,
// against such a referee, is in tests/tournament_test.cc.)
#include "tools/tournament/referee_link.h"

#include <optional>
#include <string>

#include "gtest/gtest.h"
#include "referee/crypto/ed25519.h"
#include "replay/verifier.h"

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

}  // namespace
}  // namespace pyramid
