// The standard gRPC health service (grpc.health.v1.Health), served with our
// own copy of its descriptors (proto/grpc/health/v1/health.proto) so that
// server reflection can describe it, unlike gRPC's built-in one.
//
// Check answers SERVING for "" (the server as a whole) and for each service
// named at construction while the server serves, NOT_SERVING once
// SetServing(false) was called (the referee calls it when it starts to stop),
// and NOT_FOUND for any other name. Watch sends the current status, then each
// change, as the protocol specifies (SERVICE_UNKNOWN for an unknown name,
// the stream left open). A Watch stream keeps nothing of its request (an
// unknown name may be as long as the largest message the server takes),
// and the service serves at most `max_watchers` at once, and at most
// LimitWatchersPerPeer's from one IP address (every caller: the health
// service has no tokens), so that one client cannot hold every place for
// good (a stream that reads is idle between changes, never cancelled): one
// more is refused RESOURCE_EXHAUSTED. With a WriteStallGuard, a call whose
// write (or Finish) stays in flight for its timeout (a client that takes
// nothing) is cancelled, freeing its place.
//
// Both methods are taken at a call's headers, before its request has come
// (one_request.h): a call is counted against its address's limit from
// then (a Watch stream's, LimitWatchersPerPeer), and one whose request
// does not come within the WriteStallGuard's timeout is cancelled.
//
// Check calls are limited per IP address as the referee's unary calls are
// (ServiceLimits::max_calls_per_peer), every caller counted: a call counts
// from its headers until its answer is taken (OneRequestUnary), at most
// LimitChecksPerPeer's at once, one more refused RESOURCE_EXHAUSTED. A
// client that takes nothing (one that grants no HTTP/2 window) keeps each
// of its calls, answered, until the write stall timeout cancels it:
// without the limit it could open any number meanwhile. (A Check that is
// read ends as it is answered, so a client that reads is limited only in
// the calls it has going at once.) Check keeps nothing of its request once
// it has answered. Thread-safe.
#ifndef PYRAMID_REFEREE_SERVICE_HEALTH_SERVICE_H_
#define PYRAMID_REFEREE_SERVICE_HEALTH_SERVICE_H_

#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "referee/service/peer_counts.h"
#include "referee/service/write_stall.h"

namespace pyramid {

class HealthService final : public grpc::health::v1::Health::Service {
 public:
  using Status = grpc::health::v1::HealthCheckResponse::ServingStatus;

  static constexpr size_t kDefaultMaxWatchers = 10000;
  static constexpr size_t kDefaultMaxWatchersPerPeer = 100;
  static constexpr size_t kDefaultMaxChecksPerPeer = 100;

  // `services`: the full names of the services the server serves.
  // `limit_name`, when not empty, is what sets `max_watchers` (a flag, e.g.
  // "--max_health_watchers"), named in the refusal of one stream more.
  // `stalls` (null: none; else it must outlive the calls) cancels calls
  // whose writes stall (WriteStall).
  explicit HealthService(std::vector<std::string> services,
                         size_t max_watchers = kDefaultMaxWatchers,
                         std::string limit_name = "",
                         WriteStallGuard* stalls = nullptr);

  // Serves at most `limit` (at least 1) Watch streams of one IP address at
  // once (PeerCounts groups addresses), from now (streams already served
  // stay); kDefaultMaxWatchersPerPeer until called. `limit_name`, when not
  // empty, is what sets it (a flag), named in the refusal of one stream
  // more.
  void LimitWatchersPerPeer(size_t limit, std::string limit_name);
  // The same for Check calls in progress (from their headers until their
  // answer is taken); kDefaultMaxChecksPerPeer until called.
  void LimitChecksPerPeer(size_t limit, std::string limit_name);

  // Every known service (and "") turns SERVING or NOT_SERVING; watchers are
  // told.
  void SetServing(bool serving);

  // The base's generated synchronous methods (each answers UNIMPLEMENTED)
  // are never called: the constructor registers StartCheck and StartWatch
  // in their place.

 private:
  class Watcher;

  // A Check (Watch) call at its headers: its reactor.
  grpc::ServerBidiReactor<grpc::ByteBuffer,
                          grpc::health::v1::HealthCheckResponse>*
  StartCheck(grpc::CallbackServerContext* context);
  grpc::ServerBidiReactor<grpc::ByteBuffer,
                          grpc::health::v1::HealthCheckResponse>*
  StartWatch(grpc::CallbackServerContext* context);
  // A Watch call once its request has come.
  grpc::ServerWriteReactor<grpc::health::v1::HealthCheckResponse>* Watch(
      grpc::CallbackServerContext* context, grpc::ByteBuffer* raw);

  // A limit per IP address, and what sets it (a flag; empty: unnamed).
  struct PeerLimit {
    size_t limit;
    std::string name;
  };

  // Check's answer for `service` now: OK with `response` filled, or
  // NOT_FOUND.
  grpc::Status Answer(const std::string& service,
                      grpc::health::v1::HealthCheckResponse* response) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The status of `service` now.
  Status StatusOf(const std::string& service) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The status of the service `known` names (an element of services_), or
  // of an unknown one (null).
  Status StatusOf(const std::string* known) const
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::set<std::string> services_;  // With "".
  const size_t max_watchers_;
  const std::string limit_name_;
  WriteStallGuard* const stalls_;
  mutable absl::Mutex mu_;
  bool serving_ ABSL_GUARDED_BY(mu_) = true;
  std::set<Watcher*> watchers_ ABSL_GUARDED_BY(mu_);
  PeerLimit watchers_per_peer_ ABSL_GUARDED_BY(mu_) = {
      kDefaultMaxWatchersPerPeer, ""};
  PeerLimit checks_per_peer_ ABSL_GUARDED_BY(mu_) = {kDefaultMaxChecksPerPeer,
                                                     ""};
  // Watch streams and Check calls in progress per address, each held by
  // its call's reactor (one_request.h) from its headers until done.
  PeerCounts watch_peers_;
  PeerCounts check_peers_;
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_HEALTH_SERVICE_H_
