#include "referee/service/async_stream.h"

#include <atomic>
#include <chrono>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/impl/rpc_method.h"
#include "grpcpp/impl/rpc_service_method.h"
#include "grpcpp/support/sync_stream.h"
#include "gtest/gtest.h"

namespace pyramid {
namespace {

constexpr char kChat[] = "/pyramid.test.Echo/Chat";
constexpr char kRepeat[] = "/pyramid.test.Echo/Repeat";

// What the streams saw, for the tests to check.
struct Record {
  absl::Mutex mu;
  std::set<std::thread::id> threads ABSL_GUARDED_BY(mu);  // Of OnReadDone.
  std::atomic<int> started{0};
  std::atomic<int> cancelled{0};
  std::atomic<int> done{0};
};

// Echoes every message back; a message "finish" ends the stream with
// status OK, "fail" with INVALID_ARGUMENT.
class EchoStream final : public AsyncBidiStream {
 public:
  explicit EchoStream(Record* record) : record_(record) {}

 private:
  void OnStart() override {
    ++record_->started;
    StartRead(&in_);
  }
  void OnReadDone(bool ok) override {
    {
      absl::MutexLock lock(&record_->mu);
      record_->threads.insert(std::this_thread::get_id());
    }
    if (!ok) {
      FinishOnce(grpc::Status::OK);
      return;
    }
    grpc::Slice slice;
    ASSERT_TRUE(in_.DumpToSingleSlice(&slice).ok());
    const std::string text(reinterpret_cast<const char*>(slice.begin()),
                           slice.size());
    if (text == "finish" || text == "fail") {
      FinishOnce(text == "finish"
                     ? grpc::Status::OK
                     : grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "no"));
      return;
    }
    out_.bytes = slice;
    StartWrite(&out_);  // The next read starts when the echo is out.
  }
  void OnWriteDone(bool ok) override {
    if (ok) {
      StartRead(&in_);
    } else {
      FinishOnce(grpc::Status::CANCELLED);
    }
  }
  void OnCancel() override {
    ++record_->cancelled;
    // A read or write in flight fails and finishes the stream; with none,
    // finish here.
  }
  void OnDone() override {
    ++record_->done;
    delete this;
  }
  void FinishOnce(const grpc::Status& status) {
    if (!finished_.exchange(true)) Finish(status);
  }

  Record* const record_;
  grpc::ByteBuffer in_;
  SerializedMessage out_;
  std::atomic<bool> finished_{false};
};

// A server-streaming call: its request is a count and a text ("3:abc"); it
// writes the text that many times, one after the other, then finishes OK.
class RepeatStream final : public AsyncWriterStream {
 public:
  explicit RepeatStream(Record* record) : record_(record) {}

 private:
  void OnStart() override {
    ++record_->started;
    grpc::Slice slice;
    ASSERT_TRUE(request().DumpToSingleSlice(&slice).ok());
    const std::string text(reinterpret_cast<const char*>(slice.begin()),
                           slice.size());
    const size_t colon = text.find(':');
    left_ = std::stoi(text.substr(0, colon));
    out_.bytes = grpc::Slice(text.substr(colon + 1));
    Next();
  }
  void OnWriteDone(bool ok) override {
    if (!ok) {
      Finish(grpc::Status::CANCELLED);
      return;
    }
    Next();
  }
  void OnDone() override {
    ++record_->done;
    delete this;
  }
  void Next() {
    if (left_-- > 0) {
      StartWrite(&out_);
    } else {
      Finish(grpc::Status::OK);
    }
  }

  Record* const record_;
  SerializedMessage out_;
  int left_ = 0;
};

// A service with two raw async methods over the same queues: Chat (bidi,
// EchoStreams) and Repeat (server-streaming, RepeatStreams).
class EchoService final : public grpc::Service {
 public:
  EchoService(Record* record, int queues) : record_(record), queues_(queues) {
    AddMethod(new grpc::internal::RpcServiceMethod(
        kChat, grpc::internal::RpcMethod::BIDI_STREAMING, nullptr));
    MarkMethodRaw(0);
    AddMethod(new grpc::internal::RpcServiceMethod(
        kRepeat, grpc::internal::RpcMethod::SERVER_STREAMING, nullptr));
    MarkMethodRaw(1);
  }
  void RegisterWith(grpc::ServerBuilder& builder) {
    builder.RegisterService(this);
    queues_.AddTo(builder);
  }
  void Start() {
    queues_.Start([this](grpc::ServerCompletionQueue* queue) {
      Wait(queue);
      WaitForRepeat(queue);
    });
  }
  void Stop() { queues_.Shutdown(); }

 private:
  void Wait(grpc::ServerCompletionQueue* queue) {
    auto* stream = new EchoStream(record_);
    stream->Request(
        [this](grpc::ServerContext* context, grpc::ByteBuffer* /*request*/,
               grpc::GenericServerAsyncReaderWriter* call,
               grpc::CompletionQueue* call_queue,
               grpc::ServerCompletionQueue* notification_queue, void* tag) {
          RequestAsyncBidiStreaming(0, context, call, call_queue,
                                    notification_queue, tag);
        },
        &queues_, queue, [this, queue] { Wait(queue); });
  }

  void WaitForRepeat(grpc::ServerCompletionQueue* queue) {
    auto* stream = new RepeatStream(record_);
    stream->Request(
        [this](grpc::ServerContext* context, grpc::ByteBuffer* request,
               grpc::ServerAsyncWriter<grpc::ByteBuffer>* call,
               grpc::CompletionQueue* call_queue,
               grpc::ServerCompletionQueue* notification_queue, void* tag) {
          RequestAsyncServerStreaming(1, context, request, call, call_queue,
                                      notification_queue, tag);
        },
        &queues_, queue, [this, queue] { WaitForRepeat(queue); });
  }

  Record* const record_;
  CompletionQueues queues_;
};

using Chat = grpc::ClientReaderWriter<grpc::ByteBuffer, grpc::ByteBuffer>;

class AsyncStreamTest : public ::testing::Test {
 protected:
  void StartServer(int queues) {
    service_ = std::make_unique<EchoService>(&record_, queues);
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                             &port);
    service_->RegisterWith(builder);
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    service_->Start();
    channel_ = grpc::CreateChannel("127.0.0.1:" + std::to_string(port),
                                   grpc::InsecureChannelCredentials());
  }
  void StopServer() {
    server_->Shutdown(std::chrono::system_clock::now() +
                      std::chrono::milliseconds(200));
    service_->Stop();
  }

  std::unique_ptr<Chat> Open(grpc::ClientContext* context) {
    return std::unique_ptr<Chat>(
        grpc::internal::ClientReaderWriterFactory<grpc::ByteBuffer,
                                                  grpc::ByteBuffer>::
            Create(channel_.get(),
                   grpc::internal::RpcMethod(
                       kChat, grpc::internal::RpcMethod::BIDI_STREAMING),
                   context));
  }

  static grpc::ByteBuffer Bytes(const std::string& text) {
    grpc::Slice slice(text);
    return grpc::ByteBuffer(&slice, 1);
  }
  static std::string Text(const grpc::ByteBuffer& buffer) {
    grpc::Slice slice;
    EXPECT_TRUE(buffer.DumpToSingleSlice(&slice).ok());
    return std::string(reinterpret_cast<const char*>(slice.begin()),
                       slice.size());
  }

  // Waits (up to 10 s) until `count` reaches `want`.
  static bool Reaches(const std::atomic<int>& count, int want) {
    for (int i = 0; i < 1000 && count.load() < want; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return count.load() == want;
  }

  Record record_;
  std::unique_ptr<EchoService> service_;
  std::unique_ptr<grpc::Server> server_;
  std::shared_ptr<grpc::Channel> channel_;
};

TEST_F(AsyncStreamTest, StreamsEchoAndSpreadOverEveryQueue) {
  StartServer(/*queues=*/4);
  constexpr int kStreams = 16;
  std::vector<std::unique_ptr<grpc::ClientContext>> contexts;
  std::vector<std::unique_ptr<Chat>> chats;
  for (int i = 0; i < kStreams; ++i) {
    contexts.push_back(std::make_unique<grpc::ClientContext>());
    chats.push_back(Open(contexts.back().get()));
  }
  for (int round = 0; round < 3; ++round) {
    for (int i = 0; i < kStreams; ++i) {
      const std::string text = "m" + std::to_string(i * 10 + round);
      ASSERT_TRUE(chats[i]->Write(Bytes(text)));
      grpc::ByteBuffer echo;
      ASSERT_TRUE(chats[i]->Read(&echo));
      EXPECT_EQ(Text(echo), text);
    }
  }
  {
    absl::MutexLock lock(&record_.mu);
    // Sixteen streams over one connection land on the four queues in turn,
    // each drained by its own thread.
    EXPECT_EQ(record_.threads.size(), 4u);
  }
  for (int i = 0; i < kStreams; ++i) {
    ASSERT_TRUE(chats[i]->Write(Bytes(i % 2 == 0 ? "finish" : "fail")));
    const grpc::Status status = chats[i]->Finish();
    EXPECT_EQ(status.error_code(), i % 2 == 0
                                       ? grpc::StatusCode::OK
                                       : grpc::StatusCode::INVALID_ARGUMENT)
        << i;
  }
  EXPECT_TRUE(Reaches(record_.done, kStreams));
  EXPECT_EQ(record_.started.load(), kStreams);
  EXPECT_EQ(record_.cancelled.load(), 0);
  StopServer();
}

TEST_F(AsyncStreamTest, AClientThatCancelsEndsItsStreamOnce) {
  StartServer(/*queues=*/2);
  constexpr int kStreams = 12;
  for (int i = 0; i < kStreams; ++i) {
    grpc::ClientContext context;
    std::unique_ptr<Chat> chat = Open(&context);
    // Cancelled before it writes, after one echo, or with a message in
    // flight.
    if (i % 3 >= 1) {
      ASSERT_TRUE(chat->Write(Bytes("hello")));
      grpc::ByteBuffer echo;
      if (i % 3 == 1) {
        ASSERT_TRUE(chat->Read(&echo));
      }
    }
    // The call has reached the server before it is cancelled.
    ASSERT_TRUE(Reaches(record_.started, i + 1));
    context.TryCancel();
    EXPECT_EQ(chat->Finish().error_code(), grpc::StatusCode::CANCELLED);
  }
  EXPECT_TRUE(Reaches(record_.done, kStreams));
  EXPECT_EQ(record_.started.load(), kStreams);
  EXPECT_EQ(record_.cancelled.load(), kStreams);
  StopServer();
  EXPECT_EQ(record_.done.load(), kStreams);
}

TEST_F(AsyncStreamTest, AServerStreamingCallGetsItsRequestAndItsReplies) {
  StartServer(/*queues=*/3);
  for (int n : {0, 1, 5, 40}) {
    grpc::ClientContext context;
    std::unique_ptr<grpc::ClientReader<grpc::ByteBuffer>> reader(
        grpc::internal::ClientReaderFactory<grpc::ByteBuffer>::Create(
            channel_.get(),
            grpc::internal::RpcMethod(
                kRepeat, grpc::internal::RpcMethod::SERVER_STREAMING),
            &context, Bytes(std::to_string(n) + ":x" + std::to_string(n))));
    int got = 0;
    grpc::ByteBuffer reply;
    while (reader->Read(&reply)) {
      EXPECT_EQ(Text(reply), "x" + std::to_string(n));
      ++got;
    }
    EXPECT_TRUE(reader->Finish().ok());
    EXPECT_EQ(got, n);
  }
  EXPECT_TRUE(Reaches(record_.done, 4));
  StopServer();
  EXPECT_EQ(record_.started.load(), 4);
}

TEST_F(AsyncStreamTest, ShutdownEndsEveryOpenStream) {
  StartServer(/*queues=*/3);
  constexpr int kStreams = 9;
  std::vector<std::unique_ptr<grpc::ClientContext>> contexts;
  std::vector<std::unique_ptr<Chat>> chats;
  for (int i = 0; i < kStreams; ++i) {
    contexts.push_back(std::make_unique<grpc::ClientContext>());
    chats.push_back(Open(contexts.back().get()));
    ASSERT_TRUE(chats.back()->Write(Bytes("hello")));
    grpc::ByteBuffer echo;
    ASSERT_TRUE(chats.back()->Read(&echo));
  }
  // The streams are all waiting for their clients' next message.
  StopServer();
  EXPECT_EQ(record_.done.load(), kStreams);
  EXPECT_EQ(record_.cancelled.load(), kStreams);
  for (auto& chat : chats) {
    grpc::ByteBuffer none;
    EXPECT_FALSE(chat->Read(&none));
    EXPECT_NE(chat->Finish().error_code(), grpc::StatusCode::OK);
  }
}

}  // namespace
}  // namespace pyramid
