// One Watch call (docs/protocol.md): parses its request, checks that its
// caller may read matches (RefereeService::CheckReader), counts a
// spectator's (any caller but the admin token) against
// ServiceLimits::max_watchers and the match's max_watchers_per_match, and
// adds itself to the match's watchers (MatchHost::AddWatcher), whose
// events then reach it serialized, shared with the match's other watchers.
// A watcher that falls behind by more than ServiceLimits::watch_queue_bytes
// loses the events it has not been sent and gets a fresh snapshot instead.
#ifndef PYRAMID_REFEREE_SERVICE_WATCH_STREAM_H_
#define PYRAMID_REFEREE_SERVICE_WATCH_STREAM_H_

#include <atomic>
#include <cstddef>

#include "referee/service/async_stream.h"
#include "referee/service/lobby.h"
#include "referee/service/referee_service.h"

namespace pyramid {

// A stream that waits for the next Watch call (AsyncWriterStream::Request),
// then serves it; it deletes itself when done. From its call's start to its
// end a spectator's counts in `watching` (the service's count of Watch
// calls without the admin token).
// `service`, `lobby`, `limits` and `watching` must outlive the stream: the
// service stops its completion queues (CompletionQueues::Shutdown) before
// they go.
AsyncWriterStream* NewWatchStream(const RefereeService* service, Lobby* lobby,
                                  const ServiceLimits& limits,
                                  std::atomic<size_t>* watching);

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_WATCH_STREAM_H_
