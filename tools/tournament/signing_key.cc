#include "tools/tournament/signing_key.h"

#include <algorithm>
#include <optional>
#include <system_error>
#include <utility>

#include "absl/strings/str_cat.h"
#include "referee/core/log_sink.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/ed25519.h"

namespace pyramid {
namespace {

namespace fs = std::filesystem;

// `path` made absolute (relative to the current directory) and resolved as
// far as it exists: symbolic links followed, "." and ".." gone, no final
// '/'.
fs::path Resolved(const fs::path& path) {
  std::error_code error;
  fs::path absolute = fs::absolute(path, error);
  if (error) absolute = path;
  fs::path resolved = fs::weakly_canonical(absolute, error);
  if (error) resolved = absolute.lexically_normal();
  if (!resolved.has_filename()) resolved = resolved.parent_path();
  return resolved;
}

// True when `path` is the directory `dir` or lies inside it, both resolved.
bool IsWithin(const fs::path& path, const fs::path& dir) {
  const fs::path p = Resolved(path);
  const fs::path d = Resolved(dir);
  return std::mismatch(d.begin(), d.end(), p.begin(), p.end()).first == d.end();
}

bool Exists(const fs::path& path) {
  std::error_code error;
  return fs::exists(path, error);
}

// How the messages name the key at `files.key`.
std::string KeyName(const SigningKeyFiles& files) {
  return files.given ? "signing_key_file" : "the referee's secret key";
}

absl::StatusOr<SigningKey> ReadKey(const fs::path& path,
                                   const std::string& name) {
  absl::StatusOr<SigningKey> key = ReadSigningKey(path.string());
  if (!key.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, ": ", key.status().message()));
  }
  return key;
}

absl::Status InsideError(const SigningKeyFiles& files) {
  return absl::InvalidArgumentError(absl::StrCat(
      KeyName(files), " ", files.key.string(),
      " is inside the output directory ", files.output_dir.string(),
      ": the secret key would be published with it; keep it outside (by "
      "default it is ",
      DefaultSigningKeyPath(files.output_dir.string()).string(),
      ", beside the directory)"));
}

absl::Status MissingKeyError(const SigningKeyFiles& files) {
  return absl::InvalidArgumentError(absl::StrCat(
      "this output directory's logs are signed with the key in ",
      files.public_file().string(), ", but its secret half is not at ",
      files.key.string(),
      "; give its path with signing_key_file (--signing_key_file), or use a "
      "new output directory"));
}

absl::Status WrongKeyError(const fs::path& key_file,
                           const SigningKeyFiles& files) {
  return absl::InvalidArgumentError(absl::StrCat(
      "the key in ", key_file.string(),
      " did not sign this output directory's logs (their key is in ",
      files.public_file().string(), ")"));
}

absl::Status TwoKeysError(const SigningKeyFiles& files) {
  return absl::InvalidArgumentError(absl::StrCat(
      "two different referee keys: ", files.inside().string(), " and ",
      files.key.string(),
      "; keep the one that signed this output directory's logs (its public "
      "half is ",
      files.public_file().string(), ") at ", files.key.string(),
      " and remove the other"));
}

// The public half `key` gives referee.key.pub.
std::string PublicFileText(const SigningKey& key) {
  return ToHex(key.public_key()) + "\n";
}

// PlanSigningKey's decision and, unless it creates one, the key it found.
struct Plan {
  SigningKeyStep step;
  std::optional<SigningKey> key;
};

absl::StatusOr<Plan> MakePlan(const SigningKeyFiles& files) {
  if (absl::Status s = CheckSigningKeyPath(files); !s.ok()) return s;
  const bool have = Exists(files.key);
  const bool have_inside = Exists(files.inside());
  Plan plan{SigningKeyStep::kUse, std::nullopt};
  if (have) {
    absl::StatusOr<SigningKey> key = ReadKey(files.key, KeyName(files));
    if (!key.ok()) return key.status();
    plan.key = *std::move(key);
    if (have_inside) {
      // Compared as keys: a copy written differently is still the same.
      absl::StatusOr<SigningKey> copy = ReadSigningKey(files.inside().string());
      if (!copy.ok() || copy->public_key() != plan.key->public_key()) {
        return TwoKeysError(files);
      }
      plan.step = SigningKeyStep::kRemoveCopyInside;
    }
  } else if (have_inside) {
    absl::StatusOr<SigningKey> key =
        ReadKey(files.inside(), "the referee's secret key");
    if (!key.ok()) return key.status();
    plan.key = *std::move(key);
    plan.step = SigningKeyStep::kMoveOut;
  } else {
    if (Exists(files.public_file())) return MissingKeyError(files);
    plan.step = SigningKeyStep::kCreate;
    return plan;
  }
  if (Exists(files.public_file())) {
    absl::StatusOr<std::string> pinned =
        ReadFileToString(files.public_file().string());
    if (!pinned.ok()) return pinned.status();
    if (*pinned != PublicFileText(*plan.key)) {
      return WrongKeyError(
          plan.step == SigningKeyStep::kMoveOut ? files.inside() : files.key,
          files);
    }
  }
  return plan;
}

}  // namespace

fs::path DefaultSigningKeyPath(const std::string& output_dir) {
  // Absolute first, so that an output directory given as "." or "x/"
  // still names its own parent.
  fs::path out = fs::absolute(output_dir).lexically_normal();
  if (!out.has_filename()) out = out.parent_path();
  return out.parent_path() / (out.filename().string() + ".referee.key");
}

SigningKeyFiles SigningKeyFilesOf(const referee::v1::Tournament& t) {
  SigningKeyFiles files;
  files.given = !t.signing_key_file().empty();
  files.key = files.given ? fs::path(t.signing_key_file())
                          : DefaultSigningKeyPath(t.output_dir());
  files.output_dir = t.output_dir();
  return files;
}

absl::Status CheckSigningKeyPath(const SigningKeyFiles& files) {
  if (IsWithin(files.key, files.output_dir)) return InsideError(files);
  if (Exists(files.key)) return ReadKey(files.key, KeyName(files)).status();
  if (files.given) {
    std::error_code error;
    const fs::path dir = fs::absolute(files.key).parent_path();
    if (!fs::is_directory(dir, error)) {
      return absl::InvalidArgumentError(
          absl::StrCat(KeyName(files), ": cannot create ", files.key.string(),
                       ": ", dir.string(), " is not a directory"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<SigningKeyStep> PlanSigningKey(const SigningKeyFiles& files) {
  absl::StatusOr<Plan> plan = MakePlan(files);
  if (!plan.ok()) return plan.status();
  return plan->step;
}

absl::Status PlaceSigningKey(const SigningKeyFiles& files,
                             const std::function<void(std::string)>& note) {
  absl::StatusOr<Plan> plan = MakePlan(files);
  if (!plan.ok()) return plan.status();
  std::error_code error;
  switch (plan->step) {
    case SigningKeyStep::kUse:
      break;
    case SigningKeyStep::kRemoveCopyInside:
      if (!fs::remove(files.inside(), error) || error) {
        return absl::InternalError(absl::StrCat(
            "cannot remove ", files.inside().string(), ": ", error.message()));
      }
      note(absl::StrCat(
          "removed a copy of the referee's secret key from the output "
          "directory: ",
          files.inside().string()));
      break;
    case SigningKeyStep::kMoveOut:
      fs::rename(files.inside(), files.key, error);
      if (error) {
        return absl::FailedPreconditionError(absl::StrCat(
            "cannot move the referee's secret key out of the output "
            "directory, from ",
            files.inside().string(), " to ", files.key.string(), ": ",
            error.message(), "; move it yourself or set signing_key_file"));
      }
      note(absl::StrCat(
          "moved the referee's secret key out of the output directory, to ",
          files.key.string()));
      break;
    case SigningKeyStep::kCreate: {
      SigningKey key = SigningKey::Generate();
      if (absl::Status s = WriteKeyFiles(files.key.string(), key); !s.ok()) {
        return s;
      }
      // Named, so that a mistyped signing_key_file does not become a new
      // key unnoticed (on a resume, referee.key.pub refuses it), and so
      // that whoever publishes the directory knows what to keep back.
      note(absl::StrCat(
          "created a new secret key for the referee: ", files.key.string(),
          " (its public half: ", files.key.string(), ".pub), ",
          files.given ? "since signing_key_file named no file"
                      : "beside the output directory: keep it "
                        "to resume, and do not publish it"));
      plan->key = std::move(key);
      break;
    }
  }
  if (Exists(files.public_file())) return absl::OkStatus();
  return WriteFileAtomically(files.public_file().string(),
                             PublicFileText(*plan->key));
}

}  // namespace pyramid
