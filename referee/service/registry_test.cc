// The SQLite registry: bots with their tokens, and matches read back a page
// at a time in creation order, each with its own seat tokens (none of
// another page's), its end as recorded, and nothing of a removed match.
#include "referee/service/registry.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "referee/service/token.h"
#include "tests/temp_dir.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

class RegistryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(dir_.ok());
    absl::StatusOr<std::unique_ptr<Registry>> opened =
        OpenSqliteRegistry(dir_.File("registry.db"));
    ASSERT_TRUE(opened.ok()) << opened.status();
    registry_ = *std::move(opened);
  }

  // Records match number `n` with a seat token for each of `token_seats`.
  std::string AddMatch(int n, const std::vector<int>& token_seats) {
    StoredMatch match;
    const std::string id = absl::StrCat("match-", n);
    match.info.set_match_id(id);
    match.info.set_status(v1::MATCH_RUNNING);
    for (int i = 0; i < 3; ++i) match.info.add_seats();
    match.log_path = absl::StrCat("/logs/", id, ".pyrlog");
    match.referee_contribution = std::string(32, static_cast<char>(n));
    for (int seat : token_seats) {
      const MintedToken minted = MintToken();
      Principal principal;
      principal.kind = Principal::Kind::kSeat;
      principal.match_id = id;
      principal.seat = seat;
      match.seat_tokens.push_back({minted.id, minted.secret_hash, principal});
      tokens_[id].push_back(minted.id);
    }
    EXPECT_TRUE(registry_->AddMatch(match).ok());
    return id;
  }

  TempDir dir_{"registrytest"};  // Removed after the registry is closed.
  std::unique_ptr<Registry> registry_;
  std::map<std::string, std::vector<std::string>> tokens_;  // Match: ids.
};

TEST_F(RegistryTest, ReadsMatchesAPageAtATimeEachWithItsOwnSeatTokens) {
  const std::vector<std::vector<int>> token_seats = {
      {0, 1, 2}, {}, {2}, {0, 2}, {1}};
  std::vector<std::string> ids;
  for (int n = 0; n < 5; ++n) ids.push_back(AddMatch(n, token_seats[n]));
  const std::string removed = AddMatch(5, {0});
  ASSERT_TRUE(registry_->RemoveMatch(removed).ok());
  v1::MatchInfo ended;
  ended.set_match_id(ids[3]);
  ended.set_status(v1::MATCH_BROKEN);
  ASSERT_TRUE(registry_->EndMatch(ended, "disk full").ok());

  std::vector<StoredMatch> read;
  int pages = 0;
  for (int64_t after = 0;;) {
    absl::StatusOr<std::vector<StoredMatch>> page =
        registry_->LoadMatches(after, 2);
    ASSERT_TRUE(page.ok()) << page.status();
    if (page->empty()) break;
    ASSERT_LE(page->size(), 2u);
    ++pages;
    for (StoredMatch& match : *page) {
      EXPECT_GT(match.seq, after);
      after = match.seq;
      read.push_back(std::move(match));
    }
  }
  EXPECT_EQ(pages, 3);
  ASSERT_EQ(read.size(), ids.size());
  for (size_t n = 0; n < read.size(); ++n) {
    SCOPED_TRACE(ids[n]);
    const StoredMatch& match = read[n];
    EXPECT_EQ(match.info.match_id(), ids[n]);
    EXPECT_EQ(match.log_path, absl::StrCat("/logs/", ids[n], ".pyrlog"));
    ASSERT_EQ(match.seat_tokens.size(), token_seats[n].size());
    for (size_t t = 0; t < match.seat_tokens.size(); ++t) {
      EXPECT_EQ(match.seat_tokens[t].principal.match_id, ids[n]);
      EXPECT_EQ(match.seat_tokens[t].principal.seat, token_seats[n][t]);
      EXPECT_EQ(match.seat_tokens[t].id, tokens_[ids[n]][t]);
    }
    if (n == 3) {
      EXPECT_EQ(match.info.status(), v1::MATCH_BROKEN);
      EXPECT_EQ(match.broken_reason, "disk full");
      EXPECT_TRUE(match.referee_contribution.empty());
    } else {
      EXPECT_EQ(match.info.status(), v1::MATCH_RUNNING);
      EXPECT_EQ(match.referee_contribution,
                std::string(32, static_cast<char>(n)));
    }
  }
}

TEST_F(RegistryTest, ReadsBotsInRegistrationOrderWithTheirTokens) {
  for (const char* name : {"b", "a"}) {
    const MintedToken minted = MintToken();
    Principal principal;
    principal.kind = Principal::Kind::kBot;
    principal.bot_id = absl::StrCat("id-", name);
    ASSERT_TRUE(
        registry_
            ->AddBot({principal.bot_id, name, std::string(32, 'k'),
                      StoredToken{minted.id, minted.secret_hash, principal}})
            .ok());
  }
  absl::StatusOr<std::vector<StoredBot>> bots = registry_->LoadBots();
  ASSERT_TRUE(bots.ok()) << bots.status();
  ASSERT_EQ(bots->size(), 2u);
  EXPECT_EQ((*bots)[0].name, "b");
  EXPECT_EQ((*bots)[1].name, "a");
  EXPECT_EQ((*bots)[1].token.principal.bot_id, "id-a");
  EXPECT_EQ((*bots)[1].token.principal.kind, Principal::Kind::kBot);
}

}  // namespace
}  // namespace pyramid
