// What the referee reads of its log files' names and counts of them:
// log_format::LogFileName, CountLogFiles.
#include "referee/core/log_files.h"

#include <filesystem>
#include <fstream>
#include <string_view>

#include "gtest/gtest.h"
#include "referee/core/log_format.h"
#include "tests/temp_dir.h"

namespace pyramid {
namespace {

using log_format::LogFileName;

TEST(LogFileNameTest, IsTheLastPathComponent) {
  EXPECT_EQ(LogFileName("rps-00ff.pyrlog"), "rps-00ff.pyrlog");
  EXPECT_EQ(LogFileName("/srv/referee/logs/rps-00ff.pyrlog"),
            "rps-00ff.pyrlog");
  EXPECT_EQ(LogFileName("referee-data/logs/rps-00ff.pyrlog"),
            "rps-00ff.pyrlog");
  EXPECT_EQ(LogFileName("../../etc/passwd"), "passwd");
  EXPECT_EQ(LogFileName("logs//a"), "a");
  EXPECT_EQ(LogFileName(".hidden"), ".hidden");
  EXPECT_EQ(LogFileName("..."), "...");
}

TEST(LogFileNameTest, IsEmptyWhenNoFileIsNamed) {
  for (const std::string_view none :
       {"", "/", ".", "..", "logs/", "/srv/logs/", "logs/.", "logs/..", "//"}) {
    EXPECT_EQ(LogFileName(none), "") << none;
  }
}

// The files named *.pyrlog, up to the count asked for; a directory that
// cannot be read holds none.
TEST(CountLogFilesTest, CountsTheFilesNamedAsLogs) {
  const TempDir dir("logfiles");
  ASSERT_TRUE(dir.ok());
  EXPECT_EQ(CountLogFiles(dir.path()), 0u);
  for (const char* name :
       {"a.pyrlog", "b.pyrlog", "c.pyrlog", "notes.txt", "d.pyrlog.tmp"}) {
    std::ofstream(dir.File(name)) << "x";
  }
  EXPECT_EQ(CountLogFiles(dir.path()), 3u);
  EXPECT_EQ(CountLogFiles(dir.path(), 1), 1u);
  EXPECT_EQ(CountLogFiles(dir.path(), 2), 2u);
  EXPECT_EQ(CountLogFiles(dir.File("missing")), 0u);
  EXPECT_EQ(CountLogFiles(dir.File("a.pyrlog")), 0u);  // Not a directory.
}

}  // namespace
}  // namespace pyramid
