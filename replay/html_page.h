// The match viewer page (`replay html`): one self-contained HTML file per
// log, with inline CSS, SVG and a small script, and no reference to
// anything outside it. At the top, the verifier's verdict (GENUINE, or NOT
// GENUINE with the reason and the record). Then the match step by step
// (replay/match_steps.h): the position as the game's picture
// (replay/picture.h) and, beside it, the decision that led there
// (replay/step_panel.h); a slider, buttons and the arrow keys move through
// the steps, and the URL's "#step=N" (or "#step=last") opens step N. At
// the end, ranks and scores. A log that does not verify is shown as far as
// it can be read; one that cannot be read at all gives a page with the
// verdict and no step.
//
// Every string from the log is escaped. The same log and options give the
// same bytes. Each distinct picture part is stored once (in an inert
// <template>; the steps list which parts they draw), so the page grows with
// what changes, not with the number of steps, and the shapes a game's
// picture repeats are drawn once (its GamePicture::defs, in a hidden <svg>
// the parts <use>).
#ifndef PYRAMID_REPLAY_HTML_PAGE_H_
#define PYRAMID_REPLAY_HTML_PAGE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "replay/verifier.h"

namespace pyramid {

struct MatchPage {
  std::string html;
  Verdict verdict;   // VerifyLog's verdict on the log.
  size_t steps = 0;  // Steps the page shows (0 when none could be read).
};

// Verifies `file` (a whole log) with `options` and renders its page; the
// rules are replayed once for both when the log is genuine
// (VerifyAndReadMatchSteps).
MatchPage RenderMatchPage(std::string_view file, const VerifyOptions& options);
// The same, `file` being the first bytes of a file of `file_size` bytes
// (ReadLog's, replay/log_file.h: LogFile::bytes() and file_size()), or all
// of it; 0 when its size is not known. A record or bytes after the seal are
// then said as `replay verify` says them, with how many bytes follow the
// seal ("record after the seal (N bytes follow it, from byte B to the end
// of the file)", VerifyLog's file_size overload); the page is otherwise the
// same.
MatchPage RenderMatchPage(std::string_view file, uint64_t file_size,
                          const VerifyOptions& options);

}  // namespace pyramid

#endif  // PYRAMID_REPLAY_HTML_PAGE_H_
