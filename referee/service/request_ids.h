// The CreateMatchRequest.request_ids of the matches a Lobby is creating or
// running (proto: CreateMatchRequest.request_id): a request_id is reserved
// while its match is being created, so that a concurrent retry waits
// instead of creating a second one, then names the running match, so that
// a retry is answered with it. Those of ended matches are the registry's.
// Thread-safe.
#ifndef PYRAMID_REFEREE_SERVICE_REQUEST_IDS_H_
#define PYRAMID_REFEREE_SERVICE_REQUEST_IDS_H_

#include <cstddef>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"

namespace pyramid {

class RequestIds {
 public:
  // Reserves `request_id` for a match about to be created and returns ""
  // when nothing holds it; returns the match it names, reserving nothing,
  // when it names one. UNAVAILABLE (try again) while it is reserved.
  absl::StatusOr<std::string> Reserve(const std::string& request_id);
  // Reserves `request_id` when nothing holds it or it names `match_id` (a
  // match that will never be played: a retry takes its request_id over);
  // UNAVAILABLE, as Reserve, when it is reserved or names another match.
  absl::Status TakeOver(const std::string& request_id,
                        const std::string& match_id);
  // Frees `request_id` if it is reserved (its match was not created).
  void Release(const std::string& request_id);
  // `request_id` names `match_id` now (reserved or not before).
  void Name(const std::string& request_id, const std::string& match_id);
  // Forgets `request_id` if it names `match_id` (whose end the registry
  // recorded: it answers for it from then on).
  void Forget(const std::string& request_id, const std::string& match_id);
  // How many request_ids are reserved or name a match.
  size_t size() const;

 private:
  mutable absl::Mutex mu_;
  // request_id -> the match it names; "" while reserved.
  absl::flat_hash_map<std::string, std::string> ids_ ABSL_GUARDED_BY(mu_);
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_REQUEST_IDS_H_
