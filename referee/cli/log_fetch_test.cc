// DownloadLog and DownloadLogToFile (log_fetch.h) against fake referees: a
// log beyond the cap and a log that stalls are given up, naming why, with
// no file left, a stall even with the wall clock stepped (the test's
// clock_gettime moves CLOCK_REALTIME on demand); a download broken by a
// lost connection starts the file again. The runner's messages through
// them are in tools/tournament/referee_link_test.cc; refctl's in
// tests/e2e_test.cc.
#include "referee/cli/log_fetch.h"

#include <atomic>
#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "referee/core/log_sink.h"
#include "referee/service/testing_clock_step.h"
#include "tests/fake_log_referees.h"
#include "tests/temp_dir.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;
using svctest::BigLogReferee;
using svctest::StalledLogReferee;

// A server on a free loopback port serving `referee`, and a stub to it.
class FakeReferee {
 public:
  explicit FakeReferee(v1::Referee::Service& referee) {
    int port = 0;
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(),
                             &port);
    builder.RegisterService(&referee);
    server_ = builder.BuildAndStart();
    address_ = absl::StrCat("127.0.0.1:", port);
    stub_ = v1::Referee::NewStub(
        grpc::CreateChannel(address_, grpc::InsecureChannelCredentials()));
  }
  ~FakeReferee() { Stop(); }

  // Ends the server now, and with it every call in progress.
  void Stop() {
    if (server_ != nullptr) server_->Shutdown(std::chrono::system_clock::now());
  }

  bool ok() const { return server_ != nullptr; }
  v1::Referee::Stub& stub() { return *stub_; }
  const std::string& address() const { return address_; }

  LogFetchOptions Options() const {
    return {.address = address_, .taker = "the test", .what = "fetching"};
  }

 private:
  std::unique_ptr<grpc::Server> server_;
  std::string address_;
  std::unique_ptr<v1::Referee::Stub> stub_;
};

// A retry rule that retries UNAVAILABLE up to 5 times, counting attempts.
struct CountingRetry {
  std::atomic<int> attempts{0};

  RetryRule Rule() {
    return
        [this](
            const std::function<grpc::Status(grpc::ClientContext&)>& attempt) {
          grpc::Status status;
          for (int i = 0; i < 5; ++i) {
            ++attempts;
            grpc::ClientContext context;
            status = attempt(context);
            if (status.error_code() != grpc::StatusCode::UNAVAILABLE) break;
          }
          return status;
        };
  }
};

// More than the cap is refused after no more than the cap reached the
// chunks, and not retried; the file is neither there nor left beside.
TEST(LogFetchTest, ALogBeyondTheCapIsRefused) {
  BigLogReferee referee(uint64_t{4} << 20);
  FakeReferee fake(referee);
  ASSERT_TRUE(fake.ok());
  LogFetchOptions options = fake.Options();
  options.max_bytes = uint64_t{1} << 20;
  CountingRetry retry;
  uint64_t held = 0;
  const absl::Status status =
      DownloadLog(fake.stub(), "m1", options, retry.Rule(),
                  {.restart = [&] { return absl::OkStatus(); },
                   .append =
                       [&](std::string_view chunk) {
                         held += chunk.size();
                         return absl::OkStatus();
                       }});
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(status.message(),
            absl::StrCat("fetching: the referee at ", fake.address(),
                         " sent more than 1048576 bytes of match m1's log, "
                         "the most the test takes of one log; not fetched"));
  EXPECT_LE(held, options.max_bytes);
  EXPECT_EQ(retry.attempts.load(), 1);

  TempDir dir("log-fetch");
  ASSERT_TRUE(dir.ok());
  const std::string path = dir.File("m1.pyrlog");
  EXPECT_EQ(DownloadLogToFile(fake.stub(), "m1", options, retry.Rule(), path)
                .status()
                .code(),
            absl::StatusCode::kResourceExhausted);
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
}

// A log of the cap exactly is taken whole, into its file.
TEST(LogFetchTest, ALogOfTheCapExactlyIsFetched) {
  BigLogReferee referee(uint64_t{1} << 20);
  FakeReferee fake(referee);
  ASSERT_TRUE(fake.ok());
  LogFetchOptions options = fake.Options();
  options.max_bytes = uint64_t{1} << 20;
  CountingRetry retry;
  TempDir dir("log-fetch");
  ASSERT_TRUE(dir.ok());
  const std::string path = dir.File("m1.pyrlog");
  const absl::StatusOr<uint64_t> written =
      DownloadLogToFile(fake.stub(), "m1", options, retry.Rule(), path);
  ASSERT_TRUE(written.ok()) << written.status();
  EXPECT_EQ(*written, uint64_t{1} << 20);
  const absl::StatusOr<std::string> log = ReadFileToString(path);
  ASSERT_TRUE(log.ok()) << log.status();
  EXPECT_EQ(*log, std::string(uint64_t{1} << 20, 'x'));
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
}

// A download that stalls is cancelled at the stall limit, not retried, and
// leaves no file. A download that never ends fails the test instead of
// hanging it: it is waited for two minutes (polled on the monotonic clock:
// an absl timed wait would wait for a wall clock deadline, which a test
// steps), then the referee stops, which ends the call and the download.
void ExpectAStalledLogNotWaitedFor() {
  StalledLogReferee referee;
  FakeReferee fake(referee);
  ASSERT_TRUE(fake.ok());
  LogFetchOptions options = fake.Options();
  options.stall_limit = absl::Milliseconds(300);
  CountingRetry retry;
  TempDir dir("log-fetch");
  ASSERT_TRUE(dir.ok());
  const std::string path = dir.File("m1.pyrlog");
  std::atomic<bool> done{false};
  absl::StatusOr<uint64_t> written;
  const absl::Time start = absl::Now();
  std::thread fetch([&] {
    written = DownloadLogToFile(fake.stub(), "m1", options, retry.Rule(), path);
    done = true;
  });
  const auto give_up =
      std::chrono::steady_clock::now() + std::chrono::minutes(2);
  while (!done && std::chrono::steady_clock::now() < give_up) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_TRUE(done) << "the download did not end";
  if (!done) fake.Stop();
  fetch.join();
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(300));
  EXPECT_EQ(written.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_EQ(written.status().message(),
            absl::StrCat("fetching: the referee at ", fake.address(),
                         " sent nothing of match m1's log for 300ms; not "
                         "fetched"));
  EXPECT_EQ(retry.attempts.load(), 1);
  EXPECT_FALSE(std::filesystem::exists(path));
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
}

TEST(LogFetchTest, ALogThatStallsIsNotWaitedFor) {
  ExpectAStalledLogNotWaitedFor();
}

// The stall limit is the monotonic clock's, and so is the wait for it: a
// download begun while the wall clock is an hour ahead of the kernel's (as
// when the system clock was stepped an hour back) is cancelled at its
// limit, not an hour later.
TEST(LogFetchTest, AWallClockStepDoesNotHoldBackAStallsCancellation) {
  const ScopedWallClockStep step(absl::Hours(1));
  ASSERT_TRUE(step.taken()) << "the step did not take";
  ExpectAStalledLogNotWaitedFor();
}

// A referee whose chunks come every 100 ms, 10 of them: slower than the
// stall limit in all, never silent for as long.
class SlowLogReferee final : public v1::Referee::Service {
 public:
  grpc::Status GetLog(grpc::ServerContext*, const v1::GetLogRequest*,
                      grpc::ServerWriter<v1::LogChunk>* writer) override {
    v1::LogChunk chunk;
    chunk.set_data("0123456789");
    for (int i = 0; i < 10; ++i) {
      writer->Write(chunk);
      absl::SleepFor(absl::Milliseconds(100));
    }
    return grpc::Status::OK;
  }
};

// The stall limit counts from the last chunk, not from the call's start.
TEST(LogFetchTest, EachChunkMovesTheStallLimitOn) {
  SlowLogReferee referee;
  FakeReferee fake(referee);
  ASSERT_TRUE(fake.ok());
  LogFetchOptions options = fake.Options();
  options.stall_limit = absl::Milliseconds(500);
  CountingRetry retry;
  TempDir dir("log-fetch");
  ASSERT_TRUE(dir.ok());
  const absl::StatusOr<uint64_t> written = DownloadLogToFile(
      fake.stub(), "m1", options, retry.Rule(), dir.File("m1.pyrlog"));
  ASSERT_TRUE(written.ok()) << written.status();
  EXPECT_EQ(*written, 100u);
}

// A referee whose first GetLog sends three chunks of 'a' then breaks
// (UNAVAILABLE, as a restart does), and whose next sends two of 'b'.
class BrokenLogReferee final : public v1::Referee::Service {
 public:
  grpc::Status GetLog(grpc::ServerContext*, const v1::GetLogRequest*,
                      grpc::ServerWriter<v1::LogChunk>* writer) override {
    const bool first = calls_.fetch_add(1) == 0;
    v1::LogChunk chunk;
    chunk.set_data(std::string(1000, first ? 'a' : 'b'));
    for (int i = 0; i < (first ? 3 : 2); ++i) writer->Write(chunk);
    if (first) return grpc::Status(grpc::StatusCode::UNAVAILABLE, "restarting");
    return grpc::Status::OK;
  }

 private:
  std::atomic<int> calls_{0};
};

// The retry rule's second attempt starts the file again: the log is the
// second download's alone.
TEST(LogFetchTest, ABrokenDownloadStartsTheFileAgain) {
  BrokenLogReferee referee;
  FakeReferee fake(referee);
  ASSERT_TRUE(fake.ok());
  CountingRetry retry;
  TempDir dir("log-fetch");
  ASSERT_TRUE(dir.ok());
  const std::string path = dir.File("m1.pyrlog");
  const absl::StatusOr<uint64_t> written =
      DownloadLogToFile(fake.stub(), "m1", fake.Options(), retry.Rule(), path);
  ASSERT_TRUE(written.ok()) << written.status();
  EXPECT_EQ(*written, 2000u);
  EXPECT_EQ(retry.attempts.load(), 2);
  const absl::StatusOr<std::string> log = ReadFileToString(path);
  ASSERT_TRUE(log.ok()) << log.status();
  EXPECT_EQ(*log, std::string(2000, 'b'));
}

// A referee that refuses every GetLog with a message holding a terminal
// escape.
class RefusingReferee final : public v1::Referee::Service {
 public:
  grpc::Status GetLog(grpc::ServerContext*, const v1::GetLogRequest*,
                      grpc::ServerWriter<v1::LogChunk>*) override {
    return grpc::Status(grpc::StatusCode::NOT_FOUND, "no \x1b[2J such match");
  }
};

// The referee's refusal keeps its code; its message is escaped.
TEST(LogFetchTest, ARefusalKeepsItsCodeAndIsEscaped) {
  RefusingReferee referee;
  FakeReferee fake(referee);
  ASSERT_TRUE(fake.ok());
  CountingRetry retry;
  LogFetchOptions options = fake.Options();
  options.what = "";
  TempDir dir("log-fetch");
  ASSERT_TRUE(dir.ok());
  const absl::StatusOr<uint64_t> written = DownloadLogToFile(
      fake.stub(), "m1", options, retry.Rule(), dir.File("m1.pyrlog"));
  EXPECT_EQ(written.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(written.status().message(), "no \\x1B[2J such match");
  EXPECT_FALSE(std::filesystem::exists(dir.File("m1.pyrlog")));
}

}  // namespace
}  // namespace pyramid
