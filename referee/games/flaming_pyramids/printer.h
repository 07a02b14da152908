// `replay show` lines for Flaming Pyramids: the table drawn as rows of tiles
// (colour and weight) after each turn, and every mayhem event in order with
// where each tile went.
#ifndef PYRAMID_REFEREE_GAMES_FLAMING_PYRAMIDS_PRINTER_H_
#define PYRAMID_REFEREE_GAMES_FLAMING_PYRAMIDS_PRINTER_H_

#include <ostream>

#include "pyramid/referee/v1/log.pb.h"

namespace pyramid {

void PrintFlamingPyramidsView(const referee::v1::Observation& view,
                              std::ostream& out);
void PrintFlamingPyramidsApplied(const referee::v1::Applied& applied,
                                 std::ostream& out);

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_GAMES_FLAMING_PYRAMIDS_PRINTER_H_
