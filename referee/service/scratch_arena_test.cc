// ScratchArena: messages live on it, a thread reuses its blocks from one
// arena to the next, nested arenas take a free block of the thread's (and
// a heap block of their own when none is free), and threads do not share.
#include "referee/service/scratch_arena.h"

#include <memory>
#include <string>
#include <thread>
#include <vector>

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

TEST(ScratchArenaTest, ANestedArenaTakesTheThreadsNextBlock) {
  ScratchArena outer;
  v1::PlayResponse& kept = outer.Make<v1::PlayResponse>();
  kept.mutable_reveal_ack()->set_match_id(std::string(64, 'b'));
  const void* nested_at = nullptr;
  {
    ScratchArena inner;
    EXPECT_TRUE(inner.reuses_thread_block());
    v1::PlayResponse& nested = inner.Make<v1::PlayResponse>();
    nested.mutable_reveal_ack()->set_match_id(std::string(64, 'c'));
    EXPECT_NE(nested.GetArena(), kept.GetArena());
    nested_at = &nested;
  }
  EXPECT_TRUE(outer.reuses_thread_block());
  // The inner arena's end left the outer one's message alone...
  EXPECT_EQ(kept.reveal_ack().match_id(), std::string(64, 'b'));
  // ...and gave back the inner block, not the outer one: the next arena
  // made here is nested again, in the same block.
  EXPECT_EQ(MakeAnAck(), nested_at);
}

TEST(ScratchArenaTest, ArenasBeyondTheThreadsBlocksGetHeapBlocksInAnyOrder) {
  std::vector<std::unique_ptr<ScratchArena>> arenas;
  std::vector<v1::PlayResponse*> messages;
  for (int i = 0; i < ScratchArena::kReusedDepth; ++i) {
    arenas.push_back(std::make_unique<ScratchArena>());
    EXPECT_TRUE(arenas.back()->reuses_thread_block());
    messages.push_back(&arenas.back()->Make<v1::PlayResponse>());
    messages.back()->mutable_reveal_ack()->set_seat(i);
  }
  bool reused = true;
  MakeAnAck(&reused);
  EXPECT_FALSE(reused);
  // The first arena ends before the others: its block is the one free,
  // and a new arena takes it, not one still in use.
  arenas.erase(arenas.begin());
  messages.erase(messages.begin());
  ScratchArena again;
  EXPECT_TRUE(again.reuses_thread_block());
  again.Make<v1::PlayResponse>().mutable_reveal_ack()->set_seat(99);
  for (int i = 0; i < ScratchArena::kReusedDepth - 1; ++i) {
    EXPECT_EQ(messages[i]->reveal_ack().seat(), i + 1);
  }
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
