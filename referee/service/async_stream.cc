#include "referee/service/async_stream.h"

#include <pthread.h>

#include <string>
#include <utility>

namespace pyramid {

void CompletionQueues::AddTo(grpc::ServerBuilder& builder) {
  for (int i = 0; i < count_; ++i) {
    queues_.push_back(builder.AddCompletionQueue());
  }
}

void CompletionQueues::Start(const RequestPoster& post) {
  for (size_t i = 0; i < queues_.size(); ++i) {
    grpc::ServerCompletionQueue* queue = queues_[i].get();
    post(queue);
    threads_.emplace_back([queue, i] {
      const std::string name = "play-queue-" + std::to_string(i);
      pthread_setname_np(pthread_self(), name.c_str());
      void* tag = nullptr;
      bool ok = false;
      while (queue->Next(&tag, &ok)) {
        static_cast<CompletionTag*>(tag)->Proceed(ok);
      }
    });
  }
}

grpc::ServerCompletionQueue* CompletionQueues::NextForCall() {
  return queues_[next_.fetch_add(1, std::memory_order_relaxed) % queues_.size()]
      .get();
}

void CompletionQueues::Add() {
  absl::MutexLock lock(&mu_);
  ++streams_;
}

void CompletionQueues::Remove() {
  absl::MutexLock lock(&mu_);
  --streams_;
}

void CompletionQueues::Shutdown() {
  if (threads_.empty()) {
    // Never started (the server did not build, say): nothing was posted
    // on them, and destroying a queue shuts it down. (Shutdown would log
    // an error about the server that never started.)
    queues_.clear();
    return;
  }
  {
    // A queue shut down while a stream may still start an operation on it
    // would fail that operation with an assertion.
    absl::MutexLock lock(&mu_);
    mu_.Await(absl::Condition(
        +[](int* streams) { return *streams == 0; }, &streams_));
  }
  for (auto& queue : queues_) queue->Shutdown();
  for (std::thread& thread : threads_) thread.join();
  threads_.clear();
  queues_.clear();
}

template <class Call>
AsyncStream<Call>::AsyncStream() : stream_(&context_) {}

template <class Call>
void AsyncStream<Call>::Request(const Requester& request,
                                CompletionQueues* queues,
                                grpc::ServerCompletionQueue* queue,
                                std::function<void()> replace) {
  queues_ = queues;
  queues_->Add();
  replace_ = std::move(replace);
  // Before the request: the done tag of a call that never starts is never
  // delivered.
  context_.AsyncNotifyWhenDone(&call_done_);
  request(&context_, &request_, &stream_, queues_->NextForCall(), queue,
          &started_);
}

template <class Call>
void AsyncStream<Call>::Started(bool ok) {
  if (!ok) {  // The server is shutting down: no call came, none will.
    CompletionQueues* queues = queues_;
    delete this;
    queues->Remove();
    return;
  }
  std::function<void()> replace = std::move(replace_);
  replace();
  OnStart();
  bool cancelled = false;
  {
    absl::MutexLock lock(&start_mu_);
    start_done_ = true;
    cancelled = cancel_waits_;
  }
  if (cancelled) OnCancel();
  Release();
}

template <class Call>
void AsyncStream<Call>::StartWrite(const SerializedMessage* message) {
  live_.fetch_add(1, std::memory_order_relaxed);
  // Takes a reference to the message's slice: no copy of its bytes.
  stream_.Write(grpc::ByteBuffer(&message->bytes, 1), &write_done_);
}

template <class Call>
void AsyncStream<Call>::Finish(const grpc::Status& status) {
  stream_.Finish(status, &finish_done_);
}

template <class Call>
void AsyncStream<Call>::ReadDone(bool ok) {
  OnReadDone(ok);
  Release();
}

template <class Call>
void AsyncStream<Call>::WriteDone(bool ok) {
  OnWriteDone(ok);
  Release();
}

template <class Call>
void AsyncStream<Call>::FinishDone(bool /*ok*/) {
  Release();
}

template <class Call>
void AsyncStream<Call>::CallDone(bool /*ok*/) {
  if (context_.IsCancelled()) {
    bool started = false;
    {
      absl::MutexLock lock(&start_mu_);
      started = start_done_;
      cancel_waits_ = !started;
    }
    if (started) OnCancel();  // Else Started calls it after OnStart.
  }
  Release();
}

template <class Call>
void AsyncStream<Call>::Release() {
  if (live_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
    CompletionQueues* queues = queues_;
    OnDone();  // May delete this.
    queues->Remove();
  }
}

template class AsyncStream<grpc::GenericServerAsyncReaderWriter>;
template class AsyncStream<grpc::ServerAsyncWriter<grpc::ByteBuffer>>;

}  // namespace pyramid
