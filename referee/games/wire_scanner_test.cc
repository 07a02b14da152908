// WireScanner against protobuf's own answers: on every record of every
// golden log, and on many mutations of them, its fast answers must agree
// with the slow tests they stand in for (DiscardUnknownFields for unknown
// fields; a deterministic re-serialization for the canonical encoding).
#include "referee/games/wire_scanner.h"

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>
#include <vector>

#include "google/protobuf/stubs/logging.h"
#include "gtest/gtest.h"
#include "pyramid/referee/v1/log.pb.h"
#include "referee/core/log_reader.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/random_stream.h"
#include "referee/crypto/sha256.h"
#include "referee/games/game.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

// The stored bytes of every record of every golden log.
std::vector<std::string> GoldenRecords() {
  std::vector<std::string> records;
  for (const auto& entry :
       std::filesystem::recursive_directory_iterator("testdata/golden")) {
    if (entry.path().extension() != ".pyrlog") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream file;
    file << in.rdbuf();
    const std::string bytes = file.str();
    for (const RawRecord& raw : SplitLog(bytes).records) {
      records.emplace_back(raw.bytes);
    }
  }
  return records;
}

// Checks the scanner's answers on `bytes` against protobuf's; false when
// they do not parse.
bool CheckAgainstProtobuf(const std::string& bytes) {
  v1::LogRecord record;
  if (!record.ParseFromString(bytes)) return false;
  const WireScanner& scanner = WireScanner::For(v1::LogRecord::descriptor());
  v1::LogRecord known = record;
  known.DiscardUnknownFields();
  const bool unknown = known.ByteSizeLong() != record.ByteSizeLong();
  if (!scanner.MayHoldUnknownFields(bytes)) {
    EXPECT_FALSE(unknown) << ToHex(bytes);
  }
  if (scanner.IsCanonical(bytes)) {
    EXPECT_FALSE(unknown) << ToHex(bytes);
    EXPECT_EQ(DeterministicBytes(record), bytes);
  }
  return true;
}

TEST(WireScannerTest, EveryGoldenRecordIsCanonicalWithoutUnknownFields) {
  const std::vector<std::string> records = GoldenRecords();
  ASSERT_GT(records.size(), 1000u);
  const WireScanner& scanner = WireScanner::For(v1::LogRecord::descriptor());
  for (const std::string& bytes : records) {
    EXPECT_FALSE(scanner.MayHoldUnknownFields(bytes));
    EXPECT_TRUE(scanner.IsCanonical(bytes));
    EXPECT_TRUE(CheckAgainstProtobuf(bytes));
  }
}

// Flips, inserts and deletes bytes of golden records: whatever still
// parses, the scanner never says canonical or free of unknown fields where
// protobuf says otherwise.
TEST(WireScannerTest, MutatedRecordsNeverFoolIt) {
  google::protobuf::LogSilencer quiet;  // Strings that are not UTF-8.
  const std::vector<std::string> records = GoldenRecords();
  const WireScanner& scanner = WireScanner::For(v1::LogRecord::descriptor());
  RandomStream random(Sha256("wire scanner mutations"));
  int parsed = 0;
  int canonical = 0;
  for (int round = 0; round < 40000; ++round) {
    std::string bytes = records[random.Uniform(records.size())];
    for (int edits = 1 + random.Uniform(3); edits > 0; --edits) {
      const size_t at = random.Uniform(bytes.size() + 1);
      const char byte = static_cast<char>(random.Uniform(256));
      switch (random.Uniform(3)) {
        case 0:
          if (at < bytes.size()) bytes[at] = byte;
          break;
        case 1:
          bytes.insert(at, 1, byte);
          break;
        default:
          if (at < bytes.size()) bytes.erase(at, 1);
      }
    }
    if (!CheckAgainstProtobuf(bytes)) continue;
    ++parsed;
    canonical += scanner.IsCanonical(bytes) ? 1 : 0;
  }
  EXPECT_GT(parsed, 1000);
  EXPECT_GT(canonical, 100);  // Value edits: still canonical, judged fast.
}

// Encodings protobuf parses but never writes: each is judged not canonical
// (and a field the message does not define, possibly unknown).
TEST(WireScannerTest, EncodingsNoSerializerWrites) {
  const WireScanner& commit = WireScanner::For(v1::Commit::descriptor());
  const WireScanner& record = WireScanner::For(v1::LogRecord::descriptor());
  const auto bytes = [](std::initializer_list<int> list) {
    std::string out;
    for (int b : list) out.push_back(static_cast<char>(b));
    return out;
  };
  // Commit: decision_id = 1 (uint64), seat = 2 (uint32).
  EXPECT_TRUE(commit.IsCanonical(bytes({0x08, 0x05, 0x10, 0x01})));
  EXPECT_TRUE(commit.IsCanonical(""));
  for (const std::string& bad : {
           bytes({0x10, 0x01, 0x08, 0x05}),              // Out of order.
           bytes({0x08, 0x05, 0x08, 0x06}),              // Repeated.
           bytes({0x08, 0x00}),                          // A default written.
           bytes({0x08, 0x85, 0x00}),                    // An over-long varint.
           bytes({0x88, 0x00, 0x05}),                    // An over-long tag.
           bytes({0x10, 0xff, 0xff, 0xff, 0xff, 0x1f}),  // Seat over 32 bits.
       }) {
    EXPECT_FALSE(commit.IsCanonical(bad)) << ToHex(bad);
    EXPECT_FALSE(commit.MayHoldUnknownFields(bad)) << ToHex(bad);
  }
  const std::string unknown = bytes({0x08, 0x05, 0xf8, 0x01, 0x01});
  EXPECT_FALSE(commit.IsCanonical(unknown));
  EXPECT_TRUE(commit.MayHoldUnknownFields(unknown));
  // A varint where the field is bytes (commitment = 3): kept as unknown.
  const std::string wrong_type = bytes({0x18, 0x01});
  EXPECT_FALSE(commit.IsCanonical(wrong_type));
  EXPECT_TRUE(commit.MayHoldUnknownFields(wrong_type));
  // Two members of LogRecord's kind oneof (an empty checkpoint, an empty
  // seal), in field order.
  EXPECT_TRUE(record.IsCanonical(bytes({0x4a, 0x00})));
  EXPECT_FALSE(record.IsCanonical(bytes({0x4a, 0x00, 0x5a, 0x00})));
}

}  // namespace
}  // namespace pyramid
