// Streams served on gRPC's asynchronous API, spread over several
// completion queues: for methods with very many streams open at once (Play:
// a stream per seat, 30,000 for 10,000 three-seat matches; Watch: up to
// --max_watchers). Bidirectional (AsyncBidiStream) or server-streaming
// (AsyncWriterStream).
//
// Why not the callback API (grpc::ServerBidiReactor), as the other methods
// use: with the poller Debian's gRPC runs on Linux, every callback call of
// the process shares one completion queue, and Debian's libgrpc is built
// with gRPC's debug checks, under which each completion searches that
// queue's list of outstanding operations under its lock (cq_check_tag, a
// linear scan). A stream waiting for its client's next message is one
// outstanding operation, so at 30,000 streams each message cost the server
// tens of microseconds of scanning (docs/performance-history.md, session
// 23). Here each stream belongs to one of CompletionQueues' queues, which
// holds only its share.
//
// A stream offers what a reactor offers (StartRead, StartWrite,
// Finish; OnReadDone, OnWriteDone, OnCancel, OnDone), with the same rules:
// at most one read and one write outstanding, Finish once every write is
// done, and every stream finished, even a cancelled one. OnDone comes last,
// once the stream is finished and no operation is outstanding, and may
// delete the stream. Unlike a reactor, a stream exists before its call: it
// is created to wait for one (Request) and OnStart runs when a client's
// call arrives, with the call's metadata in context().
#ifndef PYRAMID_REFEREE_SERVICE_ASYNC_STREAM_H_
#define PYRAMID_REFEREE_SERVICE_ASYNC_STREAM_H_

#include <atomic>
#include <functional>
#include <memory>
#include <thread>
#include <type_traits>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "grpcpp/generic/async_generic_service.h"
#include "grpcpp/grpcpp.h"
#include "referee/service/serialized_message.h"

namespace pyramid {

template <class Call>
class AsyncStream;

// A server's completion queues for async streams, and a thread draining
// each. Add them to the builder before BuildAndStart, Start them after,
// and Shutdown after the server's Shutdown (which cancels every call and
// every request waiting for one) and before the server is destroyed: gRPC
// finalizes each failed request against its server as it drains.
class CompletionQueues {
 public:
  // Called once per queue by Start, to post the requests that wait for
  // calls on it.
  using RequestPoster = std::function<void(grpc::ServerCompletionQueue*)>;

  explicit CompletionQueues(int count) : count_(count) {}
  CompletionQueues(const CompletionQueues&) = delete;
  CompletionQueues& operator=(const CompletionQueues&) = delete;
  ~CompletionQueues() { Shutdown(); }

  void AddTo(grpc::ServerBuilder& builder);
  // Posts each queue's first requests, then starts its thread.
  void Start(const RequestPoster& post);
  // Waits until every stream requested on the queues is gone (a stream
  // that has a call goes once finished: the server's Shutdown cancels its
  // call, and OnCancel must lead to Finish), then shuts every queue down
  // and waits for its thread to drain it. Queues never started are only
  // destroyed. Idempotent.
  void Shutdown();

 private:
  template <class Call>
  friend class AsyncStream;
  // The queue a new stream's call is to live on: each in turn, so that
  // streams spread evenly whichever queue their call arrives on (gRPC
  // hands a connection's calls to one queue first).
  grpc::ServerCompletionQueue* NextForCall();
  // A stream was requested; a stream is gone.
  void Add();
  void Remove();

  const int count_;
  std::vector<std::unique_ptr<grpc::ServerCompletionQueue>> queues_;
  std::vector<std::thread> threads_;
  std::atomic<size_t> next_{0};
  absl::Mutex mu_;
  int streams_ ABSL_GUARDED_BY(mu_) = 0;  // Requested and not yet gone.
};

// What a completion queue's thread calls back: every tag posted on the
// queues above is one of these.
class CompletionTag {
 public:
  virtual void Proceed(bool ok) = 0;

 protected:
  ~CompletionTag() = default;
};

// A stream of either kind: `Call` is grpc::GenericServerAsyncReaderWriter
// (AsyncBidiStream, below) or grpc::ServerAsyncWriter<grpc::ByteBuffer>
// (AsyncWriterStream: a server-streaming method, whose one request gRPC
// reads before the call starts, into request()).
template <class Call>
class AsyncStream {
 public:
  // Asks the server for the next call of the method: `request` is the
  // service's RequestAsyncBidiStreaming (RequestAsyncServerStreaming) for
  // it, given this stream's context, the buffer for the request (a
  // server-streaming method's), its call, queues and tag.
  using Requester = std::function<void(
      grpc::ServerContext*, grpc::ByteBuffer* request, Call*,
      grpc::CompletionQueue* call_queue,
      grpc::ServerCompletionQueue* notification_queue, void* tag)>;

  AsyncStream(const AsyncStream&) = delete;
  AsyncStream& operator=(const AsyncStream&) = delete;

  // Waits on `queue` (one of `queues`) for a call, whose operations then
  // complete on the next of `queues` in turn. One thread drains each
  // queue, so OnReadDone, OnWriteDone and OnDone never run at once, nor
  // does OnCancel, unless the call was cancelled as it came: OnStart runs
  // on `queue`'s thread, and an OnCancel due before it ends runs there
  // after it. What OnStart starts may complete (and call back) before it
  // returns; OnDone comes after it. When a call comes, `replace` is called
  // first (to post the next waiting stream), then OnStart. If the server shuts
  // down before, the stream deletes itself without OnStart or OnDone.
  void Request(const Requester& request, CompletionQueues* queues,
               grpc::ServerCompletionQueue* queue,
               std::function<void()> replace);

  // A bidirectional stream's next message.
  template <class C = Call>
  void StartRead(grpc::ByteBuffer* buffer) {
    static_assert(std::is_same_v<C, grpc::GenericServerAsyncReaderWriter>,
                  "a server-streaming call has read its one request");
    live_.fetch_add(1, std::memory_order_relaxed);
    stream_.Read(buffer, &read_done_);
  }
  void StartWrite(const SerializedMessage* message);
  void Finish(const grpc::Status& status);

 protected:
  AsyncStream();
  virtual ~AsyncStream() = default;

  grpc::ServerContext* context() { return &context_; }
  // A server-streaming call's request, read when the call came.
  grpc::ByteBuffer& request() { return request_; }

  virtual void OnStart() = 0;
  virtual void OnReadDone(bool /*ok*/) {}
  virtual void OnWriteDone(bool ok) = 0;
  // The call was cancelled (the client went, or the server shuts down):
  // the stream still has to Finish.
  virtual void OnCancel() {}
  virtual void OnDone() = 0;

 private:
  class Tag final : public CompletionTag {
   public:
    Tag(AsyncStream* stream, void (AsyncStream::*on)(bool))
        : stream_(stream), on_(on) {}
    void Proceed(bool ok) override { (stream_->*on_)(ok); }

   private:
    AsyncStream* const stream_;
    void (AsyncStream::*const on_)(bool);
  };

  void Started(bool ok);
  void ReadDone(bool ok);
  void WriteDone(bool ok);
  void FinishDone(bool ok);
  void CallDone(bool ok);
  // Ends one of the reasons to live (below); OnDone after the last.
  void Release();

  CompletionQueues* queues_ = nullptr;
  grpc::ServerContext context_;
  Call stream_;
  grpc::ByteBuffer request_;
  std::function<void()> replace_;
  Tag started_{this, &AsyncStream::Started};
  Tag read_done_{this, &AsyncStream::ReadDone};
  Tag write_done_{this, &AsyncStream::WriteDone};
  Tag finish_done_{this, &AsyncStream::FinishDone};
  Tag call_done_{this, &AsyncStream::CallDone};
  // Reasons to live: the call (until its done tag), its start (until
  // OnStart has run), its Finish (until done), and each read or write
  // outstanding.
  std::atomic<int> live_{3};
  // OnStart has run; a cancellation seen before waits for it.
  absl::Mutex start_mu_;
  bool start_done_ ABSL_GUARDED_BY(start_mu_) = false;
  bool cancel_waits_ ABSL_GUARDED_BY(start_mu_) = false;
};

using AsyncBidiStream = AsyncStream<grpc::GenericServerAsyncReaderWriter>;
using AsyncWriterStream =
    AsyncStream<grpc::ServerAsyncWriter<grpc::ByteBuffer>>;
extern template class AsyncStream<grpc::GenericServerAsyncReaderWriter>;
extern template class AsyncStream<grpc::ServerAsyncWriter<grpc::ByteBuffer>>;

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_ASYNC_STREAM_H_
