// A SQLite database holding some of the referee's durable state (the
// registry, the transparency log): owner-only (0600, the database and its
// -wal, -shm and -journal side files; see Open), WAL journal, synchronous=FULL
// (a committed write survives a crash or power loss), its schema versioned by
// PRAGMA user_version and migrated on open. Not thread-safe: its owner
// serializes every call.
#ifndef PYRAMID_REFEREE_SERVICE_SQLITE_DB_H_
#define PYRAMID_REFEREE_SERVICE_SQLITE_DB_H_

#include <sqlite3.h>

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace pyramid {

// One prepared statement; bind with the chained setters, then Step().
class SqliteStatement {
 public:
  SqliteStatement(sqlite3* db, const char* sql);
  ~SqliteStatement();
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;

  bool ok() const { return stmt_ != nullptr; }
  SqliteStatement& Text(int i, std::string_view v);
  SqliteStatement& Blob(int i, std::string_view v);
  SqliteStatement& Int(int i, int64_t v);
  int Step();  // SQLITE_ROW, SQLITE_DONE or an error code.
  // Clears the bindings and rewinds, to run the statement again.
  void Reset();
  std::string ColumnBytes(int i) const;
  int64_t ColumnInt(int i) const;

 private:
  sqlite3_stmt* stmt_ = nullptr;
};

// A statement of SqliteDb's cache, lent for one use: rewound and its
// bindings cleared when the handle goes (so no read stays open).
class ScopedStatement {
 public:
  explicit ScopedStatement(SqliteStatement* statement)
      : statement_(statement) {}
  ~ScopedStatement() { statement_->Reset(); }
  ScopedStatement(const ScopedStatement&) = delete;
  ScopedStatement& operator=(const ScopedStatement&) = delete;

  SqliteStatement* operator->() const { return statement_; }
  SqliteStatement& operator*() const { return *statement_; }

 private:
  SqliteStatement* const statement_;
};

class SqliteDb {
 public:
  // Opens the database at `path` and brings its schema to the latest
  // version: migrations[i] takes version i to i + 1, each in its own
  // transaction. A database of a newer version than the last migration is
  // refused. `what` names the database in every error ("registry").
  //
  // Owner-only, always: the file is created 0600 before SQLite opens it, and
  // an existing one (say from an older referee's run, 0644) is made 0600, as
  // are its -wal, -shm and -journal side files if present; SQLite gives the
  // side files it creates the database file's mode. No other user may even
  // open it read-only: a reader can take a shared fcntl lock, which SQLite
  // honours, and stall every write for the busy timeout (or for as long as
  // it holds the lock).
  //
  // A file SQLite could open only for reading (immutable, on a read-only
  // file system) is refused, FAILED_PRECONDITION "cannot open the WHAT
  // PATH: it cannot be written (REASON)", rather than opened for reads
  // whose every write would fail. The errors of the first statements name
  // PATH, and, when they are RESOURCE_EXHAUSTED (see Error), say "no space
  // left on the device" (SQLite's own message may be "disk I/O error").
  static absl::StatusOr<std::unique_ptr<SqliteDb>> Open(
      const std::string& path, absl::Span<const char* const> migrations,
      std::string what);
  ~SqliteDb();

  sqlite3* get() const { return db_; }
  // The statement for `sql`, prepared once and kept: for the statements a
  // hot path runs again and again. Check ok() as for a new one.
  ScopedStatement Prepared(const std::string& sql);
  absl::Status Exec(const std::string& sql);
  // BEGIN IMMEDIATE.
  absl::Status Begin();
  // COMMIT when `status` is OK (returning the commit's status), else
  // ROLLBACK and `status`.
  absl::Status Finish(absl::Status status);
  // "WHAT: DOING: SQLite's last error message": RESOURCE_EXHAUSTED when
  // the call that just failed found no space left (SQLITE_FULL: the disk,
  // or ENOSPC under another code), so that a client tries again once space
  // returns rather than at once; else INTERNAL. Exec's and Finish's errors
  // are so too. Read right after the failure: the database's error code is
  // that of its last call.
  absl::Status Error(std::string_view doing) const;

 private:
  // `message` as Error's status.
  absl::Status Failed(std::string message) const;

  SqliteDb(sqlite3* db, std::string what) : db_(db), what_(std::move(what)) {}
  absl::Status Migrate(absl::Span<const char* const> migrations);

  sqlite3* const db_;
  const std::string what_;
  std::map<std::string, std::unique_ptr<SqliteStatement>> prepared_;
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_SQLITE_DB_H_
