// A fast, conservative test for unknown fields in serialized protobuf
// messages, for the hot paths that must refuse them (a revealed action, a
// log record's canonical encoding).
//
// Protobuf finds unknown fields only by walking the parsed message with
// reflection (DiscardUnknownFields), which costs far more than parsing.
// This scans the wire bytes instead, against tables built once from the
// message's descriptor: a tag whose field number the message does not
// define, or whose wire type is not one the parser accepts for that field,
// is where the parser keeps an unknown field; known message fields are
// scanned recursively.
//
// Contract: the answer is exact in one direction only. `false` means the
// message parsed from the bytes holds no unknown field at any depth. `true`
// means it may (almost always: it does), and the caller decides with the
// exact, slow test; it is also the answer for bytes that do not parse. So a
// caller that falls back on `true` gives exactly the exact test's answer.
#ifndef PYRAMID_REFEREE_GAMES_UNKNOWN_FIELDS_H_
#define PYRAMID_REFEREE_GAMES_UNKNOWN_FIELDS_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "google/protobuf/descriptor.h"

namespace pyramid {

class UnknownFieldScanner {
 public:
  // The scanner of `descriptor`'s messages. Built on first use and kept for
  // the process; thread-safe. Takes a lock: callers keep the reference.
  static const UnknownFieldScanner& For(
      const google::protobuf::Descriptor* descriptor);

  // Whether a message parsed from `bytes` may hold unknown fields (see the
  // contract above).
  bool MayHoldUnknownFields(std::string_view bytes) const;

 private:
  struct Field {
    uint8_t wire_types = 0;  // Bit w set: wire type w is parsed as known.
    const UnknownFieldScanner* message = nullptr;  // A message field.
  };

  UnknownFieldScanner() = default;
  bool Scan(const uint8_t* p, const uint8_t* end, int depth) const;

  std::vector<Field> fields_;  // Indexed by field number.
  friend class UnknownFieldTables;
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_GAMES_UNKNOWN_FIELDS_H_
