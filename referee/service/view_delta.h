// Watch's incremental public views (referee_service.proto, ViewDelta): the
// delta between two public views of one match, and its application, which
// every watcher performs (the rule is in the proto, for clients in any
// language; this is the reference).
//
// The delta works on the top-level fields of the game's observation message
// (e.g. RockPaperPyramidObservation) by reflection, so it needs nothing from
// any game: a field that did not change is not sent, a repeated field that
// only grew at its end sends just its new elements, and anything else that
// changed is sent whole. What a delta holds is taken from the newer view
// only, so it says nothing that view does not.
#ifndef PYRAMID_REFEREE_SERVICE_VIEW_DELTA_H_
#define PYRAMID_REFEREE_SERVICE_VIEW_DELTA_H_

#include <optional>

#include "absl/status/status.h"
#include "pyramid/referee/v1/referee_service.pb.h"

namespace pyramid {

namespace v1 = ::pyramid::referee::v1;

// The delta that turns `before` into `after` (an empty `before`: a delta
// that sets every field of `after`). `decision_id` is copied into it.
v1::ViewDelta DiffViews(const v1::Observation& before,
                        const v1::Observation& after, uint64_t decision_id);

// Applies `delta` to `view` as the proto says. INVALID_ARGUMENT (with
// `view` unspecified) when the delta names a field its game's observation
// does not have, or appends to a field that is not repeated.
absl::Status ApplyViewDelta(const v1::ViewDelta& delta, v1::Observation* view);

// What a watcher knows of a match, followed through its Watch events as
// referee_service.proto says (a snapshot replaces everything; a delta
// changes the view and closes the decision it applied; a decision opens,
// a commit adds its seat). The reference for clients, and for tests.
class WatchedMatch {
 public:
  // INVALID_ARGUMENT for a delta that does not apply.
  absl::Status Apply(const v1::WatchEvent& event);

  // The state as a WatchSnapshot sent now would give it.
  const v1::WatchSnapshot& state() const { return state_; }
  // The public view (empty until the seed decision was applied).
  const v1::Observation& view() const { return state_.view().view(); }
  int snapshots() const { return snapshots_; }
  bool ended() const { return outcome_.has_value(); }

 private:
  v1::WatchSnapshot state_;
  int snapshots_ = 0;
  std::optional<v1::Outcome> outcome_;
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_VIEW_DELTA_H_
