// Tests of SealWatch (replay/seal_watch.h): where a log's bytes may be cut,
// one test per case of the cut; tests/fuzz/seal_watch_fuzzer.cc checks the
// same against the verifier's verdicts on any bytes.
#include "replay/seal_watch.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "gtest/gtest.h"
#include "pyramid/referee/v1/log.pb.h"
#include "referee/core/log_format.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

// `record`'s stored bytes with their length prefix (one byte: the records
// here are short).
std::string Framed(const v1::LogRecord& record) {
  const std::string bytes = record.SerializeAsString();
  EXPECT_LT(bytes.size(), 0x80u);
  return std::string(1, static_cast<char>(bytes.size())) + bytes;
}

// A header record and a seal record, framed (their fields are not judged
// here).
std::string HeaderRecord() {
  v1::LogRecord header;
  header.mutable_header()->set_match_id("match");
  return Framed(header);
}
std::string SealRecord() {
  v1::LogRecord seal;
  seal.mutable_seal()->set_signature("signature");
  return Framed(seal);
}

// The magic, a header and a seal: a sealed log as the splitter frames it.
std::string SealedLog() {
  return std::string(log_format::kMagic) + HeaderRecord() + SealRecord();
}

// A record of three bytes, framed.
const std::string kRecord = std::string("\x03", 1) + "abc";

// Bytes after the cut, which no reader needs.
const std::string kJunk(1000, 'j');

TEST(SealWatchTest, ALogWithoutARecordAfterItsSealIsNotCut) {
  const std::string log = SealedLog();
  EXPECT_EQ(SealWatch().CutAt(log), std::nullopt);
  // A log without a seal is read to its end.
  const std::string unsealed =
      std::string(log_format::kMagic) + HeaderRecord() + kRecord + kRecord;
  EXPECT_EQ(SealWatch().CutAt(unsealed), std::nullopt);
}

TEST(SealWatchTest, ARecordAfterTheSealIsKeptWholeAndTheRestCut) {
  const std::string log = SealedLog();
  EXPECT_EQ(SealWatch().CutAt(log + kRecord + kJunk),
            log.size() + kRecord.size());
  // An empty record (a zero byte) is a record too.
  EXPECT_EQ(SealWatch().CutAt(log + std::string(1, '\0') + kJunk),
            log.size() + 1);
}

TEST(SealWatchTest, ABadLengthPrefixAfterTheSealIsKeptAndTheRestCut) {
  const std::string log = SealedLog();
  // Each prefix the splitter refuses, cut at its end.
  const std::string too_long("\x80\x80\x80\x80", 4);
  EXPECT_EQ(SealWatch().CutAt(log + too_long + kJunk),
            log.size() + too_long.size());
  const std::string not_minimal("\x83\x00", 2);
  EXPECT_EQ(SealWatch().CutAt(log + not_minimal + kJunk),
            log.size() + not_minimal.size());
  const std::string over_limit("\x80\x80\x80\x10", 4);  // 32 MiB.
  EXPECT_EQ(SealWatch().CutAt(log + over_limit + kJunk),
            log.size() + over_limit.size());
}

TEST(SealWatchTest, AShortTailAfterTheSealIsNoCut) {
  const std::string log = SealedLog();
  // The file's end, read whole: inside a record, inside a prefix.
  SealWatch in_record;
  EXPECT_EQ(in_record.CutAt(log + "\x05" + "ab"), std::nullopt);
  // Until the record's bytes come.
  EXPECT_EQ(in_record.CutAt(log + "\x05" + "abcde" + kJunk), log.size() + 6);
  SealWatch in_prefix;
  EXPECT_EQ(in_prefix.CutAt(log + "\x81"), std::nullopt);
  EXPECT_EQ(in_prefix.CutAt(log + "\x81\x80"), std::nullopt);
}

TEST(SealWatchTest, ABadLengthPrefixBeforeAnySealIsNoCut) {
  // The verifier judges the whole file: what follows a bad prefix, a seal
  // and a record after it included, is not framed.
  const std::string bad = std::string(log_format::kMagic) + HeaderRecord() +
                          std::string("\x80\x80\x80\x80", 4) + SealRecord() +
                          kRecord + kJunk;
  SealWatch watch;
  EXPECT_EQ(watch.CutAt(bad.substr(
                0, log_format::kMagic.size() + HeaderRecord().size() + 4)),
            std::nullopt);
  EXPECT_EQ(watch.CutAt(bad), std::nullopt);
  EXPECT_EQ(SealWatch().CutAt(bad), std::nullopt);
}

TEST(SealWatchTest, BytesGivenInPartsAreCutAsInOnePiece) {
  const std::string log = SealedLog();
  for (const std::string& after : {kRecord, std::string("\x80\x80\x80\x80", 4),
                                   std::string("\x83\x00", 2)}) {
    const std::string file = log + after + kJunk;
    const std::optional<uint64_t> whole = SealWatch().CutAt(file);
    ASSERT_TRUE(whole.has_value());
    // A byte at a time: no cut until the bytes through it have come, then
    // that cut, and again on every later call.
    SealWatch watch;
    for (uint64_t given = 0; given <= file.size(); ++given) {
      const std::optional<uint64_t> found =
          watch.CutAt(std::string_view(file).substr(0, given));
      if (given < *whole) {
        EXPECT_EQ(found, std::nullopt) << given;
      } else {
        EXPECT_EQ(found, whole) << given;
      }
    }
    // The same bytes given again, whole.
    EXPECT_EQ(watch.CutAt(file), whole);
  }
}

}  // namespace
}  // namespace pyramid
