// Strict JSON for texts that protobuf's JSON parser would read otherwise
// than other tools do (replay verify-tournament's schedule.json): one JSON
// text as RFC 8259 defines it, no key twice, and the shape of a message.
#ifndef PYRAMID_REPLAY_STRICT_JSON_H_
#define PYRAMID_REPLAY_STRICT_JSON_H_

#include <cstdint>
#include <limits>
#include <string_view>

#include "absl/status/status.h"
#include "google/protobuf/descriptor.h"

namespace pyramid {

// OK when `json` is one JSON text as RFC 8259 defines it (strings in
// double quotes, no trailing comma, no comment, nothing after the value)
// in which no object has a key twice; else INVALID_ARGUMENT saying where
// (FAILED_PRECONDITION, and which key, for a key twice). Keys are compared as
// decoded ("a" and "\u0061" are one key); bytes from 0x80 up are taken as they
// are (not checked as UTF-8). With `proto_field_names`, two keys that
// protobuf's JSON parser reads as one field (its proto name and its JSON name:
// "run_id" and "runId") count as the same key. JSON readers differ on such
// texts: protobuf's parser reads unquoted keys, single quotes and trailing
// commas, keeps a field's last value and joins a repeated field's lists, where
// jq and Python refuse the first and keep the last value; so verify-tournament
// refuses them rather than read a schedule other tools read otherwise.
// Any input is read without recursion: no nesting is too deep for it.
absl::Status CheckJsonKeysOnce(std::string_view json,
                               bool proto_field_names = false);

// OK when `json` is as CheckJsonKeysOnce(json, true) requires and has the
// shape protobuf's JSON mapping gives a `message`, which its parser reads
// as every other JSON reader does; else INVALID_ARGUMENT naming the value
// by its path ("matches[0] is an array, not an object") and place. The
// text is an object; each key names a field of its object's message (its
// proto or JSON name), at most one of a oneof; a message field's value is
// an object, a repeated field's an array of its elements, a map's an
// object of its values; a string or bytes value is a string, a bool true
// or false, a 32-bit integer a number without fraction or exponent, a
// 64-bit integer such a number in a string (as protobuf prints it: a
// number beyond 2^53 is rounded by many readers), a float or double a
// number or "NaN", "Infinity" or "-Infinity", an enum a string naming one
// of its values; null is nowhere. Refused so: an array in an array (the
// parser flattens it), null in an array (it drops it), a lone value for a
// list (it reads a list of one), "false" for a bool (it reads false,
// where jq's select() takes a non-empty string as true). A field of a
// well-known type (google.protobuf.*, whose JSON forms are their own)
// may hold any JSON value. Codes: FAILED_PRECONDITION for a text of
// another shape or with a key twice (protobuf's parser reads such texts),
// RESOURCE_EXHAUSTED once more than `max_values` values are read (each
// scalar, object and array counts one), INVALID_ARGUMENT for the rest
// (not strict JSON, a key that names no field, two fields of a oneof).
absl::Status CheckJsonShape(
    std::string_view json, const google::protobuf::Descriptor& message,
    uint64_t max_values = std::numeric_limits<uint64_t>::max());

}  // namespace pyramid

#endif  // PYRAMID_REPLAY_STRICT_JSON_H_
