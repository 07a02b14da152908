#include "referee/service/public_reason.h"

#include <filesystem>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace pyramid {
namespace {

// The log's directory is left out as given (relative here) and absolute;
// a path only ending in its name, or a name only beginning like it, is
// left as it is.
TEST(PublicBrokenReasonTest, NamesTheLogByItsFileName) {
  const std::string absolute =
      (std::filesystem::current_path() / "logs/x.pyrlog").string();
  EXPECT_EQ(PublicBrokenReason(
                absl::StrCat("write logs/x.pyrlog: EIO; cannot read back ",
                             absolute, ": it is shorter than written"),
                "logs/x.pyrlog"),
            "write x.pyrlog: EIO; cannot read back x.pyrlog: it is shorter "
            "than written");
  EXPECT_EQ(
      PublicBrokenReason("no log (catalogs/y and blogs/z)", "logs/x.pyrlog"),
      "no log (catalogs/y and blogs/z)");
  EXPECT_EQ(PublicBrokenReason("the log could not be written", ""),
            "the log could not be written");
  EXPECT_EQ(PublicBrokenReason("cannot open the directory /: EACCES", "/a"),
            "cannot open the directory /: EACCES");
}

// Any other absolute path keeps its last component only, whatever ends it.
TEST(PublicBrokenReasonTest, OtherAbsolutePathsKeepTheirLastComponent) {
  EXPECT_EQ(PublicBrokenReason("sync /data/journal/000012.journal: EIO, "
                               "then (/data/dir/) gone",
                               "/logs/x.pyrlog"),
            "sync 000012.journal: EIO, then (dir) gone");
}

// The referee's private directories (its journal's, its data directory) go
// as the log's does, as given (relative, by default) and absolute, whatever
// they hold; most specific first.
TEST(PublicBrokenReasonTest, LeavesOutThePrivateDirectories) {
  SetPrivateDirectories({"referee-data/journal", "referee-data"});
  EXPECT_EQ(PublicBrokenReason(
                "the journal could not make a checkpoint durable (cannot "
                "write referee-data/journal/0000000000000001.journal: EIO); "
                "referee-data/registry.sqlite3 and referee-data are fine",
                "referee-data/logs/x.pyrlog"),
            "the journal could not make a checkpoint durable (cannot write "
            "0000000000000001.journal: EIO); registry.sqlite3 and "
            "referee-data are fine");
  SetPrivateDirectories({"/srv/my data/journal", "/srv/my data"});
  EXPECT_EQ(PublicBrokenReason("cannot write /srv/my data/journal/1.journal",
                               "/srv/my data/logs/x.pyrlog"),
            "cannot write 1.journal");
  SetPrivateDirectories({});
  EXPECT_EQ(PublicBrokenReason("cannot write referee-data/journal/1.journal",
                               "referee-data/logs/x.pyrlog"),
            "cannot write referee-data/journal/1.journal");
}

}  // namespace
}  // namespace pyramid
