// SqliteDb::Open makes every database the referee opens (the registry, the
// transparency log) owner-only: a new one and the -wal and -shm files SQLite
// makes beside it are 0600 under any umask, and one an older run left 0644
// is made 0600 at open, with the side files another connection keeps (which
// SQLite gave the database file's 0644) and a leftover -journal. The
// registry's and the transparency log's tests check only that they open
// theirs through it. And a full database fails RESOURCE_EXHAUSTED (at open,
// saying so), and one SQLite could open only read-only is refused.
#include "referee/service/sqlite_db.h"

#include <sqlite3.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <memory>
#include <sstream>
#include <string>
#include <system_error>
#include <utility>

#include "gtest/gtest.h"
#include "tests/temp_dir.h"

namespace pyramid {
namespace {

constexpr const char* kMigrations[] = {"CREATE TABLE rows (n INTEGER);"};

// The file's permission bits, or -1 if it is missing.
int ModeOf(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? static_cast<int>(st.st_mode & 07777)
                                      : -1;
}

// The rows `db` holds, or -1 if it cannot count them.
int64_t CountRows(SqliteDb& db) {
  ScopedStatement count = db.Prepared("SELECT count(*) FROM rows;");
  return count->ok() && count->Step() == SQLITE_ROW ? count->ColumnInt(0) : -1;
}

// Runs each test under the umask it is given (the process's is put back
// after): SQLite would create the files 0644 less the umask.
class SqliteDbTest : public ::testing::TestWithParam<mode_t> {
 protected:
  SqliteDbTest() : old_umask_(umask(GetParam())) {}
  ~SqliteDbTest() override { umask(old_umask_); }

  std::unique_ptr<SqliteDb> Open() {
    absl::StatusOr<std::unique_ptr<SqliteDb>> db =
        SqliteDb::Open(path_, kMigrations, "test database");
    EXPECT_TRUE(db.ok()) << db.status();
    return db.ok() ? *std::move(db) : nullptr;
  }

  // A write, which makes the -wal and -shm files.
  static void AddRow(SqliteDb& db) {
    ASSERT_TRUE(db.Exec("INSERT INTO rows VALUES (1);").ok());
  }

  const mode_t old_umask_;
  TempDir dir_{"sqlitedbtest"};
  const std::string path_ = dir_.File("test.sqlite3");
};

TEST_P(SqliteDbTest, ANewDatabaseAndItsSideFilesAreOwnerOnly) {
  ASSERT_TRUE(dir_.ok());
  std::unique_ptr<SqliteDb> db = Open();
  ASSERT_NE(db, nullptr);
  AddRow(*db);
  EXPECT_EQ(ModeOf(path_), 0600);
  EXPECT_EQ(ModeOf(path_ + "-wal"), 0600);
  EXPECT_EQ(ModeOf(path_ + "-shm"), 0600);
}

// A database an older referee left world-readable, with its side files
// (another connection, open through the reopen, keeps them) and a leftover
// -journal, is made owner-only at open, and reads and writes as before.
TEST_P(SqliteDbTest, AnOlderWorldReadableDatabaseIsMadeOwnerOnly) {
  ASSERT_TRUE(dir_.ok());
  {
    std::unique_ptr<SqliteDb> db = Open();
    ASSERT_NE(db, nullptr);
    AddRow(*db);
  }
  ASSERT_EQ(chmod(path_.c_str(), 0644), 0);
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open(path_.c_str(), &other), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other, "SELECT count(*) FROM rows;", nullptr, nullptr,
                         nullptr),
            SQLITE_OK)
      << sqlite3_errmsg(other);
  const std::string journal = path_ + "-journal";
  std::ofstream(journal).close();
  ASSERT_EQ(chmod(journal.c_str(), 0644), 0);
  EXPECT_EQ(ModeOf(path_ + "-wal"), 0644);
  EXPECT_EQ(ModeOf(path_ + "-shm"), 0644);
  {
    std::unique_ptr<SqliteDb> db = Open();
    ASSERT_NE(db, nullptr);
    EXPECT_EQ(ModeOf(path_), 0600);
    EXPECT_EQ(ModeOf(path_ + "-wal"), 0600);
    EXPECT_EQ(ModeOf(path_ + "-shm"), 0600);
    EXPECT_EQ(ModeOf(journal), 0600);
    EXPECT_EQ(CountRows(*db), 1);
    AddRow(*db);
    EXPECT_EQ(CountRows(*db), 2);
  }
  sqlite3_close(other);
}

INSTANTIATE_TEST_SUITE_P(Umasks, SqliteDbTest, ::testing::Values(022, 0),
                         [](const ::testing::TestParamInfo<mode_t>& info) {
                           std::ostringstream name;  // Umask022, Umask000.
                           name << "Umask" << std::oct << std::setw(3)
                                << std::setfill('0') << info.param;
                           return name.str();
                         });

// The -wal file, which SQLite reuses and never shrinks, is cut back to
// 1 MiB (journal_size_limit) when a write begins it anew after a
// checkpoint: here after a transaction that grew it past 8 MiB. Without
// the limit it kept those 8 MiB for good.
TEST(SqliteDbWalTest, TheWriteAheadFileShrinksAfterACheckpoint) {
  TempDir dir("sqlite-db-wal");
  ASSERT_TRUE(dir.ok());
  const std::string path = dir.File("wal.db");
  absl::StatusOr<std::unique_ptr<SqliteDb>> opened =
      SqliteDb::Open(path, kMigrations, "test database");
  ASSERT_TRUE(opened.ok()) << opened.status();
  SqliteDb& db = **opened;
  ASSERT_TRUE(db.Exec("CREATE TABLE blobs (b BLOB);").ok());
  ASSERT_TRUE(db.Begin().ok());
  for (int i = 0; i < 64; ++i) {
    ASSERT_TRUE(db.Exec("INSERT INTO blobs VALUES (zeroblob(131072));").ok());
  }
  ASSERT_TRUE(db.Finish(absl::OkStatus()).ok());
  const std::string wal = path + "-wal";
  std::error_code error;
  EXPECT_GT(std::filesystem::file_size(wal, error), 8u << 20) << error;
  ASSERT_TRUE(db.Exec("PRAGMA wal_checkpoint(PASSIVE);").ok());
  // A write, which begins the -wal file anew.
  ASSERT_TRUE(db.Exec("INSERT INTO rows VALUES (1);").ok());
  EXPECT_LE(std::filesystem::file_size(wal, error), 1u << 20) << error;
  EXPECT_EQ(CountRows(db), 1);
}

// A database that finds no space left fails RESOURCE_EXHAUSTED, its
// message SQLite's, through Exec and Error alike (the registry's and the
// transparency log's writes): a client then tries again once space
// returns. Here the database is full by its page limit, which SQLite
// reports as it reports a full disk (SQLITE_FULL). Any other failure stays
// INTERNAL.
TEST(SqliteDbErrorTest, NoSpaceLeftIsResourceExhausted) {
  TempDir dir("sqlite-db-full");
  ASSERT_TRUE(dir.ok());
  absl::StatusOr<std::unique_ptr<SqliteDb>> db =
      SqliteDb::Open(dir.File("full.db"), kMigrations, "test database");
  ASSERT_TRUE(db.ok()) << db.status();
  ASSERT_TRUE((*db)->Exec("CREATE TABLE blobs (b BLOB);").ok());
  ASSERT_TRUE((*db)->Exec("PRAGMA max_page_count = 16;").ok());
  const std::string insert =
      "INSERT INTO blobs VALUES (zeroblob(100000));";  // Over 16 pages.
  const absl::Status exec = (*db)->Exec(insert);
  EXPECT_EQ(exec.code(), absl::StatusCode::kResourceExhausted) << exec;
  EXPECT_EQ(exec.message(), "test database: database or disk is full");
  ScopedStatement statement = (*db)->Prepared(insert);
  ASSERT_TRUE(statement->ok());
  EXPECT_NE(statement->Step(), SQLITE_DONE);
  const absl::Status error = (*db)->Error("add");
  EXPECT_EQ(error.code(), absl::StatusCode::kResourceExhausted) << error;
  EXPECT_EQ(error.message(), "test database: add: database or disk is full");
  const absl::Status other = (*db)->Exec("INSERT INTO nowhere VALUES (1);");
  EXPECT_EQ(other.code(), absl::StatusCode::kInternal) << other;
}

// A database SQLite can open only read-only (here made immutable with
// `chattr +i`, which even root cannot write; a read-only file system is
// refused alike) is refused at open, naming the file and that it cannot be
// written: SQLite would fall back to reading it, and every write after would
// fail ("attempt to write a readonly database").
TEST(SqliteDbErrorTest, ADatabaseThatCannotBeWrittenIsRefusedAtOpen) {
  if (geteuid() != 0) {
    GTEST_SKIP() << "chattr +i needs root (CAP_LINUX_IMMUTABLE)";
  }
  TempDir dir("sqlite-db-readonly");
  ASSERT_TRUE(dir.ok());
  const std::string path = dir.File("readonly.db");
  {
    absl::StatusOr<std::unique_ptr<SqliteDb>> db =
        SqliteDb::Open(path, kMigrations, "test database");
    ASSERT_TRUE(db.ok()) << db.status();
    ASSERT_TRUE((*db)->Exec("INSERT INTO rows VALUES (1);").ok());
  }
  ASSERT_EQ(std::system(("chattr +i '" + path + "'").c_str()), 0);
  absl::StatusOr<std::unique_ptr<SqliteDb>> db =
      SqliteDb::Open(path, kMigrations, "test database");
  const int undone = std::system(("chattr -i '" + path + "'").c_str());
  EXPECT_EQ(undone, 0);  // Else TempDir could not remove it.
  ASSERT_FALSE(db.ok()) << "opened a database it cannot write";
  EXPECT_EQ(db.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(db.status().message(),
            "cannot open the test database " + path +
                ": it cannot be written (Operation not permitted)");
}

// A disk with no space left, met while a new database is made, says so in
// its message as well as in its code (the referee's start prints only the
// message: SQLite's own is "disk I/O error"). Here a tmpfs of 64 KiB, full.
TEST(SqliteDbErrorTest, NoSpaceAtOpenIsSaid) {
  if (geteuid() != 0) GTEST_SKIP() << "mounting a tmpfs needs root";
  TempDir dir("sqlite-db-nospace");
  ASSERT_TRUE(dir.ok());
  const std::string mounted = dir.File("small");
  std::filesystem::create_directory(mounted);
  ASSERT_EQ(mount("tmpfs", mounted.c_str(), "tmpfs", 0, "size=64k"), 0)
      << std::strerror(errno);
  {
    std::ofstream filler(mounted + "/filler", std::ios::binary);
    const std::string block(4096, 'x');
    for (int i = 0; i < 64 && filler; ++i) filler << block << std::flush;
  }
  absl::StatusOr<std::unique_ptr<SqliteDb>> db =
      SqliteDb::Open(mounted + "/new.db", kMigrations, "test database");
  db = absl::StatusOr<std::unique_ptr<SqliteDb>>(db.status());  // Closed.
  EXPECT_EQ(umount(mounted.c_str()), 0) << std::strerror(errno);
  ASSERT_FALSE(db.ok());
  EXPECT_EQ(db.status().code(), absl::StatusCode::kResourceExhausted)
      << db.status();
  EXPECT_NE(db.status().message().find(mounted + "/new.db"), std::string::npos)
      << db.status();
  EXPECT_NE(db.status().message().find("no space left on the device"),
            std::string::npos)
      << db.status();
}

}  // namespace
}  // namespace pyramid
