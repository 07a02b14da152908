// Tests of the protocol primitives against the published vectors in
// testdata/vectors/primitives.txt (documented in docs/test-vectors.md) and
// against independent implementations: a ChaCha20 block function written
// here from RFC 8439, and the standard tools sha256sum and openssl.
//
// Tests run with the source root as the working directory (see pyramid_test
// in the top-level CMakeLists.txt), so the vectors file has a relative path.

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/ed25519.h"
#include "referee/crypto/protocol.h"
#include "referee/crypto/random_stream.h"
#include "referee/crypto/sha256.h"
#include "tests/temp_dir.h"

namespace pyramid {
namespace {

using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

// Abseil 20220623 has no status matchers: small local ones.
#define PYR_ASSERT_OK(expr)                                  \
  do {                                                       \
    const absl::Status pyr_status_ = (expr);                 \
    ASSERT_TRUE(pyr_status_.ok()) << pyr_status_.ToString(); \
  } while (0)
#define PYR_CONCAT_INNER(a, b) a##b
#define PYR_CONCAT(a, b) PYR_CONCAT_INNER(a, b)
#define PYR_ASSERT_OK_AND_ASSIGN(lhs, expr) \
  PYR_ASSERT_OK_AND_ASSIGN_IMPL(PYR_CONCAT(pyr_or_, __LINE__), lhs, expr)
#define PYR_ASSERT_OK_AND_ASSIGN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                  \
  ASSERT_TRUE(tmp.ok()) << tmp.status().ToString();   \
  lhs = std::move(*tmp)

// Debian's Abseil has its own absl::string_view (not std::string_view).
std::string_view StdView(absl::string_view view) {
  return std::string_view(view.data(), view.size());
}

constexpr char kVectorsPath[] = "testdata/vectors/primitives.txt";

// ---------------------------------------------------------------------------
// The vectors file: `name = value` lines, `#` comments, blank lines.

struct VectorFile {
  std::map<std::string, std::string, std::less<>> values;
  std::vector<std::string> errors;  // Unreadable file, bad lines, duplicates.
};

VectorFile LoadVectorFile(const std::string& path) {
  VectorFile file;
  std::ifstream in(path);
  if (!in) {
    file.errors.push_back(absl::StrCat("cannot open ", path,
                                       " (run the test from the source root)"));
    return file;
  }
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    absl::string_view text = absl::StripAsciiWhitespace(line);
    if (text.empty() || text.front() == '#') continue;
    size_t eq = text.find('=');
    if (eq == absl::string_view::npos) {
      file.errors.push_back(absl::StrCat(path, ":", number, ": no '='"));
      continue;
    }
    std::string name(absl::StripAsciiWhitespace(text.substr(0, eq)));
    std::string value(absl::StripAsciiWhitespace(text.substr(eq + 1)));
    if (name.empty()) {
      file.errors.push_back(absl::StrCat(path, ":", number, ": empty name"));
      continue;
    }
    if (!file.values.emplace(name, value).second) {
      file.errors.push_back(
          absl::StrCat(path, ":", number, ": duplicate name ", name));
    }
  }
  return file;
}

const VectorFile& Vectors() {
  static const VectorFile* const file =
      new VectorFile(LoadVectorFile(kVectorsPath));
  return *file;
}

std::string Vec(std::string_view name) {
  const VectorFile& file = Vectors();
  auto it = file.values.find(name);
  if (it == file.values.end()) {
    ADD_FAILURE() << "no vector named '" << name << "' in " << kVectorsPath;
    return "";
  }
  return it->second;
}

std::string VecBytes(std::string_view name) {
  absl::StatusOr<std::string> bytes = FromHex(Vec(name));
  if (!bytes.ok()) {
    ADD_FAILURE() << name << ": " << bytes.status();
    return "";
  }
  return *bytes;
}

uint64_t VecU64(std::string_view name) {
  uint64_t value = 0;
  if (!absl::SimpleAtoi(Vec(name), &value)) {
    ADD_FAILURE() << name << ": not an unsigned decimal";
  }
  return value;
}

std::vector<uint64_t> VecU64List(std::string_view name) {
  std::vector<uint64_t> values;
  for (absl::string_view item : absl::StrSplit(Vec(name), ',')) {
    uint64_t value = 0;
    if (!absl::SimpleAtoi(absl::StripAsciiWhitespace(item), &value)) {
      ADD_FAILURE() << name << ": bad list item '" << item << "'";
    }
    values.push_back(value);
  }
  return values;
}

std::vector<std::string> VecBytesList(std::string_view name) {
  std::vector<std::string> values;
  for (absl::string_view item : absl::StrSplit(Vec(name), ',')) {
    absl::StatusOr<std::string> bytes =
        FromHex(StdView(absl::StripAsciiWhitespace(item)));
    if (!bytes.ok()) ADD_FAILURE() << name << ": " << bytes.status();
    values.push_back(bytes.ok() ? *bytes : "");
  }
  return values;
}

Digest ToDigest(std::string_view bytes) {
  Digest digest{};
  EXPECT_EQ(bytes.size(), digest.size());
  std::memcpy(digest.data(), bytes.data(),
              std::min(bytes.size(), digest.size()));
  return digest;
}

Digest VecDigest(std::string_view name) { return ToDigest(VecBytes(name)); }

// ---------------------------------------------------------------------------
// Running the standard tools.

struct CommandResult {
  int exit_code = -1;
  std::string output;  // stdout (and stderr where the command redirects it).
};

CommandResult RunCommand(const std::string& command) {
  CommandResult result;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  size_t n;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) {
    result.output.append(buffer, n);
  }
  int status = pclose(pipe);
  if (status != -1 && WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  return result;
}

bool HaveTool(const std::string& tool) {
  return std::system(
             absl::StrCat("command -v ", tool, " >/dev/null 2>&1").c_str()) ==
         0;
}

#define PYR_REQUIRE_TOOL(tool)                                          \
  do {                                                                  \
    if (!HaveTool(tool)) GTEST_SKIP() << "'" tool "' is not installed"; \
  } while (0)

std::string Quote(const std::string& path) {
  return absl::StrCat("'", path, "'");  // Our temp paths hold no quote.
}

// A fresh private directory, removed with everything in it; the test fails
// if it cannot be made.
TempDir MakeTempDir() {
  TempDir dir("pyramid_crypto_test");
  if (!dir.ok()) ADD_FAILURE() << "mkdtemp failed: " << std::strerror(errno);
  return dir;
}

void WriteFile(const std::string& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  ASSERT_TRUE(out.good()) << "cannot write " << path;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in),
                     std::istreambuf_iterator<char>());
}

// `sha256sum` of `bytes` (written to a file first), as lower-case hex, or
// an error text starting with "error".
std::string Sha256SumTool(std::string_view bytes) {
  const TempDir dir = MakeTempDir();
  std::string path = dir.File("preimage.bin");
  WriteFile(path, bytes);
  CommandResult result = RunCommand(absl::StrCat("sha256sum ", Quote(path)));
  if (result.exit_code != 0 || result.output.size() < 64) {
    return absl::StrCat("error: sha256sum exited ", result.exit_code, ": ",
                        result.output);
  }
  return result.output.substr(0, 64);
}

// Keystream bytes from `openssl enc -chacha20` over zero bytes. OpenSSL's
// 16-byte IV is the 32-bit block counter (little-endian) then the 12-byte
// nonce.
std::string OpensslChacha20(std::string_view key, uint32_t counter,
                            size_t size) {
  const TempDir dir = MakeTempDir();
  std::string zeros = dir.File("zeros.bin");
  std::string out = dir.File("stream.bin");
  WriteFile(zeros, std::string(size, '\0'));
  std::string iv;
  for (int shift = 0; shift < 32; shift += 8) {
    iv.push_back(static_cast<char>((counter >> shift) & 0xff));
  }
  iv.append(12, '\0');
  CommandResult result = RunCommand(
      absl::StrCat("openssl enc -chacha20 -K ", ToHex(key), " -iv ", ToHex(iv),
                   " -in ", Quote(zeros), " -out ", Quote(out), " 2>&1"));
  EXPECT_EQ(result.exit_code, 0) << result.output;
  return ReadFile(out);
}

std::vector<uint64_t> LittleEndianWords(std::string_view bytes) {
  std::vector<uint64_t> words;
  for (size_t i = 0; i + 8 <= bytes.size(); i += 8) {
    uint64_t word = 0;
    for (int b = 7; b >= 0; --b) {
      word = (word << 8) | static_cast<uint8_t>(bytes[i + b]);
    }
    words.push_back(word);
  }
  return words;
}

// PEM files for openssl from raw Ed25519 keys: the fixed DER prefixes of
// SubjectPublicKeyInfo and PKCS#8 for the Ed25519 OID 1.3.101.112.
std::string PublicKeyPem(std::string_view raw_public_key) {
  std::string der = *FromHex("302a300506032b6570032100");
  der.append(raw_public_key);
  return absl::StrCat("-----BEGIN PUBLIC KEY-----\n", absl::Base64Escape(der),
                      "\n-----END PUBLIC KEY-----\n");
}

std::string PrivateKeyPem(std::string_view seed) {
  std::string der = *FromHex("302e020100300506032b657004220420");
  der.append(seed);
  return absl::StrCat("-----BEGIN PRIVATE KEY-----\n", absl::Base64Escape(der),
                      "\n-----END PRIVATE KEY-----\n");
}

// Result of `openssl pkeyutl -verify` of `signature` over `message`.
CommandResult OpensslVerify(std::string_view public_key,
                            std::string_view message,
                            std::string_view signature) {
  const TempDir dir = MakeTempDir();
  WriteFile(dir.File("pub.pem"), PublicKeyPem(public_key));
  WriteFile(dir.File("msg.bin"), message);
  WriteFile(dir.File("sig.bin"), signature);
  return RunCommand(absl::StrCat("openssl pkeyutl -verify -pubin -inkey ",
                                 Quote(dir.File("pub.pem")), " -rawin -in ",
                                 Quote(dir.File("msg.bin")), " -sigfile ",
                                 Quote(dir.File("sig.bin")), " 2>&1"));
}

// The signature `openssl pkeyutl -sign` makes over `message` with the key
// whose RFC 8032 seed is `seed`.
std::string OpensslSign(std::string_view seed, std::string_view message) {
  const TempDir dir = MakeTempDir();
  WriteFile(dir.File("key.pem"), PrivateKeyPem(seed));
  WriteFile(dir.File("msg.bin"), message);
  CommandResult result = RunCommand(
      absl::StrCat("openssl pkeyutl -sign -inkey ", Quote(dir.File("key.pem")),
                   " -rawin -in ", Quote(dir.File("msg.bin")), " -out ",
                   Quote(dir.File("sig.bin")), " 2>&1"));
  EXPECT_EQ(result.exit_code, 0) << result.output;
  return ReadFile(dir.File("sig.bin"));
}

// ---------------------------------------------------------------------------
// An independent ChaCha20 (RFC 8439 section 2.3), written from the RFC.

uint32_t Rotl(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

void QuarterRound(std::array<uint32_t, 16>& s, int a, int b, int c, int d) {
  s[a] += s[b];
  s[d] ^= s[a];
  s[d] = Rotl(s[d], 16);
  s[c] += s[d];
  s[b] ^= s[c];
  s[b] = Rotl(s[b], 12);
  s[a] += s[b];
  s[d] ^= s[a];
  s[d] = Rotl(s[d], 8);
  s[c] += s[d];
  s[b] ^= s[c];
  s[b] = Rotl(s[b], 7);
}

uint32_t LoadLe32(std::string_view bytes, size_t at) {
  uint32_t v = 0;
  for (int b = 3; b >= 0; --b)
    v = (v << 8) | static_cast<uint8_t>(bytes[at + b]);
  return v;
}

std::string ReferenceChachaBlock(std::string_view key, uint32_t counter,
                                 std::string_view nonce) {
  std::array<uint32_t, 16> state = {0x61707865, 0x3320646e, 0x79622d32,
                                    0x6b206574};
  for (int i = 0; i < 8; ++i) state[4 + i] = LoadLe32(key, 4 * i);
  state[12] = counter;
  for (int i = 0; i < 3; ++i) state[13 + i] = LoadLe32(nonce, 4 * i);
  std::array<uint32_t, 16> s = state;
  for (int round = 0; round < 10; ++round) {
    QuarterRound(s, 0, 4, 8, 12);
    QuarterRound(s, 1, 5, 9, 13);
    QuarterRound(s, 2, 6, 10, 14);
    QuarterRound(s, 3, 7, 11, 15);
    QuarterRound(s, 0, 5, 10, 15);
    QuarterRound(s, 1, 6, 11, 12);
    QuarterRound(s, 2, 7, 8, 13);
    QuarterRound(s, 3, 4, 9, 14);
  }
  std::string block;
  for (int i = 0; i < 16; ++i) {
    uint32_t word = s[i] + state[i];
    for (int shift = 0; shift < 32; shift += 8) {
      block.push_back(static_cast<char>((word >> shift) & 0xff));
    }
  }
  return block;
}

// The first `count` words of the protocol's random stream keyed by `seed`.
std::vector<uint64_t> ReferenceWords(std::string_view seed, size_t count) {
  std::string keystream;
  const std::string nonce(12, '\0');
  for (uint32_t block = 0; keystream.size() < count * 8; ++block) {
    keystream += ReferenceChachaBlock(seed, block, nonce);
  }
  std::vector<uint64_t> words = LittleEndianWords(keystream);
  words.resize(count);
  return words;
}

// uniform(n) computed from the specification with 128-bit arithmetic:
// draw until a word is below 2^64 - (2^64 mod n).
uint64_t ReferenceUniform(RandomStream& stream, uint64_t n, int* rejected) {
  const unsigned __int128 two64 = static_cast<unsigned __int128>(1) << 64;
  const unsigned __int128 limit = two64 - two64 % n;
  while (true) {
    uint64_t word = stream.NextWord();
    if (word < limit) return word % n;
    ++*rejected;
  }
}

std::vector<uint64_t> Iota(size_t n) {
  std::vector<uint64_t> items(n);
  for (size_t i = 0; i < n; ++i) items[i] = i;
  return items;
}

std::string Bytes(std::initializer_list<int> values) {
  std::string out;
  for (int v : values) out.push_back(static_cast<char>(v));
  return out;
}

// ---------------------------------------------------------------------------
// The vectors file itself.

TEST(VectorsFileTest, ParsesWithoutErrors) {
  const VectorFile& file = Vectors();
  EXPECT_THAT(file.errors, ::testing::IsEmpty());
  EXPECT_GE(file.values.size(), 60u);
}

// docs/DESIGN.md publishes some of these vectors; the file must say the same.
TEST(VectorsFileTest, AgreesWithDesignDoc) {
  EXPECT_EQ(Vec("stream.seed"),
            "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
  std::vector<uint64_t> words = VecU64List("stream.words");
  ASSERT_GE(words.size(), 4u);
  EXPECT_THAT(std::vector<uint64_t>(words.begin(), words.begin() + 4),
              ElementsAreArray<uint64_t>(
                  {7645359380336737593u, 5281276197874154893u,
                   14729830432180286858u, 10530800043416210610u}));
  EXPECT_THAT(VecU64List("stream.uniform_6"),
              ElementsAreArray<uint64_t>({3, 1, 2, 0, 5, 3, 3, 2, 0, 1}));
  EXPECT_THAT(VecU64List("stream.shuffle_10"),
              ElementsAreArray<uint64_t>({6, 0, 8, 4, 1, 5, 9, 2, 7, 3}));
  EXPECT_EQ(Vec("commit.match_id"), std::string(32, '0'));
  EXPECT_EQ(Vec("commit.seat"), "1");
  EXPECT_EQ(Vec("commit.decision_id"), "7");
  EXPECT_EQ(Vec("commit.salt"), Vec("stream.seed"));
  EXPECT_EQ(Vec("commit.action"), "0802");
  EXPECT_EQ(Vec("commit.hash"),
            "8af9957833302aaf4ff4444f1aa8f3216c05c33a465fd6506fb61d210cce973f");
}

// The design document in the repository states the same vectors as the
// file (its text wraps and indents lines: every run of spaces and line
// breaks is compared as one space).
TEST(VectorsFileTest, TheDesignDocStatesThem) {
  std::ifstream in("docs/DESIGN.md");
  ASSERT_TRUE(in) << "cannot read docs/DESIGN.md";
  const std::string doc{std::istreambuf_iterator<char>(in),
                        std::istreambuf_iterator<char>()};
  const std::string text = absl::StrJoin(
      absl::StrSplit(doc, absl::ByAnyChar(" \n"), absl::SkipEmpty()), " ");
  const std::vector<uint64_t> words = VecU64List("stream.words");
  ASSERT_GE(words.size(), 4u);
  EXPECT_THAT(
      text, HasSubstr(absl::StrCat("first u64 words ", words[0], ", ", words[1],
                                   ", ", words[2], ", ", words[3])));
  EXPECT_THAT(text, HasSubstr(absl::StrCat(
                        "`uniform(6)` ×10 = ",
                        absl::StrJoin(VecU64List("stream.uniform_6"), ","))));
  EXPECT_THAT(text, HasSubstr(absl::StrCat(
                        "shuffle of 0..9 = ",
                        absl::StrJoin(VecU64List("stream.shuffle_10"), ","))));
  EXPECT_THAT(text, HasSubstr(absl::StrCat("`", Vec("commit.hash"), "`")));
}

// ---------------------------------------------------------------------------
// Hex and integer helpers.

TEST(BytesTest, ToHexIsLowerCase) {
  EXPECT_EQ(ToHex(""), "");
  EXPECT_EQ(ToHex(Bytes({0x00, 0x01, 0xab, 0xff})), "0001abff");
  std::string all;
  for (int i = 0; i < 256; ++i) all.push_back(static_cast<char>(i));
  std::string hex = ToHex(all);
  ASSERT_EQ(hex.size(), 512u);
  EXPECT_EQ(hex.substr(0, 6), "000102");
  EXPECT_EQ(hex.substr(506), "fdfeff");
  absl::StatusOr<std::string> back = FromHex(hex);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, all);
}

TEST(BytesTest, FromHexAcceptsEitherCase) {
  for (std::string_view hex : {"00abff", "00ABFF", "00aBfF"}) {
    absl::StatusOr<std::string> bytes = FromHex(hex);
    ASSERT_TRUE(bytes.ok()) << hex << ": " << bytes.status();
    EXPECT_EQ(*bytes, Bytes({0x00, 0xab, 0xff})) << hex;
  }
  absl::StatusOr<std::string> empty = FromHex("");
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(*empty, "");
}

TEST(BytesTest, FromHexRejectsBadInput) {
  for (std::string_view bad :
       {"0", "abc", "0x12", "zz", "12 34", " 1234", "1234\n", "12-34", "g0"}) {
    absl::StatusOr<std::string> bytes = FromHex(bad);
    EXPECT_FALSE(bytes.ok()) << "accepted '" << bad << "'";
    if (!bytes.ok()) {
      EXPECT_EQ(bytes.status().code(), absl::StatusCode::kInvalidArgument);
    }
  }
  // An embedded zero byte inside an even-length string.
  EXPECT_FALSE(FromHex(std::string_view("12\0"
                                        "4",
                                        4))
                   .ok());
}

TEST(BytesTest, BigEndianAppends) {
  std::string out = "x";
  AppendU32Be(out, 0x01020304u);
  EXPECT_EQ(out, "x" + Bytes({1, 2, 3, 4}));
  AppendU64Be(out, 0x1112131415161718u);
  EXPECT_EQ(out, "x" + Bytes({1, 2, 3, 4, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16,
                              0x17, 0x18}));
  std::string edges;
  AppendU32Be(edges, 0);
  AppendU32Be(edges, 0xffffffffu);
  AppendU64Be(edges, 1);
  EXPECT_EQ(ToHex(edges), "00000000ffffffff0000000000000001");
}

// ---------------------------------------------------------------------------
// SHA-256.

TEST(Sha256Test, StandardVectors) {
  EXPECT_EQ(ToHex(AsView(Sha256(""))), Vec("sha256.empty"));
  EXPECT_EQ(ToHex(AsView(Sha256(VecBytes("sha256.abc.message")))),
            Vec("sha256.abc"));
}

TEST(Sha256Test, PartsHashAsTheirConcatenation) {
  EXPECT_EQ(Sha256({"a", "", "bc"}), Sha256("abc"));
  EXPECT_EQ(Sha256({}), Sha256(""));
  std::string big(100000, 'q');
  EXPECT_EQ(Sha256({std::string_view(big).substr(0, 777),
                    std::string_view(big).substr(777)}),
            Sha256(big));
  EXPECT_NE(Sha256("abc"), Sha256("abd"));
}

TEST(Sha256Test, ThreadsAgree) {
  const Digest expected = Sha256("pyramid");
  std::vector<std::thread> threads;
  std::vector<int> good(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 2000; ++i) {
        if (Sha256({"pyr", "amid"}) == expected) ++good[t];
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_THAT(good, ::testing::Each(2000));
}

TEST(Sha256Test, MatchesSha256sum) {
  PYR_REQUIRE_TOOL("sha256sum");
  std::string data;
  for (int i = 0; i < 1000; ++i) data.push_back(static_cast<char>(i * 7));
  EXPECT_EQ(Sha256SumTool(data), ToHex(AsView(Sha256(data))));
  EXPECT_EQ(Sha256SumTool(""), Vec("sha256.empty"));
}

// ---------------------------------------------------------------------------
// The random stream.

TEST(ChaCha20ReferenceTest, Rfc8439BlockVector) {
  // Checks the independent implementation the stream tests rely on.
  uint64_t counter = VecU64("chacha20.rfc8439.counter");
  EXPECT_EQ(ToHex(ReferenceChachaBlock(VecBytes("chacha20.rfc8439.key"),
                                       static_cast<uint32_t>(counter),
                                       VecBytes("chacha20.rfc8439.nonce"))),
            Vec("chacha20.rfc8439.block"));
}

TEST(RandomStreamTest, FirstWords) {
  const Digest seed = VecDigest("stream.seed");
  std::vector<uint64_t> expected = VecU64List("stream.words");
  ASSERT_EQ(expected.size(), 8u);
  RandomStream stream(seed);
  for (size_t i = 0; i < expected.size(); ++i) {
    uint64_t word = stream.NextWord();
    std::cout << "stream word " << i + 1 << " = " << word << "\n";
    EXPECT_EQ(word, expected[i]) << "word " << i + 1 << " (1-based)";
  }
  EXPECT_EQ(ReferenceWords(AsView(seed), 8), expected);
}

TEST(RandomStreamTest, WordsAcrossRefillBoundariesMatchReferenceKeystream) {
  const Digest seed = VecDigest("stream.seed");
  constexpr size_t kCount = 1000;  // Many 4-block refills and a partial one.
  std::vector<uint64_t> reference = ReferenceWords(AsView(seed), kCount);
  RandomStream stream(seed);
  for (size_t i = 0; i < kCount; ++i) {
    ASSERT_EQ(stream.NextWord(), reference[i]) << "word index " << i;
  }
  std::vector<uint64_t> boundary = VecU64List("stream.words_30_to_33");
  ASSERT_EQ(boundary.size(), 4u);
  EXPECT_EQ(
      std::vector<uint64_t>(reference.begin() + 30, reference.begin() + 34),
      boundary);
  // The same words when draws before the boundary go through Uniform and
  // the copy constructor.
  RandomStream other(seed);
  for (int i = 0; i < 30; ++i) other.Uniform(1);
  RandomStream copy = other;
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(copy.NextWord(), boundary[i]) << "word index " << 30 + i;
  }
}

TEST(RandomStreamTest, DifferentSeedsGiveDifferentStreams) {
  Digest a = VecDigest("stream.seed");
  Digest b = a;
  b[31] ^= 1;
  RandomStream sa(a), sb(b);
  EXPECT_NE(sa.NextWord(), sb.NextWord());
  EXPECT_EQ(RandomStream(b).NextWord(), ReferenceWords(AsView(b), 1)[0]);
}

TEST(RandomStreamTest, Uniform6) {
  RandomStream stream(VecDigest("stream.seed"));
  std::vector<uint64_t> got;
  for (int i = 0; i < 10; ++i) got.push_back(stream.Uniform(6));
  EXPECT_EQ(got, VecU64List("stream.uniform_6"));
}

TEST(RandomStreamTest, Shuffle10) {
  RandomStream stream(VecDigest("stream.seed"));
  std::vector<uint64_t> items = Iota(10);
  stream.Shuffle(items);
  EXPECT_EQ(items, VecU64List("stream.shuffle_10"));
}

TEST(RandomStreamTest, Shuffle52DrawsFiftyOneWords) {
  const Digest seed = VecDigest("stream.seed");
  RandomStream stream(seed);
  std::vector<uint64_t> items = Iota(52);
  stream.Shuffle(items);
  EXPECT_EQ(items, VecU64List("stream.shuffle_52"));
  // Fisher-Yates by hand on a reference stream.
  RandomStream hand(seed);
  std::vector<uint64_t> expected = Iota(52);
  int rejected = 0;
  for (size_t i = 51; i >= 1; --i) {
    std::swap(expected[i], expected[ReferenceUniform(hand, i + 1, &rejected)]);
  }
  EXPECT_EQ(items, expected);
  EXPECT_EQ(rejected, 0);
  EXPECT_EQ(stream.NextWord(), ReferenceWords(AsView(seed), 52)[51]);
}

TEST(RandomStreamTest, ShortShufflesDrawOnlyWhatTheyMust) {
  const Digest seed = VecDigest("stream.seed");
  std::vector<uint64_t> words = ReferenceWords(AsView(seed), 2);
  RandomStream stream(seed);
  std::vector<int> empty;
  stream.Shuffle(empty);
  std::vector<int> one = {42};
  stream.Shuffle(one);
  EXPECT_EQ(one, std::vector<int>{42});
  std::vector<int> two = {10, 20};
  stream.Shuffle(two);  // One draw: j = uniform(2) = word 0 mod 2.
  EXPECT_EQ(two, (words[0] % 2 == 1) ? std::vector<int>({10, 20})
                                     : std::vector<int>({20, 10}));
  EXPECT_EQ(stream.NextWord(), words[1]);
}

TEST(RandomStreamTest, UniformOneConsumesExactlyOneWord) {
  const Digest seed = VecDigest("stream.seed");
  std::vector<uint64_t> words = VecU64List("stream.words");
  ASSERT_EQ(words.size(), 8u);
  RandomStream stream(seed);
  EXPECT_EQ(stream.Uniform(1), 0u);
  EXPECT_EQ(stream.NextWord(), words[1]);
  EXPECT_EQ(stream.Uniform(1), 0u);
  EXPECT_EQ(stream.Uniform(1), 0u);
  EXPECT_EQ(stream.NextWord(), words[4]);
}

TEST(RandomStreamTest, UniformRejectsWordsAtOrAboveTheLimit) {
  const Digest seed = VecDigest("stream.seed");
  const uint64_t n = VecU64("stream.uniform_big.n");
  ASSERT_EQ(n, (uint64_t{1} << 63) + 1);
  // By hand: 2^64 mod (2^63 + 1) = 2^63 - 1, so the limit is 2^63 + 1 = n:
  // words >= n are rejected, and an accepted word is its own residue.
  const uint64_t limit = n;
  RandomStream stream(seed);
  RandomStream clone = stream;
  std::vector<uint64_t> got, by_hand;
  int rejected = 0;
  int consumed = 0;
  for (int draw = 0; draw < 4; ++draw) {
    got.push_back(stream.Uniform(n));
    while (true) {
      uint64_t word = clone.NextWord();
      ++consumed;
      if (word < limit) {
        by_hand.push_back(word);
        break;
      }
      ++rejected;
    }
  }
  EXPECT_GT(rejected, 0) << "the vector must exercise rejection";
  EXPECT_EQ(got, by_hand);
  EXPECT_EQ(got, VecU64List("stream.uniform_big"));
  EXPECT_EQ(static_cast<uint64_t>(consumed),
            VecU64("stream.uniform_big.words_consumed"));
  // Both streams are now at the same word.
  EXPECT_EQ(stream.NextWord(), clone.NextWord());
}

TEST(RandomStreamTest, UniformPowerOfTwoNeverRejects) {
  const Digest seed = VecDigest("stream.seed");
  const uint64_t n = VecU64("stream.uniform_pow2.n");
  ASSERT_EQ(n, uint64_t{1} << 63);
  std::vector<uint64_t> words = ReferenceWords(AsView(seed), 8);
  RandomStream stream(seed);
  std::vector<uint64_t> got;
  for (int i = 0; i < 3; ++i) got.push_back(stream.Uniform(n));
  EXPECT_EQ(got, VecU64List("stream.uniform_pow2"));
  for (int i = 0; i < 3; ++i) EXPECT_EQ(got[i], words[i] & (n - 1));
  ASSERT_EQ(VecU64("stream.uniform_pow2.words_consumed"), 3u);
  EXPECT_EQ(stream.NextWord(), words[3]);
}

TEST(RandomStreamTest, UniformMatchesSpecificationForManyN) {
  const Digest seed = VecDigest("stream.seed");
  const uint64_t max = ~uint64_t{0};
  for (uint64_t n :
       {uint64_t{1}, uint64_t{2}, uint64_t{3}, uint64_t{6}, uint64_t{7},
        uint64_t{52}, uint64_t{1000003}, uint64_t{1} << 32,
        (uint64_t{1} << 32) + 1, (uint64_t{1} << 63) - 1,
        (uint64_t{1} << 63) + 1, (uint64_t{3} << 62), max - 1, max}) {
    RandomStream stream(seed);
    RandomStream clone = stream;
    int rejected = 0;
    for (int i = 0; i < 300; ++i) {
      uint64_t value = stream.Uniform(n);
      ASSERT_LT(value, n);
      ASSERT_EQ(value, ReferenceUniform(clone, n, &rejected))
          << "n = " << n << ", draw " << i;
    }
    EXPECT_EQ(stream.NextWord(), clone.NextWord()) << "n = " << n;
  }
}

TEST(RandomStreamTest, CopiesAreIndependent) {
  RandomStream a(VecDigest("stream.seed"));
  a.NextWord();
  RandomStream b = a;
  uint64_t from_a = a.NextWord();
  a.NextWord();
  EXPECT_EQ(b.NextWord(), from_a);
}

TEST(RandomStreamTest, KeystreamMatchesOpenssl) {
  PYR_REQUIRE_TOOL("openssl");
  const Digest seed = VecDigest("stream.seed");
  constexpr size_t kWords = 160;  // Five 4-block refills.
  std::vector<uint64_t> tool =
      LittleEndianWords(OpensslChacha20(AsView(seed), 0, kWords * 8));
  ASSERT_EQ(tool.size(), kWords);
  RandomStream stream(seed);
  for (size_t i = 0; i < kWords; ++i) {
    ASSERT_EQ(stream.NextWord(), tool[i]) << "word index " << i;
  }
  // Starting openssl at block counter 4 gives word 32 onwards: the second
  // refill starts at the right block.
  std::vector<uint64_t> from_block_4 =
      LittleEndianWords(OpensslChacha20(AsView(seed), 4, 64 * 8));
  ASSERT_EQ(from_block_4.size(), 64u);
  EXPECT_EQ(from_block_4,
            std::vector<uint64_t>(tool.begin() + 32, tool.begin() + 96));
  EXPECT_EQ(std::vector<uint64_t>(tool.begin(), tool.begin() + 8),
            VecU64List("stream.words"));
  EXPECT_EQ(std::vector<uint64_t>(tool.begin() + 30, tool.begin() + 34),
            VecU64List("stream.words_30_to_33"));
  // A seed from the seed-derivation vector, too.
  const Digest derived = VecDigest("seed.seed");
  std::vector<uint64_t> derived_words =
      LittleEndianWords(OpensslChacha20(AsView(derived), 0, 8 * 8));
  EXPECT_EQ(derived_words, VecU64List("seed.stream_words"));
}

// ---------------------------------------------------------------------------
// Protocol preimages and hashes.

TEST(ProtocolTest, DomainSeparatorsAreAsciiAndOneZeroByte) {
  struct Domain {
    std::string_view value;
    const char* text;
  };
  for (const Domain& d :
       {Domain{kCommitDomain, "pyramid-referee/commit/v1"},
        Domain{kCommitSigDomain, "pyramid-referee/commit-sig/v1"},
        Domain{kRefereeSeedDomain, "pyramid-referee/referee-seed/v1"},
        Domain{kSeedDomain, "pyramid-referee/seed/v1"},
        Domain{kLogDomain, "pyramid-referee/log/v1"}}) {
    EXPECT_EQ(d.value, std::string(d.text) + '\0') << d.text;
    EXPECT_EQ(d.value.size(), std::strlen(d.text) + 1) << d.text;
  }
}

class CommitmentVectorTest : public ::testing::TestWithParam<std::string> {};

TEST_P(CommitmentVectorTest, HashAndPreimage) {
  const std::string p = GetParam() + ".";
  const std::string match_id = VecBytes(p + "match_id");
  const uint64_t seat = VecU64(p + "seat");
  const uint64_t decision_id = VecU64(p + "decision_id");
  const std::string salt = VecBytes(p + "salt");
  const std::string action = VecBytes(p + "action");
  ASSERT_EQ(match_id.size(), kMatchIdSize);
  ASSERT_EQ(salt.size(), kSaltSize);
  ASSERT_LE(seat, 0xffffffffu);

  // The preimage assembled byte by byte from the specification.
  std::string preimage = std::string("pyramid-referee/commit/v1") + '\0';
  preimage += match_id;
  for (int shift = 24; shift >= 0; shift -= 8) {
    preimage.push_back(static_cast<char>((seat >> shift) & 0xff));
  }
  for (int shift = 56; shift >= 0; shift -= 8) {
    preimage.push_back(static_cast<char>((decision_id >> shift) & 0xff));
  }
  preimage += salt;
  preimage += action;
  EXPECT_EQ(preimage.size(), 26u + 16 + 4 + 8 + 32 + action.size());
  EXPECT_EQ(ToHex(preimage), Vec(p + "preimage"));

  const Digest c = CommitmentHash(match_id, static_cast<uint32_t>(seat),
                                  decision_id, salt, action);
  EXPECT_EQ(ToHex(AsView(c)), Vec(p + "hash"));
  EXPECT_EQ(c, Sha256(preimage));
}

TEST_P(CommitmentVectorTest, PreimageHashedBySha256sum) {
  PYR_REQUIRE_TOOL("sha256sum");
  const std::string p = GetParam() + ".";
  EXPECT_EQ(Sha256SumTool(VecBytes(p + "preimage")), Vec(p + "hash"));
  // And the preimage this library hashes, through the tool.
  const Digest c = CommitmentHash(
      VecBytes(p + "match_id"), static_cast<uint32_t>(VecU64(p + "seat")),
      VecU64(p + "decision_id"), VecBytes(p + "salt"), VecBytes(p + "action"));
  EXPECT_EQ(Sha256SumTool(VecBytes(p + "preimage")), ToHex(AsView(c)));
}

INSTANTIATE_TEST_SUITE_P(Vectors, CommitmentVectorTest,
                         ::testing::Values("commit", "commit2"));

TEST(ProtocolTest, CommitmentDependsOnEveryField) {
  const std::string match_id = VecBytes("commit.match_id");
  const std::string salt = VecBytes("commit.salt");
  const std::string action = VecBytes("commit.action");
  const Digest base = CommitmentHash(match_id, 1, 7, salt, action);
  std::string other_match = match_id;
  other_match[15] = 1;
  std::string other_salt = salt;
  other_salt[0] ^= 0x80;
  std::set<Digest> all = {
      base,
      CommitmentHash(other_match, 1, 7, salt, action),
      CommitmentHash(match_id, 2, 7, salt, action),
      CommitmentHash(match_id, 1, 8, salt, action),
      CommitmentHash(match_id, 1, 7, other_salt, action),
      CommitmentHash(match_id, 1, 7, salt, "\x08\x03"),
      CommitmentHash(match_id, 1, 7, salt, ""),
  };
  EXPECT_EQ(all.size(), 7u);
}

// A hand-written client's commitment, laid out by hand here (not by the
// library's own table of mistakes), is named for what it got wrong; the
// documented layout and an unrelated hash name nothing.
TEST(ProtocolTest, ACommitmentLaidOutWronglyIsNamedForItsMistake) {
  const std::string match_id = VecBytes("commit.match_id");
  const std::string salt = VecBytes("commit.salt");
  const std::string action = VecBytes("commit.action");
  const std::string domain = "pyramid-referee/commit/v1";
  auto be = [](uint64_t v, int n) {
    std::string out;
    for (int i = n - 1; i >= 0; --i) out.push_back(char((v >> (8 * i)) & 0xff));
    return out;
  };
  auto le = [](uint64_t v, int n) {
    std::string out;
    for (int i = 0; i < n; ++i) out.push_back(char((v >> (8 * i)) & 0xff));
    return out;
  };
  const std::string nul(1, '\0');
  const std::map<std::string, std::string> mistakes = {
      {"the match id is hashed as its hex text",
       domain + nul + ToHex(match_id) + be(1, 4) + be(7, 8) + salt + action},
      {"the domain string's ending zero byte is left out",
       domain + match_id + be(1, 4) + be(7, 8) + salt + action},
      {"the seat and the decision id are written little-endian",
       domain + nul + match_id + le(1, 4) + le(7, 8) + salt + action},
      {"it names the decision before this one",
       domain + nul + match_id + be(1, 4) + be(6, 8) + salt + action},
      {"the action is hashed before the salt",
       domain + nul + match_id + be(1, 4) + be(7, 8) + action + salt},
  };
  for (const auto& [said, preimage] : mistakes) {
    const std::string mistake = CommitmentMistake(match_id, 1, 7, salt, action,
                                                  AsView(Sha256(preimage)));
    EXPECT_THAT(mistake, HasSubstr(said));
    EXPECT_THAT(mistake, HasSubstr("docs/protocol.md"));
  }
  EXPECT_EQ(
      CommitmentMistake(match_id, 1, 7, salt, action,
                        AsView(CommitmentHash(match_id, 1, 7, salt, action))),
      "");
  EXPECT_EQ(CommitmentMistake(match_id, 1, 7, salt, action,
                              AsView(Sha256("something else"))),
            "");
}

TEST(ProtocolTest, CommitSignatureMessageLayout) {
  const std::string match_id = VecBytes("commit_sig.match_id");
  const uint64_t seat = VecU64("commit_sig.seat");
  const uint64_t decision_id = VecU64("commit_sig.decision_id");
  const std::string commitment = VecBytes("commit_sig.commitment");
  ASSERT_EQ(commitment.size(), 32u);
  EXPECT_EQ(ToHex(commitment), Vec("commit.hash"));

  std::string expected = std::string("pyramid-referee/commit-sig/v1") + '\0';
  expected += match_id;
  AppendU32Be(expected, static_cast<uint32_t>(seat));
  AppendU64Be(expected, decision_id);
  expected += commitment;
  EXPECT_EQ(expected.size(), 30u + 16 + 4 + 8 + 32);

  const std::string message = CommitSignatureMessage(
      match_id, static_cast<uint32_t>(seat), decision_id, commitment);
  EXPECT_EQ(message, expected);
  EXPECT_EQ(ToHex(message), Vec("commit_sig.message"));

  // Signed with the RFC 8032 test 1 key: Ed25519 is deterministic.
  absl::StatusOr<SigningKey> key =
      SigningKey::FromSeed(VecBytes("commit_sig.key_seed"));
  ASSERT_TRUE(key.ok()) << key.status();
  EXPECT_EQ(ToHex(key->public_key()), Vec("commit_sig.public_key"));
  EXPECT_EQ(ToHex(key->Sign(message)), Vec("commit_sig.signature"));
  EXPECT_TRUE(VerifySignature(key->public_key(), message,
                              VecBytes("commit_sig.signature")));
}

TEST(ProtocolTest, CommitSignatureCheckedByOpenssl) {
  PYR_REQUIRE_TOOL("openssl");
  PYR_REQUIRE_TOOL("sha256sum");
  const std::string message = VecBytes("commit_sig.message");
  EXPECT_EQ(Sha256SumTool(message), ToHex(AsView(Sha256(message))));
  CommandResult verified =
      OpensslVerify(VecBytes("commit_sig.public_key"), message,
                    VecBytes("commit_sig.signature"));
  EXPECT_EQ(verified.exit_code, 0) << verified.output;
  EXPECT_EQ(ToHex(OpensslSign(VecBytes("commit_sig.key_seed"), message)),
            Vec("commit_sig.signature"));
}

TEST(ProtocolTest, RefereeCommitmentLayout) {
  const std::string match_id = VecBytes("referee_commitment.match_id");
  const std::string contribution = VecBytes("referee_commitment.contribution");
  ASSERT_EQ(match_id.size(), kMatchIdSize);
  ASSERT_EQ(contribution.size(), kSeedContributionSize);
  std::string preimage = std::string("pyramid-referee/referee-seed/v1") + '\0';
  preimage += match_id;
  preimage += contribution;
  EXPECT_EQ(preimage.size(), 32u + 16 + 32);
  EXPECT_EQ(ToHex(preimage), Vec("referee_commitment.preimage"));
  const Digest commitment = RefereeCommitment(match_id, contribution);
  EXPECT_EQ(ToHex(AsView(commitment)), Vec("referee_commitment.hash"));
  EXPECT_EQ(commitment, Sha256(preimage));
}

TEST(ProtocolTest, RefereeCommitmentCheckedBySha256sum) {
  PYR_REQUIRE_TOOL("sha256sum");
  EXPECT_EQ(Sha256SumTool(VecBytes("referee_commitment.preimage")),
            Vec("referee_commitment.hash"));
}

TEST(ProtocolTest, DeriveSeedLayout) {
  const std::string match_id = VecBytes("seed.match_id");
  const std::string referee = VecBytes("seed.referee_contribution");
  const std::vector<std::string> seats =
      VecBytesList("seed.seat_contributions");
  ASSERT_EQ(seats.size(), 3u);
  EXPECT_EQ(seats[2], std::string(32, '\0')) << "a withheld reveal";
  std::string preimage = std::string("pyramid-referee/seed/v1") + '\0';
  preimage += match_id;
  preimage += referee;
  for (const std::string& seat : seats) {
    ASSERT_EQ(seat.size(), kSeedContributionSize);
    preimage += seat;
  }
  EXPECT_EQ(preimage.size(), 24u + 16 + 32 + 3 * 32);
  EXPECT_EQ(ToHex(preimage), Vec("seed.preimage"));
  const Digest seed = DeriveSeed(match_id, referee, seats);
  EXPECT_EQ(ToHex(AsView(seed)), Vec("seed.seed"));
  EXPECT_EQ(seed, Sha256(preimage));

  // The stream the seed keys.
  RandomStream stream(seed);
  std::vector<uint64_t> words;
  for (int i = 0; i < 8; ++i) words.push_back(stream.NextWord());
  EXPECT_EQ(words, VecU64List("seed.stream_words"));
  EXPECT_EQ(words, ReferenceWords(AsView(seed), 8));
}

TEST(ProtocolTest, DeriveSeedDependsOnSeatOrderAndCount) {
  const std::string match_id = VecBytes("seed.match_id");
  const std::string referee = VecBytes("seed.referee_contribution");
  std::vector<std::string> seats = VecBytesList("seed.seat_contributions");
  ASSERT_EQ(seats.size(), 3u);
  const Digest base = DeriveSeed(match_id, referee, seats);
  std::vector<std::string> swapped = {seats[1], seats[0], seats[2]};
  std::vector<std::string> fewer = {seats[0], seats[1]};
  EXPECT_NE(DeriveSeed(match_id, referee, swapped), base);
  EXPECT_NE(DeriveSeed(match_id, referee, fewer), base);
  EXPECT_EQ(DeriveSeed(match_id, referee, {}),
            Sha256({kSeedDomain, match_id, referee}));
}

TEST(ProtocolTest, DeriveSeedCheckedBySha256sum) {
  PYR_REQUIRE_TOOL("sha256sum");
  EXPECT_EQ(Sha256SumTool(VecBytes("seed.preimage")), Vec("seed.seed"));
}

TEST(ProtocolTest, LogSignatureMessageLayout) {
  const std::string match_id = VecBytes("log_sig.match_id");
  const uint64_t record_count = VecU64("log_sig.record_count");
  const std::string chain_hash = VecBytes("log_sig.chain_hash");
  ASSERT_EQ(chain_hash.size(), 32u);
  ASSERT_GT(record_count, 0xffffffffu) << "the vector must need 64 bits";
  std::string expected = std::string("pyramid-referee/log/v1") + '\0';
  expected += match_id;
  for (int shift = 56; shift >= 0; shift -= 8) {
    expected.push_back(static_cast<char>((record_count >> shift) & 0xff));
  }
  expected += chain_hash;
  EXPECT_EQ(expected.size(), 23u + 16 + 8 + 32);
  const std::string message =
      LogSignatureMessage(match_id, record_count, chain_hash);
  EXPECT_EQ(message, expected);
  EXPECT_EQ(ToHex(message), Vec("log_sig.message"));

  absl::StatusOr<SigningKey> key =
      SigningKey::FromSeed(VecBytes("log_sig.key_seed"));
  ASSERT_TRUE(key.ok()) << key.status();
  EXPECT_EQ(ToHex(key->public_key()), Vec("log_sig.public_key"));
  EXPECT_EQ(ToHex(key->Sign(message)), Vec("log_sig.signature"));
  EXPECT_TRUE(VerifySignature(key->public_key(), message,
                              VecBytes("log_sig.signature")));
  EXPECT_FALSE(VerifySignature(
      key->public_key(),
      LogSignatureMessage(match_id, record_count + 1, chain_hash),
      VecBytes("log_sig.signature")));
}

TEST(ProtocolTest, LogSignatureCheckedByOpenssl) {
  PYR_REQUIRE_TOOL("openssl");
  PYR_REQUIRE_TOOL("sha256sum");
  const std::string message = VecBytes("log_sig.message");
  EXPECT_EQ(Sha256SumTool(message), ToHex(AsView(Sha256(message))));
  absl::StatusOr<SigningKey> key =
      SigningKey::FromSeed(VecBytes("log_sig.key_seed"));
  ASSERT_TRUE(key.ok()) << key.status();
  CommandResult verified =
      OpensslVerify(key->public_key(), message, VecBytes("log_sig.signature"));
  EXPECT_EQ(verified.exit_code, 0) << verified.output;
  EXPECT_EQ(ToHex(OpensslSign(VecBytes("log_sig.key_seed"), message)),
            Vec("log_sig.signature"));
}

// ---------------------------------------------------------------------------
// Ed25519.

class Rfc8032Test : public ::testing::TestWithParam<std::string> {};

TEST_P(Rfc8032Test, KeySignatureAndVerification) {
  const std::string p = GetParam() + ".";
  absl::StatusOr<SigningKey> key = SigningKey::FromSeed(VecBytes(p + "seed"));
  ASSERT_TRUE(key.ok()) << key.status();
  EXPECT_EQ(ToHex(key->seed()), Vec(p + "seed"));
  EXPECT_EQ(ToHex(key->public_key()), Vec(p + "public_key"));
  const std::string message = VecBytes(p + "message");
  const std::string signature = key->Sign(message);
  EXPECT_EQ(ToHex(signature), Vec(p + "signature"));
  EXPECT_TRUE(VerifySignature(key->public_key(), message, signature));

  // Any flipped bit anywhere is rejected.
  for (size_t i = 0; i < signature.size(); ++i) {
    std::string bad = signature;
    bad[i] ^= 0x01;
    EXPECT_FALSE(VerifySignature(key->public_key(), message, bad)) << i;
  }
  std::string other_key = key->public_key();
  other_key[0] ^= 0x01;
  EXPECT_FALSE(VerifySignature(other_key, message, signature));
  EXPECT_FALSE(VerifySignature(key->public_key(), message + "x", signature));
  // Wrong sizes are simply invalid.
  EXPECT_FALSE(
      VerifySignature(key->public_key(), message, signature.substr(0, 63)));
  EXPECT_FALSE(VerifySignature(key->public_key(), message, signature + "x"));
  EXPECT_FALSE(
      VerifySignature(key->public_key().substr(1), message, signature));
  EXPECT_FALSE(VerifySignature("", message, signature));
}

INSTANTIATE_TEST_SUITE_P(Vectors, Rfc8032Test,
                         ::testing::Values("ed25519.test1", "ed25519.test2"));

TEST(Ed25519Test, FromSeedRejectsWrongSizes) {
  for (size_t size : {0, 31, 33, 64}) {
    absl::StatusOr<SigningKey> key =
        SigningKey::FromSeed(std::string(size, 'k'));
    EXPECT_FALSE(key.ok()) << size;
    if (!key.ok()) {
      EXPECT_EQ(key.status().code(), absl::StatusCode::kInvalidArgument);
    }
  }
}

TEST(Ed25519Test, GeneratedKeysAreFreshAndWork) {
  SigningKey a = SigningKey::Generate();
  SigningKey b = SigningKey::Generate();
  EXPECT_NE(a.seed(), b.seed());
  EXPECT_NE(a.public_key(), b.public_key());
  EXPECT_EQ(a.seed().size(), kKeySeedSize);
  EXPECT_EQ(a.public_key().size(), kPublicKeySize);
  absl::StatusOr<SigningKey> again = SigningKey::FromSeed(a.seed());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->public_key(), a.public_key());
  const std::string signature = a.Sign("hello");
  EXPECT_EQ(signature.size(), kSignatureSize);
  EXPECT_TRUE(VerifySignature(a.public_key(), "hello", signature));
  EXPECT_FALSE(VerifySignature(b.public_key(), "hello", signature));
}

TEST(Ed25519Test, IsValidPublicKeyRefusesWhatVerificationRefuses) {
  for (int i = 0; i < 8; ++i) {
    EXPECT_TRUE(IsValidPublicKey(SigningKey::Generate().public_key()));
  }
  // Not a point's canonical encoding, a point of small order, or not 32
  // bytes: libsodium verifies no signature by any of them.
  const std::string refused[] = {
      std::string(32, '\xff'),                       // y not reduced
      std::string(32, '\0'),                         // order 4
      *FromHex("01" + std::string(62, '0')),         // the identity
      *FromHex("ec" + std::string(60, 'f') + "7f"),  // y = p
      *FromHex("ee" + std::string(60, 'f') + "7f"),  // identity, unreduced
      *FromHex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac"
               "037a"),  // order 8
      std::string(31, '\x01'),
      "",
  };
  const SigningKey key = SigningKey::Generate();
  const std::string signature = key.Sign("hello");
  for (const std::string& bad : refused) {
    EXPECT_FALSE(IsValidPublicKey(bad)) << ToHex(bad);
    EXPECT_FALSE(VerifySignature(bad, "hello", signature)) << ToHex(bad);
  }
}

TEST(Ed25519Test, OpensslAgreesWithSigningKey) {
  PYR_REQUIRE_TOOL("openssl");
  // A fresh key: openssl verifies our signature, rejects a tampered one,
  // derives the same public key and makes the same (deterministic)
  // signature.
  SigningKey key = SigningKey::Generate();
  const std::string message = "pyramid referee: openssl cross-check";
  const std::string signature = key.Sign(message);
  CommandResult good = OpensslVerify(key.public_key(), message, signature);
  EXPECT_EQ(good.exit_code, 0) << good.output;
  EXPECT_THAT(good.output, HasSubstr("Signature Verified Successfully"));
  std::string bad = signature;
  bad[10] ^= 0x04;
  CommandResult rejected = OpensslVerify(key.public_key(), message, bad);
  EXPECT_NE(rejected.exit_code, 0) << rejected.output;
  CommandResult wrong_message =
      OpensslVerify(key.public_key(), message + ".", signature);
  EXPECT_NE(wrong_message.exit_code, 0) << wrong_message.output;
  EXPECT_EQ(OpensslSign(key.seed(), message), signature);

  const TempDir dir = MakeTempDir();
  WriteFile(dir.File("key.pem"), PrivateKeyPem(key.seed()));
  CommandResult der = RunCommand(absl::StrCat(
      "openssl pkey -in ", Quote(dir.File("key.pem")),
      " -pubout -outform DER -out ", Quote(dir.File("pub.der")), " 2>&1"));
  ASSERT_EQ(der.exit_code, 0) << der.output;
  std::string spki = ReadFile(dir.File("pub.der"));
  ASSERT_EQ(spki.size(), 44u);
  EXPECT_EQ(ToHex(spki.substr(0, 12)), "302a300506032b6570032100");
  EXPECT_EQ(spki.substr(12), key.public_key());
}

TEST(Ed25519Test, OpensslVerifiesRfc8032Test2) {
  PYR_REQUIRE_TOOL("openssl");
  CommandResult verified = OpensslVerify(VecBytes("ed25519.test2.public_key"),
                                         VecBytes("ed25519.test2.message"),
                                         VecBytes("ed25519.test2.signature"));
  EXPECT_EQ(verified.exit_code, 0) << verified.output;
}

// ---------------------------------------------------------------------------
// Key files.

mode_t FileMode(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) return 0;
  return st.st_mode & 07777;
}

bool Exists(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0;
}

TEST(KeyFileTest, WriteKeyFilesFormatAndModes) {
  const TempDir dir = MakeTempDir();
  const std::string path = dir.File("referee.key");
  absl::StatusOr<SigningKey> key =
      SigningKey::FromSeed(VecBytes("keyfile.seed"));
  ASSERT_TRUE(key.ok()) << key.status();
  // A strict umask: the public key must still come out 0644.
  const mode_t old_umask = umask(077);
  const absl::Status status = WriteKeyFiles(path, *key);
  umask(old_umask);
  PYR_ASSERT_OK(status);
  EXPECT_EQ(ToHex(ReadFile(path)), Vec("keyfile.secret_contents"));
  EXPECT_EQ(ToHex(ReadFile(path + ".pub")), Vec("keyfile.public_contents"));
  EXPECT_EQ(FileMode(path), 0600u);
  EXPECT_EQ(FileMode(path + ".pub"), 0644u);

  // A permissive umask: the secret stays 0600.
  const std::string path2 = dir.File("other.key");
  const mode_t old_umask2 = umask(0);
  const absl::Status status2 = WriteKeyFiles(path2, SigningKey::Generate());
  umask(old_umask2);
  PYR_ASSERT_OK(status2);
  EXPECT_EQ(FileMode(path2), 0600u);
  EXPECT_EQ(FileMode(path2 + ".pub"), 0644u);
}

TEST(KeyFileTest, WriteKeyFilesRefusesToOverwrite) {
  const TempDir dir = MakeTempDir();
  const std::string path = dir.File("seat.key");
  SigningKey first = SigningKey::Generate();
  PYR_ASSERT_OK(WriteKeyFiles(path, first));
  const std::string secret = ReadFile(path);
  const std::string pub = ReadFile(path + ".pub");
  absl::Status again = WriteKeyFiles(path, SigningKey::Generate());
  EXPECT_FALSE(again.ok());
  EXPECT_EQ(ReadFile(path), secret);
  EXPECT_EQ(ReadFile(path + ".pub"), pub);

  // Only the public file exists: refused, and no stray secret is left.
  const std::string lone = dir.File("lone.key");
  WriteFile(lone + ".pub", "precious\n");
  absl::Status refused = WriteKeyFiles(lone, SigningKey::Generate());
  EXPECT_FALSE(refused.ok());
  EXPECT_EQ(ReadFile(lone + ".pub"), "precious\n");
  EXPECT_FALSE(Exists(lone)) << "a secret key without its public key file";

  // A missing directory is an error, not a crash.
  EXPECT_FALSE(
      WriteKeyFiles(dir.File("no/such/dir.key"), SigningKey::Generate()).ok());
}

TEST(KeyFileTest, ReadSigningKeyRoundTrip) {
  const TempDir dir = MakeTempDir();
  const std::string path = dir.File("k");
  SigningKey key = SigningKey::Generate();
  PYR_ASSERT_OK(WriteKeyFiles(path, key));
  PYR_ASSERT_OK_AND_ASSIGN(SigningKey read, ReadSigningKey(path));
  EXPECT_EQ(read.seed(), key.seed());
  EXPECT_EQ(read.public_key(), key.public_key());
  EXPECT_EQ(read.Sign("m"), key.Sign("m"));

  // The published key file reads as the published key.
  WriteFile(dir.File("published"), VecBytes("keyfile.secret_contents"));
  PYR_ASSERT_OK_AND_ASSIGN(SigningKey published,
                           ReadSigningKey(dir.File("published")));
  EXPECT_EQ(ToHex(published.public_key()), Vec("ed25519.test1.public_key"));

  // Upper case and surrounding whitespace are tolerated on reading.
  WriteFile(dir.File("upper"),
            "  " + absl::AsciiStrToUpper(ToHex(key.seed())) + "\r\n\n");
  PYR_ASSERT_OK_AND_ASSIGN(SigningKey upper, ReadSigningKey(dir.File("upper")));
  EXPECT_EQ(upper.seed(), key.seed());
}

// A public key file holds 64 hex digits too: read as a seed, it would sign
// with a "secret" anyone has. Named PATH.pub, or found beside its secret
// key as PATH.pub when it is not that key's public half, it is refused.
TEST(KeyFileTest, ReadSigningKeyRefusesAPublicKeyFile) {
  const TempDir dir = MakeTempDir();
  const std::string path = dir.File("rk.key");
  const SigningKey key = SigningKey::Generate();
  PYR_ASSERT_OK(WriteKeyFiles(path, key));
  // The keygen pair is still read.
  PYR_ASSERT_OK_AND_ASSIGN(SigningKey read, ReadSigningKey(path));
  EXPECT_EQ(read.public_key(), key.public_key());

  // Its public key file is refused by name.
  absl::StatusOr<SigningKey> pub = ReadSigningKey(path + ".pub");
  ASSERT_FALSE(pub.ok());
  EXPECT_EQ(pub.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(pub.status().message()),
            absl::StrCat(path,
                         ".pub is a public key file (.pub): give the secret "
                         "key file (keygen writes it without .pub)"));

  // A secret key beside another key's public key file: a mismatched pair.
  const std::string other = dir.File("other.key");
  PYR_ASSERT_OK(WriteKeyFiles(other, SigningKey::Generate()));
  std::filesystem::remove(other + ".pub");
  WriteFile(other + ".pub", ToHex(key.public_key()) + "\n");
  absl::StatusOr<SigningKey> mismatched = ReadSigningKey(other);
  ASSERT_FALSE(mismatched.ok());
  EXPECT_EQ(mismatched.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(mismatched.status().message()),
              ::testing::StartsWith(absl::StrCat(
                  other, ".pub, next to it, holds another public key than ",
                  other, "'s: ")));

  // A copy of the public key under the secret key's name.
  const std::string copy = dir.File("copy.key");
  WriteFile(copy, ToHex(key.public_key()) + "\n");
  WriteFile(copy + ".pub", ToHex(key.public_key()) + "\n");
  absl::StatusOr<SigningKey> copied = ReadSigningKey(copy);
  ASSERT_FALSE(copied.ok());
  EXPECT_EQ(copied.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(copied.status().message()),
              ::testing::HasSubstr("holds the public key that"));

  // A sibling that is not a well-formed public key is not this check's
  // business: the secret key is read.
  const std::string odd = dir.File("odd.key");
  WriteFile(odd, ToHex(key.seed()) + "\n");
  WriteFile(odd + ".pub", "not a key\n");
  PYR_ASSERT_OK_AND_ASSIGN(SigningKey odd_read, ReadSigningKey(odd));
  EXPECT_EQ(odd_read.public_key(), key.public_key());
}

TEST(KeyFileTest, ReadSigningKeyRejectsBadFiles) {
  const TempDir dir = MakeTempDir();
  absl::StatusOr<SigningKey> missing = ReadSigningKey(dir.File("missing"));
  EXPECT_FALSE(missing.ok());
  if (!missing.ok()) {
    EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
    // Why it cannot be read, not only that.
    EXPECT_THAT(std::string(missing.status().message()),
                ::testing::HasSubstr("No such file or directory"));
  }
  // A directory is named as such, not read as a file of no hex digits.
  std::filesystem::create_directory(dir.File("a-directory"));
  absl::StatusOr<SigningKey> directory =
      ReadSigningKey(dir.File("a-directory"));
  EXPECT_FALSE(directory.ok());
  if (!directory.ok()) {
    EXPECT_THAT(std::string(directory.status().message()),
                ::testing::HasSubstr("it is a directory"));
  }
  const std::string seed_hex = Vec("keyfile.seed");
  for (const std::string& contents :
       {std::string(""), std::string("\n"), seed_hex.substr(2) + "\n",
        seed_hex + "00\n", seed_hex.substr(1) + "\n",
        "zz" + seed_hex.substr(2) + "\n",
        seed_hex.substr(0, 32) + " " + seed_hex.substr(32) + "\n",
        "0x" + seed_hex + "\n"}) {
    const std::string path = dir.File("bad");
    std::filesystem::remove(path);
    WriteFile(path, contents);
    absl::StatusOr<SigningKey> key = ReadSigningKey(path);
    EXPECT_FALSE(key.ok()) << "accepted '" << contents << "'";
    if (!key.ok()) {
      EXPECT_EQ(key.status().code(), absl::StatusCode::kInvalidArgument)
          << key.status();
    }
  }
}

// A key file is a line of hex digits: a file of more than 4 KiB is refused
// unread (a sparse file of a gigabyte must not be read); a pipe is read to
// its end (`--key_file=<(...)`), and a FIFO nobody writes reads as empty
// at once rather than being waited on.
TEST(KeyFileTest, AHugeFileIsRefusedUnreadAndAPipeIsReadWithoutWaiting) {
  const TempDir dir = MakeTempDir();
  const std::string huge = dir.File("huge.pub");
  WriteFile(huge, "");
  ASSERT_EQ(truncate(huge.c_str(), int64_t{1} << 30), 0);
  absl::StatusOr<std::string> key = ParsePublicKey(huge);
  ASSERT_FALSE(key.ok());
  EXPECT_EQ(std::string(key.status().message()),
            absl::StrCat("cannot read ", huge,
                         ": it is 1073741824 bytes, more than the 4096 a key "
                         "file holds (not read)"));
  const std::string fifo = dir.File("fifo.key");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  absl::StatusOr<SigningKey> unwritten = ReadSigningKey(fifo);
  ASSERT_FALSE(unwritten.ok());
  EXPECT_EQ(std::string(unwritten.status().message()),
            absl::StrCat(fifo, ": expected 64 hex digits, found nothing"));
  int ends[2];
  ASSERT_EQ(pipe(ends), 0);
  const std::string seed_hex = Vec("keyfile.seed") + "\n";
  ASSERT_EQ(write(ends[1], seed_hex.data(), seed_hex.size()),
            static_cast<ssize_t>(seed_hex.size()));
  close(ends[1]);
  absl::StatusOr<SigningKey> piped =
      ReadSigningKey(absl::StrCat("/dev/fd/", ends[0]));
  close(ends[0]);
  ASSERT_TRUE(piped.ok()) << piped.status();
  EXPECT_EQ(ToHex(piped->seed()), Vec("keyfile.seed"));
  int big[2];
  ASSERT_EQ(pipe(big), 0);
  const std::string too_much(5000, 'a');
  ASSERT_EQ(write(big[1], too_much.data(), too_much.size()),
            static_cast<ssize_t>(too_much.size()));
  close(big[1]);
  absl::StatusOr<SigningKey> overflowing =
      ReadSigningKey(absl::StrCat("/dev/fd/", big[0]));
  close(big[0]);
  ASSERT_FALSE(overflowing.ok());
  EXPECT_THAT(
      std::string(overflowing.status().message()),
      ::testing::HasSubstr("more than the 4096 bytes a key file holds"));
}

// A key file of the wrong length or with other characters says what it
// holds, so that a truncated copy or a "0x" is plain to see.
TEST(KeyFileTest, AWrongKeyFileSaysWhatItHolds) {
  const TempDir dir = MakeTempDir();
  const std::string seed_hex = Vec("keyfile.seed");
  const std::pair<std::string, std::string> cases[] = {
      {"", "expected 64 hex digits, found nothing"},
      {seed_hex.substr(2) + "\n", "expected 64 hex digits, found 62 of them"},
      {"0x" + seed_hex + "\n",
       "expected 64 hex digits, found 66 characters, not all hex digits"},
  };
  for (const auto& [contents, message] : cases) {
    const std::string path = dir.File("bad");
    std::filesystem::remove(path);
    WriteFile(path, contents);
    absl::StatusOr<SigningKey> key = ReadSigningKey(path);
    ASSERT_FALSE(key.ok());
    EXPECT_THAT(std::string(key.status().message()),
                ::testing::HasSubstr(message));
  }
}

// A public key given inline with a digit too few or too many is named as
// such, not looked for as a file.
TEST(KeyFileTest, AnInlinePublicKeyOfTheWrongLengthIsNamed) {
  const std::string hex = Vec("ed25519.test1.public_key");
  for (const std::string& input : {hex.substr(1), hex + "0"}) {
    absl::StatusOr<std::string> key = ParsePublicKey(input);
    ASSERT_FALSE(key.ok());
    EXPECT_EQ(key.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(key.status().message()),
                ::testing::HasSubstr(absl::StrCat(
                    "a public key is 64 hex digits (or the path of a file "
                    "holding them); this one has ",
                    input.size())));
  }
}

TEST(KeyFileTest, ParsePublicKeyFromHexAndFile) {
  const std::string expected = VecBytes("ed25519.test1.public_key");
  const std::string hex = Vec("ed25519.test1.public_key");
  PYR_ASSERT_OK_AND_ASSIGN(std::string lower, ParsePublicKey(hex));
  EXPECT_EQ(lower, expected);
  PYR_ASSERT_OK_AND_ASSIGN(std::string upper,
                           ParsePublicKey(absl::AsciiStrToUpper(hex)));
  EXPECT_EQ(upper, expected);

  const TempDir dir = MakeTempDir();
  const std::string path = dir.File("seat.key");
  PYR_ASSERT_OK_AND_ASSIGN(SigningKey key,
                           SigningKey::FromSeed(VecBytes("keyfile.seed")));
  PYR_ASSERT_OK(WriteKeyFiles(path, key));
  PYR_ASSERT_OK_AND_ASSIGN(std::string from_file,
                           ParsePublicKey(path + ".pub"));
  EXPECT_EQ(from_file, expected);
}

TEST(KeyFileTest, ParsePublicKeyRejectsBadInput) {
  const std::string hex = Vec("ed25519.test1.public_key");
  const TempDir dir = MakeTempDir();
  WriteFile(dir.File("short.pub"), hex.substr(2) + "\n");
  WriteFile(dir.File("garbage.pub"), "not a key\n");
  for (const std::string& input :
       {std::string(""), hex.substr(2), hex + "00", hex.substr(1), "0x" + hex,
        "zz" + hex.substr(2), hex + " ", dir.File("missing.pub"),
        dir.File("short.pub"), dir.File("garbage.pub")}) {
    absl::StatusOr<std::string> key = ParsePublicKey(input);
    EXPECT_FALSE(key.ok()) << "accepted '" << input << "'";
  }
}

}  // namespace
}  // namespace pyramid
