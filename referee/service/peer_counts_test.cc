// PeerCounts: a peer's address without its port (an IPv6 one's /64, in
// either form gRPC writes it); calls of one address count together up to
// the limit, each slot giving its place back when it goes; other addresses
// count apart. The names are also taken from a real gRPC server, on IPv6
// loopback and IPv4.
#include "referee/service/peer_counts.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "grpcpp/generic/async_generic_service.h"
#include "grpcpp/grpcpp.h"
#include "grpcpp/support/sync_stream.h"
#include "gtest/gtest.h"

namespace pyramid {
namespace {

TEST(PeerCountsTest, AnAddressIsItsPeerWithoutThePort) {
  EXPECT_EQ(PeerCounts::AddressOf("ipv4:127.0.0.1:45678"), "ipv4:127.0.0.1");
  EXPECT_EQ(PeerCounts::AddressOf("unix:/tmp/socket"), "unix:/tmp/socket");
  EXPECT_EQ(PeerCounts::AddressOf(""), "");
}

// gRPC 1.51 writes "ipv6:%5B::1%5D:44624"; the bracketed form is taken too,
// and both of one host are one address, whatever the port.
TEST(PeerCountsTest, AnIpv6AddressIsTakenInEitherFormWithoutThePort) {
  EXPECT_EQ(PeerCounts::AddressOf("ipv6:%5B::1%5D:44624"), "ipv6:[::]/64");
  EXPECT_EQ(PeerCounts::AddressOf("ipv6:%5b::1%5d:1"), "ipv6:[::]/64");
  EXPECT_EQ(PeerCounts::AddressOf("ipv6:[::1]:443"), "ipv6:[::]/64");
  EXPECT_EQ(PeerCounts::AddressOf("ipv6:%5B2001:db8::7%5D:1"),
            "ipv6:[2001:db8::]/64");
  EXPECT_EQ(PeerCounts::AddressOf("ipv6:[2001:db8::7]:2"),
            "ipv6:[2001:db8::]/64");
  // A zone, raw or encoded, is not part of the address.
  EXPECT_EQ(PeerCounts::AddressOf("ipv6:%5Bfe80::1%25eth0%5D:9"),
            "ipv6:[fe80::]/64");
  EXPECT_EQ(PeerCounts::AddressOf("ipv6:[fe80::1%eth0]:9"), "ipv6:[fe80::]/64");
  // What does not parse is its whole name.
  EXPECT_EQ(PeerCounts::AddressOf("ipv6:%5Bnot an address%5D:1"),
            "ipv6:%5Bnot an address%5D:1");
  EXPECT_EQ(PeerCounts::AddressOf("ipv6:::1:443"), "ipv6:::1:443");
}

// Every address of one /64 is one address: a host that holds a /64
// cannot take a place per address.
TEST(PeerCountsTest, AnIpv6AddressCountsAsItsSlash64) {
  EXPECT_EQ(
      PeerCounts::AddressOf("ipv6:%5B2001:db8:1:2:aaaa:bbbb:cccc:dddd%5D:5"),
      "ipv6:[2001:db8:1:2::]/64");
  EXPECT_EQ(PeerCounts::AddressOf("ipv6:%5B2001:db8:1:2::1%5D:6"),
            "ipv6:[2001:db8:1:2::]/64");
  EXPECT_EQ(PeerCounts::AddressOf("ipv6:%5B2001:db8:1:3::1%5D:6"),
            "ipv6:[2001:db8:1:3::]/64");
  PeerCounts counts;
  PeerSlot a, b, c;
  EXPECT_TRUE(counts.TryAdd("ipv6:%5B2001:db8:1:2::1%5D:1000", 2, &a));
  EXPECT_TRUE(counts.TryAdd("ipv6:[2001:db8:1:2::2]:1001", 2, &b));
  EXPECT_FALSE(counts.TryAdd("ipv6:%5B2001:db8:1:2:ffff::3%5D:1002", 2, &c));
  EXPECT_TRUE(counts.TryAdd("ipv6:%5B2001:db8:1:3::1%5D:1000", 2, &c));
}

// ::ffff:a.b.c.d is a.b.c.d, whichever way it came.
TEST(PeerCountsTest, AnIpv4MappedAddressIsItsIpv4Address) {
  EXPECT_EQ(PeerCounts::AddressOf("ipv6:%5B::ffff:10.0.0.1%5D:5"),
            "ipv4:10.0.0.1");
  EXPECT_EQ(PeerCounts::AddressOf("ipv6:[::ffff:10.0.0.1]:6"), "ipv4:10.0.0.1");
  PeerCounts counts;
  PeerSlot a, b;
  EXPECT_TRUE(counts.TryAdd("ipv4:10.0.0.1:1000", 1, &a));
  EXPECT_FALSE(counts.TryAdd("ipv6:%5B::ffff:10.0.0.1%5D:1001", 1, &b));
}

TEST(PeerCountsTest, CallsOfOneAddressCountTogetherUpToTheLimit) {
  PeerCounts counts;
  PeerSlot a, b, c, other;
  EXPECT_TRUE(counts.TryAdd("ipv4:10.0.0.1:1000", 2, &a));
  EXPECT_TRUE(counts.TryAdd("ipv4:10.0.0.1:1001", 2, &b));
  EXPECT_FALSE(counts.TryAdd("ipv4:10.0.0.1:1002", 2, &c));
  EXPECT_TRUE(counts.TryAdd("ipv4:10.0.0.2:1000", 2, &other));
  EXPECT_EQ(counts.CountOf("ipv4:10.0.0.1:9"), 2u);
  {
    PeerSlot moved = std::move(a);  // Still counted, once.
    EXPECT_EQ(counts.CountOf("ipv4:10.0.0.1:9"), 2u);
  }
  EXPECT_EQ(counts.CountOf("ipv4:10.0.0.1:9"), 1u);
  EXPECT_TRUE(counts.TryAdd("ipv4:10.0.0.1:1002", 2, &c));
  b = PeerSlot();
  c = PeerSlot();
  EXPECT_EQ(counts.CountOf("ipv4:10.0.0.1:9"), 0u);
  EXPECT_EQ(counts.CountOf("ipv4:10.0.0.2:9"), 1u);
  // A limit of 0 takes none.
  PeerSlot none;
  EXPECT_FALSE(counts.TryAdd("ipv4:10.0.0.3:1", 0, &none));
  EXPECT_EQ(counts.CountOf("ipv4:10.0.0.3:1"), 0u);
}

// A server that notes the peer of each call (and answers it OK at once).
class PeerNoter final : public grpc::CallbackGenericService {
 public:
  std::vector<std::string> Peers() {
    absl::MutexLock lock(&mu_);
    return peers_;
  }

  grpc::ServerGenericBidiReactor* CreateReactor(
      grpc::GenericCallbackServerContext* context) override {
    {
      absl::MutexLock lock(&mu_);
      peers_.push_back(context->peer());
    }
    class Done final : public grpc::ServerGenericBidiReactor {
     public:
      Done() { Finish(grpc::Status::OK); }
      void OnDone() override { delete this; }
    };
    return new Done;
  }

 private:
  absl::Mutex mu_;
  std::vector<std::string> peers_ ABSL_GUARDED_BY(mu_);
};

// The peers a real gRPC server listening on `host` ("[::1]", "127.0.0.1")
// sees of two calls, each on a connection of its own.
std::vector<std::string> RealPeers(const std::string& host) {
  PeerNoter noter;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(absl::StrCat(host, ":0"),
                           grpc::InsecureServerCredentials(), &port);
  builder.RegisterCallbackGenericService(&noter);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  EXPECT_NE(server, nullptr) << "cannot listen on " << host;
  if (server == nullptr) return {};
  static const grpc::internal::RpcMethod method(
      "/test.Peer/Note", grpc::internal::RpcMethod::BIDI_STREAMING);
  for (int i = 0; i < 2; ++i) {
    grpc::ChannelArguments args;
    args.SetInt("test.connection", i);  // A connection of its own.
    std::shared_ptr<grpc::Channel> channel =
        grpc::CreateCustomChannel(absl::StrCat(host, ":", port),
                                  grpc::InsecureChannelCredentials(), args);
    grpc::ClientContext context;
    std::unique_ptr<
        grpc::ClientReaderWriter<grpc::ByteBuffer, grpc::ByteBuffer>>
        stream(grpc::internal::ClientReaderWriterFactory<
               grpc::ByteBuffer, grpc::ByteBuffer>::Create(channel.get(),
                                                           method, &context));
    stream->WritesDone();
    EXPECT_TRUE(stream->Finish().ok());
  }
  server->Shutdown();
  server->Wait();
  return noter.Peers();
}

// What a real gRPC server names a client of IPv6 loopback: both of its
// connections (two ports) are one address, counted together.
TEST(PeerCountsTest, ARealIpv6PeerIsOneAddressWhateverItsPort) {
  const std::vector<std::string> peers = RealPeers("[::1]");
  ASSERT_EQ(peers.size(), 2u);
  EXPECT_NE(peers[0], peers[1]) << "one connection, not two";
  for (const std::string& peer : peers) {
    EXPECT_EQ(PeerCounts::AddressOf(peer), "ipv6:[::]/64") << peer;
  }
  PeerCounts counts;
  PeerSlot first, second;
  EXPECT_TRUE(counts.TryAdd(peers[0], 1, &first));
  EXPECT_FALSE(counts.TryAdd(peers[1], 1, &second)) << peers[1];
}

TEST(PeerCountsTest, ARealIpv4PeerIsOneAddressWhateverItsPort) {
  const std::vector<std::string> peers = RealPeers("127.0.0.1");
  ASSERT_EQ(peers.size(), 2u);
  EXPECT_NE(peers[0], peers[1]) << "one connection, not two";
  for (const std::string& peer : peers) {
    EXPECT_EQ(PeerCounts::AddressOf(peer), "ipv4:127.0.0.1") << peer;
  }
}

}  // namespace
}  // namespace pyramid
