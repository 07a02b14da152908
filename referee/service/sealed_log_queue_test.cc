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

// A log whose file cannot be read, and not for want of a descriptor or
// memory (gone, here; a directory), is dropped and said, and holds back no
// later log: it waited at the head of the queue for good, and every later
// match's log with it, until a restart.
TEST_F(SealedLogQueueTest, ALogUnreadForGoodIsDroppedAndHoldsBackNoOther) {
  SealedLogQueue queue(tlog_.get(), 0, Recorder());
  EXPECT_EQ(queue.Enter("m1", WriteLog("m1.log")), Entry::kEntered);
  EXPECT_EQ(queue.Enter("m2", dir_.File("m2.log")), Entry::kUnread);
  const std::string directory = dir_.File("m3.log");
  ASSERT_EQ(mkdir(directory.c_str(), 0700), 0);
  EXPECT_EQ(queue.Enter("m3", directory), Entry::kUnread);
  EXPECT_EQ(queue.Enter("m4", WriteLog("m4.log")), Entry::kEntered);
  EXPECT_EQ(queue.waiting(), 0u);
  EXPECT_FALSE(tlog_->Contains("m2"));
  EXPECT_EQ(IndexOf("m4"), 1u);
  ASSERT_EQ(said_.size(), 2u);
  for (const std::string& said : said_) {
    EXPECT_THAT(said, ::testing::HasSubstr(
                          ": not entered in the transparency log, its log "
                          "unread (the next start tries again): cannot "));
  }
  EXPECT_TRUE(absl::StartsWith(said_[0], "match m2: ")) << said_[0];
  EXPECT_THAT(said_[1], ::testing::HasSubstr("it is a directory"));
}

// A log that cannot be read for want of a file descriptor (a flood of
// connections as its match ends) waits, and the logs after it with it, in
// the order their matches ended; all are entered in that order once a
// descriptor is free. (It was dropped for good, the reader's
// FAILED_PRECONDITION taken for the tree's refusal, and GetInclusionProof
// failed for its match until a restart.)
TEST_F(SealedLogQueueTest, ALogUnreadForWantOfADescriptorWaitsForOne) {
  SealedLogQueue queue(tlog_.get(), 0, Recorder());
  // Once with descriptors to spare, a log unread and said, then one
  // entered: UBSan's vptr check knows the path's types before none is left
  // (tests/no_descriptor_left.h).
  ASSERT_EQ(queue.Enter("m0", dir_.File("m0.log")), Entry::kUnread);
  ASSERT_EQ(queue.Enter("m1", WriteLog("m1.log")), Entry::kEntered);
  said_.clear();

  const std::string m2 = WriteLog("m2.log");
  const std::string m3 = WriteLog("m3.log");
  Entry second = Entry::kEntered, third = Entry::kEntered;
  {
    const NoDescriptorLeft none;
    ASSERT_TRUE(none.ok());
    second = queue.Enter("m2", m2);
    third = queue.Enter("m3", m3);
  }
  EXPECT_EQ(second, Entry::kWaiting);
  EXPECT_EQ(third, Entry::kWaiting);
  EXPECT_EQ(queue.waiting(), 2u);
  EXPECT_FALSE(tlog_->Contains("m2"));
  ASSERT_EQ(said_.size(), 2u);
  EXPECT_TRUE(absl::StartsWith(
      said_[0], "match m2: not entered in the transparency log yet"))
      << said_[0];
  EXPECT_THAT(said_[0], ::testing::HasSubstr(std::strerror(EMFILE)));

  // Descriptors back: the next try (a checkpoint's, or a match's end)
  // enters them, in their places.
  EXPECT_EQ(queue.Enter("m4", WriteLog("m4.log")), Entry::kEntered);
  EXPECT_EQ(queue.waiting(), 0u);
  EXPECT_EQ(IndexOf("m2"), 1u);
  EXPECT_EQ(IndexOf("m3"), 2u);
  EXPECT_EQ(IndexOf("m4"), 3u);
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
// once reached; refused after the first is entered, it says so.
TEST_F(SealedLogQueueTest, ALogBehindOneThatWaitsWaits) {
  SealedLogQueue queue(tlog_.get(), 0, Recorder());
  ASSERT_EQ(queue.Enter("m1", WriteLog("m1.log")), Entry::kEntered);
  const std::string m2 = WriteLog("m2.log");
  const std::string other = WriteLog("other.log");
  Entry second = Entry::kEntered, again = Entry::kEntered;
  {
    const NoDescriptorLeft none;
    ASSERT_TRUE(none.ok());
    second = queue.Enter("m2", m2);
    again = queue.Enter("m1", other);
  }
  EXPECT_EQ(second, Entry::kWaiting);
  EXPECT_EQ(again, Entry::kWaiting);
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
