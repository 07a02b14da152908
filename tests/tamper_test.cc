// Tampering with the golden logs of testdata/golden/: single-byte changes,
// truncations, and every dropped, duplicated or swapped-adjacent record must
// be rejected, with the expected reason in representative cases. Then the
// real `replay` command on the golden logs and on tampered copies: exit codes
// (0 genuine, 1 not genuine, 2 usage or I/O error) and output.
//
// Byte changes and truncations are O(n^2) in the log's size (each one
// re-verifies the log). A golden of at most kExhaustiveUpTo bytes (12 KiB:
// the rock_paper_pyramid ones and the three-seat Shambo one) is changed at
// every byte and cut at every byte. A larger one is changed and cut at a
// fixed, deterministic sample (TestedPositions): every byte of the magic, of
// the header record and of the seal record; every byte of the first and the
// last checkpoint record; and for every other record the first byte of its
// length prefix and one byte of its body, at an offset that moves with the
// record's index so that the sample walks through every field (tags,
// prev_hash, payloads, signatures). Dropped, duplicated and swapped records
// stay exhaustive for every golden. Under the sanitizers the bytes are
// changed and cut at every kSanitizerStride-th tested position
// (SweptPositions, tests/sanitizers.h).
//
// Tests run from the source root; ctest sets PYRAMID_BIN to the directory of
// the built binaries.
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "gmock/gmock.h"
#include "google/protobuf/stubs/logging.h"
#include "gtest/gtest.h"
#include "pyramid/referee/v1/log.pb.h"
#include "referee/core/log_format.h"
#include "referee/core/log_reader.h"
#include "referee/core/log_sink.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/ed25519.h"
#include "replay/key_arguments.h"
#include "replay/verifier.h"
#include "tests/sanitizers.h"
#include "tests/temp_dir.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::Not;
using ::testing::StartsWith;
using Kind = Verdict::Kind;

constexpr char kKeyFile[] = "testdata/golden/referee.pub";
const char* const kGoldens[] = {
    "testdata/golden/rock_paper_pyramid/classic.pyrlog",
    "testdata/golden/rock_paper_pyramid/red.pyrlog",
    "testdata/golden/rock_paper_pyramid/winner_takes_all.pyrlog",
    "testdata/golden/rock_paper_pyramid/forfeit_mismatch.pyrlog",
    "testdata/golden/rock_paper_pyramid/default_action_timeout.pyrlog",
    "testdata/golden/rock_paper_pyramid/signed_seed_timeout_restarts.pyrlog",
    "testdata/golden/rock_paper_pyramid/named_header.pyrlog",
    "testdata/golden/pyramid_shambo/two_seats_move_limit.pyrlog",
    "testdata/golden/pyramid_shambo/three_seats.pyrlog",
    "testdata/golden/pyramid_shambo/ten_seats.pyrlog",
    "testdata/golden/pyramid_shambo/overpayment.pyrlog",
    "testdata/golden/flaming_pyramids/two_seats.pyrlog",
    "testdata/golden/flaming_pyramids/four_seats_curse.pyrlog",
    "testdata/golden/flaming_pyramids/six_seats.pyrlog",
    "testdata/golden/flaming_pyramids/forfeit_at_collapse_fall.pyrlog",
    "testdata/golden/flaming_pyramids/move_limit.pyrlog",
    "testdata/golden/flaming_pyramids/restarts.pyrlog",
    "testdata/golden/pyramid_scheme/two_seats_turn_limit.pyrlog",
    "testdata/golden/pyramid_scheme/three_seats.pyrlog",
    "testdata/golden/pyramid_scheme/four_seats.pyrlog",
    "testdata/golden/pyramid_scheme/reshuffle.pyrlog",
};
constexpr char kClassic[] = "testdata/golden/rock_paper_pyramid/classic.pyrlog";
// Goldens up to this size are changed and cut at every byte (see the top).
constexpr uint64_t kExhaustiveUpTo = 12 * 1024;

// Protobuf logs an error for every string field with invalid UTF-8, which
// thousands of flipped bytes produce; the verdicts are what is tested.
const bool kQuietProtobuf = [] {
  google::protobuf::SetLogHandler(nullptr);
  return true;
}();

std::string Describe(const Verdict& v) {
  return absl::StrCat(VerdictKindName(v.kind), " (record ", v.bad_record, ": ",
                      v.reason, ")");
}

std::string Varint(uint64_t n) {
  std::string out;
  for (; n >= 0x80; n >>= 7)
    out.push_back(static_cast<char>((n & 0x7f) | 0x80));
  out.push_back(static_cast<char>(n));
  return out;
}

std::string PinnedKey() {
  absl::StatusOr<std::string> key = ParsePublicKey(kKeyFile);
  EXPECT_TRUE(key.ok()) << key.status();
  return key.ok() ? *key : std::string();
}

// A golden log, split into records.
struct Golden {
  explicit Golden(const std::string& path) {
    absl::StatusOr<std::string> read = ReadFileToString(path);
    EXPECT_TRUE(read.ok()) << path << ": " << read.status();
    if (read.ok()) file = *read;
    const SplitLogResult split = SplitLog(file);
    EXPECT_EQ(split.tail, SplitLogResult::Tail::kClean) << split.tail_reason;
    for (const RawRecord& raw : split.records) {
      records.emplace_back(raw.bytes);
      begins.push_back(raw.offset);
      ends.push_back(raw.bytes.data() + raw.bytes.size() - file.data());
      v1::LogRecord& record = parsed.emplace_back();
      EXPECT_TRUE(record.ParseFromArray(raw.bytes.data(),
                                        static_cast<int>(raw.bytes.size())));
    }
  }
  size_t size() const { return records.size(); }

  std::string file;
  std::vector<std::string> records;  // Stored bytes of each record.
  std::vector<uint64_t> begins;      // Offset of each length prefix.
  std::vector<uint64_t> ends;        // Offset just after each record.
  std::vector<v1::LogRecord> parsed;
};

// The byte positions at which a golden is changed and cut, ascending: every
// position up to kExhaustiveUpTo bytes, else the sample described at the top.
std::vector<uint64_t> TestedPositions(const Golden& golden) {
  const uint64_t size = golden.file.size();
  if (size <= kExhaustiveUpTo) {
    std::vector<uint64_t> all(size);
    std::iota(all.begin(), all.end(), uint64_t{0});
    return all;
  }
  std::set<uint64_t> sample;
  const auto add_range = [&sample](uint64_t begin, uint64_t end) {
    for (uint64_t p = begin; p < end; ++p) sample.insert(p);
  };
  const size_t seal = golden.size() - 1;
  add_range(0, golden.ends[0]);          // The magic and the header.
  add_range(golden.begins[seal], size);  // The seal.
  size_t first_checkpoint = seal, last_checkpoint = seal;
  for (size_t i = 1; i < seal; ++i) {
    if (!golden.parsed[i].has_checkpoint()) continue;
    if (first_checkpoint == seal) first_checkpoint = i;
    last_checkpoint = i;
  }
  for (size_t i : {first_checkpoint, last_checkpoint})
    add_range(golden.begins[i], golden.ends[i]);
  for (size_t i = 1; i < seal; ++i) {
    const uint64_t body_size = golden.records[i].size();
    sample.insert(golden.begins[i]);
    sample.insert(golden.ends[i] - body_size + (37 * i) % body_size);
  }
  return std::vector<uint64_t>(sample.begin(), sample.end());
}

// The positions the sweeps below change and cut: TestedPositions, or under
// the sanitizers every kSanitizerStride-th of them.
std::vector<uint64_t> SweptPositions(const Golden& golden) {
  const std::vector<uint64_t> tested = TestedPositions(golden);
  std::vector<uint64_t> swept;
  for (size_t i = 0; i < tested.size(); i += kSanitizerStride) {
    swept.push_back(tested[i]);
  }
  return swept;
}

// A test name for a golden: its directory (the game) and its stem.
std::string GoldenName(const std::filesystem::path& path) {
  return absl::StrCat(path.parent_path().filename().string(), "_",
                      path.stem().string());
}

// Frames stored record bytes into a log, as they are (no re-chaining).
std::string Frame(const std::vector<std::string>& records) {
  std::string out(log_format::kMagic);
  for (const std::string& record : records)
    out += Varint(record.size()) + record;
  return out;
}

Verdict Verify(std::string_view file, bool check_signatures = true) {
  // Read once: the sweeps verify hundreds of thousands of copies.
  static const std::string* const kPinnedKey = new std::string(PinnedKey());
  VerifyOptions options;
  options.pinned_key = *kPinnedKey;
  options.check_signatures = check_signatures;
  return VerifyLog(file, options);
}

class TamperTest : public ::testing::TestWithParam<const char*> {
 protected:
  TamperTest() : golden_(GetParam()) {}
  void SetUp() override {
    ASSERT_GT(golden_.size(), 2u);
    ASSERT_EQ(Verify(golden_.file).kind, Kind::kGenuine);
  }
  Golden golden_;
};

// The swept bytes (SweptPositions), changed by XOR with 0x01 and with
// 0xFF. The sweep skips the Ed25519 checks (which only add reasons to
// reject) except for the bytes of the seal, where nothing after it could
// catch a change; a verdict that is not genuine without them is not genuine
// with them.
class ByteFlipTest
    : public ::testing::TestWithParam<std::tuple<std::string, uint8_t>> {};

TEST_P(ByteFlipTest, SingleByteChangesAreRejected) {
  const auto& [path, mask] = GetParam();
  const Golden golden(path);
  ASSERT_GT(golden.size(), 2u);
  const uint64_t seal_begin = golden.begins.back();
  std::string bad = golden.file;
  int prefixes = 0;
  for (const uint64_t p : SweptPositions(golden)) {
    bad[p] = static_cast<char>(bad[p] ^ mask);
    const Verdict v = Verify(bad, /*check_signatures=*/p >= seal_begin);
    bad[p] = static_cast<char>(bad[p] ^ mask);
    ASSERT_NE(v.kind, Kind::kGenuine) << "byte " << p;
    if (v.kind == Kind::kUnsealedPrefix) {
      // Only an unsigned tail may be cut off this way (e.g. a changed length
      // prefix that makes the last record run past the end of the file);
      // the changed byte must lie beyond what the signature covers.
      ++prefixes;
      ASSERT_LT(v.signed_records, golden.size()) << "byte " << p;
      EXPECT_GE(p, golden.ends[v.signed_records])
          << "byte " << p << ": " << Describe(v);
    }
  }
  EXPECT_EQ(bad, golden.file);
  // Only changed length prefixes after the last checkpoint do that.
  EXPECT_LT(prefixes, static_cast<int>(golden.file.size() / 100));
}

INSTANTIATE_TEST_SUITE_P(
    Goldens, ByteFlipTest,
    // Paths as strings: test names then show them, not their addresses.
    ::testing::Combine(::testing::ValuesIn(std::vector<std::string>(
                           std::begin(kGoldens), std::end(kGoldens))),
                       ::testing::Values(uint8_t{0x01}, uint8_t{0xff})),
    [](const auto& info) {
      return absl::StrCat(GoldenName(std::get<0>(info.param)),
                          std::get<1>(info.param) == 1 ? "_Xor01" : "_XorFF");
    });

// A sample that skipped a record or a byte of the header or the seal would
// let a change there go untested.
TEST_P(TamperTest, TestedPositionsCoverEveryRecordHeaderAndSeal) {
  const std::vector<uint64_t> positions = TestedPositions(golden_);
  ASSERT_FALSE(positions.empty());
  ASSERT_TRUE(std::is_sorted(positions.begin(), positions.end()));
  ASSERT_EQ(std::adjacent_find(positions.begin(), positions.end()),
            positions.end());
  ASSERT_LT(positions.back(), golden_.file.size());
  const std::set<uint64_t> tested(positions.begin(), positions.end());
  for (size_t i = 0; i < golden_.size(); ++i) {
    const bool whole = i == 0 || i + 1 == golden_.size();
    int hits = 0;
    for (uint64_t p = i == 0 ? 0 : golden_.begins[i]; p < golden_.ends[i];
         ++p) {
      if (tested.count(p) > 0) {
        ++hits;
      } else {
        EXPECT_FALSE(whole) << "record " << i << ", byte " << p;
      }
    }
    EXPECT_GE(hits, 2) << "record " << i;
  }
}

// Cut at each swept position (SweptPositions).
TEST_P(TamperTest, TruncationsAreRejected) {
  // Signatures are checked separately at the checkpoint boundaries below.
  int last_checkpoint = -1;
  size_t next = 0;  // First record not yet complete.
  for (const uint64_t cut : SweptPositions(golden_)) {
    while (next < golden_.size() && golden_.ends[next] <= cut) {
      if (golden_.parsed[next].has_checkpoint())
        last_checkpoint = static_cast<int>(next);
      ++next;
    }
    const Verdict v =
        Verify(std::string_view(golden_.file).substr(0, cut), false);
    ASSERT_NE(v.kind, Kind::kGenuine) << "cut " << cut;
    if (last_checkpoint < 0) {
      ASSERT_EQ(v.kind, Kind::kNotGenuine)
          << "cut " << cut << ": " << Describe(v);
      continue;
    }
    ASSERT_EQ(v.kind, Kind::kUnsealedPrefix)
        << "cut " << cut << ": " << Describe(v);
    EXPECT_EQ(v.signed_records, static_cast<uint64_t>(last_checkpoint)) << cut;
    EXPECT_EQ(v.records, next) << cut;
  }
}

TEST_P(TamperTest, CutAtACheckpointIsAnUnsealedPrefix) {
  int checkpoints = 0;
  for (size_t i = 0; i < golden_.size(); ++i) {
    if (!golden_.parsed[i].has_checkpoint()) continue;
    ++checkpoints;
    const Verdict v =
        Verify(std::string_view(golden_.file).substr(0, golden_.ends[i]));
    EXPECT_EQ(v.kind, Kind::kUnsealedPrefix) << Describe(v);
    EXPECT_EQ(v.signed_records, i);
    EXPECT_EQ(v.records, i + 1);
    EXPECT_THAT(v.reason, HasSubstr(absl::StrCat(
                              "signed by the checkpoint at record ", i)));
    EXPECT_THAT(v.reason, HasSubstr("0 later records are unsigned"));
  }
  EXPECT_GT(checkpoints, 0);
  // Without the seal, the whole match is a prefix up to its last checkpoint.
  const Verdict v =
      Verify(std::string_view(golden_.file).substr(0, golden_.begins.back()));
  EXPECT_EQ(v.kind, Kind::kUnsealedPrefix) << Describe(v);
}

TEST_P(TamperTest, EveryDroppedRecordIsRejected) {
  for (size_t i = 0; i < golden_.size(); ++i) {
    std::vector<std::string> records = golden_.records;
    records.erase(records.begin() + i);
    const Verdict v = Verify(Frame(records));
    if (i + 1 == golden_.size()) {
      // Dropping the seal leaves an unsealed match.
      EXPECT_EQ(v.kind, Kind::kUnsealedPrefix) << Describe(v);
      continue;
    }
    EXPECT_EQ(v.kind, Kind::kNotGenuine) << "drop " << i << ": " << Describe(v);
    EXPECT_EQ(v.bad_record, i) << Describe(v);
    EXPECT_THAT(v.reason, HasSubstr("prev_hash does not match")) << i;
  }
}

TEST_P(TamperTest, EveryDuplicatedRecordIsRejected) {
  for (size_t i = 0; i < golden_.size(); ++i) {
    std::vector<std::string> records = golden_.records;
    records.insert(records.begin() + i, records[i]);
    const Verdict v = Verify(Frame(records));
    EXPECT_EQ(v.kind, Kind::kNotGenuine)
        << "duplicate " << i << ": " << Describe(v);
    EXPECT_EQ(v.bad_record, i + 1) << Describe(v);
    EXPECT_THAT(v.reason,
                HasSubstr(i + 1 == golden_.size() ? "record after the seal"
                                                  : "prev_hash does not match"))
        << i;
  }
}

TEST_P(TamperTest, EverySwappedAdjacentPairIsRejected) {
  for (size_t i = 0; i + 1 < golden_.size(); ++i) {
    std::vector<std::string> records = golden_.records;
    std::swap(records[i], records[i + 1]);
    const Verdict v = Verify(Frame(records));
    EXPECT_EQ(v.kind, Kind::kNotGenuine) << "swap " << i << ": " << Describe(v);
    EXPECT_EQ(v.bad_record, i) << Describe(v);
    EXPECT_THAT(v.reason, HasSubstr("prev_hash does not match")) << i;
  }
}

TEST_P(TamperTest, AppendedBytesAreRejected) {
  // A copy of a record after the seal, and a stray byte.
  const Verdict copy = Verify(golden_.file + Varint(golden_.records[1].size()) +
                              golden_.records[1]);
  EXPECT_EQ(copy.kind, Kind::kNotGenuine);
  EXPECT_THAT(copy.reason, HasSubstr("record after the seal"));
  const Verdict stray = Verify(golden_.file + "\x01");
  EXPECT_EQ(stray.kind, Kind::kNotGenuine);
  EXPECT_THAT(stray.reason, HasSubstr("bytes after the seal"));
}

INSTANTIATE_TEST_SUITE_P(Goldens, TamperTest, ::testing::ValuesIn(kGoldens),
                         [](const ::testing::TestParamInfo<const char*>& info) {
                           return GoldenName(info.param);
                         });

// ---------------------------------------------------------------------------
// The reasons for representative single-byte changes of the classic golden.

class ReasonTest : public ::testing::Test {
 protected:
  ReasonTest() : golden_(kClassic) {}
  // The golden with byte `p` XOR `mask`.
  Verdict Flip(uint64_t p, uint8_t mask) {
    std::string bad = golden_.file;
    bad[p] = static_cast<char>(bad[p] ^ mask);
    return Verify(bad);
  }
  // Offset of the last `needle` inside record `i`'s stored bytes.
  uint64_t InRecord(size_t i, std::string_view needle) {
    const size_t at = golden_.records[i].rfind(needle);
    EXPECT_NE(at, std::string::npos);
    return golden_.ends[i] - golden_.records[i].size() + at;
  }
  Golden golden_;
};

TEST_F(ReasonTest, Magic) {
  for (uint64_t p = 0; p < 8; ++p) {
    const Verdict v = Flip(p, 0x01);
    EXPECT_EQ(v.kind, Kind::kNotGenuine);
    EXPECT_EQ(v.bad_record, 0u);
    EXPECT_THAT(v.reason, HasSubstr("not a pyramid log (magic)"));
  }
}

TEST_F(ReasonTest, HeaderFormatVersion) {
  // The header starts with format_version = 1, rules_version = 1.
  const uint64_t p = InRecord(0, std::string_view("\x08\x01\x10\x01", 4)) + 1;
  const Verdict v = Flip(p, 0x03);  // 1 -> 2.
  EXPECT_EQ(v.bad_record, 0u);
  EXPECT_THAT(v.reason, HasSubstr("unsupported log format version 2"));
}

TEST_F(ReasonTest, HeaderRulesVersion) {
  const uint64_t p = InRecord(0, std::string_view("\x08\x01\x10\x01", 4)) + 3;
  const Verdict v = Flip(p, 0x03);  // 1 -> 2.
  EXPECT_EQ(v.bad_record, 0u);
  EXPECT_THAT(
      v.reason,
      HasSubstr("rules version 2 of rock_paper_pyramid is not implemented"));
}

TEST_F(ReasonTest, MiddleRecordBreaksTheChain) {
  const size_t i = golden_.size() / 2;
  const Verdict v = Flip(golden_.ends[i] - 1, 0x01);
  EXPECT_EQ(v.kind, Kind::kNotGenuine);
  EXPECT_EQ(v.bad_record, i + 1);
  EXPECT_EQ(v.reason, absl::StrCat("prev_hash does not match the chain hash "
                                   "of record ",
                                   i, " (the SHA-256 of its bytes): record ", i,
                                   " or this prev_hash was altered (hash "
                                   "chain)"));
  EXPECT_FALSE(v.signature_failed);
}

TEST_F(ReasonTest, PrevHashOfARecord) {
  const size_t i = 5;
  // prev_hash is the record's first field: tag, length, then the hash.
  const uint64_t body = golden_.ends[i] - golden_.records[i].size();
  const uint64_t p = body + 2 + 7;
  ASSERT_EQ(golden_.file.substr(body + 2, 32), golden_.parsed[i].prev_hash());
  const Verdict v = Flip(p, 0x40);
  EXPECT_EQ(v.bad_record, i);
  EXPECT_THAT(v.reason, HasSubstr("prev_hash does not match"));
}

TEST_F(ReasonTest, SealSignature) {
  const size_t seal = golden_.size() - 1;
  ASSERT_TRUE(golden_.parsed[seal].has_seal());
  const uint64_t p =
      InRecord(seal, golden_.parsed[seal].seal().signature()) + 20;
  const Verdict v = Flip(p, 0x01);
  EXPECT_EQ(v.kind, Kind::kNotGenuine);
  EXPECT_EQ(v.bad_record, seal);
  EXPECT_THAT(v.reason, HasSubstr("referee signature does not verify"));
  // It vouched for every record: none before it is the referee's either.
  EXPECT_TRUE(v.signature_failed);
}

TEST_F(ReasonTest, SealChainHash) {
  const size_t seal = golden_.size() - 1;
  // The seal's prev_hash holds the same 32 bytes; the chain hash comes later.
  const uint64_t p =
      InRecord(seal, golden_.parsed[seal].seal().chain_hash()) + 3;
  const Verdict v = Flip(p, 0x01);
  EXPECT_EQ(v.bad_record, seal);
  EXPECT_EQ(v.kind, Kind::kNotGenuine);
  EXPECT_THAT(v.reason,
              HasSubstr("the signed chain hash is not the hash of the "
                        "previous record"));
}

TEST_F(ReasonTest, CheckpointSignature) {
  size_t checkpoint = 1;
  while (!golden_.parsed[checkpoint].has_checkpoint()) ++checkpoint;
  const uint64_t p =
      InRecord(checkpoint, golden_.parsed[checkpoint].checkpoint().signature());
  // Only the last signature is checked; the changed checkpoint breaks the
  // hash chain at the record after it.
  const Verdict v = Flip(p, 0x01);
  EXPECT_EQ(v.kind, Kind::kNotGenuine);
  EXPECT_EQ(v.bad_record, checkpoint + 1);
  EXPECT_THAT(v.reason, HasSubstr("prev_hash does not match"));
}

TEST_F(ReasonTest, LengthPrefixTooLongForTheFile) {
  // Make the first record's length prefix claim more than the file holds.
  std::string bad = golden_.file;
  bad[8] = static_cast<char>(0xff);  // Continuation: a longer length.
  const Verdict v = Verify(bad);
  EXPECT_EQ(v.kind, Kind::kNotGenuine) << Describe(v);
}

// ---------------------------------------------------------------------------
// The `replay` command.

struct CliRun {
  int exit_code = -1;
  std::string out;
  std::string err;
};

class ReplayCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* bin = std::getenv("PYRAMID_BIN");
    replay_ = std::string(bin != nullptr ? bin : "build/bin") + "/replay";
    ASSERT_TRUE(std::filesystem::exists(replay_))
        << replay_ << " is missing (set PYRAMID_BIN to the build's bin/)";
    ASSERT_TRUE(tmp_.ok());
  }

  std::string Tmp(const std::string& name) const { return tmp_.File(name); }

  void WriteFile(const std::string& path, std::string_view bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    ASSERT_TRUE(out.good());
  }

  static std::string Slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }

  // Runs `replay ARGS` (ARGS already shell-quoted where needed).
  CliRun Replay(const std::string& args) {
    return Shell(absl::StrCat("'", replay_, "' ", args));
  }

  CliRun Shell(const std::string& command) {
    CliRun run;
    const std::string out = Tmp("stdout"), err = Tmp("stderr");
    const int status =
        std::system(absl::StrCat(command, " >", out, " 2>", err).c_str());
    run.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    run.out = Slurp(out);
    run.err = Slurp(err);
    return run;
  }

  std::string replay_;
  TempDir tmp_{"tamper_test"};
};

TEST_F(ReplayCliTest, GenuineWithPinnedKey) {
  const CliRun run =
      Replay(absl::StrCat("verify --key ", kKeyFile, " ", kClassic));
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_EQ(run.out,
            absl::StrCat(kClassic,
                         ": genuine (rock_paper_pyramid, 88 records, 27 "
                         "moves, ranks 2 1 2; 0 of 3 seats named this "
                         "header, none with a key to vouch; referee key "
                         "pinned)\n"));
}

TEST_F(ReplayCliTest, KeyAsHexAndAsEqualsFlag) {
  const std::string hex = ToHex(PinnedKey());
  EXPECT_EQ(Replay(absl::StrCat("verify --key ", hex, " ", kClassic)).exit_code,
            0);
  EXPECT_EQ(Replay(absl::StrCat("verify --key=", hex, " ", kClassic)).exit_code,
            0);
}

TEST_F(ReplayCliTest, GenuineWithoutKeySaysWhereTheKeyCameFrom) {
  const CliRun run = Replay(absl::StrCat("verify ", kClassic));
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_THAT(run.out, HasSubstr(": genuine ("));
  EXPECT_THAT(run.out,
              HasSubstr(absl::StrCat("referee key ", ToHex(PinnedKey()),
                                     " taken from the log itself")));
}

// --tlog_key pins the key of the --inclusion proof's checkpoint, not the
// log's: the verdict line says so, and that --key pins the log's. It said
// only "taken from the log itself; pin it with --key", as if nothing had
// been pinned.
TEST_F(ReplayCliTest, TlogKeySaysTheCheckpointIsPinned) {
  const std::string example = "testdata/tlog/example";
  const std::string name =
      "rock_paper_pyramid-1a08adf5fc16925d26ec56c7ef0369db";
  const std::string log = absl::StrCat(example, "/logs/", name, ".pyrlog");
  const CliRun run = Replay(absl::StrCat(
      "verify --tlog_key=testdata/tlog/tlog.vkey --inclusion=", example,
      "/proofs/", name, ".tlog-proof ", log));
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  // referee.pub holds the key as 64 hex digits and a newline.
  const std::string referee_key =
      Slurp(absl::StrCat(example, "/referee.pub")).substr(0, 64);
  EXPECT_THAT(
      run.out,
      HasSubstr(absl::StrCat(
          "; checkpoint key pinned by --tlog_key; the log's referee "
          "key ",
          referee_key, " taken from the log itself: pin it with --key)\n")));
  EXPECT_THAT(run.out, HasSubstr(": included as leaf "));
  EXPECT_EQ(run.err, "");
}

TEST_F(ReplayCliTest, EveryGoldenVerifies) {
  std::string args = absl::StrCat("verify --key ", kKeyFile);
  for (const char* golden : kGoldens) absl::StrAppend(&args, " ", golden);
  const CliRun run = Replay(args);
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  EXPECT_EQ(std::count(run.out.begin(), run.out.end(), '\n'),
            static_cast<long>(std::size(kGoldens)));
}

TEST_F(ReplayCliTest, TamperedCopyIsNotGenuine) {
  Golden golden(kClassic);
  std::string bad = golden.file;
  const size_t i = golden.size() / 2;
  bad[golden.ends[i] - 1] ^= 0x01;
  WriteFile(Tmp("bad.pyrlog"), bad);
  const CliRun run =
      Replay(absl::StrCat("verify --key ", kKeyFile, " ", Tmp("bad.pyrlog")));
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_EQ(run.out,
            absl::StrCat(Tmp("bad.pyrlog"), ": NOT GENUINE: record ", i + 1,
                         ": prev_hash does not match the chain hash of record ",
                         i, " (the SHA-256 of its bytes): record ", i,
                         " or this prev_hash was altered (hash chain)\n"));
}

TEST_F(ReplayCliTest, WrongPinnedKeyIsNotGenuine) {
  const CliRun run = Replay(
      absl::StrCat("verify --key ", std::string(64, '0'), " ", kClassic));
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_THAT(run.out,
              HasSubstr("NOT GENUINE: record 0: the referee key in the "
                        "header is not the pinned key"));
}

TEST_F(ReplayCliTest, UnsealedPrefixNeedsAllowUnsealed) {
  Golden golden(kClassic);
  size_t checkpoint = golden.size() - 2;
  while (!golden.parsed[checkpoint].has_checkpoint()) --checkpoint;
  WriteFile(Tmp("prefix.pyrlog"),
            std::string_view(golden.file).substr(0, golden.ends[checkpoint]));
  const std::string log = Tmp("prefix.pyrlog");
  const CliRun strict =
      Replay(absl::StrCat("verify --key ", kKeyFile, " ", log));
  EXPECT_EQ(strict.exit_code, 1);
  EXPECT_THAT(strict.out, StartsWith(absl::StrCat(log, ": unsealed prefix: ")));
  EXPECT_THAT(strict.out,
              HasSubstr(absl::StrCat("signed by the checkpoint at record ",
                                     checkpoint)));
  EXPECT_THAT(strict.out, HasSubstr("referee key pinned"));
  const CliRun allowed = Replay(
      absl::StrCat("verify --allow-unsealed --key ", kKeyFile, " ", log));
  EXPECT_EQ(allowed.exit_code, 0);
  EXPECT_EQ(allowed.out, strict.out);
}

TEST_F(ReplayCliTest, WorstVerdictOfSeveralLogs) {
  Golden golden(kClassic);
  WriteFile(Tmp("cut.pyrlog"), std::string_view(golden.file).substr(0, 100));
  EXPECT_EQ(Replay(absl::StrCat("verify ", kClassic, " ", Tmp("cut.pyrlog")))
                .exit_code,
            1);
  // An unreadable file beside it does not hide it: still 1.
  EXPECT_EQ(Replay(absl::StrCat("verify ", kClassic, " ", Tmp("missing.pyrlog"),
                                " ", Tmp("cut.pyrlog")))
                .exit_code,
            1);
  EXPECT_EQ(
      Replay(absl::StrCat("verify ", kClassic, " ", Tmp("missing.pyrlog")))
          .exit_code,
      2);
}

// Several logs are verified on every core, yet each one's line comes in
// the order given, byte for byte what verifying it alone prints; the exit
// status is 1 when any is not genuine, and a last line on standard error
// gives logs/s and how many of each verdict.
TEST_F(ReplayCliTest, SeveralLogsInParallelPrintInTheOrderGiven) {
  Golden golden(kClassic);
  std::string bad = golden.file;
  bad[golden.ends[3] - 1] ^= 0x01;
  WriteFile(Tmp("bad.pyrlog"), bad);
  std::vector<std::string> logs;
  for (int round = 0; round < 3; ++round) {
    for (const char* log : kGoldens) logs.push_back(log);
    logs.push_back(Tmp("bad.pyrlog"));
  }
  std::string args = absl::StrCat("verify --key ", kKeyFile);
  std::string expected;
  for (const std::string& log : logs) {
    absl::StrAppend(&args, " ", log);
    const CliRun alone =
        Replay(absl::StrCat("verify --key ", kKeyFile, " ", log));
    EXPECT_EQ(alone.err, "") << log;
    absl::StrAppend(&expected, alone.out);
  }
  const CliRun run = Replay(args);
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_EQ(run.out, expected);
  EXPECT_THAT(run.err, MatchesRegex(absl::StrCat(
                           "replay: ", logs.size(),
                           " logs in [0-9.]+ s, [0-9.]+ logs/s \\([0-9]+ "
                           "threads?\\): ",
                           logs.size() - 3,
                           " genuine, 3 NOT GENUINE, 0 unsealed "
                           "prefixes\n")));
  // Without the bad log: 0; with an unreadable one as well: still 1 (the
  // forged log is not hidden), and the problem on standard error, before
  // the summary.
  const CliRun good = Replay(absl::StrCat("verify --key ", kKeyFile, " ",
                                          kGoldens[0], " ", kGoldens[1]));
  EXPECT_EQ(good.exit_code, 0) << good.err;
  const CliRun missing =
      Replay(absl::StrCat(args, " ", Tmp("missing.pyrlog"), " ", kClassic));
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_THAT(missing.err, StartsWith(Tmp("missing.pyrlog")));
}

TEST_F(ReplayCliTest, UsageErrors) {
  const std::string log = kClassic;
  const std::vector<std::string> usages = {
      "",
      "verify",
      "verify --key",
      "verify --bogus " + log,
      "frobnicate " + log,
      "show",
      "show " + log + " " + log,
      "export",
      "export " + log,
      "export --xml " + log,
      "verify --key nothex " + log,
      "verify --allow-unsealed=true " + log};
  for (const std::string& args : usages) {
    const CliRun run = Replay(args);
    EXPECT_EQ(run.exit_code, 2) << "replay " << args;
    EXPECT_TRUE(run.out.empty()) << "replay " << args << ": " << run.out;
    EXPECT_FALSE(run.err.empty()) << "replay " << args;
  }
}

// A flag that a command does not take is a usage error naming it, not a
// flag silently ignored (`html --level=chain` drew the page at the full
// level; `verify --out=F` wrote nothing; `--tlog_key` without
// `--inclusion` checked nothing).
TEST_F(ReplayCliTest, FlagsACommandDoesNotTakeAreRefused) {
  // A copy: a page written beside it by mistake stays out of testdata/.
  const std::string log = Tmp("classic.pyrlog");
  WriteFile(log, Golden(kClassic).file);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"html --level=chain " + log, "replay html does not take --level"},
      {"html --inclusion=p.tlog-proof " + log,
       "replay html does not take --inclusion"},
      {"html --tlog_key=testdata/tlog/tlog.vkey " + log,
       "replay html does not take --tlog_key"},
      {"verify --out=" + Tmp("verdict.txt") + " " + log,
       "replay verify does not take --out"},
      {"verify --tlog_key=testdata/tlog/tlog.vkey " + log,
       "--tlog_key checks the checkpoint of an --inclusion proof"},
      {"verify-tournament --allow-unsealed testdata/tlog/example",
       "replay verify-tournament does not take --allow-unsealed"},
      {"verify-tournament --level=chain testdata/tlog/example",
       "replay verify-tournament does not take --level"},
      {"show --key=" + std::string(kKeyFile) + " " + log,
       "replay show does not take --key (it takes no flag)"},
      {"export --json --allow-unsealed " + log,
       "replay export does not take --allow-unsealed (it takes --json only)"},
      {"consistency --tlog_key=testdata/tlog/tlog.vkey --out=x "
       "testdata/tlog/checkpoint-3 testdata/tlog/example/checkpoint "
       "testdata/tlog/consistency-3-6",
       "replay consistency does not take --out"},
  };
  for (const auto& [args, said] : cases) {
    const CliRun run = Replay(args);
    EXPECT_EQ(run.exit_code, 2) << "replay " << args;
    EXPECT_TRUE(run.out.empty()) << "replay " << args << ": " << run.out;
    EXPECT_THAT(run.err, HasSubstr(said)) << "replay " << args;
    EXPECT_THAT(run.err, HasSubstr("usage:")) << "replay " << args;
  }
  EXPECT_FALSE(std::filesystem::exists(Tmp("verdict.txt")));
  // The flags each takes still work.
  EXPECT_EQ(Replay(absl::StrCat("html --key ", kKeyFile,
                                " --allow-unsealed "
                                "--out ",
                                Tmp("page.html"), " ", log))
                .exit_code,
            0);
  EXPECT_EQ(Replay("verify-tournament --tlog_key=testdata/tlog/tlog.vkey "
                   "testdata/tlog/example")
                .exit_code,
            0);
}

// --key and --tlog_key given together must name one referee: with another
// referee's --key, `consistency` ignored it (it opens checkpoints with the
// verifier key) and said "consistent".
TEST_F(ReplayCliTest, KeyAndTlogKeyTogetherMustNameOneReferee) {
  const std::string example = "testdata/tlog/example";
  const std::string consistency =
      absl::StrCat("testdata/tlog/checkpoint-3 ", example,
                   "/checkpoint testdata/tlog/consistency-3-6");
  const std::string other(64, '1');
  for (const std::string& args :
       {absl::StrCat("consistency --key ", other,
                     " --tlog_key testdata/tlog/tlog.vkey ", consistency),
        absl::StrCat("verify-tournament --key ", other,
                     " --tlog_key testdata/tlog/tlog.vkey ", example)}) {
    const CliRun run = Replay(args);
    EXPECT_EQ(run.exit_code, 2) << args;
    EXPECT_TRUE(run.out.empty()) << args << ": " << run.out;
    EXPECT_THAT(run.err,
                HasSubstr(absl::StrCat("--key and --tlog_key name different "
                                       "referee keys (",
                                       other, " and ")))
        << args;
  }
  // The same referee's keys, both given, are one pin.
  EXPECT_EQ(Replay(absl::StrCat("consistency --key ", example,
                                "/referee.pub --tlog_key "
                                "testdata/tlog/tlog.vkey ",
                                consistency))
                .exit_code,
            0);
}

// A file of another kind given as the --inclusion proof is the command's
// mistake (exit 2, before the log is verified), as `consistency` says of
// its files; it was judged "NOT INCLUDED: bad tlog-proof", exit 1.
TEST_F(ReplayCliTest, AnInclusionProofOfAnotherKindIsAUsageError) {
  const std::string example = "testdata/tlog/example";
  const std::string log = absl::StrCat(
      example,
      "/logs/rock_paper_pyramid-1a08adf5fc16925d26ec56c7ef0369db.pyrlog");
  const CliRun run =
      Replay(absl::StrCat("verify --inclusion ", example, "/checkpoint ", log));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(run.out.empty()) << run.out;
  EXPECT_THAT(run.err,
              HasSubstr(absl::StrCat("--inclusion: ", example,
                                     "/checkpoint is not an inclusion proof "
                                     "(it looks like a checkpoint")));
  // A damaged proof is one of no kind, a verdict (it ends with a signed
  // checkpoint, so it still parses as a signed note).
  const std::string proof = Slurp(absl::StrCat(
      example,
      "/proofs/"
      "rock_paper_pyramid-1a08adf5fc16925d26ec56c7ef0369db.tlog-proof"));
  ASSERT_EQ(proof.rfind("c2sp.org/tlog-proof@v1\n", 0), 0u);
  const std::string damaged = Tmp("damaged.tlog-proof");
  WriteFile(damaged, "c2sp.org/tlog-proof@v2" + proof.substr(22));
  const CliRun verdict =
      Replay(absl::StrCat("verify --key ", example, "/referee.pub --inclusion ",
                          damaged, " ", log));
  EXPECT_EQ(verdict.exit_code, 1) << verdict.err;
  EXPECT_THAT(verdict.out, HasSubstr("NOT INCLUDED"));
}

// A flag given a value it does not take says so, not that it is unknown.
TEST_F(ReplayCliTest, AllowUnsealedTakesNoValue) {
  const CliRun run =
      Replay(absl::StrCat("verify --allow-unsealed=true ", kClassic));
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_THAT(run.err, HasSubstr("--allow-unsealed takes no value (got "
                                 "\"true\"); give it alone"));
  EXPECT_THAT(run.err, Not(HasSubstr("unknown flag")));
}

TEST_F(ReplayCliTest, MissingFileIsAnIoError) {
  const std::string missing = Tmp("no-such.pyrlog");
  for (const char* command : {"verify", "show", "export --json"}) {
    const CliRun run = Replay(absl::StrCat(command, " ", missing));
    EXPECT_EQ(run.exit_code, 2) << command;
    EXPECT_THAT(run.err, HasSubstr(missing)) << command;
  }
}

// A file larger than the machine's memory is refused unread, whatever the
// command: a sparse file of a terabyte (no disk space) was allocated whole,
// which failed (std::bad_alloc ended replay). A key file (--key) is
// refused unread above kMaxKeyArgumentFileBytes already (a5cc770).
TEST_F(ReplayCliTest, AFileLargerThanMemoryIsRefusedUnread) {
  const std::string huge = Tmp("huge.pyrlog");
  const uint64_t size = PhysicalMemoryBytes() + 1;
  { std::ofstream create(huge); }
  std::filesystem::resize_file(huge, size);
  const std::string why = absl::StrCat(
      ": it is ", size, " bytes, more than this machine's memory (",
      PhysicalMemoryBytes(), " bytes)");
  for (const std::string& args :
       {"verify " + huge, "show " + huge, "export --json " + huge,
        "html --out " + Tmp("huge.html") + " " + huge}) {
    const CliRun run = Replay(args);
    EXPECT_EQ(run.exit_code, 2) << args;
    EXPECT_THAT(run.err, HasSubstr(absl::StrCat(huge, why))) << args;
  }
  const std::string args = "verify --key " + huge + " " + kClassic;
  const CliRun run = Replay(args);
  EXPECT_EQ(run.exit_code, 2) << args;
  EXPECT_THAT(run.err,
              HasSubstr(absl::StrCat("--key: cannot read ", huge, ": it is ",
                                     size, " bytes, more than ",
                                     kMaxKeyArgumentFileBytes, " (not read)")))
      << args;
}

TEST_F(ReplayCliTest, ShowPrintsATranscript) {
  const CliRun run = Replay(absl::StrCat("show ", kClassic));
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("outcome (TERMINATION_NORMAL)"));
}

// A seat's key is printed whole, so that an auditor who knows the bot's key
// can compare it with the one the header gives (docs/log-format.md, "What
// a log cannot prove").
TEST_F(ReplayCliTest, ShowPrintsEachSeatsKey) {
  const CliRun run = Replay(
      "show testdata/golden/rock_paper_pyramid/"
      "signed_seed_timeout_restarts.pyrlog");
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out,
              HasSubstr("seat 0: golden-0 (signs its commits with key "
                        "acd87e5d3be94506219b659be014d189f0eb325446121ce868"
                        "7270e8481fdf42)\n"));
}

// `replay show` prints what the log says, "signed" lines included, without
// judging it: its first line says whether the log verifies, so that a
// tampered log's transcript is not taken for a genuine one.
TEST_F(ReplayCliTest, ShowSaysTheVerdictFirst) {
  const CliRun genuine = Replay(absl::StrCat("show ", kClassic));
  EXPECT_EQ(genuine.exit_code, 0) << genuine.err;
  EXPECT_THAT(genuine.out.substr(0, genuine.out.find('\n')),
              HasSubstr("verdict: genuine (referee key "));
  Golden golden(kClassic);
  std::string bad = golden.file;
  const size_t i = golden.size() / 2;
  bad[golden.ends[i] - 1] ^= 0x01;
  WriteFile(Tmp("bad.pyrlog"), bad);
  const CliRun tampered = Replay(absl::StrCat("show ", Tmp("bad.pyrlog")));
  EXPECT_EQ(tampered.out.substr(0, tampered.out.find('\n')),
            absl::StrCat("verdict: NOT GENUINE: record ", i + 1,
                         ": prev_hash does not match the chain hash of record ",
                         i, " (the SHA-256 of its bytes): record ", i,
                         " or this prev_hash was altered (hash chain) (below: "
                         "what the log says, not verified)"));
  // The transcript follows, as the log has it.
  EXPECT_THAT(tampered.out, HasSubstr("\noutcome (TERMINATION_"));
}

TEST_F(ReplayCliTest, ShowPrintsEveryGolden) {
  for (const char* golden : kGoldens) {
    const CliRun run = Replay(absl::StrCat("show ", golden));
    EXPECT_EQ(run.exit_code, 0) << golden << ": " << run.err;
    EXPECT_TRUE(run.err.empty()) << golden << ": " << run.err;
    EXPECT_THAT(run.out, HasSubstr("\noutcome (TERMINATION_")) << golden;
    EXPECT_THAT(run.out,
                HasSubstr(absl::StrCat("\nsealed: records 0..",
                                       Golden(golden).size() - 2, " signed\n")))
        << golden;
  }
}

TEST_F(ReplayCliTest, ExportJsonIsOneJsonObjectPerRecord) {
  for (const char* golden : kGoldens) {
    const CliRun run = Replay(absl::StrCat("export --json ", golden));
    ASSERT_EQ(run.exit_code, 0) << golden << ": " << run.err;
    WriteFile(Tmp("export.jsonl"), run.out);
    const CliRun python = Shell(absl::StrCat(
        "/usr/bin/python3 -c 'import json,sys; "
        "rows = [json.loads(l) for l in sys.stdin]; "
        "assert all(isinstance(r, dict) for r in rows); print(len(rows))' <",
        Tmp("export.jsonl")));
    EXPECT_EQ(python.exit_code, 0) << golden << ": " << python.err;
    EXPECT_EQ(python.out, absl::StrCat(Golden(golden).size(), "\n")) << golden;
  }
}

// ---------------------------------------------------------------------------
// `replay verify-tournament` on a copy of testdata/tlog/example (3 matches
// of a running referee's checkpoint 6), changed as an auditor found it.

class TournamentDirectoryCliTest : public ReplayCliTest {
 protected:
  static constexpr char kExample[] = "testdata/tlog/example";
  // The example's logs (and proofs) by match index: MATCH.pyrlog.
  static constexpr const char* kMatch[] = {
      "rock_paper_pyramid-1a08adf5fc16925d26ec56c7ef0369db",
      "rock_paper_pyramid-d22052291b3f9879cd6d8236d2d75509",
      "rock_paper_pyramid-d0aee5bef90ecef16d35bdd984664047",
  };

  void SetUp() override {
    ReplayCliTest::SetUp();
    dir_ = Tmp("t");
    std::filesystem::copy(kExample, dir_,
                          std::filesystem::copy_options::recursive);
  }

  static std::string Log(int index) {
    return absl::StrCat("logs/", kMatch[index], ".pyrlog");
  }
  static std::string Proof(int index) {
    return absl::StrCat("proofs/", kMatch[index], ".tlog-proof");
  }
  std::string In(const std::string& name) const {
    return absl::StrCat(dir_, "/", name);
  }

  // `replay verify-tournament --key=KEY DIR`, the example's key pinned.
  CliRun Verify() {
    return Replay(absl::StrCat("verify-tournament --key=", kExample,
                               "/referee.pub ", dir_));
  }

  std::string dir_;
};

// A proof that is there but cannot be read is named once, with why: it
// was also called "a proof whose log does not count (see logs/X above)",
// though its log is genuine and nothing was said of it (an auditor's
// finding, with a proof of mode 000; here a directory and a FIFO, whose
// read fails as root too, and mode 000 when not root).
TEST_F(TournamentDirectoryCliTest, AnUnreadableProofIsNamedOnce) {
  const std::string proof = In(Proof(0));
  std::filesystem::remove(proof);
  std::filesystem::create_directory(proof);
  CliRun run = Verify();
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_THAT(run.out,
              HasSubstr(absl::StrCat(dir_, ": ", Proof(0), ": cannot read ",
                                     proof, ": it is a directory\n")));
  EXPECT_THAT(run.out, Not(HasSubstr("a proof whose log"))) << run.out;
  std::filesystem::remove(proof);
  ASSERT_EQ(mkfifo(proof.c_str(), 0600), 0);
  run = Verify();
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_THAT(run.out, HasSubstr(absl::StrCat(Proof(0), ": cannot read ", proof,
                                              ": it is a FIFO, not a file")));
  EXPECT_THAT(run.out, Not(HasSubstr("a proof whose log"))) << run.out;
  if (geteuid() != 0) {
    std::filesystem::remove(proof);
    std::filesystem::copy(absl::StrCat(kExample, "/", Proof(0)), proof);
    ASSERT_EQ(chmod(proof.c_str(), 0), 0);
    run = Verify();
    EXPECT_EQ(run.exit_code, 1) << run.err;
    EXPECT_THAT(run.out, HasSubstr(absl::StrCat(Proof(0), ": cannot open ",
                                                proof, ": Permission denied")));
    EXPECT_THAT(run.out, Not(HasSubstr("a proof whose log"))) << run.out;
  }
}

// The note on a running referee's checkpoint gives both numbers truly: it
// said "the checkpoint holds 24 logs, 25 of them sealed logs in logs/", the
// 25 counting logs/' sealed logs whether the checkpoint holds them or not.
// Here the checkpoint is the referee's older one, of 3 leaves, none of them
// the example's (leaves 3 to 5).
TEST_F(TournamentDirectoryCliTest, TheCheckpointNoteCountsTruly) {
  std::filesystem::copy("testdata/tlog/checkpoint-3", In("checkpoint"),
                        std::filesystem::copy_options::overwrite_existing);
  const CliRun run = Verify();
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_THAT(run.out,
              HasSubstr(": note: the checkpoint holds 3 logs; logs/ holds 3 "
                        "sealed logs, 0 of them proved included in it: the "
                        "directory holds referee.pub"));
  std::filesystem::copy(absl::StrCat(kExample, "/checkpoint"), In("checkpoint"),
                        std::filesystem::copy_options::overwrite_existing);
  EXPECT_THAT(Verify().out,
              HasSubstr(": note: the checkpoint holds 6 logs; logs/ holds 3 "
                        "sealed logs, 3 of them proved included in it: "));
}

// An entry of proofs/ not named MATCH.tlog-proof is named as such, as one
// of logs/ is: it was called "a proof without its log".
TEST_F(TournamentDirectoryCliTest, AStrayInProofsIsNotCalledAProof) {
  WriteFile(In("proofs/notes.txt"), "a note\n");
  std::filesystem::create_directory(In("proofs/old"));
  const CliRun run = Verify();
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_THAT(run.out, HasSubstr(": proofs/notes.txt: a file not named "
                                 "MATCH.tlog-proof, so not read as a proof: "
                                 "proofs/ holds the proofs alone\n"));
  EXPECT_THAT(run.out, HasSubstr(": proofs/old: a directory not named "
                                 "MATCH.tlog-proof, so not read as a proof"));
  EXPECT_THAT(run.out, Not(HasSubstr("without its log"))) << run.out;
  EXPECT_THAT(run.out, HasSubstr(": 2 problems"));
  // One so named is still a proof without its log.
  WriteFile(In("proofs/x.tlog-proof"), "a note\n");
  EXPECT_THAT(Verify().out,
              HasSubstr(": proofs/x.tlog-proof: a proof without its log\n"));
}

// The page `replay html --key=K DIR/logs/X.pyrlog` writes, DIR/logs/X.html
// (README.md), made the directory fail: "logs/X.html: a file not named
// MATCH.pyrlog...". Such a page beside its log is a note; any other .html
// in logs/ is still a stray.
TEST_F(TournamentDirectoryCliTest, TheViewersPageBesideItsLogIsANote) {
  for (int i : {0, 2}) {
    const CliRun html = Replay(
        absl::StrCat("html --key=", kExample, "/referee.pub ", In(Log(i))));
    ASSERT_EQ(html.exit_code, 0) << html.out << html.err;
    ASSERT_TRUE(
        std::filesystem::exists(In(absl::StrCat("logs/", kMatch[i], ".html"))));
  }
  CliRun run = Verify();
  EXPECT_EQ(run.exit_code, 0) << run.out;
  EXPECT_THAT(run.out, HasSubstr(absl::StrCat(
                           ": note: logs/ holds 2 viewer pages (the first ",
                           "logs/", kMatch[0],
                           ".html, beside its log, as `replay html` writes "
                           "them), not checked")));
  // A page without its log, and a directory named as a page.
  WriteFile(In("logs/index.html"), "<html></html>\n");
  std::filesystem::create_directory(
      In(absl::StrCat("logs/", kMatch[1], ".html")));
  run = Verify();
  EXPECT_EQ(run.exit_code, 1) << run.out;
  EXPECT_THAT(run.out, HasSubstr(": logs/index.html: a file not named "
                                 "MATCH.pyrlog, so not checked as a log"));
  EXPECT_THAT(run.out,
              HasSubstr(absl::StrCat(": logs/", kMatch[1],
                                     ".html: a directory not named "
                                     "MATCH.pyrlog, so not checked as a log")));
  EXPECT_THAT(run.out, HasSubstr(": 2 problems"));
}

// Two logs whose file names are swapped, both there and genuine, were
// "match 0 ... is missing: no sealed, included log"; a match whose seats
// the schedule changed gave "its seats are not those the schedule gives
// match 0" without either list, then "match 0 ... is missing". Each log's
// line says what it holds and why it does not count, and the match's line
// names the file that holds its label.
TEST_F(TournamentDirectoryCliTest, AMatchWhoseLogDoesNotCountNamesIt) {
  std::filesystem::rename(In(Log(0)), In("logs/swap"));
  std::filesystem::rename(In(Log(2)), In(Log(0)));
  std::filesystem::rename(In("logs/swap"), In(Log(2)));
  const std::string ids[] = {"1a08adf5fc16925d26ec56c7ef0369db", "",
                             "d0aee5bef90ecef16d35bdd984664047"};
  CliRun run = Verify();
  EXPECT_EQ(run.exit_code, 1) << run.err;
  for (const auto& [file, holds, other] : {std::tuple(0, 2, 0), {2, 0, 2}}) {
    EXPECT_THAT(
        run.out,
        HasSubstr(absl::StrCat(
            ": ", Log(file), ": holds match ", holds,
            "'s label \"example/434764977a9d6e1d/", holds,
            "\" but is named for match ", ids[other],
            ", not for its own match id ", ids[holds],
            " (logs' names swapped, or a log copied under another's name): ",
            Proof(file), ": ")));
    EXPECT_THAT(run.out,
                HasSubstr(absl::StrCat(
                    ": match ", holds, " (example/434764977a9d6e1d/", holds,
                    ") has no log that counts: ", Log(file),
                    " holds its label but does not count (its own line says "
                    "why)\n")));
  }
  EXPECT_THAT(run.out, Not(HasSubstr("missing"))) << run.out;
  EXPECT_THAT(run.out, HasSubstr(": 4 problems"));

  // Back as they were, then match 0's seats edited in the schedule.
  std::filesystem::rename(In(Log(0)), In("logs/swap"));
  std::filesystem::rename(In(Log(2)), In(Log(0)));
  std::filesystem::rename(In("logs/swap"), In(Log(2)));
  ASSERT_EQ(Verify().exit_code, 0);
  std::string schedule = Slurp(In("schedule.json"));
  const size_t b3 = schedule.find("\"b3\"");
  ASSERT_NE(b3, std::string::npos);
  schedule.replace(b3, 4, "\"b4\"");
  WriteFile(In("schedule.json"), schedule);
  run = Verify();
  EXPECT_EQ(run.exit_code, 1) << run.err;
  EXPECT_THAT(run.out,
              HasSubstr(absl::StrCat(": ", Log(0),
                                     ": its seats (\"b3\", \"b1\", \"b2\") "
                                     "are not those the schedule gives match "
                                     "0 (\"b4\", \"b1\", \"b2\")\n")));
  EXPECT_THAT(run.out,
              HasSubstr(absl::StrCat(": match 0 (example/434764977a9d6e1d/0) "
                                     "has no log that counts: ",
                                     Log(0),
                                     " holds its label but does not "
                                     "count (its own line says why)\n")));
  EXPECT_THAT(run.out, Not(HasSubstr("missing"))) << run.out;
}

// The line of a directory that checks out names which run of which
// tournament it is and where its logs are in the referee's tree: a host
// with a standalone referee's admin token can play the tournament again
// under another run id and publish the run they like, which passes as
// well; the line said only "3 matches, all included in checkpoint 6 ROOT".
TEST_F(TournamentDirectoryCliTest, ThePassLineNamesTheRunAndItsLeaves) {
  const CliRun run = Verify();
  EXPECT_EQ(run.exit_code, 0) << run.out;
  EXPECT_THAT(run.out,
              HasSubstr(absl::StrCat(
                  "\n", dir_,
                  ": 3 matches, all included in checkpoint 6 "
                  "f7fabef3e6eb30a292073ec68a926bb524f32dab3af525f446909a5ec7"
                  "75e258 as leaves 3..5: tournament \"example\", run "
                  "\"434764977a9d6e1d\", game rock_paper_pyramid\n")));
}

}  // namespace
}  // namespace pyramid
