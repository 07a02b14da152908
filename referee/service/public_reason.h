// What the referee says in public of why a match broke (public_reason.cc).
#ifndef PYRAMID_REFEREE_SERVICE_PUBLIC_REASON_H_
#define PYRAMID_REFEREE_SERVICE_PUBLIC_REASON_H_

#include <string>

#include "absl/strings/string_view.h"

namespace pyramid {

// Why a match broke (`reason`, which names the files it failed on) as
// anyone may read it (MatchInfo.broken_reason, a seat's PlayError, a
// watcher's end): each file by its name only, without its directory. The
// directory of the log (`log_path`'s, as given and absolute) is left out
// wherever it appears, and every other absolute path (a journal file, the
// data directory) keeps only its last component: where the referee keeps
// its files is the operator's business, said on the referee's stderr.
std::string PublicBrokenReason(absl::string_view reason,
                               absl::string_view log_path);

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_PUBLIC_REASON_H_
