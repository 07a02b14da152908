// `replay show` lines for Pyramid Scheme: every event of every move, and
// after each turn every seat's pyramid as an indented tree with the display.
#ifndef PYRAMID_REFEREE_GAMES_PYRAMID_SCHEME_PRINTER_H_
#define PYRAMID_REFEREE_GAMES_PYRAMID_SCHEME_PRINTER_H_

#include <ostream>

#include "pyramid/referee/v1/log.pb.h"

namespace pyramid {

void PrintPyramidSchemeView(const referee::v1::Observation& view,
                            std::ostream& out);
void PrintPyramidSchemeApplied(const referee::v1::Applied& applied,
                               std::ostream& out);

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_GAMES_PYRAMID_SCHEME_PRINTER_H_
