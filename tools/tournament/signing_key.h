// The embedded referee's secret key of a tournament (Tournament.
// signing_key_file, docs/tournament.md "The referee"): where it is kept,
// and the one decision, taken from the files alone, of what a run does
// with it.
//
// The key lives at signing_key_file, by default OUTPUT.referee.key beside
// the output directory, never inside it: the directory is published whole
// and holds only the public half, OUTPUT/referee.key.pub, written on the
// first run. Earlier runners kept the key inside, at OUTPUT/referee.key; a
// run moves it out. Every run of one directory signs with the key of its
// referee.key.pub: a missing key, another one, or two different ones are
// refused rather than guessed.
//
// The runner decides twice: before the output directory is made or
// touched (CheckSigningKey, read-only, so a wrong command changes nothing),
// and again under the directory's lock (PlaceSigningKey, which acts on the
// decision). Both go through PlanSigningKey, so they cannot disagree.
#ifndef PYRAMID_TOOLS_TOURNAMENT_SIGNING_KEY_H_
#define PYRAMID_TOOLS_TOURNAMENT_SIGNING_KEY_H_

#include <filesystem>
#include <functional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "pyramid/referee/v1/tournament.pb.h"

namespace pyramid {

// The files of one tournament's embedded referee key.
struct SigningKeyFiles {
  // Where the key is kept: signing_key_file, or DefaultSigningKeyPath.
  std::filesystem::path key;
  // True when signing_key_file named `key` (the messages name the field).
  bool given = false;
  std::filesystem::path output_dir;

  // OUTPUT/referee.key: where an earlier runner kept the key.
  std::filesystem::path inside() const { return output_dir / "referee.key"; }
  // OUTPUT/referee.key.pub: the public half of the key that signs the
  // directory's logs, once a run has written it.
  std::filesystem::path public_file() const {
    return output_dir / "referee.key.pub";
  }
};

// OUTPUT.referee.key beside the output directory `output_dir` (which may
// be "." or end in '/': it is made absolute first, so it names its parent).
std::filesystem::path DefaultSigningKeyPath(const std::string& output_dir);

// The key files of tournament `t` (its output_dir and signing_key_file).
SigningKeyFiles SigningKeyFilesOf(const referee::v1::Tournament& t);

// What a run does to have the key at `files.key`.
enum class SigningKeyStep {
  kUse,               // The key is there; nothing moves.
  kRemoveCopyInside,  // OUTPUT/referee.key holds the same key: remove it.
  kMoveOut,           // The key is only at OUTPUT/referee.key: move it.
  kCreate,            // No key anywhere and no referee.key.pub: generate.
};

// What PlanSigningKey checks first, from the command alone (not the output
// directory's contents): INVALID_ARGUMENT when `files.key` lies inside the
// output directory (paths resolved: symbolic links and ".." followed), is
// a file that holds no key, or, given as signing_key_file and absent, is
// in no existing directory.
absl::Status CheckSigningKeyPath(const SigningKeyFiles& files);

// Decides, changing nothing, what PlaceSigningKey will do, or why it must
// not: CheckSigningKeyPath's errors, then INVALID_ARGUMENT (the command,
// not the directory, is wrong) when OUTPUT/referee.key cannot be read;
// both places hold different keys; or referee.key.pub exists and no key
// does, or the key is not the one whose public half it holds.
// ReadFileToString's error when referee.key.pub cannot be read.
absl::StatusOr<SigningKeyStep> PlanSigningKey(const SigningKeyFiles& files);

// Carries out PlanSigningKey's decision, taken again (the caller holds the
// output directory's lock, which must exist): afterwards the key is at
// `files.key` and referee.key.pub holds its public half. Calls `note` with
// one line for each file it moves, removes or creates. The errors of
// PlanSigningKey, or INTERNAL when a file cannot be written, moved or
// removed (FAILED_PRECONDITION for a move, with what to do instead).
absl::Status PlaceSigningKey(const SigningKeyFiles& files,
                             const std::function<void(std::string)>& note);

}  // namespace pyramid

#endif  // PYRAMID_TOOLS_TOURNAMENT_SIGNING_KEY_H_
