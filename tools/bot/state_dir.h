// The reference bot's commitments on disk (--state_dir), so that a bot
// restarted between a commit and its reveal still reveals what it
// committed to, instead of faulting at the reveal deadline.
//
// Contract (the client kits' own, tools/clients/python/pyramid_kit/state.py
// and tools/clients/node/lib/state.js, so that a record written by any of
// them is read by the others): one file per (match, seat, decision)
// committed to, DIR/<match_id>-<seat>-<decision_id>.json, holding one JSON
// object
//
//   {"match_id": "<32 hex digits>", "seat": S, "decision_id": D,
//    "action": "<base64 of the serialized Action committed>",
//    "salt": "<base64 of the 32-byte salt>"}
//
// Save makes it durable before it returns: it writes a temporary file in DIR
// (named after the record, ending ".tmp"), fsyncs it, renames it into place
// and fsyncs DIR. Names are built only from a match id of 32 hex digits
// (anything else names no record).
//
// A record is kept until its match ends, whatever its reveal's state (a
// referee that lost the commit or the reveal in a power loss opens that
// decision again, and must get the same commitment): DropMatch removes
// every record of a match, and any temporary file a crash left of one
// (DIR/<match_id>-*.json and DIR/<match_id>-*.json.*.tmp, as the kits name
// them), when its MatchEnded or DATA_LOSS error arrives; nothing else
// removes records (the kits' rule, so that a C++ bot sharing DIR with a kit
// never removes the kit's live records). Newest is the seat's largest
// decision with a record: after a restart, the seat's newest decision,
// older ones without a record of their own being refused.
#ifndef PYRAMID_TOOLS_BOT_STATE_DIR_H_
#define PYRAMID_TOOLS_BOT_STATE_DIR_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "google/protobuf/struct.pb.h"

namespace pyramid {

// `text` as a JSON object (the record format above); INVALID_ARGUMENT when
// it is none.
absl::StatusOr<google::protobuf::Struct> ParseRecordJson(
    const std::string& text);

// A commitment's secret half: what its reveal sends.
struct CommitmentRecord {
  std::string salt;    // 32 bytes.
  std::string action;  // The serialized Action committed to.
};

// The commitment records of one directory. Not thread-safe.
class StateDir {
 public:
  // `path`, an existing directory this process can write in (MakeStateDir).
  explicit StateDir(std::string path) : path_(std::move(path)) {}

  const std::string& path() const { return path_; }

  // The record file of a decision; empty when `match_id` is not 32 hex
  // digits.
  std::string File(const std::string& match_id, uint32_t seat,
                   uint64_t decision_id) const;

  // Writes the record of the decision durably (see the contract above).
  absl::Status Save(const std::string& match_id, uint32_t seat,
                    uint64_t decision_id, const CommitmentRecord& record);

  // The record of the decision; nullopt when there is none, or one that is
  // not a record of that decision (said on stderr, with "bot: ", always).
  std::optional<CommitmentRecord> Load(const std::string& match_id,
                                       uint32_t seat, uint64_t decision_id);

  // The largest decision of (match_id, seat) with a record, by the names
  // of the files in DIR (temporary files not counted); nullopt when there
  // is none, or DIR cannot be listed (said on stderr).
  std::optional<uint64_t> Newest(const std::string& match_id,
                                 uint32_t seat) const;

  // Removes every record of `match_id` (its match is over), and any
  // temporary file a crash left of one: the files named
  // <match_id>-<seat>-<decision_id>.json, or that followed by
  // .<anything>.tmp, and nothing else (a failure is said on stderr). The
  // one place records go.
  void DropMatch(const std::string& match_id);

 private:
  std::string path_;
};

// Makes the directory `path` and its missing parents, one level at a time,
// fsyncing the parent of each directory made (so that it survives a power
// loss), and checks that it is a directory this process can write in; an
// error saying why not.
absl::Status MakeStateDir(const std::string& path);

}  // namespace pyramid

#endif  // PYRAMID_TOOLS_BOT_STATE_DIR_H_
