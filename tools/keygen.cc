// keygen: writes an Ed25519 key pair for a referee or a seat.
//
//   keygen [--out PATH]     (default: referee.key)
//
// Writes the secret seed to PATH (mode 0600; never overwrites) and the public
// key to PATH.pub, both as hex, and prints the public key.
#include <iostream>
#include <string>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/usage.h"
#include "referee/cli/program.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/ed25519.h"

ABSL_FLAG(std::string, out, "referee.key",
          "Path of the secret key file; the public key goes to PATH.pub.");

int main(int argc, char** argv) {
  pyramid::InitFlagsOnlyProgram(argc, argv, "Writes an Ed25519 key pair.");
  const std::string path = absl::GetFlag(FLAGS_out);
  const pyramid::SigningKey key = pyramid::SigningKey::Generate();
  if (absl::Status status = pyramid::WriteKeyFiles(path, key); !status.ok()) {
    std::cerr << "keygen: " << status.message() << "\n";
    return 1;
  }
  std::cerr << "secret key: " << path << " (mode 0600)\npublic key: " << path
            << ".pub\n";
  std::cout << pyramid::ToHex(key.public_key()) << "\n";
  return 0;
}
