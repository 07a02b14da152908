#include "referee/service/registry.h"

#include <cstring>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "referee/service/sqlite_db.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

// The schema, version by version: migration i takes version i to i + 1.
constexpr const char* kMigrations[] = {
    R"sql(
    CREATE TABLE bots (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      bot_id TEXT NOT NULL UNIQUE,
      name TEXT NOT NULL,
      public_key BLOB NOT NULL);
    CREATE TABLE matches (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      match_id TEXT NOT NULL UNIQUE,
      info BLOB NOT NULL,            -- MatchInfo, serialized
      status INTEGER NOT NULL,       -- MatchStatus
      log_path TEXT NOT NULL,
      referee_contribution BLOB NOT NULL,
      broken_reason TEXT NOT NULL DEFAULT '');
    CREATE TABLE tokens (
      id TEXT PRIMARY KEY,
      secret_hash BLOB NOT NULL,     -- SHA-256 of the secret part
      kind INTEGER NOT NULL,         -- 1 seat, 2 bot
      match_id TEXT NOT NULL DEFAULT '',
      seat INTEGER NOT NULL DEFAULT -1,
      bot_id TEXT NOT NULL DEFAULT '');
    CREATE INDEX tokens_by_match ON tokens (match_id);
    )sql",
};

class SqliteRegistry final : public Registry {
 public:
  explicit SqliteRegistry(std::unique_ptr<SqliteDb> db) : db_(std::move(db)) {}

  absl::Status AddBot(const StoredBot& bot) override {
    absl::MutexLock lock(&mu_);
    if (absl::Status s = Begin(); !s.ok()) return s;
    SqliteStatement insert(
        db_->get(),
        "INSERT INTO bots (bot_id, name, public_key) VALUES (?, ?, ?);");
    absl::Status s = insert.ok() && insert.Text(1, bot.bot_id)
                                            .Text(2, bot.name)
                                            .Blob(3, bot.public_key)
                                            .Step() == SQLITE_DONE
                         ? InsertToken(bot.token)
                         : Error("add bot");
    return Commit(s);
  }

  absl::Status AddMatch(const StoredMatch& match) override {
    absl::MutexLock lock(&mu_);
    if (absl::Status s = Begin(); !s.ok()) return s;
    SqliteStatement insert(
        db_->get(),
        "INSERT INTO matches (match_id, info, status, log_path, "
        "referee_contribution) VALUES (?, ?, ?, ?, ?);");
    absl::Status s =
        insert.ok() && insert.Text(1, match.info.match_id())
                               .Blob(2, match.info.SerializeAsString())
                               .Int(3, match.info.status())
                               .Text(4, match.log_path)
                               .Blob(5, match.referee_contribution)
                               .Step() == SQLITE_DONE
            ? absl::OkStatus()
            : Error("add match");
    for (const StoredToken& token : match.seat_tokens) {
      if (s.ok()) s = InsertToken(token);
    }
    return Commit(s);
  }

  absl::Status RemoveMatch(const std::string& match_id) override {
    absl::MutexLock lock(&mu_);
    if (absl::Status s = Begin(); !s.ok()) return s;
    SqliteStatement tokens(db_->get(),
                           "DELETE FROM tokens WHERE match_id = ?;");
    SqliteStatement match(db_->get(),
                          "DELETE FROM matches WHERE match_id = ?;");
    const bool done = tokens.ok() && match.ok() &&
                      tokens.Text(1, match_id).Step() == SQLITE_DONE &&
                      match.Text(1, match_id).Step() == SQLITE_DONE;
    return Commit(done ? absl::OkStatus() : Error("remove match"));
  }

  absl::Status EndMatch(const v1::MatchInfo& info,
                        const std::string& broken_reason) override {
    absl::MutexLock lock(&mu_);
    SqliteStatement update(db_->get(),
                           "UPDATE matches SET info = ?, status = ?, "
                           "referee_contribution = x'', broken_reason = ? "
                           "WHERE match_id = ?;");
    return update.ok() && update.Blob(1, info.SerializeAsString())
                                  .Int(2, info.status())
                                  .Text(3, broken_reason)
                                  .Text(4, info.match_id())
                                  .Step() == SQLITE_DONE
               ? absl::OkStatus()
               : Error("end match");
  }

  absl::StatusOr<std::vector<StoredBot>> LoadBots() const override {
    absl::MutexLock lock(&mu_);
    std::vector<StoredBot> loaded;
    SqliteStatement bots(
        db_->get(),
        "SELECT b.bot_id, b.name, b.public_key, t.id, t.secret_hash "
        "FROM bots b JOIN tokens t ON t.bot_id = b.bot_id "
        "AND t.kind = 2 ORDER BY b.seq;");
    if (!bots.ok()) return Error("load bots");
    for (int rc; (rc = bots.Step()) != SQLITE_DONE;) {
      if (rc != SQLITE_ROW) return Error("load bots");
      StoredBot& bot = loaded.emplace_back();
      bot.bot_id = bots.ColumnBytes(0);
      bot.name = bots.ColumnBytes(1);
      bot.public_key = bots.ColumnBytes(2);
      bot.token.id = bots.ColumnBytes(3);
      if (!ReadDigest(bots.ColumnBytes(4), &bot.token.secret_hash)) {
        return absl::DataLossError("a bot token hash is not 32 bytes");
      }
      bot.token.principal.kind = Principal::Kind::kBot;
      bot.token.principal.bot_id = bot.bot_id;
    }
    return loaded;
  }

  absl::StatusOr<std::vector<StoredMatch>> LoadMatches(
      int64_t after, int limit) const override {
    absl::MutexLock lock(&mu_);
    std::vector<StoredMatch> loaded;
    SqliteStatement matches(db_->get(),
                            "SELECT seq, info, log_path, referee_contribution, "
                            "broken_reason FROM matches WHERE seq > ? "
                            "ORDER BY seq LIMIT ?;");
    if (!matches.ok()) return Error("load matches");
    matches.Int(1, after).Int(2, limit);
    absl::flat_hash_map<std::string, size_t> by_id;
    for (int rc; (rc = matches.Step()) != SQLITE_DONE;) {
      if (rc != SQLITE_ROW) return Error("load matches");
      StoredMatch& match = loaded.emplace_back();
      match.seq = matches.ColumnInt(0);
      if (!match.info.ParseFromString(matches.ColumnBytes(1))) {
        return absl::DataLossError("a match's description does not parse");
      }
      match.log_path = matches.ColumnBytes(2);
      match.referee_contribution = matches.ColumnBytes(3);
      match.broken_reason = matches.ColumnBytes(4);
      by_id[match.info.match_id()] = loaded.size() - 1;
    }
    if (loaded.empty()) return loaded;
    SqliteStatement seats(db_->get(),
                          "SELECT id, secret_hash, match_id, seat FROM tokens "
                          "WHERE kind = 1 AND match_id IN (SELECT match_id "
                          "FROM matches WHERE seq > ? AND seq <= ?) "
                          "ORDER BY match_id, seat;");
    if (!seats.ok()) return Error("load seat tokens");
    seats.Int(1, after).Int(2, loaded.back().seq);
    for (int rc; (rc = seats.Step()) != SQLITE_DONE;) {
      if (rc != SQLITE_ROW) return Error("load seat tokens");
      StoredToken token;
      token.id = seats.ColumnBytes(0);
      if (!ReadDigest(seats.ColumnBytes(1), &token.secret_hash)) {
        return absl::DataLossError("a seat token hash is not 32 bytes");
      }
      token.principal.kind = Principal::Kind::kSeat;
      token.principal.match_id = seats.ColumnBytes(2);
      token.principal.seat = static_cast<int>(seats.ColumnInt(3));
      auto it = by_id.find(token.principal.match_id);
      if (it != by_id.end()) {
        loaded[it->second].seat_tokens.push_back(std::move(token));
      }
    }
    return loaded;
  }

 private:
  static bool ReadDigest(const std::string& bytes, Digest* out) {
    if (bytes.size() != out->size()) return false;
    std::memcpy(out->data(), bytes.data(), out->size());
    return true;
  }

  absl::Status InsertToken(const StoredToken& token)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    SqliteStatement insert(
        db_->get(),
        "INSERT INTO tokens (id, secret_hash, kind, match_id, "
        "seat, bot_id) VALUES (?, ?, ?, ?, ?, ?);");
    const Principal& p = token.principal;
    return insert.ok() &&
                   insert.Text(1, token.id)
                           .Blob(2, AsView(token.secret_hash))
                           .Int(3, p.kind == Principal::Kind::kSeat ? 1 : 2)
                           .Text(4, p.match_id)
                           .Int(5, p.seat)
                           .Text(6, p.bot_id)
                           .Step() == SQLITE_DONE
               ? absl::OkStatus()
               : Error("add token");
  }

  absl::Status Begin() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return db_->Begin();
  }
  absl::Status Commit(absl::Status status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return db_->Finish(std::move(status));
  }
  absl::Status Error(const char* what) const { return db_->Error(what); }

  mutable absl::Mutex mu_;
  const std::unique_ptr<SqliteDb> db_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Registry>> OpenSqliteRegistry(
    const std::string& path) {
  // 0600: it holds seed contributions.
  absl::StatusOr<std::unique_ptr<SqliteDb>> db =
      SqliteDb::Open(path, 0600, kMigrations, "registry");
  if (!db.ok()) return db.status();
  return std::make_unique<SqliteRegistry>(*std::move(db));
}

}  // namespace pyramid
