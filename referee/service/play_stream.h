// One Play call (docs/protocol.md): authenticates its client by its token
// (a seat's or a bot's; the admin token plays no seat), attaches the stream
// to the lobby's connections under the principal's route, through which its
// matches send to it, resumes the principal's seats, and routes each commit
// and reveal it reads to its match's MatchHost. A seat token's stream ends
// OK once its match's MatchEnded is written, or DATA_LOSS once the
// PlayError saying that its match broke is (MatchHost closes it); a bot's
// stream stays open for the bot's other matches. Every message refused (one
// that does not parse, names an unknown match or a seat the token does not
// play, or that its match refuses outright) is answered with a PlayError
// and counted against the stream's flood limit (FloodGuard); past it the
// stream is closed RESOURCE_EXHAUSTED. The features the client opts into
// (kPlayFeatures) are read when the call comes: "observation-once", and
// "batch" (writes that carry many messages, acknowledgements taken late
// and, on a bot's stream, lingers: PlayWriter in play_stream.cc).
#ifndef PYRAMID_REFEREE_SERVICE_PLAY_STREAM_H_
#define PYRAMID_REFEREE_SERVICE_PLAY_STREAM_H_

#include "referee/service/async_stream.h"
#include "referee/service/delayed_runner.h"
#include "referee/service/lobby.h"
#include "referee/service/referee_service.h"
#include "referee/service/write_stall.h"

namespace pyramid {

// A stream that waits for the next Play call (AsyncBidiStream::Request),
// then serves it; it deletes itself when done. `lobby`, `limits` and
// `linger` (the runner that ends a bot's batch stream's lingers; null: no
// linger) are the service's, and must outlive the stream: the service
// stops its completion queues (CompletionQueues::Shutdown) before they go.
// `stalls` (null: none) cancels a stream whose write stays in flight for its
// timeout (WriteStall); it too must outlive the stream.
AsyncBidiStream* NewPlayStream(Lobby* lobby, const ServiceLimits& limits,
                               DelayedRunner* linger, WriteStallGuard* stalls);

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_PLAY_STREAM_H_
