#include "replay/strict_json.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "google/protobuf/descriptor.h"

namespace pyramid {
namespace {

// Protobuf's JSON field name of `key` (ToJsonName): each '_' dropped and
// the letter after it capitalized, so that "run_id" and "runId" fold
// alike, as the parser reads both as one field.
std::string ProtoJsonName(std::string_view key) {
  std::string name;
  bool capitalize = false;
  for (const char c : key) {
    if (c == '_') {
      capitalize = true;
    } else {
      name.push_back(capitalize ? absl::ascii_toupper(c) : c);
      capitalize = false;
    }
  }
  return name;
}

using ::google::protobuf::Descriptor;
using ::google::protobuf::FieldDescriptor;

// What a JSON value must be, in the shape of a message (CheckJsonShape's
// contract): anything (kAny), an object of a message's fields (kMessage),
// an array of a repeated field's elements (kList), an object of a map
// field's values (kMap), or a value of a scalar field (kScalar).
struct JsonExpect {
  enum class Kind { kAny, kMessage, kList, kMap, kScalar };
  Kind kind = Kind::kAny;
  const Descriptor* message = nullptr;     // kMessage.
  const FieldDescriptor* field = nullptr;  // kList, kMap, kScalar.

  // A value of `type`: its fields, or anything for a well-known type.
  static JsonExpect Message(const Descriptor* type) {
    if (type->file()->package() == "google.protobuf") return {};
    return {Kind::kMessage, type, nullptr};
  }
  // A single value of `field` (one element of it when it is repeated).
  static JsonExpect One(const FieldDescriptor* field) {
    if (field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      return Message(field->message_type());
    }
    return {Kind::kScalar, nullptr, field};
  }
  // The value of `field` in its message's object.
  static JsonExpect Of(const FieldDescriptor* field) {
    if (field->is_map()) return {Kind::kMap, nullptr, field};
    if (field->is_repeated()) return {Kind::kList, nullptr, field};
    return One(field);
  }

  // What a value of this must be, for a message's error.
  std::string Want() const {
    switch (kind) {
      case Kind::kAny:
        return "a value";
      case Kind::kMessage:
      case Kind::kMap:
        return "an object";
      case Kind::kList:
        return "an array";
      case Kind::kScalar:
        break;
    }
    switch (field->cpp_type()) {
      case FieldDescriptor::CPPTYPE_BOOL:
        return "true or false";
      case FieldDescriptor::CPPTYPE_INT32:
      case FieldDescriptor::CPPTYPE_UINT32:
        return "an integer";
      case FieldDescriptor::CPPTYPE_INT64:
      case FieldDescriptor::CPPTYPE_UINT64:
        return "an integer in a string, as protobuf prints a 64-bit one";
      case FieldDescriptor::CPPTYPE_FLOAT:
      case FieldDescriptor::CPPTYPE_DOUBLE:
        return "a number";
      case FieldDescriptor::CPPTYPE_ENUM:
        return absl::StrCat("the name of a value of ",
                            field->enum_type()->full_name(), " in a string");
      default:
        return "a string";
    }
  }
};

// A strict JSON reader (RFC 8259) that looks for keys given twice
// (JsonKeysOnce's contract) and, given a message, for values not of its
// shape (CheckJsonShape's). It holds no recursion: nesting is a stack of
// the open containers, so no depth overflows it.
class JsonKeyScanner {
 public:
  // `message`: the shape the text must have; null for any. At most
  // `max_values` values (each scalar, object and array counts one).
  JsonKeyScanner(std::string_view text, bool proto_field_names,
                 const Descriptor* message = nullptr,
                 uint64_t max_values = std::numeric_limits<uint64_t>::max())
      : text_(text),
        proto_field_names_(proto_field_names),
        max_values_(max_values) {
    if (message != nullptr) next_ = JsonExpect::Message(message);
  }

  absl::Status Scan() {
    // What may come next.
    enum class Want { kValue, kValueOrEnd, kKeyOrEnd, kKey, kColon, kMore };
    Want want = Want::kValue;
    while (true) {
      SkipBlanks();
      if (pos_ == text_.size()) {
        if (want == Want::kMore && open_.empty()) return absl::OkStatus();
        return Bad("the text ends early");
      }
      const char c = text_[pos_];
      switch (want) {
        case Want::kMore:
          if (open_.empty()) return Bad("more after the value");
          if (c == ',') {
            ++pos_;
            want = open_.back().object ? Want::kKey : Want::kValue;
          } else if (c == (open_.back().object ? '}' : ']')) {
            ++pos_;
            open_.pop_back();
          } else {
            return Bad(open_.back().object ? "want ',' or '}'"
                                           : "want ',' or ']'");
          }
          continue;
        case Want::kColon:
          if (c != ':') return Bad("want ':'");
          ++pos_;
          want = Want::kValue;
          continue;
        case Want::kKeyOrEnd:
        case Want::kKey: {
          if (want == Want::kKeyOrEnd && c == '}') {
            ++pos_;
            open_.pop_back();
            want = Want::kMore;
            continue;
          }
          if (c == '}') return Bad("a comma before '}'");
          if (c != '"') return Bad("want a key (a string in double quotes)");
          const size_t at = pos_;
          std::string key;
          if (absl::Status s = String(&key); !s.ok()) return s;
          if (absl::Status s = NewKey(key, at); !s.ok()) return s;
          if (absl::Status s = ValueOfKey(key, at); !s.ok()) return s;
          want = Want::kColon;
          continue;
        }
        case Want::kValueOrEnd:
          if (c == ']') {
            ++pos_;
            open_.pop_back();
            want = Want::kMore;
            continue;
          }
          [[fallthrough]];
        case Want::kValue:
          if (c == ']' && !open_.empty() && !open_.back().object) {
            return Bad("a comma before ']'");
          }
          if (!open_.empty() && !open_.back().object) NextElement();
          if (++values_ > max_values_) {
            return absl::ResourceExhaustedError(absl::StrCat(
                "more than ", max_values_, " values (at ", Where(pos_), ")"));
          }
          if (c == '{' || c == '[') {
            const bool object = c == '{';
            if (absl::Status s = Container(object); !s.ok()) return s;
            ++pos_;
            Open& open = open_.emplace_back();
            open.object = object;
            open.expect = next_;
            open.path = next_path_;
            want = object ? Want::kKeyOrEnd : Want::kValueOrEnd;
            continue;
          }
          const size_t at = pos_;
          Token token;
          if (absl::Status s = Scalar(&token); !s.ok()) return s;
          if (absl::Status s = ScalarFits(token, at); !s.ok()) return s;
          want = Want::kMore;
          continue;
      }
    }
  }

 private:
  struct Open {
    bool object = false;  // Else an array.
    // An object's keys so far, each with its text as written (as folded,
    // with proto_field_names_).
    std::map<std::string, std::string> keys;
    JsonExpect expect;    // What the container must be.
    std::string path;     // Its path from the top ("" for the top).
    size_t elements = 0;  // An array's values so far.
    // A message's oneofs given a field so far, by the key that gave it.
    std::map<const google::protobuf::OneofDescriptor*, std::string> oneofs;
  };

  // A scalar's kind, and a string's text decoded.
  struct Token {
    enum class Kind { kTrue, kFalse, kNull, kString, kInteger, kNumber };
    Kind kind = Kind::kNull;
    std::string text;
  };

  // `path` as an error names it.
  static std::string Named(const std::string& path) {
    return path.empty() ? "the text" : path;
  }

  // Not of the shape: `what` the value at next_path_ (at byte `at`) is.
  absl::Status NotShaped(const std::string& what, size_t at) const {
    return absl::FailedPreconditionError(
        absl::StrCat(Named(next_path_), " is ", what, ", not ", next_.Want(),
                     " (at ", Where(at), ")"));
  }

  // Sets next_ and next_path_ to the next element of the innermost array.
  void NextElement() {
    Open& array = open_.back();
    // Within a value of any shape, no path is named: none is built (a
    // path as deep as the nesting would make deep texts quadratic).
    if (array.expect.kind != JsonExpect::Kind::kList) {
      next_ = JsonExpect();
      return;
    }
    next_ = JsonExpect::One(array.expect.field);
    next_path_ = absl::StrCat(array.path, "[", array.elements++, "]");
  }

  // Sets next_ and next_path_ to the value of `key` (at byte `at`) in the
  // innermost object: a field of its message, or a value of its map.
  absl::Status ValueOfKey(const std::string& key, size_t at) {
    Open& object = open_.back();
    if (object.expect.kind == JsonExpect::Kind::kAny) {  // As NextElement.
      next_ = JsonExpect();
      return absl::OkStatus();
    }
    const std::string shown = absl::Utf8SafeCHexEscape(key);
    if (object.expect.kind == JsonExpect::Kind::kMap) {
      next_path_ = absl::StrCat(object.path, "[\"", shown, "\"]");
      next_ = JsonExpect::One(object.expect.field->message_type()->map_value());
      return absl::OkStatus();
    }
    next_path_ =
        absl::StrCat(object.path, object.path.empty() ? "" : ".", shown);
    const Descriptor* message = object.expect.message;
    const FieldDescriptor* field = FieldNamed(*message, key);
    if (field == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(Named(next_path_), " is not a field of ",
                       message->full_name(), " (at ", Where(at), ")"));
    }
    if (const auto* oneof = field->real_containing_oneof()) {
      const auto [it, added] = object.oneofs.emplace(oneof, key);
      if (!added) {
        return absl::InvalidArgumentError(absl::StrCat(
            Named(next_path_), " and \"", absl::Utf8SafeCHexEscape(it->second),
            "\" are of one oneof, ", oneof->name(), " (at ", Where(at), ")"));
      }
    }
    next_ = JsonExpect::Of(field);
    return absl::OkStatus();
  }

  // The field of `message` named `key` (its proto or JSON name), or null.
  static const FieldDescriptor* FieldNamed(const Descriptor& message,
                                           const std::string& key) {
    if (const FieldDescriptor* field = message.FindFieldByName(key)) {
      return field;
    }
    for (int i = 0; i < message.field_count(); ++i) {
      if (message.field(i)->json_name() == key) return message.field(i);
    }
    return nullptr;
  }

  // Whether an object (`object`) or an array may stand at next_path_.
  absl::Status Container(bool object) const {
    const JsonExpect::Kind kind = next_.kind;
    if (kind == JsonExpect::Kind::kAny ||
        (object ? kind == JsonExpect::Kind::kMessage ||
                      kind == JsonExpect::Kind::kMap
                : kind == JsonExpect::Kind::kList)) {
      return absl::OkStatus();
    }
    return NotShaped(object ? "an object" : "an array", pos_);
  }

  // Whether `token` (at byte `at`) may stand at next_path_.
  absl::Status ScalarFits(const Token& token, size_t at) const {
    using Kind = Token::Kind;
    if (next_.kind == JsonExpect::Kind::kAny) return absl::OkStatus();
    const std::string what =
        token.kind == Kind::kTrue    ? "true"
        : token.kind == Kind::kFalse ? "false"
        : token.kind == Kind::kNull  ? "null"
        : token.kind == Kind::kString
            ? absl::StrCat("a string (\"",
                           absl::Utf8SafeCHexEscape(token.text.substr(0, 40)),
                           token.text.size() > 40 ? "..." : "", "\")")
        : token.kind == Kind::kInteger
            ? std::string("a number")
            : std::string("a number with a fraction or exponent");
    if (next_.kind != JsonExpect::Kind::kScalar) return NotShaped(what, at);
    bool fits = false;
    switch (next_.field->cpp_type()) {
      case FieldDescriptor::CPPTYPE_BOOL:
        fits = token.kind == Kind::kTrue || token.kind == Kind::kFalse;
        break;
      case FieldDescriptor::CPPTYPE_INT32:
      case FieldDescriptor::CPPTYPE_UINT32:
        fits = token.kind == Kind::kInteger;
        break;
      case FieldDescriptor::CPPTYPE_INT64:
      case FieldDescriptor::CPPTYPE_UINT64:
        fits = token.kind == Kind::kString && IsInteger(token.text);
        break;
      case FieldDescriptor::CPPTYPE_FLOAT:
      case FieldDescriptor::CPPTYPE_DOUBLE:
        fits = token.kind == Kind::kInteger || token.kind == Kind::kNumber ||
               (token.kind == Kind::kString &&
                (token.text == "NaN" || token.text == "Infinity" ||
                 token.text == "-Infinity"));
        break;
      case FieldDescriptor::CPPTYPE_ENUM:
        fits = token.kind == Kind::kString &&
               next_.field->enum_type()->FindValueByName(token.text) != nullptr;
        break;
      default:
        fits = token.kind == Kind::kString;
        break;
    }
    return fits ? absl::OkStatus() : NotShaped(what, at);
  }

  // Whether `text` is an integer as JSON writes one: -?(0|[1-9][0-9]*).
  static bool IsInteger(std::string_view text) {
    if (!text.empty() && text[0] == '-') text.remove_prefix(1);
    if (text.empty() || (text[0] == '0' && text.size() > 1)) return false;
    return std::all_of(text.begin(), text.end(), [](char c) {
      return absl::ascii_isdigit(static_cast<unsigned char>(c));
    });
  }

  // "line L, column C" of byte `at` (from 1; a column counts bytes).
  std::string Where(size_t at) const {
    const std::string_view before = text_.substr(0, at);
    const size_t line_start = before.rfind('\n');
    return absl::StrCat(
        "line ", std::count(before.begin(), before.end(), '\n') + 1,
        ", column ",
        at - (line_start == std::string_view::npos ? 0 : line_start + 1) + 1);
  }

  absl::Status Bad(const char* why) const {
    return absl::InvalidArgumentError(
        absl::StrCat("not strict JSON (RFC 8259) at ", Where(pos_), ": ", why));
  }

  // Adds `key` (decoded; at byte `at`) to the innermost object's keys.
  absl::Status NewKey(const std::string& key, size_t at) {
    const std::string folded = proto_field_names_ ? ProtoJsonName(key) : key;
    const auto [it, added] = open_.back().keys.emplace(folded, key);
    if (added) return absl::OkStatus();
    if (it->second == key) {
      return absl::FailedPreconditionError(absl::StrCat(
          "the key \"", absl::Utf8SafeCHexEscape(key),
          "\" appears twice in one object (again at ", Where(at), ")"));
    }
    return absl::FailedPreconditionError(absl::StrCat(
        "the keys \"", absl::Utf8SafeCHexEscape(it->second), "\" and \"",
        absl::Utf8SafeCHexEscape(key),
        "\" name one field in one object (the second at ", Where(at), ")"));
  }

  void SkipBlanks() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' ||
            text_[pos_] == '\r')) {
      ++pos_;
    }
  }

  // The hex digits of a \u escape at pos_ (after "\u"): its code unit.
  bool Hex4(uint32_t* unit) {
    if (text_.size() - pos_ < 4) return false;
    *unit = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = text_[pos_ + i];
      if (!absl::ascii_isxdigit(static_cast<unsigned char>(c))) return false;
      *unit = *unit * 16 + (absl::ascii_isdigit(static_cast<unsigned char>(c))
                                ? c - '0'
                                : absl::ascii_tolower(c) - 'a' + 10);
    }
    pos_ += 4;
    return true;
  }

  // Appends code point `cp` in UTF-8 (a lone surrogate as its three bytes,
  // so that it compares as itself).
  static void AppendUtf8(uint32_t cp, std::string* out) {
    if (cp < 0x80) {
      out->push_back(static_cast<char>(cp));
    } else if (cp < 0x800) {
      out->push_back(static_cast<char>(0xc0 | (cp >> 6)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    } else if (cp < 0x10000) {
      out->push_back(static_cast<char>(0xe0 | (cp >> 12)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    } else {
      out->push_back(static_cast<char>(0xf0 | (cp >> 18)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3f)));
      out->push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3f)));
      out->push_back(static_cast<char>(0x80 | (cp & 0x3f)));
    }
  }

  // The string at pos_ (its opening quote), decoded into `out`: escapes
  // resolved, so that "a" and "\u0061" are one key, as other readers take
  // them. Bytes from 0x80 up are kept as they are.
  absl::Status String(std::string* out) {
    ++pos_;  // The opening quote.
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        return absl::OkStatus();
      }
      if (static_cast<unsigned char>(c) < 0x20) {
        return Bad("a control character in a string");
      }
      ++pos_;
      if (c != '\\') {
        out->push_back(c);
        continue;
      }
      if (pos_ == text_.size()) break;
      const char e = text_[pos_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out->push_back(e);
          break;
        case 'b':
          out->push_back('\b');
          break;
        case 'f':
          out->push_back('\f');
          break;
        case 'n':
          out->push_back('\n');
          break;
        case 'r':
          out->push_back('\r');
          break;
        case 't':
          out->push_back('\t');
          break;
        case 'u': {
          uint32_t unit = 0;
          if (!Hex4(&unit)) return Bad("a \\u escape without 4 hex digits");
          // A high surrogate and a low one after it: one code point.
          uint32_t low = 0;
          if (unit >= 0xd800 && unit < 0xdc00 &&
              text_.substr(pos_, 2) == "\\u") {
            const size_t before = pos_;
            pos_ += 2;
            if (Hex4(&low) && low >= 0xdc00 && low < 0xe000) {
              unit = 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00);
            } else {
              pos_ = before;  // Not its pair: read on its own next.
            }
          }
          AppendUtf8(unit, out);
          break;
        }
        default:
          return Bad("an unknown escape in a string");
      }
    }
    return Bad("a string without its closing quote");
  }

  // A string, number, true, false or null at pos_, as `token`.
  absl::Status Scalar(Token* token) {
    for (const auto& [word, kind] :
         {std::pair{std::string_view("true"), Token::Kind::kTrue},
          std::pair{std::string_view("false"), Token::Kind::kFalse},
          std::pair{std::string_view("null"), Token::Kind::kNull}}) {
      if (text_.substr(pos_, word.size()) == word) {
        pos_ += word.size();
        token->kind = kind;
        return absl::OkStatus();
      }
    }
    if (text_[pos_] == '"') {
      token->kind = Token::Kind::kString;
      return String(&token->text);
    }
    token->kind = Token::Kind::kInteger;
    // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
    auto digit = [this] {
      return pos_ < text_.size() &&
             absl::ascii_isdigit(static_cast<unsigned char>(text_[pos_]));
    };
    auto digits = [&] {
      if (!digit()) return false;
      while (digit()) ++pos_;
      return true;
    };
    if (text_[pos_] == '-') ++pos_;
    if (pos_ < text_.size() && text_[pos_] == '0') {
      ++pos_;
    } else if (!digits()) {
      return Bad("want a value");
    }
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      token->kind = Token::Kind::kNumber;
      if (!digits()) return Bad("want a digit after '.'");
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      token->kind = Token::Kind::kNumber;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) {
        ++pos_;
      }
      if (!digits()) return Bad("want a digit in the exponent");
    }
    return absl::OkStatus();
  }

  std::string_view text_;
  bool proto_field_names_;
  uint64_t max_values_;
  uint64_t values_ = 0;
  size_t pos_ = 0;
  std::vector<Open> open_;
  // What the next value must be, and its path.
  JsonExpect next_;
  std::string next_path_;
};

}  // namespace

absl::Status CheckJsonKeysOnce(std::string_view json, bool proto_field_names) {
  return JsonKeyScanner(json, proto_field_names).Scan();
}

absl::Status CheckJsonShape(std::string_view json,
                            const google::protobuf::Descriptor& message,
                            uint64_t max_values) {
  return JsonKeyScanner(json, true, &message, max_values).Scan();
}

}  // namespace pyramid
