// Fast, conservative checks of serialized protobuf messages, for the hot
// paths that must refuse what the protocol does not define: unknown fields
// in a revealed action, and any log record that is not in its canonical
// encoding (docs/log-format.md, "Canonical encoding").
//
// Protobuf answers both questions only through slow paths: unknown fields by
// walking the parsed message with reflection (DiscardUnknownFields), the
// canonical encoding by serializing it again and comparing. A WireScanner
// reads the wire bytes once instead, against tables built once from the
// message's descriptor, and recurses into known message fields.
//
// Contract: each answer is exact in one direction only, and the other
// answer sends the caller to the exact, slow test. So a caller that falls
// back that way gives exactly the slow test's answer, only faster on the
// common path. Both methods take bytes that parsed as the scanner's message.
#ifndef PYRAMID_REFEREE_GAMES_WIRE_SCANNER_H_
#define PYRAMID_REFEREE_GAMES_WIRE_SCANNER_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "google/protobuf/descriptor.h"

namespace pyramid {

class WireScanner {
 public:
  // The scanner of `descriptor`'s messages. Built on first use and kept for
  // the process; thread-safe. Takes a lock: callers keep the reference.
  static const WireScanner& For(const google::protobuf::Descriptor* descriptor);

  // false: the message parsed from `bytes` holds no unknown field at any
  // depth. true: it may (almost always: it does); decide with the slow test.
  bool MayHoldUnknownFields(std::string_view bytes) const;

  // true: `bytes` are exactly the deterministic serialization of the
  // message parsed from them, and hold no unknown field. false: they may
  // not be (almost always: they are not); decide with the slow test.
  bool IsCanonical(std::string_view bytes) const;

 private:
  // How a field is read and written.
  enum class Kind : uint8_t {
    kUnknown,    // Not a field of the message (or one never judged fast).
    kVarint32,   // int32, enum: a 32-bit value, sign-extended.
    kVarintU32,  // uint32, sint32: at most 32 bits.
    kVarint64,   // int64, uint64, sint64.
    kBool,
    kFixed32,  // fixed32, sfixed32.
    kFixed64,  // fixed64, sfixed64.
    kFloat,    // float, double: never judged canonical fast.
    kBytes,    // string, bytes.
    kMessage,
  };
  struct Field {
    uint8_t wire_types = 0;        // Bit w set: wire type w is parsed as known.
    uint8_t native_wire_type = 0;  // Its wire type when not packed.
    Kind kind = Kind::kUnknown;
    bool repeated = false;
    bool packed = false;    // Written packed (deterministic serialization).
    bool presence = false;  // Written when set, even to its default.
    int oneof = -1;         // Index of its (real) oneof, or -1.
    const WireScanner* message = nullptr;  // kMessage.
  };

  WireScanner() = default;
  bool ScanUnknown(const uint8_t* p, const uint8_t* end, int depth) const;
  bool ScanCanonical(const uint8_t* p, const uint8_t* end, int depth) const;
  // One scalar of `kind` at `p` as a serializer writes it (`zero`: it is
  // the default value); the position after it, or null.
  static const uint8_t* CanonicalScalar(Kind kind, const uint8_t* p,
                                        const uint8_t* end, bool& zero);
  // One field's value at `p` (after its tag), canonical; the position after
  // it, or null.
  const uint8_t* CanonicalValue(const Field& field, int wire_type,
                                const uint8_t* p, const uint8_t* end,
                                int depth) const;

  std::vector<Field> fields_;  // Indexed by field number.
  int oneofs_ = 0;
  friend class WireScannerTables;
};

}  // namespace pyramid

#endif  // PYRAMID_REFEREE_GAMES_WIRE_SCANNER_H_
