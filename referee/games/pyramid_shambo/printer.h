// `replay show` lines for Pyramid Shambo: who challenged whom, the throws,
// the fee, every payment and exchange with colours, eliminations and
// bonuses, and every seat's holding after each turn.
#ifndef PYRAMID_REFEREE_GAMES_PYRAMID_SHAMBO_PRINTER_H_
#define PYRAMID_REFEREE_GAMES_PYRAMID_SHAMBO_PRINTER_H_

#include <ostream>

#include "pyramid/referee/v1/log.pb.h"

namespace pyramid {

void PrintPyramidShamboView(const referee::v1::Observation& view,
                            std::ostream& out);
void PrintPyramidShamboApplied(const referee::v1::Applied& applied,
                               std::ostream& out);

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_GAMES_PYRAMID_SHAMBO_PRINTER_H_
