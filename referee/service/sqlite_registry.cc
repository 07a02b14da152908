// The embedded registry (OpenSqliteRegistry): a SQLite database whose
// schema is migrated on open, each write one durable transaction.
#include <filesystem>
#include <limits>
#include <string>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "referee/service/registry.h"
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
    // 2: the lobby asks the registry for the matches that ended (by
    // request_id, and newest first with a status) instead of keeping them.
    // A row's request_id is NULL until it is read from its info (at open:
    // FillRequestIds).
    R"sql(
    ALTER TABLE matches ADD COLUMN request_id TEXT;
    CREATE INDEX matches_by_request ON matches (request_id);
    CREATE INDEX matches_by_status ON matches (status, seq);
    )sql",
    // 3: a label names at most one match that did not break (the lobby's
    // LobbyOptions::unique_labels): the lobby asks for the matches of a
    // label. Not UNIQUE: a registry may hold a label twice (a broken match's
    // replacement, a referee without the rule), and still opens; the rule is
    // the lobby's. A row's label is NULL until it is read from its info (at
    // open: FillColumns).
    R"sql(
    ALTER TABLE matches ADD COLUMN label TEXT;
    CREATE INDEX matches_by_label ON matches (label, seq);
    )sql",
    // 4: a match's log is named by its file name within the log directory
    // (StoredMatch::log_name), not by the path a referee was given: a path
    // kept the old directory's name after the data directory was moved (its
    // logs then unreadable) and, in a copy, named the original's logs
    // (which the copy's referee then wrote into). The file name is what
    // follows a path's last '/' (rtrim strips every character that is not
    // one from the end, leaving the directory's part).
    R"sql(
    ALTER TABLE matches RENAME COLUMN log_path TO log_name;
    UPDATE matches SET log_name = substr(log_name,
        length(rtrim(log_name, replace(log_name, '/', ''))) + 1);
    )sql",
    // 5: whether CreateMatch answered for a match (StoredMatch::
    // acknowledged): 0 from AddMatch, 1 from MarkAcknowledged. NULL in the
    // rows of an older referee, which never said (kUnknown): a restart
    // tells their creations cut short as that referee did.
    R"sql(
    ALTER TABLE matches ADD COLUMN acknowledged INTEGER;
    )sql",
};

// The columns of a match's row that StoredMatch holds, in ReadMatch's
// order. (Its broken_reason column repeats its info's.)
// (Its acknowledged column is read as -1 when NULL: AcknowledgedOf.)
constexpr const char kMatchColumns[] =
    "seq, info, log_name, referee_contribution, ifnull(acknowledged, -1)";

// The acknowledged column's value for `acknowledged`, -1 for NULL (bound
// through nullif(?, -1)), and back.
int64_t AcknowledgedColumn(StoredMatch::Acknowledged acknowledged) {
  switch (acknowledged) {
    case StoredMatch::Acknowledged::kUnknown:
      return -1;
    case StoredMatch::Acknowledged::kNo:
      return 0;
    case StoredMatch::Acknowledged::kYes:
      return 1;
  }
  return -1;
}
StoredMatch::Acknowledged AcknowledgedOf(int64_t column) {
  return column < 0    ? StoredMatch::Acknowledged::kUnknown
         : column == 0 ? StoredMatch::Acknowledged::kNo
                       : StoredMatch::Acknowledged::kYes;
}
// The columns of a token's row, in ReadToken's order.
constexpr const char kTokenColumns[] =
    "id, secret_hash, kind, match_id, seat, bot_id";

// The match in the current row of `row` (kMatchColumns from column 0).
absl::Status ReadMatch(const SqliteStatement& row, StoredMatch& match) {
  match.seq = row.ColumnInt(0);
  if (!match.info.ParseFromString(row.ColumnBytes(1))) {
    return absl::DataLossError("a match's description does not parse");
  }
  match.log_name = row.ColumnBytes(2);
  match.referee_contribution = row.ColumnBytes(3);
  match.acknowledged = AcknowledgedOf(row.ColumnInt(4));
  return absl::OkStatus();
}

// The token in the current row of `row` (kTokenColumns from column 0):
// every query of tokens reads them here.
absl::Status ReadToken(const SqliteStatement& row, StoredToken& token) {
  token.id = row.ColumnBytes(0);
  Principal& p = token.principal;
  switch (row.ColumnInt(2)) {
    case 1:
      p.kind = Principal::Kind::kSeat;
      break;
    case 2:
      p.kind = Principal::Kind::kBot;
      break;
    default:  // Never written: a row that says neither gives no rights.
      return absl::DataLossError("a token is neither a seat's nor a bot's");
  }
  if (!DigestFromBytes(row.ColumnBytes(1), &token.secret_hash)) {
    return absl::DataLossError(
        absl::StrCat("a ", p.kind == Principal::Kind::kSeat ? "seat" : "bot",
                     " token's hash is not 32 bytes"));
  }
  p.match_id = row.ColumnBytes(3);
  p.seat = static_cast<int>(row.ColumnInt(4));
  p.bot_id = row.ColumnBytes(5);
  return absl::OkStatus();
}

class SqliteRegistry final : public Registry {
 public:
  SqliteRegistry(std::unique_ptr<SqliteDb> db, std::string dir)
      : db_(std::move(db)), dir_(std::move(dir)) {}

  std::string dir() const override { return dir_; }

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
        "INSERT INTO matches (match_id, info, status, log_name, "
        "referee_contribution, request_id, label, acknowledged) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, nullif(?, -1));");
    absl::Status s =
        insert.ok() && insert.Text(1, match.info.match_id())
                               .Blob(2, match.info.SerializeAsString())
                               .Int(3, match.info.status())
                               .Text(4, match.log_name)
                               .Blob(5, match.referee_contribution)
                               .Text(6, match.info.request_id())
                               .Text(7, match.info.label())
                               .Int(8, AcknowledgedColumn(match.acknowledged))
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

  absl::Status MarkAcknowledged(const std::string& match_id) override {
    absl::MutexLock lock(&mu_);
    ScopedStatement mark = db_->Prepared(
        "UPDATE matches SET acknowledged = 1 WHERE match_id = ?;");
    return mark->ok() && mark->Text(1, match_id).Step() == SQLITE_DONE
               ? absl::OkStatus()
               : Error("mark match acknowledged");
  }

  absl::Status EndMatch(const v1::MatchInfo& info) override {
    absl::MutexLock lock(&mu_);
    SqliteStatement update(db_->get(),
                           "UPDATE matches SET info = ?, status = ?, "
                           "referee_contribution = x'', broken_reason = ? "
                           "WHERE match_id = ?;");
    return update.ok() && update.Blob(1, info.SerializeAsString())
                                  .Int(2, info.status())
                                  .Text(3, info.broken_reason())
                                  .Text(4, info.match_id())
                                  .Step() == SQLITE_DONE
               ? absl::OkStatus()
               : Error("end match");
  }

  absl::StatusOr<std::vector<StoredBot>> LoadBots() const override {
    absl::MutexLock lock(&mu_);
    std::vector<StoredBot> loaded;
    // Its token first (kTokenColumns, bot_id the one both tables share).
    SqliteStatement bots(
        db_->get(), absl::StrCat("SELECT ", kTokenColumns,
                                 ", bots.name, bots.public_key FROM bots "
                                 "JOIN tokens USING (bot_id) WHERE kind = 2 "
                                 "ORDER BY bots.seq;")
                        .c_str());
    if (!bots.ok()) return Error("load bots");
    for (int rc; (rc = bots.Step()) != SQLITE_DONE;) {
      if (rc != SQLITE_ROW) return Error("load bots");
      StoredBot& bot = loaded.emplace_back();
      if (absl::Status s = ReadToken(bots, bot.token); !s.ok()) return s;
      bot.bot_id = bot.token.principal.bot_id;
      bot.name = bots.ColumnBytes(6);
      bot.public_key = bots.ColumnBytes(7);
    }
    return loaded;
  }

  absl::StatusOr<std::vector<StoredMatch>> LoadMatches(
      int64_t after, int limit) const override {
    absl::MutexLock lock(&mu_);
    std::vector<StoredMatch> loaded;
    SqliteStatement matches(db_->get(),
                            absl::StrCat("SELECT ", kMatchColumns,
                                         " FROM matches WHERE seq > ? "
                                         "ORDER BY seq LIMIT ?;")
                                .c_str());
    if (!matches.ok()) return Error("load matches");
    matches.Int(1, after).Int(2, limit);
    absl::flat_hash_map<std::string, size_t> by_id;
    for (int rc; (rc = matches.Step()) != SQLITE_DONE;) {
      if (rc != SQLITE_ROW) return Error("load matches");
      StoredMatch& match = loaded.emplace_back();
      if (absl::Status s = ReadMatch(matches, match); !s.ok()) return s;
      by_id[match.info.match_id()] = loaded.size() - 1;
    }
    if (loaded.empty()) return loaded;
    SqliteStatement seats(
        db_->get(),
        absl::StrCat("SELECT ", kTokenColumns,
                     " FROM tokens WHERE kind = 1 AND match_id IN (SELECT "
                     "match_id FROM matches WHERE seq > ? AND seq <= ?) "
                     "ORDER BY match_id, seat;")
            .c_str());
    if (!seats.ok()) return Error("load seat tokens");
    seats.Int(1, after).Int(2, loaded.back().seq);
    for (int rc; (rc = seats.Step()) != SQLITE_DONE;) {
      if (rc != SQLITE_ROW) return Error("load seat tokens");
      StoredToken token;
      if (absl::Status s = ReadToken(seats, token); !s.ok()) return s;
      auto it = by_id.find(token.principal.match_id);
      if (it != by_id.end()) {
        loaded[it->second].seat_tokens.push_back(std::move(token));
      }
    }
    return loaded;
  }

  absl::StatusOr<StoredMatch> FindMatch(
      const std::string& match_id) const override {
    absl::MutexLock lock(&mu_);
    return FindOne<StoredMatch>(
        absl::StrCat("SELECT ", kMatchColumns,
                     " FROM matches WHERE match_id = ?;"),
        match_id, "find match", absl::StrCat("no match ", match_id), ReadMatch);
  }

  absl::StatusOr<std::string> FindRequest(
      const std::string& request_id) const override {
    absl::MutexLock lock(&mu_);
    return FindOne<std::string>(
        "SELECT match_id FROM matches WHERE request_id = ? "
        "ORDER BY seq DESC LIMIT 1;",
        request_id, "find request", "no match for the request_id",
        [](const SqliteStatement& row, std::string& match_id) {
          match_id = row.ColumnBytes(0);
          return absl::OkStatus();
        });
  }

  absl::StatusOr<std::vector<StoredMatch>> FindLabelled(
      const std::string& label, int64_t before, int limit) const override {
    absl::MutexLock lock(&mu_);
    std::vector<StoredMatch> found;
    if (label.empty()) return found;
    ScopedStatement find = db_->Prepared(absl::StrCat(
        "SELECT ", kMatchColumns,
        " FROM matches WHERE label = ? AND seq < ? AND status != ? "
        "ORDER BY seq DESC LIMIT ?;"));
    if (!find->ok()) return Error("find label");
    find->Text(1, label)
        .Int(2, before == 0 ? std::numeric_limits<int64_t>::max() : before)
        .Int(3, v1::MATCH_BROKEN)
        .Int(4, limit);
    for (int rc; (rc = find->Step()) != SQLITE_DONE;) {
      if (rc != SQLITE_ROW) return Error("find label");
      if (absl::Status s = ReadMatch(*find, found.emplace_back()); !s.ok()) {
        return s;
      }
    }
    return found;
  }

  absl::StatusOr<StoredToken> FindToken(const std::string& id) const override {
    absl::MutexLock lock(&mu_);
    return FindOne<StoredToken>(
        absl::StrCat("SELECT ", kTokenColumns, " FROM tokens WHERE id = ?;"),
        id, "find token", "no such token", ReadToken);
  }

  absl::StatusOr<std::vector<StoredMatch>> ListMatches(
      int64_t before, int limit, v1::MatchStatus status) const override {
    absl::MutexLock lock(&mu_);
    const bool any = status == v1::MATCH_STATUS_UNSPECIFIED;
    ScopedStatement list = db_->Prepared(absl::StrCat(
        "SELECT ", kMatchColumns, " FROM matches WHERE seq < ?",
        any ? "" : " AND status = ?", " ORDER BY seq DESC LIMIT ?;"));
    if (!list->ok()) return Error("list matches");
    list->Int(1, before == 0 ? std::numeric_limits<int64_t>::max() : before);
    if (!any) list->Int(2, status);
    list->Int(any ? 2 : 3, limit);
    std::vector<StoredMatch> listed;
    for (int rc; (rc = list->Step()) != SQLITE_DONE;) {
      if (rc != SQLITE_ROW) return Error("list matches");
      if (absl::Status s = ReadMatch(*list, listed.emplace_back()); !s.ok()) {
        return s;
      }
    }
    return listed;
  }

  absl::StatusOr<int64_t> CountLoggedMatches() const override {
    absl::MutexLock lock(&mu_);
    SqliteStatement count(
        db_->get(),
        "SELECT count(*) FROM matches WHERE log_name != '' AND "
        "substr(log_name, -1) != '/' AND (status = ? OR (status = ? AND "
        "acknowledged IS NOT 0));");
    if (!count.ok() ||
        count.Int(1, v1::MATCH_FINISHED).Int(2, v1::MATCH_RUNNING).Step() !=
            SQLITE_ROW) {
      return Error("count logged matches");
    }
    return count.ColumnInt(0);
  }

  // Reads the request_id and the label of every match recorded before the
  // schema had their columns (migrations 2 and 3) from its info (SQL cannot
  // parse it); none is left after the first open.
  absl::Status FillColumns() {
    absl::MutexLock lock(&mu_);
    if (absl::Status s = Begin(); !s.ok()) return s;
    struct Filled {
      int64_t seq;
      std::string request_id;
      std::string label;
    };
    std::vector<Filled> filled;
    SqliteStatement unfilled(db_->get(),
                             "SELECT seq, info FROM matches WHERE request_id "
                             "IS NULL OR label IS NULL;");
    absl::Status s = unfilled.ok() ? absl::OkStatus() : Error("fill columns");
    for (int rc; s.ok() && (rc = unfilled.Step()) != SQLITE_DONE;) {
      v1::MatchInfo info;
      if (rc != SQLITE_ROW) {
        s = Error("fill columns");
      } else if (!info.ParseFromString(unfilled.ColumnBytes(1))) {
        s = absl::DataLossError("a match's description does not parse");
      } else {
        filled.push_back(
            {unfilled.ColumnInt(0), info.request_id(), info.label()});
      }
    }
    SqliteStatement update(
        db_->get(),
        "UPDATE matches SET request_id = ?, label = ? WHERE seq = ?;");
    for (const Filled& row : filled) {
      if (!s.ok()) break;
      update.Reset();
      if (!update.ok() || update.Text(1, row.request_id)
                                  .Text(2, row.label)
                                  .Int(3, row.seq)
                                  .Step() != SQLITE_DONE) {
        s = Error("fill columns");
      }
    }
    return Commit(s);
  }

 private:
  absl::Status InsertToken(const StoredToken& token)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    SqliteStatement insert(
        db_->get(),
        "INSERT INTO tokens (id, secret_hash, kind, match_id, "
        "seat, bot_id) VALUES (?, ?, ?, ?, ?, ?);");
    const Principal& p = token.principal;
    if (p.kind != Principal::Kind::kSeat && p.kind != Principal::Kind::kBot) {
      return absl::InvalidArgumentError("only seat and bot tokens are stored");
    }
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

  // A full disk's errors are RESOURCE_EXHAUSTED (SqliteDb::Error), so that
  // a client tries again once space returns rather than at once.
  absl::Status Begin() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return db_->Begin();
  }
  absl::Status Commit(absl::Status status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return db_->Finish(std::move(status));
  }
  absl::Status Error(const char* what) const { return db_->Error(what); }

  // The row `sql` selects with `key` bound to its one parameter, read by
  // read_row(row, T&); NotFound (`missing`) when there is none, the
  // database's error (`what` failed) when the query fails.
  template <typename T, typename ReadRow>
  absl::StatusOr<T> FindOne(const std::string& sql, const std::string& key,
                            const char* what, const std::string& missing,
                            ReadRow read_row) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    ScopedStatement find = db_->Prepared(sql);
    if (!find->ok()) return Error(what);
    find->Text(1, key);
    switch (find->Step()) {
      case SQLITE_ROW: {
        T found;
        if (absl::Status s = read_row(*find, found); !s.ok()) return s;
        return found;
      }
      case SQLITE_DONE:
        return absl::NotFoundError(missing);
      default:
        return Error(what);
    }
  }

  mutable absl::Mutex mu_;
  const std::unique_ptr<SqliteDb> db_;
  const std::string dir_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Registry>> OpenSqliteRegistry(
    const std::string& path) {
  // Owner-only (as every SqliteDb): it holds seed contributions.
  absl::StatusOr<std::unique_ptr<SqliteDb>> db =
      SqliteDb::Open(path, kMigrations, "registry");
  if (!db.ok()) return db.status();
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  auto registry = std::make_unique<SqliteRegistry>(
      *std::move(db), dir.empty() ? "." : dir.string());
  if (absl::Status s = registry->FillColumns(); !s.ok()) return s;
  return registry;
}

}  // namespace pyramid
