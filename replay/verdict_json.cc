#include "replay/verdict_json.h"

#include <cstdint>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_replace.h"
#include "google/protobuf/util/json_util.h"
#include "referee/crypto/bytes.h"

namespace pyramid {
namespace {

constexpr char32_t kReplacement = 0xFFFD;

// The code point of the valid UTF-8 sequence that starts `text` (not
// empty) and its length in bytes; a length of 0 when none starts it.
std::pair<char32_t, size_t> DecodeUtf8(absl::string_view text) {
  const auto byte = [&](size_t i) { return static_cast<uint8_t>(text[i]); };
  const uint8_t lead = byte(0);
  if (lead < 0x80) return {lead, 1};
  size_t length = 0;
  char32_t code = 0, least = 0;
  if ((lead & 0xE0) == 0xC0) {
    length = 2, code = lead & 0x1F, least = 0x80;
  } else if ((lead & 0xF0) == 0xE0) {
    length = 3, code = lead & 0x0F, least = 0x800;
  } else if ((lead & 0xF8) == 0xF0) {
    length = 4, code = lead & 0x07, least = 0x10000;
  } else {
    return {0, 0};  // A continuation byte, or no UTF-8 lead byte at all.
  }
  if (text.size() < length) return {0, 0};
  for (size_t i = 1; i < length; ++i) {
    if ((byte(i) & 0xC0) != 0x80) return {0, 0};
    code = code << 6 | (byte(i) & 0x3F);
  }
  // Overlong, a surrogate, or past Unicode.
  if (code < least || (code >= 0xD800 && code <= 0xDFFF) || code > 0x10FFFF) {
    return {0, 0};
  }
  return {code, length};
}

void AppendEscaped(char32_t code, std::string& out) {
  switch (code) {
    case '"':
      out += "\\\"";
      return;
    case '\\':
      out += "\\\\";
      return;
    case '\b':
      out += "\\b";
      return;
    case '\f':
      out += "\\f";
      return;
    case '\n':
      out += "\\n";
      return;
    case '\r':
      out += "\\r";
      return;
    case '\t':
      out += "\\t";
      return;
  }
  if (code >= 0x20 && code < 0x7F) {
    out += static_cast<char>(code);
  } else if (code <= 0xFFFF) {
    absl::StrAppendFormat(&out, "\\u%04x", static_cast<uint32_t>(code));
  } else {
    const uint32_t above = code - 0x10000;
    absl::StrAppendFormat(&out, "\\u%04x\\u%04x", 0xD800 + (above >> 10),
                          0xDC00 + (above & 0x3FF));
  }
}

// The verdict's name (VerdictKindName) as one JSON word: "genuine",
// "unsealed_prefix", "not_genuine".
std::string VerdictName(Verdict::Kind kind) {
  return absl::StrReplaceAll(VerdictKindName(kind), {{" ", "_"}});
}

// The outcome as protobuf's JSON printer writes it: the proto's field
// names, every field (a rank, score 0, forfeited false) written.
std::string OutcomeJson(const referee::v1::Outcome& outcome) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.always_print_primitive_fields = true;
  std::string json;
  if (!google::protobuf::util::MessageToJsonString(outcome, &json, options)
           .ok()) {
    return "null";  // Not expected of a message we hold; never half a value.
  }
  return json;
}

std::string SeatsJson(const referee::v1::Header& header) {
  std::string json;
  for (const auto& seat : header.seats()) {
    JsonObject object;
    object.String("name", seat.name());
    if (seat.public_key().empty()) {
      object.Null("key");
    } else {
      object.String("key", ToHex(seat.public_key()));
    }
    absl::StrAppend(&json, json.empty() ? "" : ",", object.Text());
  }
  return absl::StrCat("[", json, "]");
}

std::string CheckpointJson(const tlog::Checkpoint& checkpoint) {
  return JsonObject()
      .String("origin", checkpoint.origin)
      .Number("size", checkpoint.size)
      .String("root", ToHex(AsView(checkpoint.root)))
      .Text();
}

std::string ProofJson(const LogReport::Proof& proof) {
  JsonObject object;
  object.String("proof", proof.file)
      .Bool("checked", proof.checked)
      .Bool("key_pinned", proof.key_pinned);
  if (!proof.checked) return object.Text();
  object.Bool("included", proof.inclusion.has_value());
  if (proof.inclusion.has_value()) {
    object.Number("leaf", proof.inclusion->index)
        .Value("checkpoint", CheckpointJson(proof.inclusion->checkpoint));
  } else {
    object.String("reason", proof.failure);
  }
  return object.Text();
}

}  // namespace

std::string JsonString(absl::string_view text) {
  std::string out = "\"";
  out.reserve(text.size() + 2);
  while (!text.empty()) {
    auto [code, length] = DecodeUtf8(text);
    if (length == 0) code = kReplacement, length = 1;
    AppendEscaped(code, out);
    text.remove_prefix(length);
  }
  out += '"';
  return out;
}

JsonObject& JsonObject::Field(absl::string_view key, absl::string_view json) {
  absl::StrAppend(&fields_, fields_.empty() ? "" : ",", JsonString(key), ":",
                  json);
  return *this;
}

JsonObject& JsonObject::String(absl::string_view key, absl::string_view value) {
  return Field(key, JsonString(value));
}

JsonObject& JsonObject::Number(absl::string_view key, uint64_t value) {
  return Field(key, absl::StrCat(value));
}

JsonObject& JsonObject::Bool(absl::string_view key, bool value) {
  return Field(key, value ? "true" : "false");
}

JsonObject& JsonObject::Null(absl::string_view key) {
  return Field(key, "null");
}

JsonObject& JsonObject::Value(absl::string_view key, absl::string_view json) {
  return Field(key, json);
}

std::string JsonStrings(const std::vector<std::string>& strings) {
  std::string json;
  for (const std::string& s : strings) {
    absl::StrAppend(&json, json.empty() ? "" : ",", JsonString(s));
  }
  return absl::StrCat("[", json, "]");
}

std::string LogReportJson(const LogReport& report) {
  JsonObject object;
  object.String("file", report.file);
  if (report.unreadable.has_value()) {
    return object.String("verdict", "unreadable")
        .Bool("ok", false)
        .String("reason", *report.unreadable)
        .Text();
  }
  const Verdict& v = report.verdict;
  const bool chain = report.level == VerifyOptions::Level::kChain;
  object.String("verdict", VerdictName(v.kind))
      .Bool("ok", report.ok)
      .String("level", chain ? "chain" : "full");
  if (v.kind == Verdict::Kind::kNotGenuine) {
    // The header, not vouched for, is not shown: only why.
    object.Number("record", v.bad_record)
        .String("reason", v.reason)
        .Bool("signature_failed", v.signature_failed);
  } else {
    if (v.kind == Verdict::Kind::kUnsealedPrefix) {
      object.String("reason", v.reason);
    }
    object.String("match_id", ToHex(v.header.match_id()))
        .String("game", v.header.game().game())
        .String("label", v.header.label())
        .String("referee_key", ToHex(v.header.referee_public_key()))
        .Bool("key_pinned", !v.key_from_header)
        .Number("records", v.records)
        .Number("signed_records", v.signed_records);
    const bool full_genuine = v.kind == Verdict::Kind::kGenuine && !chain;
    if (full_genuine) object.Number("moves", v.moves);
    if (v.kind == Verdict::Kind::kGenuine) {
      object.Value("outcome", OutcomeJson(v.outcome));
    }
    object.Value("seats", SeatsJson(v.header));
    if (full_genuine) {
      object.Number("seats_naming_header", v.seats_naming_header)
          .Number("keyed_seats_naming_header", v.keyed_seats_naming_header);
    }
  }
  if (report.roster) {
    object.Bool("seats_match_roster", report.seats_match_roster);
  }
  if (report.proof.has_value()) {
    object.Value("inclusion", ProofJson(*report.proof));
  }
  return object.Text();
}

std::string TournamentVerdictJson(const std::string& dir,
                                  const TournamentVerdict& verdict,
                                  bool roster) {
  const bool ok = verdict.problems.empty();
  JsonObject object;
  object.String("dir", dir)
      .Bool("ok", ok)
      .String("summary", verdict.summary)
      .Number("problem_count", verdict.problem_count)
      .Value("problems", JsonStrings(verdict.problems))
      .Value("notes", JsonStrings(verdict.notes))
      .Number("matches", verdict.matches);
  // Opened, a checkpoint names its origin.
  if (verdict.checkpoint.origin.empty()) {
    object.Null("checkpoint");
  } else {
    object.Value("checkpoint", CheckpointJson(verdict.checkpoint));
  }
  if (verdict.matches > 0) {
    object.Number("first_leaf", verdict.first_leaf)
        .Number("last_leaf", verdict.last_leaf);
  }
  object.String("name", verdict.name)
      .String("run_id", verdict.run_id)
      .String("game", verdict.game);
  if (verdict.referee_key.empty()) {
    object.Null("referee_key");
  } else {
    object.String("referee_key", ToHex(verdict.referee_key));
  }
  if (verdict.referee_key_files.empty()) {
    object.Null("referee_key_files");
  } else {
    object.String("referee_key_files", verdict.referee_key_files);
  }
  // Which referee the tree-size check took it to be (null: not known) and
  // whose word that is: "flag" (--referee) or "directory" (its key files).
  if (verdict.referee.empty()) {
    object.Null("referee");
  } else {
    object.String("referee", verdict.referee);
  }
  object.String("referee_from", verdict.referee_from);
  // As the text line: said only of a directory that checks out.
  if (roster && ok) {
    object.Number("seats_matching_roster", verdict.seats_matching_roster);
  }
  return object.Text();
}

}  // namespace pyramid
