// ScratchArena: messages live on it, a thread reuses its block from one
// arena to the next, a nested arena gets its own, and threads do not share.
#include "referee/service/scratch_arena.h"

#include <string>
#include <thread>

#include "gtest/gtest.h"
#include "pyramid/referee/v1/referee_service.pb.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

// Builds a CommitAck on a new ScratchArena; returns where it was made.
const void* MakeAnAck(bool* reused = nullptr) {
  ScratchArena scratch;
  v1::PlayResponse& message = scratch.Make<v1::PlayResponse>();
  message.mutable_commit_ack()->set_match_id(std::string(64, 'a'));
  EXPECT_EQ(message.GetArena(), &scratch.arena());
  if (reused != nullptr) *reused = scratch.reuses_thread_block();
  return &message;
}

TEST(ScratchArenaTest, ConsecutiveArenasOfAThreadReuseItsBlock) {
  bool first_reused = false;
  bool second_reused = false;
  const void* first = MakeAnAck(&first_reused);
  const void* second = MakeAnAck(&second_reused);
  EXPECT_TRUE(first_reused);
  EXPECT_TRUE(second_reused);
  EXPECT_EQ(first, second);  // The same place in the same block.
}

TEST(ScratchArenaTest, ANestedArenaGetsABlockOfItsOwn) {
  ScratchArena outer;
  v1::PlayResponse& kept = outer.Make<v1::PlayResponse>();
  kept.mutable_reveal_ack()->set_match_id(std::string(64, 'b'));
  {
    ScratchArena inner;
    EXPECT_FALSE(inner.reuses_thread_block());
    v1::PlayResponse& nested = inner.Make<v1::PlayResponse>();
    nested.mutable_reveal_ack()->set_match_id(std::string(64, 'c'));
    EXPECT_NE(nested.GetArena(), kept.GetArena());
  }
  EXPECT_TRUE(outer.reuses_thread_block());
  // The inner arena's end left the outer one's message alone...
  EXPECT_EQ(kept.reveal_ack().match_id(), std::string(64, 'b'));
  // ...and did not give the outer arena's block back to the thread.
  bool reused = true;
  MakeAnAck(&reused);
  EXPECT_FALSE(reused);
}

TEST(ScratchArenaTest, AMessageLargerThanTheBlockStillBuilds) {
  ScratchArena scratch;
  v1::PlayResponse& message = scratch.Make<v1::PlayResponse>();
  const std::string big(4 * ScratchArena::kScratchBlockBytes, 'x');
  message.mutable_error()->set_message(big);
  EXPECT_EQ(message.error().message(), big);
}

TEST(ScratchArenaTest, EachThreadHasItsOwnBlock) {
  ScratchArena here;
  EXPECT_TRUE(here.reuses_thread_block());
  bool there_reused = false;
  std::thread other([&] { MakeAnAck(&there_reused); });
  other.join();
  EXPECT_TRUE(there_reused);  // Not taken by this thread's live arena.
}

}  // namespace
}  // namespace pyramid
