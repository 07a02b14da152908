#include "tools/tournament/header_check.h"

#include "absl/strings/str_cat.h"
#include "google/protobuf/text_format.h"
#include "referee/crypto/bytes.h"
#include "referee/games/printable_text.h"

namespace pyramid {

namespace v1 = ::pyramid::referee::v1;

namespace {

v1::ForfeitPolicy AsTaken(v1::ForfeitPolicy policy) {
  return policy == v1::FORFEIT_POLICY_UNSPECIFIED ? v1::FORFEIT_POLICY_FORFEIT
                                                  : policy;
}

std::string OneLine(const v1::GameConfig& game) {
  std::string text;
  google::protobuf::TextFormat::Printer printer;
  printer.SetSingleLineMode(true);
  printer.PrintToString(game, &text);
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

std::string KeyText(const std::string& key) {
  return key.empty() ? "no key" : absl::StrCat("key ", ToHex(key));
}

}  // namespace

std::string HeaderDiffers(const v1::Header& header,
                          const ExpectedMatch& expected) {
  if (!expected.match_id.empty() &&
      ToHex(header.match_id()) != expected.match_id) {
    return absl::StrCat("it is the log of match ", ToHex(header.match_id()),
                        ", not of match ", PrintableText(expected.match_id),
                        ", which the referee said it created");
  }
  if (header.game().SerializeAsString() != expected.game.SerializeAsString()) {
    return absl::StrCat("its game is {", OneLine(header.game()),
                        "}, not the tournament's {", OneLine(expected.game),
                        "}");
  }
  if (AsTaken(header.forfeit_policy()) != AsTaken(expected.forfeit_policy)) {
    return absl::StrCat(
        "its forfeit policy is ",
        v1::ForfeitPolicy_Name(AsTaken(header.forfeit_policy())),
        ", not the tournament's ",
        v1::ForfeitPolicy_Name(AsTaken(expected.forfeit_policy)));
  }
  if (header.label() != expected.label) {
    return absl::StrCat("its label is ", QuotedText(header.label()), ", not ",
                        QuotedText(expected.label));
  }
  if (header.seats_size() != static_cast<int>(expected.seats.size())) {
    return absl::StrCat("it has ", header.seats_size(), " seats, not ",
                        expected.seats.size());
  }
  for (int i = 0; i < header.seats_size(); ++i) {
    const v1::Seat& seat = header.seats(i);
    const ExpectedSeat& want = expected.seats[i];
    if (seat.name() != want.name) {
      return absl::StrCat("its seat ", i, " is ", QuotedText(seat.name()),
                          ", not ", QuotedText(want.name));
    }
    if (seat.public_key() != want.public_key) {
      return absl::StrCat("its seat ", i, " (", PrintableText(want.name),
                          ") has ", KeyText(seat.public_key()),
                          ", not the bot's ", KeyText(want.public_key));
    }
  }
  return "";
}

}  // namespace pyramid
