// replay: verify, show or export match logs.
//
//   replay verify [--key HEX|FILE] [--allow-unsealed] LOG...
//   replay show LOG
//   replay export --json LOG
//
// Exit status: 0 genuine; 1 not genuine (or an unsealed prefix without
// --allow-unsealed); 2 usage or I/O error. With several logs, the worst.
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "referee/core/log_sink.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/ed25519.h"
#include "replay/transcript.h"
#include "replay/verifier.h"

namespace pyramid {
namespace {

constexpr int kGenuine = 0;
constexpr int kNotGenuine = 1;
constexpr int kUsage = 2;

int Usage() {
  std::cerr << "usage:\n"
               "  replay verify [--key HEX|FILE] [--allow-unsealed] LOG...\n"
               "  replay show LOG\n"
               "  replay export --json LOG\n";
  return kUsage;
}

int VerifyOne(const std::string& path, const VerifyOptions& options,
              bool allow_unsealed) {
  absl::StatusOr<std::string> file = ReadFileToString(path);
  if (!file.ok()) {
    std::cerr << path << ": " << file.status().message() << "\n";
    return kUsage;
  }
  const Verdict v = VerifyLog(*file, options);
  const std::string key_note =
      v.key_from_header
          ? absl::StrCat("referee key ", ToHex(v.header.referee_public_key()),
                         " taken from the log itself; pin it with --key")
          : "referee key pinned";
  switch (v.kind) {
    case Verdict::Kind::kGenuine: {
      std::string ranks;
      for (const auto& seat : v.outcome.seats()) {
        absl::StrAppend(&ranks, ranks.empty() ? "" : " ", seat.rank());
      }
      std::cout << path << ": genuine (" << v.header.game().game() << ", "
                << v.records << " records, " << v.moves
                << " moves, ranks " << ranks << "; " << key_note << ")\n";
      return kGenuine;
    }
    case Verdict::Kind::kUnsealedPrefix:
      std::cout << path << ": unsealed prefix: " << v.reason << " ("
                << key_note << ")\n";
      return allow_unsealed ? kGenuine : kNotGenuine;
    case Verdict::Kind::kNotGenuine:
      std::cout << path << ": NOT GENUINE: record " << v.bad_record << ": "
                << v.reason << "\n";
      return kNotGenuine;
  }
  return kNotGenuine;
}

int Verify(const std::vector<std::string>& args) {
  VerifyOptions options;
  bool allow_unsealed = false;
  std::vector<std::string> logs;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--allow-unsealed") {
      allow_unsealed = true;
    } else if (arg == "--key" || arg.rfind("--key=", 0) == 0) {
      std::string value;
      if (arg == "--key") {
        if (++i == args.size()) return Usage();
        value = args[i];
      } else {
        value = arg.substr(6);
      }
      absl::StatusOr<std::string> key = ParsePublicKey(value);
      if (!key.ok()) {
        std::cerr << "--key: " << key.status().message() << "\n";
        return kUsage;
      }
      options.pinned_key = *key;
    } else if (arg.rfind("--", 0) == 0) {
      std::cerr << "unknown flag " << arg << "\n";
      return Usage();
    } else {
      logs.push_back(arg);
    }
  }
  if (logs.empty()) return Usage();
  int worst = kGenuine;
  for (const std::string& log : logs) {
    worst = std::max(worst, VerifyOne(log, options, allow_unsealed));
  }
  return worst;
}

int ShowOrExport(const std::string& path, bool json) {
  absl::StatusOr<std::string> file = ReadFileToString(path);
  if (!file.ok()) {
    std::cerr << path << ": " << file.status().message() << "\n";
    return kUsage;
  }
  absl::Status status =
      json ? WriteJsonLines(*file, std::cout) : WriteTranscript(*file, std::cout);
  if (!status.ok()) {
    std::cerr << path << ": " << status.message() << "\n";
    return kNotGenuine;
  }
  return kGenuine;
}

int Main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) return Usage();
  const std::string command = args[0];
  args.erase(args.begin());
  if (command == "verify") return Verify(args);
  if (command == "show" && args.size() == 1) return ShowOrExport(args[0], false);
  if (command == "export" && args.size() == 2 && args[0] == "--json") {
    return ShowOrExport(args[1], true);
  }
  return Usage();
}

}  // namespace
}  // namespace pyramid

int main(int argc, char** argv) { return pyramid::Main(argc, argv); }
