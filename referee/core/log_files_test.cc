// What the referee reads of its log files' names: log_format::LogFileName.
#include <string_view>

#include "gtest/gtest.h"
#include "referee/core/log_format.h"

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

}  // namespace
}  // namespace pyramid
