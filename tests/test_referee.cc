#include "tests/test_referee.h"

#include <utility>

#include "absl/status/statusor.h"
#include "gtest/gtest.h"

namespace pyramid::svctest {

TestReferee::TestReferee(const TestRefereeOptions& options)
    : dir_(options.dir_prefix) {
  EXPECT_TRUE(dir_.ok()) << "no directory " << options.dir_prefix;
  if (!dir_.ok()) return;
  EmbeddedRefereeOptions embedded;
  embedded.lobby.log_dir = dir_.path();
  embedded.lobby.checkpoint_interval = options.checkpoint_interval;
  embedded.lobby.ack_hold = options.ack_hold;
  embedded.limits = options.limits;
  embedded.max_message_bytes = options.max_message_bytes;
  public_key_ = embedded.lobby.referee_key.public_key();
  absl::StatusOr<std::unique_ptr<EmbeddedReferee>> referee =
      EmbeddedReferee::Start(std::move(embedded));
  EXPECT_TRUE(referee.ok()) << referee.status();
  if (!referee.ok()) return;
  referee_ = *std::move(referee);
  channel_ = NewChannel();
  stub_ = v1::Referee::NewStub(channel_);
}

TestReferee::~TestReferee() { Stop(); }

void TestReferee::Stop() {
  stub_.reset();
  channel_.reset();
  referee_.reset();
}

std::shared_ptr<grpc::Channel> TestReferee::NewChannel() const {
  grpc::ChannelArguments args;
  args.SetInt("grpc.use_local_subchannel_pool", 1);
  args.SetMaxReceiveMessageSize(64 << 20);
  return grpc::CreateCustomChannel(referee_->address(),
                                   grpc::InsecureChannelCredentials(), args);
}

}  // namespace pyramid::svctest
