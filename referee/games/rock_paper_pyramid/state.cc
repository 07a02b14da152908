#include "referee/games/rock_paper_pyramid/state.h"

#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace pyramid::rpp {

v1::Action PlayAction(int kind) {
  v1::Action action;
  PieceOfKind(kind, *action.mutable_rock_paper_pyramid()->mutable_piece());
  return action;
}

void RockPaperPyramidState::DealClassicPieces() {
  for (Pool& pool : pools_) {
    for (v1::RppColour colour : kClassicColours) {
      for (v1::RppSize size : kSizes) {
        pool[KindIndex(MakePiece(colour, size))] = true;
      }
    }
  }
}

// The game's only draw: shuffle [L, M, S]; seat i gets red of size i.
void RockPaperPyramidState::DealRedPieces(RandomStream& stream) {
  std::vector<v1::RppSize> sizes(kSizes.begin(), kSizes.end());
  stream.Shuffle(sizes);
  for (int seat = 0; seat < kNumSeats; ++seat) {
    pools_[seat][KindIndex(MakePiece(v1::RPP_RED, sizes[seat]))] = true;
  }
}

absl::Status RockPaperPyramidState::DoValidateAction(
    int seat, const v1::Action& action) const {
  const v1::RppPiece& piece = action.rock_paper_pyramid().piece();
  if (!IsKnownPiece(piece)) {
    return Refuse(absl::StrCat("unknown piece (colour ",
                               static_cast<int>(piece.colour()), ", size ",
                               static_cast<int>(piece.size()), ")"));
  }
  if (!pools_[seat][KindIndex(piece)]) {
    return Refuse(absl::StrCat("piece ", v1::RppColour_Name(piece.colour()),
                               " ", v1::RppSize_Name(piece.size()),
                               " is not in seat ", seat, "'s pool"));
  }
  return absl::OkStatus();
}

// Pool order is colour then size, which is also the order of the actions'
// serialized bytes: every field is present and one byte long.
void RockPaperPyramidState::LegalActionsInto(
    int seat, google::protobuf::RepeatedPtrField<v1::Action>& out) const {
  if (!IsActing(seat)) return;
  for (int kind = 0; kind < kNumKinds; ++kind) {
    if (!pools_[seat][kind]) continue;
    // PlayAction(kind), made in `out` (which may live on an arena).
    PieceOfKind(kind,
                *out.Add()->mutable_rock_paper_pyramid()->mutable_piece());
  }
}

// The first legal action: the seat's first piece in pool order.
v1::Action RockPaperPyramidState::DefaultAction(int seat) const {
  if (!IsActing(seat)) return v1::Action();  // Not acting: no default.
  for (int kind = 0; kind < kNumKinds; ++kind) {
    if (pools_[seat][kind]) return PlayAction(kind);
  }
  return v1::Action();  // Never: an acting seat holds a piece.
}

std::vector<int32_t> RockPaperPyramidState::Scores() const {
  std::vector<int32_t> scores;
  for (const Tally& tally : tallies_) scores.push_back(tally.score);
  return scores;
}

}  // namespace pyramid::rpp
