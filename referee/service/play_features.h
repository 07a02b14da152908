// The Play stream features (docs/protocol.md, "Play stream features"): the
// Play call's metadata key under which a client lists, comma-separated, the
// features it opts into, and the names of the features this referee knows.
// The server reads them (play_stream.cc); clients send them (tools/bot,
// tools/bench_load). Names only, no gRPC: a client includes this header
// without the service's.
#ifndef PYRAMID_REFEREE_SERVICE_PLAY_FEATURES_H_
#define PYRAMID_REFEREE_SERVICE_PLAY_FEATURES_H_

namespace pyramid {

// The metadata key.
inline constexpr char kPlayFeatures[] = "pyramid-play-features";
// A DecisionRequest that would repeat the view its seat's DecisionResult
// just carried leaves it out (observation_in_result).
inline constexpr char kObservationOnce[] = "observation-once";
// The referee may send many PlayResponses as one (PlayResponse.batch).
inline constexpr char kBatch[] = "batch";

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_PLAY_FEATURES_H_
