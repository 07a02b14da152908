// The SQLite registry: bots with their tokens, and matches read back a page
// at a time in creation order, each with its own seat tokens (none of
// another page's), its end as recorded, and nothing of a removed match.
// The point queries (matches, requests, tokens) are asked of the memory
// registry too, which must answer them alike (MemoryRegistryTest).
#include "referee/service/registry.h"

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "referee/service/token.h"
#include "sqlite3.h"
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
    match.log_name = absl::StrCat(id, ".pyrlog");
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

// Owner-only (it holds seed contributions): opened through SqliteDb::Open,
// whose test (sqlite_db_test.cc) checks the modes, side files included.
TEST_F(RegistryTest, IsOpenedOwnerOnly) {
  EXPECT_EQ(
      static_cast<int>(
          std::filesystem::status(dir_.File("registry.db")).permissions()),
      0600);
}

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
  ended.set_broken_reason("disk full");
  ASSERT_TRUE(registry_->EndMatch(ended).ok());

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
    EXPECT_EQ(match.log_name, absl::StrCat(ids[n], ".pyrlog"));
    ASSERT_EQ(match.seat_tokens.size(), token_seats[n].size());
    for (size_t t = 0; t < match.seat_tokens.size(); ++t) {
      EXPECT_EQ(match.seat_tokens[t].principal.match_id, ids[n]);
      EXPECT_EQ(match.seat_tokens[t].principal.seat, token_seats[n][t]);
      EXPECT_EQ(match.seat_tokens[t].id, tokens_[ids[n]][t]);
    }
    if (n == 3) {
      EXPECT_EQ(match.info.status(), v1::MATCH_BROKEN);
      EXPECT_EQ(match.info.broken_reason(), "disk full");
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

// A token whose principal names no kind (a default Principal) is not
// stored: stored, it would have been read back as a bot's.
TEST_F(RegistryTest, RefusesATokenThatIsNeitherASeatsNorABots) {
  const MintedToken minted = MintToken();
  StoredMatch match;
  match.info.set_match_id("match-0");
  match.info.set_status(v1::MATCH_RUNNING);
  match.seat_tokens.push_back({minted.id, minted.secret_hash, Principal()});
  EXPECT_FALSE(registry_->AddMatch(match).ok());
  EXPECT_TRUE(absl::IsNotFound(registry_->FindToken(minted.id).status()));
  EXPECT_TRUE(absl::IsNotFound(registry_->FindMatch("match-0").status()));
}

// The point queries the lobby asks about ended matches, the same of the
// SQLite registry and of the one in memory: a match by id (without its
// tokens), the newest match of a request_id, a token by id, and matches
// newest first, a page at a time, filtered by recorded status.
void AnswersPointQueries(Registry& registry) {
  std::vector<std::string> ids;
  std::vector<StoredToken> tokens;
  for (int n = 0; n < 5; ++n) {
    StoredMatch match;
    const std::string id = absl::StrCat("match-", n);
    match.info.set_match_id(id);
    match.info.set_status(v1::MATCH_RUNNING);
    // Matches 1 and 3 retry the same request (1 broke).
    match.info.set_request_id(n == 1 || n == 3 ? "retried"
                                               : absl::StrCat("request-", n));
    match.log_name = absl::StrCat(id, ".pyrlog");
    const MintedToken minted = MintToken();
    Principal principal;
    principal.kind = Principal::Kind::kSeat;
    principal.match_id = id;
    principal.seat = n % 3;
    match.seat_tokens.push_back({minted.id, minted.secret_hash, principal});
    tokens.push_back(match.seat_tokens.back());
    ASSERT_TRUE(registry.AddMatch(match).ok());
    ids.push_back(id);
  }
  for (int n : {0, 2, 4}) {
    v1::MatchInfo ended;
    ended.set_match_id(ids[n]);
    ended.set_status(v1::MATCH_FINISHED);
    ended.set_request_id(absl::StrCat("request-", n));
    ASSERT_TRUE(registry.EndMatch(ended).ok());
  }
  v1::MatchInfo broken;
  broken.set_match_id(ids[1]);
  broken.set_status(v1::MATCH_BROKEN);
  broken.set_request_id("retried");
  broken.set_broken_reason("no log");
  ASSERT_TRUE(registry.EndMatch(broken).ok());

  absl::StatusOr<StoredMatch> found = registry.FindMatch(ids[1]);
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ(found->info.status(), v1::MATCH_BROKEN);
  EXPECT_EQ(found->info.broken_reason(), "no log");
  EXPECT_EQ(found->log_name, "match-1.pyrlog");
  EXPECT_TRUE(found->seat_tokens.empty());
  EXPECT_TRUE(absl::IsNotFound(registry.FindMatch("match-9").status()));

  absl::StatusOr<std::string> request = registry.FindRequest("retried");
  ASSERT_TRUE(request.ok()) << request.status();
  EXPECT_EQ(*request, ids[3]);
  EXPECT_EQ(*registry.FindRequest("request-2"), ids[2]);
  EXPECT_TRUE(absl::IsNotFound(registry.FindRequest("request-9").status()));

  absl::StatusOr<StoredToken> token = registry.FindToken(tokens[4].id);
  ASSERT_TRUE(token.ok()) << token.status();
  EXPECT_EQ(token->principal.kind, Principal::Kind::kSeat);
  EXPECT_EQ(token->principal.match_id, ids[4]);
  EXPECT_EQ(token->principal.seat, 1);
  EXPECT_EQ(token->secret_hash, tokens[4].secret_hash);
  EXPECT_TRUE(
      absl::IsNotFound(registry.FindToken("0123456789abcdef").status()));

  // Newest first, two at a time.
  std::vector<std::string> listed;
  for (int64_t before = 0;;) {
    absl::StatusOr<std::vector<StoredMatch>> page =
        registry.ListMatches(before, 2, v1::MATCH_STATUS_UNSPECIFIED);
    ASSERT_TRUE(page.ok()) << page.status();
    if (page->empty()) break;
    for (const StoredMatch& match : *page) {
      EXPECT_TRUE(match.seat_tokens.empty());
      before = match.seq;
      listed.push_back(match.info.match_id());
    }
  }
  EXPECT_EQ(listed, std::vector<std::string>(ids.rbegin(), ids.rend()));
  absl::StatusOr<std::vector<StoredMatch>> finished =
      registry.ListMatches(0, 10, v1::MATCH_FINISHED);
  ASSERT_TRUE(finished.ok()) << finished.status();
  std::vector<std::string> finished_ids;
  for (const StoredMatch& match : *finished) {
    finished_ids.push_back(match.info.match_id());
  }
  EXPECT_EQ(finished_ids, std::vector<std::string>({ids[4], ids[2], ids[0]}));
  absl::StatusOr<std::vector<StoredMatch>> running =
      registry.ListMatches((*finished)[1].seq, 10, v1::MATCH_RUNNING);
  ASSERT_TRUE(running.ok()) << running.status();
  ASSERT_EQ(running->size(), 0u);  // Match 3 is newer than match 2.
  running = registry.ListMatches(0, 10, v1::MATCH_RUNNING);
  ASSERT_TRUE(running.ok()) << running.status();
  ASSERT_EQ(running->size(), 1u);
  EXPECT_EQ((*running)[0].info.match_id(), ids[3]);
}

TEST_F(RegistryTest, AnswersPointQueries) { AnswersPointQueries(*registry_); }

TEST(MemoryRegistryTest, AnswersPointQueries) {
  std::unique_ptr<Registry> registry = NewMemoryRegistry();
  AnswersPointQueries(*registry);
}

// Adds a running match "match-N" (its log /logs/match-N.pyrlog), the rest
// of its MatchInfo filled by `fill`; returns its id.
std::string AddRunning(Registry& registry, int n,
                       const std::function<void(v1::MatchInfo&)>& fill) {
  StoredMatch match;
  const std::string id = absl::StrCat("match-", n);
  match.info.set_match_id(id);
  match.info.set_status(v1::MATCH_RUNNING);
  fill(match.info);
  match.log_name = absl::StrCat(id, ".pyrlog");
  EXPECT_TRUE(registry.AddMatch(match).ok());
  return id;
}

// FindRequest names the newest match of a request_id still recorded, the
// same of both registries: once the newest is removed (its creation failed
// before its log existed), the one created before it with that request_id
// (a retry that replaced a broken match shares its request_id); once none
// is left, none.
void FindsTheNewestRequestLeftAfterRemovals(Registry& registry) {
  const auto add = [&registry](int n, const std::string& request_id) {
    return AddRunning(registry, n, [&](v1::MatchInfo& info) {
      info.set_request_id(request_id);
    });
  };
  const auto named = [&registry](const std::string& request_id) {
    absl::StatusOr<std::string> found = registry.FindRequest(request_id);
    return found.ok() ? *found : found.status().ToString();
  };
  const std::string older = add(0, "retried");
  const std::string other = add(1, "other");
  const std::string newer = add(2, "retried");
  EXPECT_EQ(named("retried"), newer);
  ASSERT_TRUE(registry.RemoveMatch(newer).ok());
  EXPECT_EQ(named("retried"), older);
  ASSERT_TRUE(registry.RemoveMatch(older).ok());
  EXPECT_TRUE(absl::IsNotFound(registry.FindRequest("retried").status()));
  EXPECT_EQ(named("other"), other);

  // Three of a request_id: the middle one removed first, then the newest.
  const std::string first = add(3, "thrice");
  const std::string second = add(4, "thrice");
  const std::string third = add(5, "thrice");
  ASSERT_TRUE(registry.RemoveMatch(second).ok());
  EXPECT_EQ(named("thrice"), third);
  ASSERT_TRUE(registry.RemoveMatch(third).ok());
  EXPECT_EQ(named("thrice"), first);
  ASSERT_TRUE(registry.RemoveMatch(first).ok());
  EXPECT_TRUE(absl::IsNotFound(registry.FindRequest("thrice").status()));
}

TEST_F(RegistryTest, FindsTheNewestRequestLeftAfterRemovals) {
  FindsTheNewestRequestLeftAfterRemovals(*registry_);
}

TEST(MemoryRegistryTest, FindsTheNewestRequestLeftAfterRemovals) {
  std::unique_ptr<Registry> registry = NewMemoryRegistry();
  FindsTheNewestRequestLeftAfterRemovals(*registry);
}

// FindLabelled names the matches of a label that did not break, newest
// first, a page at a time, the same of both registries: one that broke
// (recorded so at its end) or was removed is not named, nor is any match
// for the empty label.
void FindsTheMatchesOfALabelThatDidNotBreak(Registry& registry) {
  const auto add = [&registry](int n, const std::string& label) {
    return AddRunning(registry, n,
                      [&](v1::MatchInfo& info) { info.set_label(label); });
  };
  // As the lobby records an end: its final info, label included.
  const auto end = [&registry](const std::string& id, v1::MatchStatus status) {
    v1::MatchInfo info;
    info.set_match_id(id);
    info.set_status(status);
    info.set_label("cup/1/0");
    EXPECT_TRUE(registry.EndMatch(info).ok());
  };
  const auto labelled = [&registry](const std::string& label,
                                    int64_t before = 0, int limit = 10) {
    std::vector<std::string> ids;
    absl::StatusOr<std::vector<StoredMatch>> found =
        registry.FindLabelled(label, before, limit);
    EXPECT_TRUE(found.ok()) << found.status();
    if (!found.ok()) return ids;
    for (const StoredMatch& match : *found) {
      EXPECT_EQ(match.info.label(), label);
      EXPECT_TRUE(match.seat_tokens.empty());
      ids.push_back(match.info.match_id());
    }
    return ids;
  };
  const std::string broke = add(0, "cup/1/0");
  const std::string finished = add(1, "cup/1/0");
  const std::string other = add(2, "cup/1/1");
  const std::string running = add(3, "cup/1/0");
  const std::string removed = add(4, "cup/1/0");
  add(5, "");
  add(6, "");
  end(broke, v1::MATCH_BROKEN);
  end(finished, v1::MATCH_FINISHED);
  ASSERT_TRUE(registry.RemoveMatch(removed).ok());

  using Ids = std::vector<std::string>;
  EXPECT_EQ(labelled("cup/1/0"), Ids({running, finished}));
  EXPECT_EQ(labelled("cup/1/1"), Ids({other}));
  EXPECT_EQ(labelled("cup/1/2"), Ids());
  EXPECT_EQ(labelled(""), Ids());
  // A page at a time.
  absl::StatusOr<std::vector<StoredMatch>> first =
      registry.FindLabelled("cup/1/0", 0, 1);
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_EQ(first->size(), 1u);
  EXPECT_EQ((*first)[0].info.match_id(), running);
  EXPECT_EQ(labelled("cup/1/0", (*first)[0].seq, 1), Ids({finished}));
  // The running one breaks too: none is left.
  end(running, v1::MATCH_BROKEN);
  EXPECT_EQ(labelled("cup/1/0"), Ids({finished}));
}

TEST_F(RegistryTest, FindsTheMatchesOfALabelThatDidNotBreak) {
  FindsTheMatchesOfALabelThatDidNotBreak(*registry_);
}

TEST(MemoryRegistryTest, FindsTheMatchesOfALabelThatDidNotBreak) {
  std::unique_ptr<Registry> registry = NewMemoryRegistry();
  FindsTheMatchesOfALabelThatDidNotBreak(*registry);
}

// A registry written by a referee before the schema had request_id
// (version 1) is migrated: the column is filled from each match's info, so
// a retried CreateMatch of a match recorded then is still recognized.
TEST(RegistryMigrationTest, FillsTheRequestIdsOfAVersion1Registry) {
  TempDir dir("registrymigration");
  ASSERT_TRUE(dir.ok());
  const std::string path = dir.File("registry.db");
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    v1::MatchInfo info;
    info.set_match_id("old-match");
    info.set_status(v1::MATCH_FINISHED);
    info.set_request_id("from-version-1");
    const std::string blob = info.SerializeAsString();
    std::string hex;
    for (unsigned char c : blob)
      absl::StrAppend(&hex, absl::Hex(c, absl::kZeroPad2));
    const std::string sql = absl::StrCat(
        "CREATE TABLE bots (seq INTEGER PRIMARY KEY AUTOINCREMENT, bot_id "
        "TEXT NOT NULL UNIQUE, name TEXT NOT NULL, public_key BLOB NOT NULL);"
        "CREATE TABLE matches (seq INTEGER PRIMARY KEY AUTOINCREMENT, "
        "match_id TEXT NOT NULL UNIQUE, info BLOB NOT NULL, status INTEGER "
        "NOT NULL, log_path TEXT NOT NULL, referee_contribution BLOB NOT "
        "NULL, broken_reason TEXT NOT NULL DEFAULT '');"
        "CREATE TABLE tokens (id TEXT PRIMARY KEY, secret_hash BLOB NOT NULL, "
        "kind INTEGER NOT NULL, match_id TEXT NOT NULL DEFAULT '', seat "
        "INTEGER NOT NULL DEFAULT -1, bot_id TEXT NOT NULL DEFAULT '');"
        "CREATE INDEX tokens_by_match ON tokens (match_id);"
        "INSERT INTO matches (match_id, info, status, log_path, "
        "referee_contribution) VALUES ('old-match', x'",
        hex, "', 2, '/logs/old.pyrlog', x'');PRAGMA user_version=1;");
    ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr),
              SQLITE_OK)
        << sqlite3_errmsg(db);
    sqlite3_close(db);
  }
  absl::StatusOr<std::unique_ptr<Registry>> registry = OpenSqliteRegistry(path);
  ASSERT_TRUE(registry.ok()) << registry.status();
  absl::StatusOr<std::string> request =
      (*registry)->FindRequest("from-version-1");
  ASSERT_TRUE(request.ok()) << request.status();
  EXPECT_EQ(*request, "old-match");
  absl::StatusOr<StoredMatch> match = (*registry)->FindMatch("old-match");
  ASSERT_TRUE(match.ok()) << match.status();
  // Migration 4: the path it was recorded with is its file name now.
  EXPECT_EQ(match->log_name, "old.pyrlog");
  // Migration 5: whether it was acknowledged is not known.
  EXPECT_EQ(match->acknowledged, StoredMatch::Acknowledged::kUnknown);
  EXPECT_EQ((*registry)->CountLoggedMatches().value_or(-1), 1);
}

// A match is recorded unacknowledged (AddMatch) until MarkAcknowledged,
// and read back so, the same of both registries; CountLoggedMatches counts
// the finished matches and the running ones not recorded unacknowledged
// (acknowledged, or kUnknown: an older referee's), each naming a log file:
// not a creation cut short (no log yet), nor a broken match, nor one
// whose entry names no log file.
void RecordsAcknowledgementsAndCountsLoggedMatches(Registry& registry) {
  const auto acknowledged = [&registry](const std::string& id) {
    absl::StatusOr<StoredMatch> found = registry.FindMatch(id);
    EXPECT_TRUE(found.ok()) << found.status();
    return found.ok() ? found->acknowledged
                      : StoredMatch::Acknowledged::kUnknown;
  };
  const auto count = [&registry] {
    absl::StatusOr<int64_t> counted = registry.CountLoggedMatches();
    EXPECT_TRUE(counted.ok()) << counted.status();
    return counted.ok() ? *counted : -1;
  };
  EXPECT_EQ(count(), 0);
  const std::string cut = AddRunning(registry, 0, [](v1::MatchInfo&) {});
  EXPECT_EQ(acknowledged(cut), StoredMatch::Acknowledged::kNo);
  EXPECT_EQ(count(), 0);  // A creation cut short names no log yet.
  const std::string running = AddRunning(registry, 1, [](v1::MatchInfo&) {});
  ASSERT_TRUE(registry.MarkAcknowledged(running).ok());
  EXPECT_EQ(acknowledged(running), StoredMatch::Acknowledged::kYes);
  EXPECT_EQ(acknowledged(cut), StoredMatch::Acknowledged::kNo);
  EXPECT_EQ(count(), 1);
  for (int n : {2, 3, 4}) {
    const std::string id = AddRunning(registry, n, [](v1::MatchInfo&) {});
    ASSERT_TRUE(registry.MarkAcknowledged(id).ok());
    v1::MatchInfo ended;
    ended.set_match_id(id);
    ended.set_status(n == 4 ? v1::MATCH_BROKEN : v1::MATCH_FINISHED);
    ASSERT_TRUE(registry.EndMatch(ended).ok());
  }
  EXPECT_EQ(count(), 3);  // Not the broken one.
  StoredMatch older;      // An older referee's, its log named by a path.
  older.info.set_match_id("older");
  older.info.set_status(v1::MATCH_RUNNING);
  older.log_name = "logs/older.pyrlog";
  older.acknowledged = StoredMatch::Acknowledged::kUnknown;
  ASSERT_TRUE(registry.AddMatch(older).ok());
  EXPECT_EQ(acknowledged("older"), StoredMatch::Acknowledged::kUnknown);
  EXPECT_EQ(count(), 4);
  older.info.set_match_id("no-log");
  older.log_name = "logs/";
  ASSERT_TRUE(registry.AddMatch(older).ok());
  EXPECT_EQ(count(), 4);
  absl::StatusOr<std::vector<StoredMatch>> loaded = registry.LoadMatches(0, 10);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  ASSERT_EQ(loaded->size(), 7u);
  EXPECT_EQ((*loaded)[0].acknowledged, StoredMatch::Acknowledged::kNo);
  EXPECT_EQ((*loaded)[1].acknowledged, StoredMatch::Acknowledged::kYes);
  EXPECT_EQ((*loaded)[5].acknowledged, StoredMatch::Acknowledged::kUnknown);
}

TEST_F(RegistryTest, RecordsAcknowledgementsAndCountsLoggedMatches) {
  RecordsAcknowledgementsAndCountsLoggedMatches(*registry_);
}

TEST(MemoryRegistryTest, RecordsAcknowledgementsAndCountsLoggedMatches) {
  std::unique_ptr<Registry> registry = NewMemoryRegistry();
  RecordsAcknowledgementsAndCountsLoggedMatches(*registry);
}

// A registry written before the schema had label (version 2) is migrated:
// the column is filled from each match's info, so a label taken before the
// upgrade is still found; one held by two matches (a referee without the
// rule took it twice) still opens, both named, newest first; a broken one
// is not named.
TEST(RegistryMigrationTest, FillsTheLabelsOfAVersion2Registry) {
  TempDir dir("registrymigration");
  ASSERT_TRUE(dir.ok());
  const std::string path = dir.File("registry.db");
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    std::string rows;
    const std::vector<std::pair<std::string, v1::MatchStatus>> matches = {
        {"twice-1", v1::MATCH_FINISHED},
        {"broke", v1::MATCH_BROKEN},
        {"twice-2", v1::MATCH_RUNNING},
        {"other", v1::MATCH_FINISHED}};
    for (const auto& [id, status] : matches) {
      v1::MatchInfo info;
      info.set_match_id(id);
      info.set_status(status);
      info.set_request_id(absl::StrCat("request-", id));
      info.set_label(id == "other" ? "cup/old/1" : "cup/old/0");
      std::string hex;
      for (unsigned char c : info.SerializeAsString())
        absl::StrAppend(&hex, absl::Hex(c, absl::kZeroPad2));
      absl::StrAppend(&rows,
                      "INSERT INTO matches (match_id, info, status, log_path, "
                      "referee_contribution, request_id) VALUES ('",
                      id, "', x'", hex, "', ", static_cast<int>(status),
                      ", '/logs/", id, ".pyrlog', x'', 'request-", id, "');");
    }
    const std::string sql = absl::StrCat(
        "CREATE TABLE bots (seq INTEGER PRIMARY KEY AUTOINCREMENT, bot_id "
        "TEXT NOT NULL UNIQUE, name TEXT NOT NULL, public_key BLOB NOT NULL);"
        "CREATE TABLE matches (seq INTEGER PRIMARY KEY AUTOINCREMENT, "
        "match_id TEXT NOT NULL UNIQUE, info BLOB NOT NULL, status INTEGER "
        "NOT NULL, log_path TEXT NOT NULL, referee_contribution BLOB NOT "
        "NULL, broken_reason TEXT NOT NULL DEFAULT '', request_id TEXT);"
        "CREATE TABLE tokens (id TEXT PRIMARY KEY, secret_hash BLOB NOT NULL, "
        "kind INTEGER NOT NULL, match_id TEXT NOT NULL DEFAULT '', seat "
        "INTEGER NOT NULL DEFAULT -1, bot_id TEXT NOT NULL DEFAULT '');"
        "CREATE INDEX tokens_by_match ON tokens (match_id);"
        "CREATE INDEX matches_by_request ON matches (request_id);"
        "CREATE INDEX matches_by_status ON matches (status, seq);",
        rows, "PRAGMA user_version=2;");
    ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr),
              SQLITE_OK)
        << sqlite3_errmsg(db);
    sqlite3_close(db);
  }
  absl::StatusOr<std::unique_ptr<Registry>> registry = OpenSqliteRegistry(path);
  ASSERT_TRUE(registry.ok()) << registry.status();
  const auto labelled = [&registry](const std::string& label) {
    std::vector<std::string> ids;
    absl::StatusOr<std::vector<StoredMatch>> found =
        (*registry)->FindLabelled(label, 0, 10);
    EXPECT_TRUE(found.ok()) << found.status();
    if (found.ok()) {
      for (const StoredMatch& match : *found) {
        ids.push_back(match.info.match_id());
      }
    }
    return ids;
  };
  EXPECT_EQ(labelled("cup/old/0"),
            std::vector<std::string>({"twice-2", "twice-1"}));
  EXPECT_EQ(labelled("cup/old/1"), std::vector<std::string>({"other"}));
  EXPECT_EQ((*registry)->FindRequest("request-twice-2").value(), "twice-2");
  // A match recorded after the migration is found by its label too.
  StoredMatch added;
  added.info.set_match_id("new");
  added.info.set_status(v1::MATCH_RUNNING);
  added.info.set_label("cup/new/0");
  added.log_name = "new.pyrlog";
  ASSERT_TRUE((*registry)->AddMatch(added).ok());
  EXPECT_EQ(labelled("cup/new/0"), std::vector<std::string>({"new"}));
  registry->reset();
  // Opened again: nothing left to fill, the same answers.
  registry = OpenSqliteRegistry(path);
  ASSERT_TRUE(registry.ok()) << registry.status();
  EXPECT_EQ(labelled("cup/old/0"),
            std::vector<std::string>({"twice-2", "twice-1"}));
}

// A registry written before the schema named logs by their file names
// (version 3) held each log's path as the referee was given it: absolute,
// relative to its working directory, with ".." in it. Migration 4 keeps
// only the file name of each, which the lobby resolves against the log
// directory of the referee that opens it: a data directory moved or copied
// names its own logs, not the old place's.
TEST(RegistryMigrationTest, KeepsOnlyTheLogFileNamesOfAVersion3Registry) {
  TempDir dir("registrymigration");
  ASSERT_TRUE(dir.ok());
  const std::string path = dir.File("registry.db");
  const std::vector<std::pair<std::string, std::string>> logs = {
      {"absolute", "/srv/referee-data/logs/aa.pyrlog"},
      {"relative", "referee-data/logs/bb.pyrlog"},
      {"dotted", "../old/./referee-data/logs/cc.pyrlog"},
      {"bare", "dd.pyrlog"},
      {"odd", "/srv/a dir: with 'quotes'/logs/e e'.pyrlog"}};
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    std::string sql =
        "CREATE TABLE bots (seq INTEGER PRIMARY KEY AUTOINCREMENT, bot_id "
        "TEXT NOT NULL UNIQUE, name TEXT NOT NULL, public_key BLOB NOT NULL);"
        "CREATE TABLE matches (seq INTEGER PRIMARY KEY AUTOINCREMENT, "
        "match_id TEXT NOT NULL UNIQUE, info BLOB NOT NULL, status INTEGER "
        "NOT NULL, log_path TEXT NOT NULL, referee_contribution BLOB NOT "
        "NULL, broken_reason TEXT NOT NULL DEFAULT '', request_id TEXT, "
        "label TEXT);"
        "CREATE TABLE tokens (id TEXT PRIMARY KEY, secret_hash BLOB NOT NULL, "
        "kind INTEGER NOT NULL, match_id TEXT NOT NULL DEFAULT '', seat "
        "INTEGER NOT NULL DEFAULT -1, bot_id TEXT NOT NULL DEFAULT '');"
        "CREATE INDEX tokens_by_match ON tokens (match_id);"
        "CREATE INDEX matches_by_request ON matches (request_id);"
        "CREATE INDEX matches_by_status ON matches (status, seq);"
        "CREATE INDEX matches_by_label ON matches (label, seq);";
    for (const auto& [id, log] : logs) {
      v1::MatchInfo info;
      info.set_match_id(id);
      info.set_status(v1::MATCH_FINISHED);
      std::string hex;
      for (unsigned char c : info.SerializeAsString())
        absl::StrAppend(&hex, absl::Hex(c, absl::kZeroPad2));
      char* quoted = sqlite3_mprintf("%Q", log.c_str());
      absl::StrAppend(&sql,
                      "INSERT INTO matches (match_id, info, status, log_path, "
                      "referee_contribution, request_id, label) VALUES ('",
                      id, "', x'", hex, "', 2, ", quoted, ", x'', '', '');");
      sqlite3_free(quoted);
    }
    absl::StrAppend(&sql, "PRAGMA user_version=3;");
    ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr),
              SQLITE_OK)
        << sqlite3_errmsg(db);
    sqlite3_close(db);
  }
  const std::map<std::string, std::string> names = {{"absolute", "aa.pyrlog"},
                                                    {"relative", "bb.pyrlog"},
                                                    {"dotted", "cc.pyrlog"},
                                                    {"bare", "dd.pyrlog"},
                                                    {"odd", "e e'.pyrlog"}};
  for (int open = 0; open < 2; ++open) {  // Opened again: unchanged.
    absl::StatusOr<std::unique_ptr<Registry>> registry =
        OpenSqliteRegistry(path);
    ASSERT_TRUE(registry.ok()) << registry.status();
    for (const auto& [id, name] : names) {
      absl::StatusOr<StoredMatch> match = (*registry)->FindMatch(id);
      ASSERT_TRUE(match.ok()) << match.status();
      EXPECT_EQ(match->log_name, name) << id;
    }
    absl::StatusOr<std::vector<StoredMatch>> loaded =
        (*registry)->LoadMatches(0, 10);
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    ASSERT_EQ(loaded->size(), names.size());
    for (const StoredMatch& match : *loaded) {
      EXPECT_EQ(match.log_name, names.at(match.info.match_id()));
    }
  }
}

}  // namespace
}  // namespace pyramid
