// What the referee says in public of why a match broke (public_reason.cc).
#ifndef PYRAMID_REFEREE_SERVICE_PUBLIC_REASON_H_
#define PYRAMID_REFEREE_SERVICE_PUBLIC_REASON_H_

#include <string>
#include <vector>

#include "absl/strings/string_view.h"

namespace pyramid {

// Why a match broke (`reason`, which names the files it failed on) as
// anyone may read it (MatchInfo.broken_reason, a seat's PlayError, a
// watcher's end): each file by its name only, without its directory. The
// directory of the log (`log_path`'s) and the private directories (below),
// each as given and absolute, are left out wherever they appear, whatever
// characters they hold; every other absolute path keeps only its last
// component: where the referee keeps its files is the operator's
// business, said on the referee's stderr.
std::string PublicBrokenReason(absl::string_view reason,
                               absl::string_view log_path);

// The referee's directories besides its log directory whose paths a
// public reason leaves out, most specific first (the referee's start:
// DATA_DIR/journal, then DATA_DIR, which may be relative, as the reasons
// of its journal name them). Replaces those set before; thread-safe.
void SetPrivateDirectories(std::vector<std::string> dirs);

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_SERVICE_PUBLIC_REASON_H_
