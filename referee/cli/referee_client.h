// What the referee's own client programs (refctl, the bot, the tournament
// runner) share to talk to it over gRPC: the credentials --tls_ca asks
// for, a channel that reconnects quickly, the bearer token on a call, the
// wait between retries, and the wait for a referee that is away to be back.
#ifndef PYRAMID_REFEREE_CLI_REFEREE_CLIENT_H_
#define PYRAMID_REFEREE_CLI_REFEREE_CLIENT_H_

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "grpcpp/channel.h"
#include "grpcpp/client_context.h"
#include "grpcpp/security/credentials.h"

namespace pyramid {

// Insecure credentials when `tls_ca` is empty, else TLS trusting the PEM
// roots in the file `tls_ca` names; ReadFileToString's error when that file
// cannot be read, INVALID_ARGUMENT ("F holds no PEM certificate
// (-----BEGIN CERTIFICATE-----)") when it holds none (the caller says
// which flag named it).
absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> ClientCredentials(
    const std::string& tls_ca);

// A channel to `address` whose own reconnection backoff starts at 100 ms
// and grows to 2 s. gRPC's grows to 2 minutes by default: a client waiting
// out a referee restart would miss its deadlines.
std::shared_ptr<grpc::Channel> FastReconnectChannel(
    const std::string& address,
    const std::shared_ptr<grpc::ChannelCredentials>& credentials);

// Adds `token` to `context` as the referee takes it: the metadata entry
// "authorization: Bearer TOKEN" (docs/protocol.md). `token` must hold only
// what TokenFromText allows (token_text.h): gRPC aborts on other bytes.
void AddBearer(grpc::ClientContext& context, absl::string_view token);

// How AwaitConnected waits.
struct AwaitOptions {
  // The longest wait between two connection attempts, and between two
  // questions to `stop`.
  absl::Duration slice = absl::Milliseconds(250);
  // Asked before each slice: true ends the wait at once (kStopped). Null:
  // never stopped.
  std::function<bool()> stop;
};

// What ended AwaitConnected.
enum class Awaited { kConnected, kTimeUp, kStopped };

// Waits until `channel` is connected (kConnected: at once when it is
// already), `deadline` passes (kTimeUp) or options.stop says to stop
// (kStopped). Meanwhile the channel is made to connect, an attempt at least
// every options.slice: a referee that is back is found within a slice,
// however long it was away, not after gRPC's own connect backoff (up to 2 s
// on FastReconnectChannel; a call on a channel in TRANSIENT_FAILURE fails
// at once without trying) nor after the caller's wait. Whether a channel
// connected at the start (the referee is up and refused the call itself)
// is worth a wait is the caller's to decide.
Awaited AwaitConnected(grpc::Channel& channel, absl::Time deadline,
                       const AwaitOptions& options);

// The wait before a client's next retry: 100 ms, then twice as long after
// each wait, up to 5 s (as refctl's get-log, the bot's reconnection and
// the tournament runner's calls to a remote referee document it).
class Backoff {
 public:
  // The next wait.
  absl::Duration delay() const { return delay_; }

  // Doubles the next wait, up to 5 s.
  void Grow();

  // Back to the first wait, 100 ms: for a new outage.
  void Reset();

 private:
  static constexpr absl::Duration kFirst = absl::Milliseconds(100);
  static constexpr absl::Duration kLongest = absl::Seconds(5);

  absl::Duration delay_ = kFirst;
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_CLI_REFEREE_CLIENT_H_
