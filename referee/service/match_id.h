// The form of a match id as the referee writes it: kMatchIdSize bytes
// (referee/crypto/protocol.h) in lower-case hex. Checked before a match is
// looked up by an id a client sent, by the referee and by its clients (the
// tournament runner checks the ids the referee answers).
#ifndef PYRAMID_REFEREE_SERVICE_MATCH_ID_H_
#define PYRAMID_REFEREE_SERVICE_MATCH_ID_H_

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace pyramid {

// OK when `match_id` has a match id's form: 32 lower-case hex digits, as the
// referee writes them. Else INVALID_ARGUMENT saying so, in Play's words,
// without echoing an id of another length (a client may send megabytes).
// Every call that names a match by its id asks this before looking it up,
// so a malformed id is never taken for an unknown match.
absl::Status CheckMatchIdForm(absl::string_view match_id);

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_MATCH_ID_H_
