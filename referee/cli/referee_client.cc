#include "referee/cli/referee_client.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/support/channel_arguments.h"
#include "referee/core/log_sink.h"

namespace pyramid {

absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> ClientCredentials(
    const std::string& tls_ca) {
  if (tls_ca.empty()) return grpc::InsecureChannelCredentials();
  absl::StatusOr<std::string> roots = ReadFileToString(tls_ca);
  if (!roots.ok()) return roots.status();
  // gRPC takes roots without a certificate, then fails every connection,
  // which a client would retry as if the referee were away.
  if (!absl::StrContains(*roots, "-----BEGIN CERTIFICATE-----")) {
    return absl::InvalidArgumentError(absl::StrCat(
        tls_ca, " holds no PEM certificate (-----BEGIN CERTIFICATE-----)"));
  }
  grpc::SslCredentialsOptions ssl;
  ssl.pem_root_certs = *std::move(roots);
  return grpc::SslCredentials(ssl);
}

std::shared_ptr<grpc::Channel> FastReconnectChannel(
    const std::string& address,
    const std::shared_ptr<grpc::ChannelCredentials>& credentials) {
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 2000);
  return grpc::CreateCustomChannel(address, credentials, args);
}

void AddBearer(grpc::ClientContext& context, absl::string_view token) {
  context.AddMetadata("authorization", absl::StrCat("Bearer ", token));
}

Awaited AwaitConnected(grpc::Channel& channel, absl::Time deadline,
                       const AwaitOptions& options) {
  while (true) {
    if (options.stop && options.stop()) return Awaited::kStopped;
    const absl::Time now = absl::Now();
    if (now >= deadline) return Awaited::kTimeUp;
    // A failed connection is tried again now, not after gRPC's backoff;
    // WaitForConnected connects an idle channel. In slices, so that `stop`
    // is heard.
    grpc::experimental::ChannelResetConnectionBackoff(&channel);
    if (channel.WaitForConnected(
            absl::ToChronoTime(std::min(deadline, now + options.slice)))) {
      return Awaited::kConnected;
    }
  }
}

void Backoff::Grow() { delay_ = std::min(delay_ * 2, kLongest); }

void Backoff::Reset() { delay_ = kFirst; }

}  // namespace pyramid
