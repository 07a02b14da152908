// The DecisionRequest a seat receives for an open decision, built from a
// rules State with the referee's own NewDecisionRequest
// (referee/service/decision_request.h):
// for running strategies in process (the arena, tests) on exactly what a
// remote bot would see.
#ifndef PYRAMID_TOOLS_BOT_DECISION_REQUEST_H_
#define PYRAMID_TOOLS_BOT_DECISION_REQUEST_H_

#include <cstdint>
#include <string>

#include "pyramid/referee/v1/referee_service.pb.h"
#include "referee/games/game.h"

namespace pyramid {

// The request for `seat`, which must be acting in `state` (not terminal),
// in decision `decision_id` (>= 1: the seed decision is never built here)
// of match `match_id` playing game `game`. No deadline, not committed.
v1::DecisionRequest DecisionRequestFor(const State& state,
                                       const std::string& game,
                                       const std::string& match_id,
                                       uint64_t decision_id, int seat);

}  // namespace pyramid

#endif  // PYRAMID_TOOLS_BOT_DECISION_REQUEST_H_
