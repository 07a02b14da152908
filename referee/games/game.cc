#include "referee/games/game.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "referee/games/wire_scanner.h"

namespace pyramid {

absl::StatusOr<v1::Result> State::Apply(absl::Span<const SeatAction> actions) {
  v1::Result result;
  if (absl::Status s = ApplyPrevalidated(actions, 0, result); !s.ok()) return s;
  return result;
}

absl::Status State::ApplyPrevalidated(absl::Span<const SeatAction> actions,
                                      uint64_t prevalidated,
                                      v1::Result& result) {
  const std::vector<int> acting = ActingSeats();
  if (acting.empty()) return absl::FailedPreconditionError("game is over");
  if (actions.size() != acting.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "expected ", acting.size(), " actions, got ", actions.size()));
  }
  for (size_t i = 0; i < actions.size(); ++i) {
    if (actions[i].seat != acting[i]) {
      return absl::FailedPreconditionError(
          absl::StrCat("seat ", actions[i].seat, " is not acting here"));
    }
    if (i < 64 && (prevalidated >> i & 1) != 0) continue;
    absl::Status status = ValidateAction(actions[i].seat, actions[i].action);
    if (!status.ok()) return status;
  }
  DoApply(actions, result);
  return absl::OkStatus();
}

bool State::IsActing(int seat) const {
  const std::vector<int> acting = ActingSeats();
  return std::find(acting.begin(), acting.end(), seat) != acting.end();
}

absl::Status State::ValidateAction(int seat, const v1::Action& action) const {
  if (!IsActing(seat)) {
    const std::string id(description_->id);
    return absl::FailedPreconditionError(
        IsTerminal() ? absl::StrCat(id, ": the game is over")
                     : absl::StrCat(id, ": seat ", seat, " is not acting"));
  }
  if (action.kind_case() != description_->action_kind) {
    return Refuse(
        absl::StrCat("not a ", std::string(description_->id), " action"));
  }
  return DoValidateAction(seat, action);
}

std::string DeterministicBytes(const google::protobuf::MessageLite& message) {
  std::string bytes;
  google::protobuf::io::StringOutputStream stream(&bytes);
  google::protobuf::io::CodedOutputStream coded(&stream);
  coded.SetSerializationDeterministic(true);
  message.SerializeToCodedStream(&coded);
  coded.Trim();
  return bytes;
}

void SortByBytes(google::protobuf::RepeatedPtrField<v1::Action>& actions,
                 bool unique) {
  std::vector<std::pair<std::string, v1::Action*>> keyed;
  keyed.reserve(actions.size());
  for (auto it = actions.pointer_begin(); it != actions.pointer_end(); ++it) {
    keyed.emplace_back(DeterministicBytes(**it), *it);
  }
  // std::string compares as unsigned char, as required.
  std::sort(keyed.begin(), keyed.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  // The field owns every action: only their order changes, repeats going
  // last, where RemoveLast drops them.
  std::vector<v1::Action*> repeats;
  auto place = actions.pointer_begin();
  for (size_t i = 0; i < keyed.size(); ++i) {
    if (unique && i > 0 && keyed[i].first == keyed[i - 1].first) {
      repeats.push_back(keyed[i].second);
    } else {
      *place++ = keyed[i].second;
    }
  }
  for (v1::Action* repeat : repeats) *place++ = repeat;
  for (size_t i = 0; i < repeats.size(); ++i) actions.RemoveLast();
}

absl::StatusOr<v1::Action> ParseSeatAction(std::string_view bytes) {
  v1::Action action;
  if (!action.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return absl::InvalidArgumentError("the action does not parse");
  }
  // The scan settles almost every action; when it cannot rule unknown
  // fields out, DiscardUnknownFields, which recurses into every
  // submessage, decides: a size change means some level held a field the
  // protocol does not define.
  static const WireScanner& scanner =
      WireScanner::For(v1::Action::descriptor());
  if (!scanner.MayHoldUnknownFields(bytes)) return action;
  v1::Action known = action;
  known.DiscardUnknownFields();
  if (known.ByteSizeLong() != action.ByteSizeLong()) {
    return absl::InvalidArgumentError(
        "the action holds fields the protocol does not define");
  }
  return action;
}

absl::StatusOr<std::unique_ptr<State>> Game::NewInitialState(
    int num_seats, RandomStream stream) const {
  if (num_seats < min_seats() || num_seats > max_seats()) {
    return RefuseAction(description_,
                        absl::StrCat("needs ", SeatCounts(description_),
                                     " seats, got ", num_seats));
  }
  return DoNewInitialState(num_seats, std::move(stream));
}

v1::Observation State::ObservationFor(int seat) const {
  v1::Observation observation;
  ObservationInto(seat, observation);
  return observation;
}

void State::ObservationInto(int seat, v1::Observation& observation) const {
  if (seat < 0 || seat >= num_seats()) {
    PublicViewInto(observation);
    return;
  }
  observation.set_seat(static_cast<uint32_t>(seat));
  ViewInto(seat, observation);
}

void State::PublicViewInto(v1::Observation& observation) const {
  observation.set_public_view(true);
  ViewInto(std::nullopt, observation);
}

v1::Observation State::PublicView() const {
  v1::Observation observation;
  PublicViewInto(observation);
  return observation;
}

std::vector<v1::Action> State::LegalActions(int seat) const {
  google::protobuf::RepeatedPtrField<v1::Action> listed;
  LegalActionsInto(seat, listed);
  std::vector<v1::Action> actions;
  actions.reserve(listed.size());
  for (v1::Action& action : listed) actions.push_back(std::move(action));
  return actions;
}

std::optional<v1::Action> State::SoleLegalAction(int seat) const {
  const std::vector<int> acting = ActingSeats();
  if (acting.size() != 1 || acting[0] != seat) return std::nullopt;
  std::vector<v1::Action> legal = LegalActions(seat);
  if (legal.size() != 1) return std::nullopt;
  return legal[0];
}

std::vector<uint32_t> CompetitionRanks(absl::Span<const int64_t> keys) {
  std::vector<uint32_t> ranks(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    uint32_t better = 0;
    for (int64_t other : keys) better += other < keys[i] ? 1 : 0;
    ranks[i] = better + 1;
  }
  return ranks;
}

v1::Outcome OutcomeByKeys(absl::Span<const int64_t> keys,
                          absl::Span<const int32_t> scores,
                          v1::Termination termination) {
  const std::vector<uint32_t> ranks = CompetitionRanks(keys);
  v1::Outcome outcome;
  outcome.set_termination(termination);
  for (size_t i = 0; i < scores.size(); ++i) {
    v1::SeatOutcome* seat = outcome.add_seats();
    seat->set_rank(ranks[i]);
    seat->set_score(scores[i]);
  }
  return outcome;
}

v1::Outcome OutcomeByScore(absl::Span<const int32_t> scores,
                           v1::Termination termination) {
  std::vector<int64_t> keys;
  for (int32_t score : scores) keys.push_back(-int64_t{score});
  return OutcomeByKeys(keys, scores, termination);
}

absl::Status CheckRulesVersion(const GameDescription& game, uint32_t asked) {
  const uint32_t oldest = game.oldest_rules_version();
  const uint32_t latest = game.latest_rules_version();
  if (asked == 0 || (asked >= oldest && asked <= latest)) {
    return absl::OkStatus();
  }
  return absl::UnimplementedError(absl::StrCat(
      "rules version ", asked, " of ", std::string(game.id),
      " is not implemented (this build implements ",
      oldest == latest ? absl::StrCat("version ", latest)
                       : absl::StrCat("versions ", oldest, " to ", latest),
      ")"));
}

absl::StatusOr<ResolvedConfig> ResolveConfig(const GameDescription& description,
                                             const v1::GameConfig& config,
                                             uint32_t rules_version) {
  if (absl::Status s = CheckRulesVersion(description, rules_version); !s.ok()) {
    return s;
  }
  absl::StatusOr<OptionValues> options = ResolveOptions(description, config);
  if (!options.ok()) return options.status();
  return ResolvedConfig{
      .options = *std::move(options),
      .rules_version = rules_version == 0 ? description.latest_rules_version()
                                          : rules_version};
}

absl::StatusOr<std::unique_ptr<Game>> MakeGameOf(
    const GameDescription& description, const v1::GameConfig& config,
    uint32_t rules_version) {
  absl::StatusOr<ResolvedConfig> resolved =
      ResolveConfig(description, config, rules_version);
  if (!resolved.ok()) return resolved.status();
  return description.make(resolved->options, resolved->rules_version);
}

}  // namespace pyramid
