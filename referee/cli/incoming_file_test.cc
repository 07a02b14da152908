// IncomingFile (incoming_file.h): a file written in pieces is PATH only once
// committed, and PATH.tmp never stays behind; a restart starts it again.
// A whole download into one is in log_fetch_test.cc.
#include "referee/cli/incoming_file.h"

#include <filesystem>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "gtest/gtest.h"
#include "referee/core/log_sink.h"
#include "tests/temp_dir.h"

namespace pyramid {
namespace {

class IncomingFileTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(dir_.ok()); }

  bool Exists(const std::string& name) const {
    return std::filesystem::exists(dir_.File(name));
  }

  TempDir dir_{"incoming-file"};
};

TEST_F(IncomingFileTest, AFileCommittedIsWholeUnderItsNameAlone) {
  {
    IncomingFile file(dir_.File("m1.pyrlog"));
    ASSERT_TRUE(file.Restart().ok());
    ASSERT_TRUE(file.Append("head,").ok());
    ASSERT_TRUE(file.Append("body").ok());
    // Written so far to the temporary file only.
    EXPECT_TRUE(Exists("m1.pyrlog.tmp"));
    EXPECT_FALSE(Exists("m1.pyrlog"));
    ASSERT_TRUE(file.Commit().ok());
    EXPECT_FALSE(Exists("m1.pyrlog.tmp"));
  }
  // Its destruction takes nothing away once committed.
  const absl::StatusOr<std::string> bytes =
      ReadFileToString(dir_.File("m1.pyrlog"));
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ(*bytes, "head,body");
  EXPECT_FALSE(Exists("m1.pyrlog.tmp"));
}

TEST_F(IncomingFileTest, AFileNotCommittedLeavesNoFile) {
  {
    IncomingFile file(dir_.File("m1.pyrlog"));
    ASSERT_TRUE(file.Restart().ok());
    ASSERT_TRUE(file.Append("half a log").ok());
  }
  EXPECT_FALSE(Exists("m1.pyrlog.tmp"));
  EXPECT_FALSE(Exists("m1.pyrlog"));
}

TEST_F(IncomingFileTest, AFailureLeavesNoFile) {
  // Its directory is not there: nothing can be created.
  {
    IncomingFile file(dir_.File("gone/m1.pyrlog"));
    const absl::Status status = file.Restart();
    EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
    EXPECT_NE(status.message().find("cannot create " +
                                    dir_.File("gone/m1.pyrlog.tmp")),
              std::string::npos)
        << status;
  }
  // Its name is a directory's: written, and the rename fails.
  std::filesystem::create_directories(dir_.File("m2.pyrlog/inside"));
  {
    IncomingFile file(dir_.File("m2.pyrlog"));
    ASSERT_TRUE(file.Restart().ok());
    ASSERT_TRUE(file.Append("a log").ok());
    const absl::Status status = file.Commit();
    EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
    EXPECT_NE(status.message().find("cannot write " + dir_.File("m2.pyrlog")),
              std::string::npos)
        << status;
  }
  EXPECT_FALSE(Exists("m2.pyrlog.tmp"));
  EXPECT_TRUE(std::filesystem::is_directory(dir_.File("m2.pyrlog")));
}

TEST_F(IncomingFileTest, ARestartEmptiesTheFile) {
  IncomingFile file(dir_.File("m1.pyrlog"));
  ASSERT_TRUE(file.Restart().ok());
  ASSERT_TRUE(file.Append("a download that broke").ok());
  ASSERT_TRUE(file.Restart().ok());
  EXPECT_EQ(std::filesystem::file_size(dir_.File("m1.pyrlog.tmp")), 0u);
  ASSERT_TRUE(file.Append("whole").ok());
  ASSERT_TRUE(file.Commit().ok());
  const absl::StatusOr<std::string> bytes =
      ReadFileToString(dir_.File("m1.pyrlog"));
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  EXPECT_EQ(*bytes, "whole");
}

}  // namespace
}  // namespace pyramid
