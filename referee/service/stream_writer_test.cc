// StreamWriter without a server: one write in flight at a time and in order,
// what Close, a broken write, the queue limit and Detach do, and that a
// serializing writer hands gRPC exactly the message's bytes.
#include "referee/service/stream_writer.h"

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "pyramid/referee/v1/referee_service.pb.h"
#include "referee/service/serialized_message.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

std::string BytesOf(const grpc::Slice& slice) {
  return std::string(reinterpret_cast<const char*>(slice.begin()),
                     slice.size());
}

// Records what the writer asked of it: the bytes of every StartWrite, in
// order, and every Finish.
struct FakeReactor {
  void StartWrite(const SerializedMessage* message) {
    written.push_back(BytesOf(message->bytes));
  }
  void Finish(grpc::Status status) { finished.push_back(status.error_code()); }

  std::vector<std::string> written;
  std::vector<grpc::StatusCode> finished;
};

using PlayWriter =
    StreamWriter<v1::PlayResponse, FakeReactor, SerializedMessage>;

std::unique_ptr<PlayWriter> MakeWriter(FakeReactor* reactor,
                                       size_t max_queue = 16) {
  return std::make_unique<PlayWriter>(reactor, max_queue);
}

v1::PlayResponse Ack(uint64_t decision_id) {
  v1::PlayResponse response;
  v1::CommitAck* ack = response.mutable_commit_ack();
  ack->set_match_id(std::string(32, 'a'));
  ack->set_decision_id(decision_id);
  return response;
}

// The decision ids of the acks written, in order.
std::vector<uint64_t> Written(const FakeReactor& reactor) {
  std::vector<uint64_t> ids;
  for (const std::string& bytes : reactor.written) {
    v1::PlayResponse response;
    EXPECT_TRUE(response.ParseFromString(bytes));
    ids.push_back(response.commit_ack().decision_id());
  }
  return ids;
}

TEST(StreamWriterTest, WritesOneMessageAtATimeInOrder) {
  FakeReactor reactor;
  std::unique_ptr<PlayWriter> writer = MakeWriter(&reactor);
  writer->Send(Ack(1));
  writer->Send(Ack(2));
  writer->Send(Ack(3));
  EXPECT_EQ(Written(reactor), std::vector<uint64_t>({1}));
  writer->OnWriteDone(true);
  EXPECT_EQ(Written(reactor), std::vector<uint64_t>({1, 2}));
  writer->OnWriteDone(true);
  writer->OnWriteDone(true);
  EXPECT_EQ(Written(reactor), std::vector<uint64_t>({1, 2, 3}));
  EXPECT_TRUE(reactor.finished.empty());
  EXPECT_EQ(reactor.written[0], Ack(1).SerializeAsString());
}

TEST(StreamWriterTest, CloseFinishesOnceWhatWasQueuedIsWritten) {
  FakeReactor reactor;
  std::unique_ptr<PlayWriter> writer = MakeWriter(&reactor);
  writer->Send(Ack(1));
  writer->Send(Ack(2));
  writer->Close(grpc::StatusCode::OK, "");
  writer->Send(Ack(3));  // After Close: dropped.
  EXPECT_TRUE(reactor.finished.empty());
  writer->OnWriteDone(true);
  EXPECT_TRUE(reactor.finished.empty());
  writer->OnWriteDone(true);
  EXPECT_EQ(Written(reactor), std::vector<uint64_t>({1, 2}));
  EXPECT_EQ(reactor.finished,
            std::vector<grpc::StatusCode>({grpc::StatusCode::OK}));
}

TEST(StreamWriterTest, ABrokenWriteDropsTheQueueAndFinishesCancelled) {
  FakeReactor reactor;
  std::unique_ptr<PlayWriter> writer = MakeWriter(&reactor);
  writer->Send(Ack(1));
  writer->Send(Ack(2));
  writer->OnWriteDone(false);
  EXPECT_EQ(Written(reactor), std::vector<uint64_t>({1}));
  EXPECT_EQ(reactor.finished,
            std::vector<grpc::StatusCode>({grpc::StatusCode::CANCELLED}));
}

TEST(StreamWriterTest, TooManyUnsentMessagesCloseTheStream) {
  FakeReactor reactor;
  // Two unsent messages at most, the one being written included.
  std::unique_ptr<PlayWriter> writer = MakeWriter(&reactor, 2);
  writer->Send(Ack(1));
  writer->Send(Ack(2));
  writer->Send(Ack(3));
  writer->OnWriteDone(true);
  writer->OnWriteDone(true);
  EXPECT_EQ(Written(reactor), std::vector<uint64_t>({1, 2}));
  EXPECT_EQ(reactor.finished, std::vector<grpc::StatusCode>(
                                  {grpc::StatusCode::RESOURCE_EXHAUSTED}));
}

// The byte bound counts what is queued and in flight; a message is always
// taken when nothing waits behind the one in flight.
TEST(StreamWriterTest, TooManyUnsentBytesCloseTheStream) {
  FakeReactor reactor;
  const size_t ack = Ack(1).ByteSizeLong();
  PlayWriter writer(&reactor, 16, 3 * ack);
  for (uint64_t id = 1; id <= 4; ++id) writer.Send(Ack(id));
  for (int i = 0; i < 4; ++i) writer.OnWriteDone(true);
  EXPECT_EQ(Written(reactor), std::vector<uint64_t>({1, 2, 3}));
  EXPECT_EQ(reactor.finished, std::vector<grpc::StatusCode>(
                                  {grpc::StatusCode::RESOURCE_EXHAUSTED}));
}

// Offer on a full stream drops what is queued (not what is in flight),
// keeps the stream open and takes the next message.
TEST(StreamWriterTest, OfferOnAFullStreamDropsTheQueueAndStaysOpen) {
  FakeReactor reactor;
  const size_t ack = Ack(1).ByteSizeLong();
  PlayWriter writer(&reactor, 16, 3 * ack);
  EXPECT_TRUE(writer.Offer(Ack(1)));  // In flight: the client stopped.
  EXPECT_TRUE(writer.Offer(Ack(2)));
  EXPECT_TRUE(writer.Offer(Ack(3)));
  EXPECT_FALSE(writer.Offer(Ack(4)));  // Full: 2 and 3 are dropped.
  EXPECT_FALSE(writer.closed());
  EXPECT_TRUE(writer.Offer(Ack(5)));  // The replacement.
  EXPECT_TRUE(writer.Offer(Ack(6)));
  for (int i = 0; i < 3; ++i) writer.OnWriteDone(true);
  EXPECT_EQ(Written(reactor), std::vector<uint64_t>({1, 5, 6}));
  EXPECT_TRUE(reactor.finished.empty());
  writer.Close(grpc::StatusCode::OK, "");
  EXPECT_TRUE(writer.closed());
}

TEST(StreamWriterTest, ADetachedWriterIgnoresEverything) {
  FakeReactor reactor;
  std::unique_ptr<PlayWriter> writer = MakeWriter(&reactor);
  writer->Send(Ack(1));
  writer->Detach();
  writer->Send(Ack(2));
  writer->Close(grpc::StatusCode::OK, "");
  EXPECT_EQ(Written(reactor), std::vector<uint64_t>({1}));
  EXPECT_TRUE(reactor.finished.empty());
}

// A writer whose client reads several messages as one PlayResponse.batch.
class JoiningWriter final : public PlayWriter {
 public:
  JoiningWriter(FakeReactor* reactor, size_t max_messages, size_t max_bytes)
      : PlayWriter(reactor, 64) {
    JoinWrites(max_messages, max_bytes);
  }

 private:
  SerializedMessage Join(QueueIterator first,
                         QueueIterator last) const override {
    return SerializedMessage::Nest(v1::PlayResponse::kBatchFieldNumber,
                                   v1::PlayResponseBatch::kResponsesFieldNumber,
                                   first, last);
  }
};

// The decision ids each write carried: one for a message written alone,
// several for a batch.
std::vector<std::vector<uint64_t>> Writes(const FakeReactor& reactor) {
  std::vector<std::vector<uint64_t>> writes;
  for (const std::string& bytes : reactor.written) {
    v1::PlayResponse response;
    EXPECT_TRUE(response.ParseFromString(bytes));
    std::vector<uint64_t>& ids = writes.emplace_back();
    if (!response.has_batch()) {
      ids.push_back(response.commit_ack().decision_id());
      continue;
    }
    for (const v1::PlayResponse& inner : response.batch().responses()) {
      EXPECT_FALSE(inner.has_batch());
      ids.push_back(inner.commit_ack().decision_id());
    }
  }
  return writes;
}

using Ids = std::vector<std::vector<uint64_t>>;

// An idle stream writes a message alone at once; what queues behind a
// write in flight goes out as one batch, within both limits.
TEST(StreamWriterTest, AJoiningWriterBatchesWhatQueuesBehindAWrite) {
  FakeReactor reactor;
  const size_t ack = Ack(1).ByteSizeLong();
  JoiningWriter writer(&reactor, 3, 100 * ack);
  for (uint64_t id = 1; id <= 6; ++id) writer.Send(Ack(id));
  EXPECT_EQ(Writes(reactor), Ids({{1}}));
  writer.OnWriteDone(true);
  EXPECT_EQ(Writes(reactor), Ids({{1}, {2, 3, 4}}));  // Three at most.
  writer.OnWriteDone(true);
  writer.OnWriteDone(true);
  EXPECT_EQ(Writes(reactor), Ids({{1}, {2, 3, 4}, {5, 6}}));
  // The batch is exactly the messages' own bytes, nested.
  v1::PlayResponse expected;
  for (uint64_t id : {5, 6})
    *expected.mutable_batch()->add_responses() = Ack(id);
  EXPECT_EQ(reactor.written[2], expected.SerializeAsString());

  JoiningWriter small(&reactor, 100, 2 * ack);  // Two acks' bytes at most.
  reactor.written.clear();
  for (uint64_t id = 1; id <= 4; ++id) small.Send(Ack(id));
  for (int i = 0; i < 3; ++i) small.OnWriteDone(true);
  EXPECT_EQ(Writes(reactor), Ids({{1}, {2, 3}, {4}}));
}

// Cork holds writes back; Uncork sends what queued, together. A Close while
// corked still writes it.
TEST(StreamWriterTest, CorkedMessagesGoOutTogether) {
  FakeReactor reactor;
  JoiningWriter writer(&reactor, 100, 1 << 20);
  writer.Cork();
  for (uint64_t id = 1; id <= 3; ++id) writer.Send(Ack(id));
  EXPECT_TRUE(reactor.written.empty());
  writer.Uncork();
  EXPECT_EQ(Writes(reactor), Ids({{1, 2, 3}}));
  writer.OnWriteDone(true);

  writer.Cork();
  writer.Send(Ack(4));
  writer.Send(Ack(5));
  writer.Close(grpc::StatusCode::OK, "");
  EXPECT_EQ(Writes(reactor), Ids({{1, 2, 3}, {4, 5}}));
  EXPECT_TRUE(reactor.finished.empty());
  writer.OnWriteDone(true);
  EXPECT_EQ(reactor.finished,
            std::vector<grpc::StatusCode>({grpc::StatusCode::OK}));
}

TEST(StreamWriterTest, AMessageWriterWritesTheMessagesThemselves) {
  struct EventReactor {
    void StartWrite(const v1::WatchEvent* event) {
      written.push_back(event->decision().decision_id());
    }
    void Finish(grpc::Status status) {}
    std::vector<uint64_t> written;
  } reactor;
  StreamWriter<v1::WatchEvent, EventReactor> writer(&reactor, 16);
  for (uint64_t id : {4, 5}) {
    v1::WatchEvent event;
    event.mutable_decision()->set_decision_id(id);
    writer.Send(event);
  }
  writer.OnWriteDone(true);
  EXPECT_EQ(reactor.written, std::vector<uint64_t>({4, 5}));
}

TEST(SerializedMessageTest, GrpcGetsAndGivesBackTheSameBytes) {
  const v1::PlayResponse message = Ack(7);
  const SerializedMessage serialized = SerializedMessage::Of(message);
  EXPECT_EQ(BytesOf(serialized.bytes), message.SerializeAsString());

  grpc::ByteBuffer buffer;
  bool own_buffer = false;
  ASSERT_TRUE(grpc::SerializationTraits<SerializedMessage>::Serialize(
                  serialized, &buffer, &own_buffer)
                  .ok());
  EXPECT_TRUE(own_buffer);
  SerializedMessage read_back;
  ASSERT_TRUE(grpc::SerializationTraits<SerializedMessage>::Deserialize(
                  &buffer, &read_back)
                  .ok());
  EXPECT_EQ(BytesOf(read_back.bytes), message.SerializeAsString());
}

}  // namespace
}  // namespace pyramid
