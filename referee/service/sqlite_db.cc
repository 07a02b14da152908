#include "referee/service/sqlite_db.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"

namespace pyramid {
namespace {

// Why `path`, which SQLite opened only for reading, cannot be written:
// access(2)'s reason (EPERM for an immutable file, EROFS for a read-only
// file system, EACCES for its mode), without opening it (closing a
// descriptor would drop the locks another connection of this process holds
// on the file).
std::string WhyNotWritable(const std::string& path) {
  if (access(path.c_str(), W_OK) != 0) return std::strerror(errno);
  return "SQLite opened it read-only";
}

}  // namespace

SqliteStatement::SqliteStatement(sqlite3* db, const char* sql) {
  if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) {
    stmt_ = nullptr;
  }
}

SqliteStatement::~SqliteStatement() { sqlite3_finalize(stmt_); }

SqliteStatement& SqliteStatement::Text(int i, std::string_view v) {
  sqlite3_bind_text(stmt_, i, v.data(), static_cast<int>(v.size()),
                    SQLITE_TRANSIENT);
  return *this;
}

SqliteStatement& SqliteStatement::Blob(int i, std::string_view v) {
  // A zero-length blob, not NULL, for an empty value.
  sqlite3_bind_blob(stmt_, i, v.empty() ? "" : v.data(),
                    static_cast<int>(v.size()), SQLITE_TRANSIENT);
  return *this;
}

SqliteStatement& SqliteStatement::Int(int i, int64_t v) {
  sqlite3_bind_int64(stmt_, i, v);
  return *this;
}

int SqliteStatement::Step() { return sqlite3_step(stmt_); }

void SqliteStatement::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

std::string SqliteStatement::ColumnBytes(int i) const {
  const void* data = sqlite3_column_blob(stmt_, i);
  return data == nullptr ? std::string()
                         : std::string(static_cast<const char*>(data),
                                       sqlite3_column_bytes(stmt_, i));
}

int64_t SqliteStatement::ColumnInt(int i) const {
  return sqlite3_column_int64(stmt_, i);
}

absl::StatusOr<std::unique_ptr<SqliteDb>> SqliteDb::Open(
    const std::string& path, absl::Span<const char* const> migrations,
    std::string what) {
  // Created 0600 before SQLite opens it (SQLite would use 0644), and an
  // existing one made 0600, with the side files an older run left (SQLite
  // gives the side files it creates the database file's mode). By path, not
  // by a descriptor: closing one would drop the fcntl locks another
  // connection of this process holds on the file.
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
    const std::string file = path + suffix;
    struct stat st;
    if (stat(file.c_str(), &st) != 0) {
      if (errno != ENOENT) {
        return absl::FailedPreconditionError(absl::StrCat(
            "cannot open the ", what, " ", file, ": ", std::strerror(errno)));
      }
      if (*suffix != '\0') continue;  // No side file: nothing to fix.
      const int fd = open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
      if (fd < 0) {
        return absl::FailedPreconditionError(absl::StrCat(
            "cannot open the ", what, " ", file, ": ", std::strerror(errno)));
      }
      close(fd);  // New: no lock of ours on it to drop.
      continue;
    }
    if ((st.st_mode & 07777) != 0600 && chmod(file.c_str(), 0600) != 0) {
      return absl::FailedPreconditionError(
          absl::StrCat("cannot make the ", what, " ", file,
                       " owner-only: ", std::strerror(errno)));
    }
  }
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db,
                      SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX,
                      nullptr) != SQLITE_OK) {
    const std::string message =
        db != nullptr ? sqlite3_errmsg(db) : "no memory";
    sqlite3_close(db);
    return absl::FailedPreconditionError(
        absl::StrCat("cannot open the ", what, " ", path, ": ", message));
  }
  // SQLite falls back to reading a file it cannot open for writing (an
  // immutable file, a read-only file system): every write would then fail.
  if (sqlite3_db_readonly(db, "main") == 1) {
    sqlite3_close(db);
    return absl::FailedPreconditionError(
        absl::StrCat("cannot open the ", what, " ", path,
                     ": it cannot be written (", WhyNotWritable(path), ")"));
  }
  sqlite3_busy_timeout(db, 5000);
  std::unique_ptr<SqliteDb> result(new SqliteDb(db, std::move(what)));
  // The first statements are where a damaged file shows ("file is not a
  // database") or a full disk ("disk I/O error", which says nothing of
  // space): their errors name the file, and the lack of space.
  auto naming_the_file = [&path](const absl::Status& s) {
    return absl::Status(s.code(),
                        absl::StrCat(s.message(), " (", path,
                                     absl::IsResourceExhausted(s)
                                         ? "; no space left on the device)"
                                         : ")"));
  };
  // journal_size_limit: the -wal file, which SQLite reuses rather than
  // shrinks, is cut back to 1 MiB when a write begins it anew after a
  // checkpoint. It still grows as far as a busy stretch (or a checkpoint
  // held back by a reader) takes it, about 4 MiB by the default
  // checkpoint of 1,000 pages, but no longer keeps that room for good on a
  // data directory that may be short of it (docs/durability.md). Growing
  // it again costs a file extension per checkpoint, nothing beside
  // synchronous=FULL's sync of every write.
  for (const char* pragma :
       {"PRAGMA journal_mode=WAL;", "PRAGMA synchronous=FULL;",
        "PRAGMA foreign_keys=ON;", "PRAGMA journal_size_limit=1048576;"}) {
    if (absl::Status s = result->Exec(pragma); !s.ok()) {
      return naming_the_file(s);
    }
  }
  if (absl::Status s = result->Migrate(migrations); !s.ok()) {
    return naming_the_file(s);
  }
  return result;
}

SqliteDb::~SqliteDb() {
  prepared_.clear();  // sqlite3_close refuses while statements live.
  sqlite3_close(db_);
}

ScopedStatement SqliteDb::Prepared(const std::string& sql) {
  std::unique_ptr<SqliteStatement>& slot = prepared_[sql];
  if (slot == nullptr || !slot->ok()) {
    slot = std::make_unique<SqliteStatement>(db_, sql.c_str());
  }
  return ScopedStatement(slot.get());
}

absl::Status SqliteDb::Migrate(absl::Span<const char* const> migrations) {
  SqliteStatement version(db_, "PRAGMA user_version;");
  if (!version.ok() || version.Step() != SQLITE_ROW) {
    return Error("schema version");
  }
  const int64_t current = version.ColumnInt(0);
  const int64_t latest = static_cast<int64_t>(migrations.size());
  if (current > latest) {
    return absl::FailedPreconditionError(absl::StrCat(
        "the ", what_, " has schema version ", current,
        ", newer than this referee's ", latest, ": run a newer referee"));
  }
  for (int64_t v = current; v < latest; ++v) {
    if (absl::Status s = Begin(); !s.ok()) return s;
    absl::Status s = Exec(migrations[v]);
    if (s.ok()) s = Exec(absl::StrCat("PRAGMA user_version=", v + 1, ";"));
    if (s = Finish(s); !s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status SqliteDb::Exec(const std::string& sql) {
  char* error = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &error) == SQLITE_OK) {
    return absl::OkStatus();
  }
  const std::string message = error != nullptr ? error : "unknown error";
  sqlite3_free(error);
  return Failed(absl::StrCat(what_, ": ", message));
}

absl::Status SqliteDb::Failed(std::string message) const {
  const int code = sqlite3_extended_errcode(db_) & 0xff;
  if (code == SQLITE_FULL ||
      (code == SQLITE_IOERR && sqlite3_system_errno(db_) == ENOSPC)) {
    return absl::ResourceExhaustedError(std::move(message));
  }
  return absl::InternalError(std::move(message));
}

absl::Status SqliteDb::Begin() { return Exec("BEGIN IMMEDIATE;"); }

absl::Status SqliteDb::Finish(absl::Status status) {
  if (status.ok()) return Exec("COMMIT;");
  Exec("ROLLBACK;").IgnoreError();
  return status;
}

absl::Status SqliteDb::Error(std::string_view doing) const {
  return Failed(
      absl::StrCat(what_, ": ", std::string(doing), ": ", sqlite3_errmsg(db_)));
}

}  // namespace pyramid
