#!/usr/bin/env bash
# Installs the Debian 12 packages the project needs, and nothing else.
# Idempotent: runs `apt-get update` only when a package is missing, and
# installs only what is missing. Needs root (or sudo) on a fresh machine.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config lld
  libabsl-dev libprotobuf-dev protobuf-compiler
  libgrpc++-dev protobuf-compiler-grpc
  libsodium-dev libssl-dev openssl libsqlite3-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libgoogle-perftools-dev
  python3 python3-grpcio python3-protobuf
  python3-venv python3-wheel python3-nacl
  clang-14 libclang-rt-14-dev clang-format-14
  chromium
)
# Node.js and npm for the Node client kit (tools/clients/node): Debian's,
# unless a node and an npm are already on the PATH (NodeSource's nodejs, for
# one, bundles npm and conflicts with Debian's npm package).
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  packages+=(nodejs npm)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "setup: all ${#packages[@]} packages present"
  exit 0
fi

sudo=""
if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
echo "setup: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
