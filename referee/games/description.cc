#include "referee/games/description.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"

namespace pyramid {
namespace {

using ::google::protobuf::FieldDescriptor;
using ::google::protobuf::Message;
using ::google::protobuf::Reflection;

// The value of `option` in `options` (the game's options message), checked.
absl::StatusOr<uint32_t> ResolveOne(const GameDescription& game,
                                    const OptionDescription& option,
                                    const Message& options) {
  const FieldDescriptor* field =
      options.GetDescriptor()->FindFieldByName(std::string(option.name));
  const Reflection& reflection = *options.GetReflection();
  const std::string name(option.name);
  switch (option.kind) {
    case OptionDescription::Kind::kBool:
      return reflection.GetBool(options, field) ? 1u : 0u;
    case OptionDescription::Kind::kEnum: {
      const int number = reflection.GetEnumValue(options, field);
      if (number == 0) return option.default_value;
      if (field->enum_type()->FindValueByNumber(number) == nullptr) {
        return RefuseAction(game,
                            absl::StrCat("unknown ", name, " value ", number));
      }
      return static_cast<uint32_t>(number);
    }
    case OptionDescription::Kind::kUint: {
      const bool set = field->has_presence()
                           ? reflection.HasField(options, field)
                           : reflection.GetUInt32(options, field) != 0;
      if (!set) return option.default_value;
      const uint32_t value = reflection.GetUInt32(options, field);
      if (value < option.min) {
        return RefuseAction(game, absl::StrCat(name, " must be at least ",
                                               option.min, ", not ", value));
      }
      if (value > option.max) {
        return RefuseAction(
            game, absl::StrCat(name, " ", value, " is above ", option.max));
      }
      return value;
    }
  }
  return RefuseAction(game, absl::StrCat("option ", name, " has no kind"));
}

std::string Range(const OptionDescription& option) {
  switch (option.kind) {
    case OptionDescription::Kind::kBool:
      return "bool, default false";
    case OptionDescription::Kind::kEnum:
      return absl::StrCat("enum, 0 = ", option.default_value);
    case OptionDescription::Kind::kUint:
      return absl::StrCat(option.min, " to ", option.max,
                          ", unset = ", option.default_value);
  }
  return "";
}

}  // namespace

absl::Status RefuseAction(const GameDescription& game, std::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat(std::string(game.id), ": ", std::string(why)));
}

uint32_t GameDescription::oldest_rules_version() const {
  return rules_versions.front().version;
}

uint32_t GameDescription::latest_rules_version() const {
  return rules_versions.back().version;
}

absl::StatusOr<OptionValues> ResolveOptions(const GameDescription& description,
                                            const v1::GameConfig& config) {
  if (!config.game().empty() && config.game() != description.id) {
    return RefuseAction(
        description, absl::StrCat("config names game \"", config.game(), "\""));
  }
  const FieldDescriptor* own = v1::GameConfig::descriptor()->FindFieldByName(
      std::string(description.id));
  const Reflection& reflection = *config.GetReflection();
  if (config.options_case() != v1::GameConfig::OPTIONS_NOT_SET &&
      (own == nullptr || !reflection.HasField(config, own))) {
    return RefuseAction(description, "options belong to another game");
  }
  const Message& options = reflection.GetMessage(config, own);
  OptionValues values;
  for (const OptionDescription& option : description.options) {
    absl::StatusOr<uint32_t> value = ResolveOne(description, option, options);
    if (!value.ok()) return value.status();
    values.emplace(std::string(option.name), *value);
  }
  return values;
}

std::string SeatCounts(const GameDescription& description) {
  if (description.min_seats == description.max_seats) {
    return absl::StrCat(description.min_seats);
  }
  return absl::StrCat(description.min_seats, " to ", description.max_seats);
}

std::vector<std::string> OptionHelp(const GameDescription& description) {
  std::vector<std::string> lines;
  for (const OptionDescription& option : description.options) {
    lines.push_back(absl::StrCat(std::string(option.name), " (", Range(option),
                                 "): ", std::string(option.help)));
  }
  return lines;
}

}  // namespace pyramid
