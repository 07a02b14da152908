// AwaitConnected: the wait for a referee that is away, on a loopback port
// where nothing listens, then a server that starts listening there.
#include "referee/cli/referee_client.h"

#include <memory>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "grpcpp/generic/async_generic_service.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"

namespace pyramid {
namespace {

// A server that answers every call UNIMPLEMENTED, on 127.0.0.1:`port` (0:
// a free one, then put in `port`); `server` null when it cannot listen.
struct Listening {
  explicit Listening(int& port) {
    grpc::ServerBuilder builder;
    builder.RegisterCallbackGenericService(&no_service);
    builder.AddListeningPort(absl::StrCat("127.0.0.1:", port),
                             grpc::InsecureServerCredentials(), &port);
    server = builder.BuildAndStart();
  }
  ~Listening() {
    if (server != nullptr) server->Shutdown();
  }

  grpc::CallbackGenericService no_service;
  std::unique_ptr<grpc::Server> server;
};

// A loopback address where nothing listens (a free port, listened on and
// let go).
std::string NobodyThere(int& port) {
  port = 0;
  EXPECT_NE(Listening(port).server, nullptr);
  return absl::StrCat("127.0.0.1:", port);
}

std::shared_ptr<grpc::Channel> ChannelTo(const std::string& address) {
  return FastReconnectChannel(address, grpc::InsecureChannelCredentials());
}

TEST(AwaitConnectedTest, StopEndsTheWaitAtOnce) {
  int port;
  std::shared_ptr<grpc::Channel> channel = ChannelTo(NobodyThere(port));
  const absl::Time start = absl::Now();
  EXPECT_EQ(AwaitConnected(*channel, start + absl::Seconds(30),
                           {.stop = [] { return true; }}),
            Awaited::kStopped);
  EXPECT_LT(absl::Now() - start, absl::Seconds(1));
}

TEST(AwaitConnectedTest, TimeUpWhenNothingListens) {
  int port;
  std::shared_ptr<grpc::Channel> channel = ChannelTo(NobodyThere(port));
  const absl::Time start = absl::Now();
  int asked = 0;
  EXPECT_EQ(AwaitConnected(*channel, start + absl::Milliseconds(600),
                           {.slice = absl::Milliseconds(100),
                            .stop =
                                [&asked] {
                                  ++asked;
                                  return false;
                                }}),
            Awaited::kTimeUp);
  const absl::Duration waited = absl::Now() - start;
  EXPECT_GE(waited, absl::Milliseconds(600));
  EXPECT_LT(waited, absl::Seconds(2));
  EXPECT_GE(asked, 4);  // Asked once a slice.
}

TEST(AwaitConnectedTest, ConnectedAtOnceWhenConnected) {
  int port = 0;
  Listening referee(port);
  ASSERT_NE(referee.server, nullptr);
  std::shared_ptr<grpc::Channel> channel =
      ChannelTo(absl::StrCat("127.0.0.1:", port));
  ASSERT_TRUE(channel->WaitForConnected(
      absl::ToChronoTime(absl::Now() + absl::Seconds(10))));
  const absl::Time start = absl::Now();
  EXPECT_EQ(AwaitConnected(*channel, start + absl::Seconds(30), {}),
            Awaited::kConnected);
  EXPECT_LT(absl::Now() - start, absl::Seconds(1));
}

// A referee away for 3 s (longer than the channel's own connect backoff
// grows to, 2 s) is found within a slice of its return.
TEST(AwaitConnectedTest, ConnectedWithinASliceOfTheReturn) {
  int port;
  std::shared_ptr<grpc::Channel> channel = ChannelTo(NobodyThere(port));
  std::unique_ptr<Listening> referee;
  absl::Time back;
  std::thread returns([&] {
    absl::SleepFor(absl::Seconds(3));
    int same = port;
    referee = std::make_unique<Listening>(same);
    back = absl::Now();
  });
  const Awaited awaited =
      AwaitConnected(*channel, absl::Now() + absl::Seconds(30), {});
  const absl::Time connected = absl::Now();
  returns.join();
  ASSERT_NE(referee->server, nullptr) << "port " << port << " taken meanwhile";
  EXPECT_EQ(awaited, Awaited::kConnected);
  EXPECT_LT(connected - back, absl::Seconds(1));
}

}  // namespace
}  // namespace pyramid
