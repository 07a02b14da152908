// SealedLogQueue: logs entered in the order their matches ended, a log that
// cannot be entered yet holding back those after it until a later try, one
// the tree can never take dropped, each said; a checkpoint signed once
// enough leaves wait for one.
#include "referee/service/sealed_log_queue.h"

#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"
#include "referee/crypto/ed25519.h"
#include "tests/temp_dir.h"

namespace pyramid {
namespace {

class SealedLogQueueTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(dir_.ok());
    absl::StatusOr<std::unique_ptr<TransparencyLog>> tlog =
        TransparencyLog::Open(dir_.File("tlog.db"), SigningKey::Generate(),
                              "queue-test");
    ASSERT_TRUE(tlog.ok()) << tlog.status();
    tlog_ = *std::move(tlog);
  }

  // A sealed log's file (its bytes only matter to the tree's hash).
  std::string WriteLog(const std::string& name) {
    const std::string path = dir_.File(name);
    std::ofstream(path) << name;
    return path;
  }

  MessageSink Recorder() {
    return [this](std::string_view message) { said_.emplace_back(message); };
  }

  uint64_t IndexOf(const std::string& match_id) const {
    absl::StatusOr<TlogLeaf> leaf = tlog_->FindLeaf(match_id);
    EXPECT_TRUE(leaf.ok()) << match_id << ": " << leaf.status();
    return leaf.ok() ? leaf->index : ~uint64_t{0};
  }

  TempDir dir_{"sealedlogqueuetest"};
  std::unique_ptr<TransparencyLog> tlog_;
  std::vector<std::string> said_;
};

TEST_F(SealedLogQueueTest, ALogThatCannotBeEnteredHoldsBackTheNext) {
  SealedLogQueue queue(tlog_.get(), 0, Recorder());
  EXPECT_TRUE(queue.Enter("m1", WriteLog("m1.log")));
  const std::string missing = dir_.File("m2.log");
  EXPECT_FALSE(queue.Enter("m2", missing));
  EXPECT_FALSE(queue.Enter("m3", WriteLog("m3.log")));
  EXPECT_EQ(queue.waiting(), 2u);
  EXPECT_FALSE(tlog_->Contains("m3"));
  ASSERT_EQ(said_.size(), 2u);
  EXPECT_TRUE(absl::StartsWith(
      said_[0], "match m2: not entered in the transparency log yet"))
      << said_[0];

  WriteLog("m2.log");
  queue.EnterWaiting();
  EXPECT_EQ(queue.waiting(), 0u);
  EXPECT_EQ(IndexOf("m1"), 0u);
  EXPECT_EQ(IndexOf("m2"), 1u);
  EXPECT_EQ(IndexOf("m3"), 2u);
}

TEST_F(SealedLogQueueTest, ALogTheTreeCanNeverTakeIsDroppedAndSaid) {
  SealedLogQueue queue(tlog_.get(), 0, Recorder());
  ASSERT_TRUE(queue.Enter("m1", WriteLog("m1.log")));
  EXPECT_TRUE(queue.Enter("m1", WriteLog("other.log")));  // Another hash.
  EXPECT_EQ(queue.waiting(), 0u);
  ASSERT_EQ(said_.size(), 1u);
  EXPECT_TRUE(absl::StartsWith(
      said_[0], "match m1: never entered in the transparency log: "))
      << said_[0];
  EXPECT_EQ(tlog_->size(), 1u);
}

TEST_F(SealedLogQueueTest, SignsACheckpointOnceEnoughLeavesWait) {
  SealedLogQueue queue(tlog_.get(), 2, Recorder());
  ASSERT_TRUE(queue.Enter("m1", WriteLog("m1.log")));
  EXPECT_EQ(tlog_->unsigned_leaves(), 1u);
  ASSERT_TRUE(queue.Enter("m2", WriteLog("m2.log")));
  EXPECT_EQ(tlog_->unsigned_leaves(), 0u);
  EXPECT_TRUE(said_.empty());
}

}  // namespace
}  // namespace pyramid
