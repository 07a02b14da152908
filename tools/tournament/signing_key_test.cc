// The embedded referee's secret key (signing_key.h): each state of the key
// files gets one decision, the read-only plan and the placing agree, and
// what is placed leaves the key outside the output directory with its
// public half inside. tests/tournament_test.cc runs the same cases through
// the tournament program.
#include "tools/tournament/signing_key.h"

#include <filesystem>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "referee/core/log_sink.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/ed25519.h"
#include "tests/temp_dir.h"

namespace pyramid {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

class SigningKeyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(dir_.ok());
    files_.key = dir_.File("out.referee.key");
    files_.output_dir = dir_.File("out");
    fs::create_directories(files_.output_dir);
  }

  // Writes `key`'s secret key file at `path` (as WriteKeyFiles does,
  // without its public half: OUTPUT/referee.key.pub is Pin's).
  static void Write(const fs::path& path, const SigningKey& key) {
    ASSERT_TRUE(
        WriteFileAtomically(path.string(), ToHex(key.seed()) + "\n").ok())
        << path;
  }

  // Writes `key`'s public half to OUTPUT/referee.key.pub, as a first run.
  void Pin(const SigningKey& key) {
    ASSERT_TRUE(WriteFileAtomically(files_.public_file().string(),
                                    ToHex(key.public_key()) + "\n")
                    .ok());
  }

  // Plans, then places; both must agree. Returns the placing's status.
  absl::Status PlanAndPlace(SigningKeyStep expected) {
    absl::StatusOr<SigningKeyStep> step = PlanSigningKey(files_);
    EXPECT_TRUE(step.ok()) << step.status();
    if (step.ok()) {
      EXPECT_EQ(*step, expected);
    }
    return PlaceSigningKey(
        files_, [this](std::string line) { notes_.push_back(line); });
  }

  // The status both the plan and the placing give, which must be the same,
  // with nothing changed by the placing.
  absl::Status Refused() {
    const std::vector<fs::path> before = Listing();
    absl::Status planned = PlanSigningKey(files_).status();
    absl::Status placed = PlaceSigningKey(
        files_, [this](std::string line) { notes_.push_back(line); });
    EXPECT_EQ(planned, placed);
    EXPECT_EQ(Listing(), before);
    EXPECT_THAT(notes_, IsEmpty());
    return placed;
  }

  std::vector<fs::path> Listing() const {
    std::vector<fs::path> paths;
    for (const auto& entry :
         fs::recursive_directory_iterator(fs::path(dir_.path()))) {
      paths.push_back(entry.path());
    }
    std::sort(paths.begin(), paths.end());
    return paths;
  }

  std::string PublicHalf() const {
    absl::StatusOr<std::string> text =
        ReadFileToString(files_.public_file().string());
    return text.ok() ? *text : "(" + text.status().ToString() + ")";
  }

  static std::string Hex(const SigningKey& key) {
    return ToHex(key.public_key()) + "\n";
  }

  std::string KeyAt(const fs::path& path) const {
    absl::StatusOr<SigningKey> key = ReadSigningKey(path.string());
    return key.ok() ? Hex(*key) : "(" + key.status().ToString() + ")";
  }

  const TempDir dir_{"signing-key-test"};
  SigningKeyFiles files_;
  std::vector<std::string> notes_;
};

TEST_F(SigningKeyTest, DefaultPathIsBesideTheOutputDirectory) {
  const fs::path cwd = fs::current_path();
  EXPECT_EQ(DefaultSigningKeyPath("/a/b/out"), "/a/b/out.referee.key");
  EXPECT_EQ(DefaultSigningKeyPath("/a/b/out/"), "/a/b/out.referee.key");
  EXPECT_EQ(DefaultSigningKeyPath("."),
            cwd.parent_path() / (cwd.filename().string() + ".referee.key"));
  referee::v1::Tournament t;
  t.set_output_dir("/a/b/out");
  EXPECT_EQ(SigningKeyFilesOf(t).key, "/a/b/out.referee.key");
  EXPECT_FALSE(SigningKeyFilesOf(t).given);
  t.set_signing_key_file("/k/my.key");
  EXPECT_EQ(SigningKeyFilesOf(t).key, "/k/my.key");
  EXPECT_TRUE(SigningKeyFilesOf(t).given);
  EXPECT_EQ(SigningKeyFilesOf(t).public_file(), "/a/b/out/referee.key.pub");
}

TEST_F(SigningKeyTest, AFirstRunCreatesTheKeyAndSaysWhere) {
  ASSERT_TRUE(PlanAndPlace(SigningKeyStep::kCreate).ok());
  EXPECT_EQ(PublicHalf(), KeyAt(files_.key));
  ASSERT_EQ(notes_.size(), 1u);
  EXPECT_THAT(notes_[0],
              HasSubstr("created a new secret key for the referee: " +
                        files_.key.string()));
  EXPECT_THAT(notes_[0], HasSubstr("do not publish it"));
  // The next run uses it, quietly.
  notes_.clear();
  ASSERT_TRUE(PlanAndPlace(SigningKeyStep::kUse).ok());
  EXPECT_THAT(notes_, IsEmpty());
}

TEST_F(SigningKeyTest, AGivenPathThatNamesNoFileIsCreatedAndNamed) {
  files_.given = true;
  ASSERT_TRUE(PlanAndPlace(SigningKeyStep::kCreate).ok());
  ASSERT_EQ(notes_.size(), 1u);
  EXPECT_THAT(notes_[0], HasSubstr("since signing_key_file named no file"));
}

TEST_F(SigningKeyTest, AGivenPathInNoDirectoryIsRefused) {
  files_.given = true;
  files_.key = dir_.File("no-such-dir/k.key");
  EXPECT_THAT(
      Refused().message(),
      HasSubstr("signing_key_file: cannot create " + files_.key.string()));
}

// Named before anything the directory holds is looked at: a key to move
// out of the directory has nowhere to go.
TEST_F(SigningKeyTest, AGivenPathInNoDirectoryIsRefusedFirst) {
  files_.given = true;
  files_.key = dir_.File("no-such-dir/k.key");
  const SigningKey key = SigningKey::Generate();
  ASSERT_NO_FATAL_FAILURE(Write(files_.inside(), key));
  EXPECT_THAT(CheckSigningKeyPath(files_).message(),
              HasSubstr("signing_key_file: cannot create"));
  EXPECT_THAT(Refused().message(),
              HasSubstr("signing_key_file: cannot create"));
  ASSERT_NO_FATAL_FAILURE(Pin(SigningKey::Generate()));
  fs::remove(files_.inside());
  EXPECT_THAT(Refused().message(),
              HasSubstr("signing_key_file: cannot create"));
}

TEST_F(SigningKeyTest, AKeyInsideTheOutputDirectoryIsRefused) {
  fs::create_symlink(files_.output_dir, dir_.File("link"));
  for (const fs::path& key :
       {files_.output_dir / "k.key", files_.output_dir / "sub/../k.key",
        fs::path(dir_.File("link/k.key")), files_.output_dir}) {
    files_.key = key;
    EXPECT_THAT(Refused().message(),
                HasSubstr("is inside the output directory"))
        << key;
    EXPECT_EQ(CheckSigningKeyPath(files_), Refused()) << key;
  }
  // A name that only starts like the directory's is outside it.
  files_.key = dir_.File("out-k.key");
  EXPECT_TRUE(PlanSigningKey(files_).ok());
}

TEST_F(SigningKeyTest, AKeyKeptInsideByAnEarlierRunnerIsMovedOut) {
  const SigningKey key = SigningKey::Generate();
  ASSERT_NO_FATAL_FAILURE(Write(files_.inside(), key));
  ASSERT_NO_FATAL_FAILURE(Pin(key));
  ASSERT_TRUE(PlanAndPlace(SigningKeyStep::kMoveOut).ok());
  EXPECT_FALSE(fs::exists(files_.inside()));
  EXPECT_EQ(KeyAt(files_.key), Hex(key));
  ASSERT_EQ(notes_.size(), 1u);
  EXPECT_THAT(notes_[0], HasSubstr("moved the referee's secret key"));
}

TEST_F(SigningKeyTest, ACopyInsideOfTheSameKeyIsRemoved) {
  const SigningKey key = SigningKey::Generate();
  ASSERT_NO_FATAL_FAILURE(Write(files_.key, key));
  ASSERT_NO_FATAL_FAILURE(Pin(key));
  // Written differently (no final newline), the same key.
  ASSERT_TRUE(
      WriteFileAtomically(files_.inside().string(), ToHex(key.seed())).ok());
  ASSERT_TRUE(PlanAndPlace(SigningKeyStep::kRemoveCopyInside).ok());
  EXPECT_FALSE(fs::exists(files_.inside()));
  EXPECT_EQ(KeyAt(files_.key), Hex(key));
  ASSERT_EQ(notes_.size(), 1u);
  EXPECT_THAT(notes_[0], HasSubstr("removed a copy"));
}

TEST_F(SigningKeyTest, TwoDifferentKeysAreRefused) {
  const SigningKey key = SigningKey::Generate();
  ASSERT_NO_FATAL_FAILURE(Write(files_.key, key));
  ASSERT_NO_FATAL_FAILURE(Pin(key));
  ASSERT_NO_FATAL_FAILURE(Write(files_.inside(), SigningKey::Generate()));
  EXPECT_THAT(Refused().message(), HasSubstr("two different referee keys"));
  // A damaged copy inside is not guessed to be the same key either.
  fs::remove(files_.inside());
  ASSERT_TRUE(WriteFileAtomically(files_.inside().string(), "junk\n").ok());
  EXPECT_THAT(Refused().message(), HasSubstr("two different referee keys"));
}

TEST_F(SigningKeyTest, AResumeWithoutItsKeyOrWithAnotherIsRefused) {
  const SigningKey key = SigningKey::Generate();
  ASSERT_NO_FATAL_FAILURE(Pin(key));
  EXPECT_THAT(Refused().message(), HasSubstr("but its secret half is not at " +
                                             files_.key.string()));
  ASSERT_NO_FATAL_FAILURE(Write(files_.key, SigningKey::Generate()));
  EXPECT_THAT(Refused().message(),
              HasSubstr("the key in " + files_.key.string() +
                        " did not sign this output directory's logs"));
  // Kept inside by an earlier runner, another key is named where it is.
  fs::remove(files_.key);
  ASSERT_NO_FATAL_FAILURE(Write(files_.inside(), SigningKey::Generate()));
  EXPECT_THAT(Refused().message(),
              HasSubstr("the key in " + files_.inside().string()));
}

TEST_F(SigningKeyTest, AKeyFileThatIsNoKeyIsRefused) {
  ASSERT_TRUE(WriteFileAtomically(files_.key.string(), "not a key\n").ok());
  EXPECT_THAT(Refused().message(), HasSubstr("the referee's secret key: "));
  files_.given = true;
  EXPECT_THAT(Refused().message(), HasSubstr("signing_key_file: "));
  EXPECT_EQ(Refused().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace pyramid
