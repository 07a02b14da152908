// SealedLogQueue: logs entered in the order their matches ended, a log that
// cannot be entered yet (even one unread for want of a file descriptor)
// holding back those after it until a later try, one the tree can never
// take dropped, each said; a checkpoint signed once enough leaves wait for
// one.
#include "referee/service/sealed_log_queue.h"

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/match.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "referee/crypto/ed25519.h"
#include "tests/no_descriptor_left.h"
#include "tests/temp_dir.h"

namespace pyramid {
namespace {

using Entry = SealedLogQueue::Entry;

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
  EXPECT_EQ(queue.Enter("m1", WriteLog("m1.log")), Entry::kEntered);
  const std::string missing = dir_.File("m2.log");
  EXPECT_EQ(queue.Enter("m2", missing), Entry::kWaiting);
  EXPECT_EQ(queue.Enter("m3", WriteLog("m3.log")), Entry::kWaiting);
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

// A log that cannot be read for want of a file descriptor (a flood of
// connections as its match ends) waits, and is entered once one is free:
// it was dropped for good, the reader's FAILED_PRECONDITION taken for the
// tree's refusal, and GetInclusionProof failed for its match until a
// restart.
TEST_F(SealedLogQueueTest, ALogUnreadForWantOfADescriptorWaitsForOne) {
  SealedLogQueue queue(tlog_.get(), 0, Recorder());
  // Once with descriptors to spare, the same path (a log unread, said,
  // waiting; then entered): UBSan's vptr check reads an object of a type
  // it has not met through a pipe, which EMFILE refuses (a false "invalid
  // vptr" when the test runs alone).
  const std::string m1 = dir_.File("m1.log");
  ASSERT_EQ(queue.Enter("m1", m1), Entry::kWaiting);
  WriteLog("m1.log");
  queue.EnterWaiting();
  ASSERT_EQ(queue.waiting(), 0u);
  said_.clear();

  const std::string m2 = WriteLog("m2.log");
  Entry entry = Entry::kEntered;
  {
    const NoDescriptorLeft none;
    ASSERT_TRUE(none.ok());
    entry = queue.Enter("m2", m2);
  }
  EXPECT_EQ(entry, Entry::kWaiting);
  EXPECT_EQ(queue.waiting(), 1u);
  EXPECT_FALSE(tlog_->Contains("m2"));
  ASSERT_EQ(said_.size(), 1u);
  EXPECT_TRUE(absl::StartsWith(
      said_[0], "match m2: not entered in the transparency log yet"))
      << said_[0];
  EXPECT_THAT(said_[0], ::testing::HasSubstr(std::strerror(EMFILE)));

  // Descriptors back: the next try (a checkpoint's, or a match's end)
  // enters it, in its place.
  EXPECT_EQ(queue.Enter("m3", WriteLog("m3.log")), Entry::kEntered);
  EXPECT_EQ(queue.waiting(), 0u);
  EXPECT_EQ(IndexOf("m2"), 1u);
  EXPECT_EQ(IndexOf("m3"), 2u);
}

// Whatever keeps a log's file from being read (here its path a directory
// for now, FAILED_PRECONDITION like any other failed open), it waits: only
// the tree's refusal is final.
TEST_F(SealedLogQueueTest, ALogUnreadForAnyReasonWaits) {
  SealedLogQueue queue(tlog_.get(), 0, Recorder());
  const std::string path = dir_.File("m1.log");
  ASSERT_EQ(mkdir(path.c_str(), 0700), 0);
  EXPECT_EQ(queue.Enter("m1", path), Entry::kWaiting);
  EXPECT_EQ(queue.waiting(), 1u);
  ASSERT_EQ(said_.size(), 1u);
  EXPECT_TRUE(absl::StartsWith(
      said_[0], "match m1: not entered in the transparency log yet"))
      << said_[0];

  ASSERT_EQ(rmdir(path.c_str()), 0);
  WriteLog("m1.log");
  queue.EnterWaiting();
  EXPECT_EQ(queue.waiting(), 0u);
  EXPECT_EQ(IndexOf("m1"), 0u);
}

// A log the tree can never take is dropped, said, and Enter says it was
// refused: it said "entered", and a restart counted it entered.
TEST_F(SealedLogQueueTest, ALogTheTreeCanNeverTakeIsDroppedAndSaid) {
  SealedLogQueue queue(tlog_.get(), 0, Recorder());
  ASSERT_EQ(queue.Enter("m1", WriteLog("m1.log")), Entry::kEntered);
  EXPECT_EQ(queue.Enter("m1", WriteLog("other.log")),  // Another hash.
            Entry::kRefused);
  EXPECT_EQ(queue.waiting(), 0u);
  ASSERT_EQ(said_.size(), 1u);
  EXPECT_TRUE(absl::StartsWith(
      said_[0], "match m1: never entered in the transparency log: "))
      << said_[0];
  EXPECT_EQ(tlog_->size(), 1u);
}

// A log behind one that waits waits too, even when the tree refuses it
// once reached; entered after the first, it says so.
TEST_F(SealedLogQueueTest, ALogBehindOneThatWaitsWaits) {
  SealedLogQueue queue(tlog_.get(), 0, Recorder());
  ASSERT_EQ(queue.Enter("m1", WriteLog("m1.log")), Entry::kEntered);
  EXPECT_EQ(queue.Enter("m2", dir_.File("m2.log")), Entry::kWaiting);
  EXPECT_EQ(queue.Enter("m1", WriteLog("other.log")), Entry::kWaiting);
  WriteLog("m2.log");
  EXPECT_EQ(queue.Enter("m3", WriteLog("m3.log")), Entry::kEntered);
  EXPECT_EQ(queue.waiting(), 0u);
  EXPECT_EQ(tlog_->size(), 3u);
  EXPECT_TRUE(absl::StartsWith(
      said_.back(), "match m1: never entered in the transparency log: "))
      << said_.back();
}

TEST_F(SealedLogQueueTest, SignsACheckpointOnceEnoughLeavesWait) {
  SealedLogQueue queue(tlog_.get(), 2, Recorder());
  ASSERT_EQ(queue.Enter("m1", WriteLog("m1.log")), Entry::kEntered);
  EXPECT_EQ(tlog_->unsigned_leaves(), 1u);
  ASSERT_EQ(queue.Enter("m2", WriteLog("m2.log")), Entry::kEntered);
  EXPECT_EQ(tlog_->unsigned_leaves(), 0u);
  EXPECT_TRUE(said_.empty());
}

}  // namespace
}  // namespace pyramid
