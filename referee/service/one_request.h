// Calls of a method whose client sends one request (a unary method, or a
// server-streaming one: the referee's unary calls and GetLog, the health
// service's Check and Watch), taken at their headers.
//
// Why: gRPC's core hands a unary or server-streaming call to the service
// only once its request has arrived. A client that sends a call's headers
// and never its message is then held by the transport alone (about 12 KiB
// a call), unseen by any limit of the service, for as long as its
// connection lasts: any number of them. Registered with OneRequestHandler as
// BIDI_STREAMING at the core (grpc::Service::MarkMethodStreamed, then
// MarkMethodRawCallback; the wire is the same: one message each way, or one
// in and a stream out), a call reaches the service at its headers instead,
// where it is counted as any other (its address's PeerSlot), and its
// request must arrive within a WriteStallGuard's timeout.
//
// The contract of a OneRequest reactor:
// - Made at the call's headers by the code that admitted it, with the
//   outcome (`admitted`) and the place it counts in (`slot`, held until the
//   call is done). A refused call (`admitted` not OK) is finished at once
//   with that status, its request never read.
// - An admitted call reads exactly one message. A read in flight for the
//   guard's timeout cancels the call (WriteStall: the read counts as
//   something in flight), so a request that never comes holds its call and
//   its place for that long at most. A call half-closed without a message
//   is finished INVALID_ARGUMENT ("the request is missing").
// - Once the request has come, a unary call (OneRequestUnary) runs its
//   answer, which fills the response and returns the status (the request's
//   bytes are released as it returns), and finishes with them; its Finish
//   is watched by the same WriteStall, as UnaryReply's is. A
//   server-streaming call (OneRequestStream) hands the call to the
//   ServerWriteReactor its open function returns, which then writes and
//   finishes the call as it would a server-streaming call of its own, and
//   is told of the call's writes, cancellation and end (its OnDone, then
//   the call's). That reactor watches its own writes.
// - The reactor deletes itself when the call is done; the guard must
//   outlive it (null: the request may take as long as it likes).
#ifndef PYRAMID_REFEREE_SERVICE_ONE_REQUEST_H_
#define PYRAMID_REFEREE_SERVICE_ONE_REQUEST_H_

#include <functional>
#include <utility>

#include "absl/synchronization/mutex.h"
#include "grpcpp/grpcpp.h"
#include "referee/service/peer_counts.h"
#include "referee/service/write_stall.h"

namespace pyramid {

// The status of a call whose client half-closed without its request.
inline grpc::Status MissingRequest() {
  return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                      "the request is missing: the client ended its side of "
                      "the call without sending it");
}

template <class Response>
using OneRequestReactorBase =
    grpc::ServerBidiReactor<grpc::ByteBuffer, Response>;

// The handler of a method served as one request (see above): makes each
// call's reactor at its headers with `start`. Pass one to the service's
// MarkMethodStreamed, then another to MarkMethodRawCallback (each takes
// its handler's ownership).
template <class Response>
grpc::internal::MethodHandler* OneRequestHandler(
    std::function<
        OneRequestReactorBase<Response>*(grpc::CallbackServerContext*)>
        start) {
  return new grpc::internal::CallbackBidiHandler<grpc::ByteBuffer, Response>(
      std::move(start));
}

// What both kinds share: admission, the read of the request under the
// guard, and the end.
template <class Response>
class OneRequest : public OneRequestReactorBase<Response> {
 public:
  OneRequest(const OneRequest&) = delete;
  OneRequest& operator=(const OneRequest&) = delete;

 protected:
  OneRequest(grpc::CallbackServerContext* context, WriteStallGuard* guard,
             PeerSlot slot, const grpc::Status& admitted)
      : slot_(std::move(slot)) {
    stall_.Arm(guard, context);
    // In flight from now: the read, or the refusal's Finish.
    stall_.Start();
    if (!admitted.ok()) {
      this->Finish(admitted);
      return;
    }
    this->StartRead(&request_);
  }
  ~OneRequest() override = default;

  // The request came (`request`, which the call may clear): answers it.
  virtual void OnRequest(grpc::ByteBuffer* request) = 0;
  // The call is done (before the reactor goes).
  virtual void OnCallDone() {}

  // Something the call sends is in flight from now until its OnDone.
  void FinishStarts() { stall_.Start(); }

 private:
  void OnReadDone(bool ok) override {
    stall_.Stop();
    if (!ok) {
      // Half-closed without a message, or cancelled (the client went, the
      // read's time ran out): a cancelled call's status goes nowhere.
      stall_.Start();
      this->Finish(MissingRequest());
      return;
    }
    OnRequest(&request_);
  }

  void OnDone() override {
    stall_.Done();
    OnCallDone();
    delete this;
  }

  grpc::ByteBuffer request_;
  PeerSlot slot_;  // Its place among its address's calls, until done.
  WriteStall stall_;
};

// A unary call: `answer` fills the response and returns the call's status
// (trailers, if any, added to the context by it).
template <class Response>
class OneRequestUnary final : public OneRequest<Response> {
 public:
  using Answer =
      std::function<grpc::Status(grpc::ByteBuffer* request, Response*)>;

  OneRequestUnary(grpc::CallbackServerContext* context, WriteStallGuard* guard,
                  PeerSlot slot, const grpc::Status& admitted, Answer answer)
      : OneRequest<Response>(context, guard, std::move(slot), admitted),
        answer_(std::move(answer)) {}

 private:
  ~OneRequestUnary() override = default;

  void OnRequest(grpc::ByteBuffer* request) override {
    const grpc::Status status = answer_(request, &response_);
    // gRPC would keep the request's bytes until the call is done, which a
    // client that takes no answer delays: released now.
    request->Clear();
    answer_ = nullptr;
    this->FinishStarts();
    if (status.ok()) {
      this->StartWriteAndFinish(&response_, grpc::WriteOptions(), status);
    } else {
      this->Finish(status);
    }
  }

  Answer answer_;
  Response response_;
};

// A server-streaming call: `open` returns the reactor that serves it (one
// that finishes at once for a refusal), given the request.
template <class Response>
class OneRequestStream final : public OneRequest<Response> {
 public:
  using Open =
      std::function<grpc::ServerWriteReactor<Response>*(grpc::ByteBuffer*)>;

  OneRequestStream(grpc::CallbackServerContext* context, WriteStallGuard* guard,
                   PeerSlot slot, const grpc::Status& admitted, Open open)
      : OneRequest<Response>(context, guard, std::move(slot), admitted),
        relay_(this),
        open_(std::move(open)) {}

 private:
  // What the server-streaming reactor takes for its call: passes its
  // operations on to this call.
  class Relay final : public grpc::ServerCallbackWriter<Response> {
   public:
    explicit Relay(OneRequestStream* call) : call_(call) {}
    void Bind(grpc::ServerWriteReactor<Response>* reactor) {
      this->BindReactor(reactor);
    }
    void Finish(grpc::Status s) override { call_->Finish(std::move(s)); }
    void SendInitialMetadata() override { call_->StartSendInitialMetadata(); }
    void Write(const Response* message, grpc::WriteOptions options) override {
      call_->StartWrite(message, options);
    }
    void WriteAndFinish(const Response* message, grpc::WriteOptions options,
                        grpc::Status s) override {
      call_->StartWriteAndFinish(message, options, std::move(s));
    }

   private:
    // gRPC's own bookkeeping of a call, which this relay is not: the call
    // is the bidirectional one's.
    grpc::internal::ServerReactor* reactor() override { return nullptr; }
    void CallOnDone() override {}

    OneRequestStream* const call_;
  };

  ~OneRequestStream() override = default;

  void OnRequest(grpc::ByteBuffer* request) override {
    grpc::ServerWriteReactor<Response>* served = open_(request);
    request->Clear();  // As a unary call's.
    open_ = nullptr;
    bool cancelled = false;
    {
      // Before it is bound: a write it asked for (which waits in it until
      // then) may be done as soon as it is.
      absl::MutexLock lock(&mu_);
      served_ = served;
      cancelled = cancelled_;
    }
    relay_.Bind(served);
    if (cancelled) served->OnCancel();
  }

  void OnWriteDone(bool ok) override { Served()->OnWriteDone(ok); }
  void OnSendInitialMetadataDone(bool ok) override {
    Served()->OnSendInitialMetadataDone(ok);
  }
  void OnCancel() override {
    grpc::ServerWriteReactor<Response>* served = nullptr;
    {
      absl::MutexLock lock(&mu_);
      cancelled_ = true;
      served = served_;
    }
    if (served != nullptr) served->OnCancel();
  }
  void OnCallDone() override {
    if (grpc::ServerWriteReactor<Response>* served = Served()) {
      served->OnDone();
    }
  }

  grpc::ServerWriteReactor<Response>* Served() {
    absl::MutexLock lock(&mu_);
    return served_;
  }

  Relay relay_;
  Open open_;
  absl::Mutex mu_;
  // The reactor the call was handed to (null until its request came).
  grpc::ServerWriteReactor<Response>* served_ ABSL_GUARDED_BY(mu_) = nullptr;
  // OnCancel came (the served reactor is told once it exists).
  bool cancelled_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_ONE_REQUEST_H_
