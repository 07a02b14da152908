// WriteStall against a real gRPC server on loopback (a generic callback
// service whose reactor writes what the test asks): a call whose write
// stays in flight for the timeout (a client that never reads) is
// cancelled; a call whose writes each complete in time is not, however
// long it lasts in all; nor is an idle one, however long it waits; an
// unarmed watch never cancels; a wall clock step does not cancel a write
// in flight (the test's clock_gettime moves CLOCK_REALTIME on demand).
#include "referee/service/write_stall.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "grpcpp/generic/async_generic_service.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/support/sync_stream.h"
#include "gtest/gtest.h"
#include "referee/service/testing_clock_step.h"

namespace pyramid {
namespace {

// Generous: the test machine is shared. Nothing waits this long when the
// code is right.
constexpr absl::Duration kWait = absl::Seconds(30);

// What the server side of the one call saw.
struct Seen {
  absl::Mutex mu;
  bool cancelled ABSL_GUARDED_BY(mu) = false;
  bool done ABSL_GUARDED_BY(mu) = false;

  bool AwaitDone(absl::Duration timeout) {
    absl::MutexLock lock(&mu);
    return mu.AwaitWithTimeout(absl::Condition(&done), timeout);
  }
  bool Cancelled() {
    absl::MutexLock lock(&mu);
    return cancelled;
  }
};

// Writes `writes` messages of `bytes` each, one at a time (a negative
// count: without end), each watched by a WriteStall, then finishes OK, or
// waits for the client (`finish` false) with nothing in flight.
class Writer final : public grpc::ServerGenericBidiReactor {
 public:
  Writer(grpc::GenericCallbackServerContext* context, WriteStallGuard* guard,
         Seen* seen, size_t bytes, int writes, bool finish)
      : seen_(seen), writes_(writes), finish_(finish) {
    const std::string payload(bytes, 'w');
    grpc::Slice slice(payload);
    message_ = grpc::ByteBuffer(&slice, 1);
    stall_.Arm(guard, context);
    StartRead(&request_);
  }

  // Writes start once the client's one message came.
  void OnReadDone(bool ok) override {
    if (ok) {
      Next();
    } else {
      Finish(grpc::Status(grpc::StatusCode::CANCELLED, "no request"));
    }
  }

  void OnWriteDone(bool ok) override {
    stall_.Stop();
    if (!ok) {
      stall_.Start();
      Finish(grpc::Status(grpc::StatusCode::CANCELLED, "write failed"));
      return;
    }
    Next();
  }
  void OnCancel() override {
    absl::MutexLock lock(&seen_->mu);
    seen_->cancelled = true;
    if (idle_) Finish(grpc::Status::CANCELLED);
  }
  void OnDone() override {
    stall_.Done();
    Seen* seen = seen_;
    delete this;
    absl::MutexLock lock(&seen->mu);
    seen->done = true;
  }

 private:
  void Next() {
    if (writes_ == 0) {
      if (finish_) {
        stall_.Start();
        Finish(grpc::Status::OK);
      } else {
        absl::MutexLock lock(&seen_->mu);
        idle_ = true;
        if (seen_->cancelled) Finish(grpc::Status::CANCELLED);
      }
      return;
    }
    if (writes_ > 0) --writes_;
    stall_.Start();
    StartWrite(&message_);
  }

  Seen* const seen_;
  int writes_;
  const bool finish_;
  bool idle_ = false;  // Under seen_->mu.
  grpc::ByteBuffer request_;
  grpc::ByteBuffer message_;
  WriteStall stall_;
};

// Serves each call with a Writer as set below.
class Service final : public grpc::CallbackGenericService {
 public:
  WriteStallGuard* guard = nullptr;
  Seen seen;
  size_t bytes = 0;
  int writes = 0;
  bool finish = true;

  grpc::ServerGenericBidiReactor* CreateReactor(
      grpc::GenericCallbackServerContext* context) override {
    return new Writer(context, guard, &seen, bytes, writes, finish);
  }
};

class WriteStallTest : public ::testing::Test {
 protected:
  void Serve() {
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                             &port);
    builder.RegisterCallbackGenericService(&service_);
    server_ = builder.BuildAndStart();
    ASSERT_NE(server_, nullptr);
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(64 << 20);
    // A client that does not read keeps to the initial window.
    args.SetInt("grpc.http2.bdp_probe", 0);
    channel_ =
        grpc::CreateCustomChannel(absl::StrCat("127.0.0.1:", port),
                                  grpc::InsecureChannelCredentials(), args);
  }
  void TearDown() override {
    stream_.reset();
    if (server_ != nullptr) {
      server_->Shutdown(std::chrono::system_clock::now());
      server_->Wait();
    }
  }

  // Opens the call (the server's reactor starts writing at once).
  void Call() {
    static const grpc::internal::RpcMethod method(
        "/test.Writer/Write", grpc::internal::RpcMethod::BIDI_STREAMING);
    stream_.reset(grpc::internal::ClientReaderWriterFactory<
                  grpc::ByteBuffer, grpc::ByteBuffer>::Create(channel_.get(),
                                                              method,
                                                              &context_));
    grpc::Slice go(std::string("go"));
    ASSERT_TRUE(stream_->Write(grpc::ByteBuffer(&go, 1)));
  }

  Service service_;
  std::unique_ptr<grpc::Server> server_;
  std::shared_ptr<grpc::Channel> channel_;
  grpc::ClientContext context_;
  std::unique_ptr<grpc::ClientReaderWriter<grpc::ByteBuffer, grpc::ByteBuffer>>
      stream_;
};

// Megabytes written to a client that reads none: a write stays in flight
// (flow control) until the check finds it stalled and cancels the call.
TEST_F(WriteStallTest, AWriteInFlightForTheTimeoutCancelsTheCall) {
  WriteStallGuard guard(absl::Milliseconds(400));
  service_.guard = &guard;
  service_.bytes = 1 << 20;
  service_.writes = -1;
  Serve();
  Call();
  ASSERT_TRUE(service_.seen.AwaitDone(kWait)) << "the call was not cancelled";
  EXPECT_TRUE(service_.seen.Cancelled());
  // Its client, reading at last, finds the call cancelled after what
  // reached it.
  grpc::ByteBuffer message;
  while (stream_->Read(&message)) {
  }
  EXPECT_EQ(stream_->Finish().error_code(), grpc::StatusCode::CANCELLED);
}

// Without a guard, nothing cancels it: the call is still there when its
// client gives up (after several times what the test above waited).
TEST_F(WriteStallTest, AnUnarmedWatchNeverCancels) {
  service_.bytes = 1 << 20;
  service_.writes = -1;
  Serve();
  Call();
  EXPECT_FALSE(service_.seen.AwaitDone(absl::Seconds(2)));
  context_.TryCancel();
  ASSERT_TRUE(service_.seen.AwaitDone(kWait));
}

// Each write completes soon (the client reads them all, pausing between
// reads), though the call lasts twice the timeout: it is not cancelled, and
// ends OK. A write waits for the client only while the 64 KiB window is
// full, four messages ahead: about 0.4 s of its reads, against a 3 s
// timeout, which a loaded machine (or a sanitizer) may well slow down.
TEST_F(WriteStallTest, WritesThatCompleteInTimeAreNeverCancelled) {
  constexpr int kWrites = 60;
  WriteStallGuard guard(absl::Seconds(3));
  service_.guard = &guard;
  service_.bytes = 16 << 10;
  service_.writes = kWrites;
  Serve();
  Call();
  grpc::ByteBuffer message;
  int read = 0;
  while (stream_->Read(&message)) {
    ++read;
    absl::SleepFor(absl::Milliseconds(100));
  }
  EXPECT_EQ(read, kWrites);
  EXPECT_TRUE(stream_->Finish().ok());
  ASSERT_TRUE(service_.seen.AwaitDone(kWait));
  EXPECT_FALSE(service_.seen.Cancelled());
}

// A call with nothing in flight (its one message read) is never cancelled,
// however long it waits: here several times the timeout, until its client
// gives up.
TEST_F(WriteStallTest, AnIdleCallIsNeverCancelled) {
  WriteStallGuard guard(absl::Seconds(1));
  service_.guard = &guard;
  service_.bytes = 16;
  service_.writes = 1;
  service_.finish = false;
  Serve();
  Call();
  grpc::ByteBuffer message;
  ASSERT_TRUE(stream_->Read(&message));
  EXPECT_FALSE(service_.seen.AwaitDone(absl::Seconds(4)));
  EXPECT_FALSE(service_.seen.Cancelled());
  context_.TryCancel();
  ASSERT_TRUE(service_.seen.AwaitDone(kWait));
}

// A write in flight when the wall clock jumps an hour ahead (a VM resumed
// after a suspend, NTP stepping the clock) is not cancelled: time in
// flight is the monotonic clock's. The client reads nothing until checks
// ran after the step (the first is due a quarter of the timeout after the
// write began), then takes the message, well within the timeout.
TEST_F(WriteStallTest, AWallClockStepDoesNotCancelAWriteInFlight) {
  WriteStallGuard guard(absl::Seconds(12));
  service_.guard = &guard;
  service_.bytes = 8 << 20;  // Far more than a window: it stays in flight.
  service_.writes = 1;
  Serve();
  Call();
  // The server's headers go with its first write: it is in flight.
  stream_->WaitForInitialMetadata();
  // Stepped back at the end of the test (and absl::Now seen to follow).
  const ScopedWallClockStep step(absl::Hours(1));
  ASSERT_TRUE(step.taken()) << "the step did not take";
  // A check is due 3 s after the write began: 5 s on, one ran.
  absl::SleepFor(absl::Seconds(5));
  grpc::ByteBuffer message;
  EXPECT_TRUE(stream_->Read(&message)) << "the write was cancelled";
  EXPECT_FALSE(stream_->Read(&message));
  EXPECT_TRUE(stream_->Finish().ok());
  ASSERT_TRUE(service_.seen.AwaitDone(kWait));
  EXPECT_FALSE(service_.seen.Cancelled());
}

}  // namespace
}  // namespace pyramid
