// Tests of the log framing, hash chain and signing (LogWriter, SplitLog), all
// in memory: a StringLogSink collects the bytes, helpers corrupt or cut them,
// and each test checks one property or one corruption mode (the shape of
// LevelDB's db/log_test.cc).
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "pyramid/referee/v1/log.pb.h"
#include "referee/core/log_format.h"
#include "referee/core/log_journal.h"
#include "referee/core/log_reader.h"
#include "referee/core/log_sink.h"
#include "referee/core/log_writer.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/ed25519.h"
#include "referee/crypto/protocol.h"
#include "referee/crypto/sha256.h"
#include "tests/no_descriptor_left.h"
#include "tests/temp_dir.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

using ::testing::HasSubstr;
using Tail = SplitLogResult::Tail;

const std::string kMatchId(kMatchIdSize, '\x42');

SigningKey TestKey() {
  return *SigningKey::FromSeed(std::string(kKeySeedSize, '\x07'));
}

// A sink that counts Sync calls and can be told to fail.
class CountingSink final : public LogSink {
 public:
  CountingSink(std::string* out, int* syncs, bool* fail)
      : out_(out), syncs_(syncs), fail_(fail) {}
  absl::Status Append(std::string_view bytes) override {
    if (*fail_) return absl::UnavailableError("disk on fire");
    out_->append(bytes);
    return absl::OkStatus();
  }
  absl::Status Sync() override {
    ++*syncs_;
    return absl::OkStatus();
  }

 private:
  std::string* out_;
  int* syncs_;
  bool* fail_;
};

v1::LogRecord HeaderRecord(uint32_t checkpoint_interval) {
  v1::LogRecord record;
  v1::Header* header = record.mutable_header();
  header->set_format_version(log_format::kFormatVersion);
  header->set_match_id(kMatchId);
  header->set_checkpoint_interval(checkpoint_interval);
  return record;
}

v1::LogRecord CommitRecord(uint64_t decision, uint32_t seat) {
  v1::LogRecord record;
  record.mutable_commit()->set_decision_id(decision);
  record.mutable_commit()->set_seat(seat);
  record.mutable_commit()->set_commitment(std::string(32, 'c'));
  return record;
}

// A record whose stored size is about `size` bytes.
v1::LogRecord BigRecord(size_t size) {
  v1::LogRecord record;
  record.mutable_reveal()->set_action(std::string(size, 'a'));
  return record;
}

std::string Varint(uint64_t n) {
  std::string out;
  for (; n >= 0x80; n >>= 7)
    out.push_back(static_cast<char>((n & 0x7f) | 0x80));
  out.push_back(static_cast<char>(n));
  return out;
}

class LogTest : public ::testing::Test {
 protected:
  void Open(uint32_t checkpoint_interval,
            FsyncPolicy fsync = FsyncPolicy::kCheckpoints) {
    writer_ = std::make_unique<LogWriter>(
        std::make_unique<CountingSink>(&dest_, &syncs_, &fail_), TestKey(),
        kMatchId, checkpoint_interval, fsync);
  }

  void Write(v1::LogRecord record) {
    ASSERT_TRUE(writer_->Append(std::move(record)).ok());
  }

  // Header plus `n` commits.
  void WriteRecords(uint32_t checkpoint_interval, int n) {
    Open(checkpoint_interval);
    Write(HeaderRecord(checkpoint_interval));
    for (int i = 0; i < n; ++i) Write(CommitRecord(1, i));
  }

  void Seal() { ASSERT_TRUE(writer_->Seal().ok()); }

  // The helpers that damage the written bytes.
  void XorByte(size_t offset, uint8_t mask) {
    dest_[offset] = static_cast<char>(dest_[offset] ^ mask);
  }
  void ShrinkTo(size_t size) { dest_.resize(size); }

  SplitLogResult Split() const { return SplitLog(dest_); }

  std::vector<v1::LogRecord> Parse() const {
    std::vector<v1::LogRecord> records;
    for (const RawRecord& raw : Split().records) {
      v1::LogRecord& record = records.emplace_back();
      EXPECT_TRUE(record.ParseFromArray(raw.bytes.data(),
                                        static_cast<int>(raw.bytes.size())));
    }
    return records;
  }

  std::string dest_;
  int syncs_ = 0;
  bool fail_ = false;
  std::unique_ptr<LogWriter> writer_;
};

// ---------------------------------------------------------------------------
// Framing.

TEST_F(LogTest, EmptyWriterWritesNothing) {
  Open(4);
  EXPECT_EQ(dest_, "");
  const SplitLogResult split = Split();
  EXPECT_EQ(split.tail, Tail::kTruncated);
  EXPECT_TRUE(split.records.empty());
}

// A LogSplitter gives SplitLog's records one at a time and ends as it
// does, whatever the tail; once ended, it stays so.
// The splitter's records are the file's framing, read here by hand (each a
// minimal varint length then that many bytes, back to back after the
// magic), and it ends where and as the framing breaks, then stays ended.
TEST_F(LogTest, ASplitterGivesEachRecordThenSaysWhereTheFramingEnds) {
  WriteRecords(0, 3);
  const std::string whole = dest_;
  using Tail = SplitLogResult::Tail;
  struct Case {
    std::string file;
    uint64_t records;
    Tail tail;
    bool tail_at_end;  // The problem starts at whole.size(), else at the
                       // last record's offset (or 0 without records).
    std::string reason;
  };
  const std::vector<Case> cases = {
      {whole, 4, Tail::kClean, false, ""},
      {whole.substr(0, whole.size() - 1), 3, Tail::kTruncated, false,
       "file ends inside a record"},
      {whole + "\xff\xff", 4, Tail::kTruncated, true,
       "file ends inside a length prefix"},
      {whole + "\xff\xff\xff\xff", 4, Tail::kCorrupt, true,
       "record length prefix too long"},
      {whole + std::string("\x80\x00", 2), 4, Tail::kCorrupt, true,
       "record length prefix is not minimal"},
      {whole.substr(0, 5), 0, Tail::kTruncated, false,
       "file ends inside the magic"},
      {"nonsense", 0, Tail::kCorrupt, false, "not a pyramid log (magic)"},
  };
  uint64_t last_record_offset = 0;  // Of `whole`'s fourth record.
  for (const Case& c : cases) {
    SCOPED_TRACE(c.reason);
    LogSplitter splitter(c.file);
    uint64_t offset = 8;  // After the magic.
    RawRecord record;
    while (splitter.Next(record)) {
      EXPECT_EQ(record.offset, offset);
      const std::string prefix = Varint(record.bytes.size());
      EXPECT_EQ(c.file.substr(offset, prefix.size()), prefix);
      EXPECT_EQ(record.bytes.data(), c.file.data() + offset + prefix.size());
      if (&c == &cases[0]) last_record_offset = offset;
      offset += prefix.size() + record.bytes.size();
    }
    EXPECT_FALSE(splitter.Next(record));  // Ended, and stays so.
    EXPECT_EQ(splitter.count(), c.records);
    EXPECT_EQ(splitter.end().tail, c.tail);
    EXPECT_EQ(splitter.end().tail_reason, c.reason);
    if (c.tail != Tail::kClean) {
      EXPECT_EQ(splitter.end().tail_offset, c.tail_at_end ? whole.size()
                                            : c.records == 0
                                                ? 0
                                                : last_record_offset);
    }
    EXPECT_TRUE(splitter.end().records.empty());
  }
}

// FrameAt, the framing rules that SplitLog and replay's SealWatch share:
// each case it tells apart, with where the body, the record or the bad
// prefix ends; bytes before `start` are not read.
TEST(FrameAtTest, TellsEachCaseOfTheFramingWithItsBounds) {
  using Kind = LogFrame::Kind;
  struct Case {
    std::string after;  // The bytes from `start` on.
    Kind kind;
    uint64_t body;  // From `start`.
    uint64_t end;   // From `start`.
    uint64_t length;
  };
  const uint64_t max = log_format::kMaxRecordSize;
  const std::vector<Case> cases = {
      {"\x03"
       "abc",
       Kind::kRecord, 1, 4, 3},
      {"\x03"
       "abcdef",
       Kind::kRecord, 1, 4, 3},
      {std::string("\x00", 1), Kind::kRecord, 1, 1, 0},
      {Varint(200) + std::string(200, 'r'), Kind::kRecord, 2, 202, 200},
      {"", Kind::kEndsInPrefix, 0, 0, 0},
      {"\x80\x80", Kind::kEndsInPrefix, 0, 0, 0},
      {"\x03"
       "ab",
       Kind::kEndsInBody, 1, 0, 3},
      {Varint(max), Kind::kEndsInBody, 4, 0, max},
      {"\x80\x80\x80\x80\x01", Kind::kPrefixTooLong, 0, 4, 0},
      {std::string("\x85\x80\x00", 3), Kind::kPrefixNotMinimal, 0, 3, 5},
      {Varint(max + 1) + std::string(10, 'r'), Kind::kLengthOverLimit, 0, 4,
       max + 1},
  };
  const std::string before = "\xff\xff";  // Not a prefix's end.
  const uint64_t start = before.size();
  for (const Case& c : cases) {
    SCOPED_TRACE(ToHex(c.after.substr(0, 8)));
    const LogFrame frame = FrameAt(before + c.after, start);
    EXPECT_EQ(frame.kind, c.kind);
    EXPECT_EQ(frame.needs_more(),
              c.kind == Kind::kEndsInPrefix || c.kind == Kind::kEndsInBody);
    EXPECT_EQ(frame.bad_prefix(),
              c.kind != Kind::kRecord && !frame.needs_more());
    if (c.kind == Kind::kRecord || c.kind == Kind::kEndsInBody) {
      EXPECT_EQ(frame.body, start + c.body);
    }
    if (c.kind == Kind::kRecord || frame.bad_prefix()) {
      EXPECT_EQ(frame.end, start + c.end);
    }
    if (c.kind != Kind::kEndsInPrefix && c.kind != Kind::kPrefixTooLong) {
      EXPECT_EQ(frame.length, c.length);
    }
  }
  // At or past the end of the bytes: more are needed.
  EXPECT_EQ(FrameAt("ab", 2).kind, Kind::kEndsInPrefix);
  EXPECT_EQ(FrameAt("ab", 3).kind, Kind::kEndsInPrefix);
}

TEST_F(LogTest, MagicThenLengthPrefixedRecords) {
  WriteRecords(0, 3);
  ASSERT_GE(dest_.size(), 8u);
  EXPECT_EQ(std::string_view(dest_).substr(0, 8),
            std::string_view("PYRLOG\0\x01", 8));
  const SplitLogResult split = Split();
  EXPECT_EQ(split.tail, Tail::kClean);
  EXPECT_EQ(split.tail_reason, "");
  ASSERT_EQ(split.records.size(), 4u);
  uint64_t offset = 8;
  for (const RawRecord& raw : split.records) {
    EXPECT_EQ(raw.offset, offset);
    const std::string prefix = Varint(raw.bytes.size());
    EXPECT_EQ(dest_.substr(offset, prefix.size()), prefix);
    EXPECT_EQ(raw.bytes.data(), dest_.data() + offset + prefix.size());
    offset += prefix.size() + raw.bytes.size();
  }
  EXPECT_EQ(offset, dest_.size());
  const std::vector<v1::LogRecord> records = Parse();
  EXPECT_TRUE(records[0].has_header());
  for (int i = 1; i < 4; ++i) EXPECT_EQ(records[i].commit().seat(), i - 1u);
}

TEST_F(LogTest, RecordsAreSerializedDeterministically) {
  WriteRecords(0, 2);
  const std::string first = dest_;
  dest_.clear();
  WriteRecords(0, 2);
  EXPECT_EQ(dest_, first);
}

TEST_F(LogTest, MultiByteLengthPrefixRoundTrips) {
  for (size_t size : {100u, 127u, 128u, 200u, 16383u, 16384u, 70000u}) {
    SCOPED_TRACE(size);
    dest_.clear();
    Open(0);
    Write(HeaderRecord(0));
    Write(BigRecord(size));
    const SplitLogResult split = Split();
    ASSERT_EQ(split.tail, Tail::kClean);
    ASSERT_EQ(split.records.size(), 2u);
    EXPECT_EQ(Parse()[1].reveal().action().size(), size);
  }
}

TEST_F(LogTest, MagicOnlyIsAnEmptyCleanLog) {
  dest_ = std::string(log_format::kMagic);
  const SplitLogResult split = Split();
  EXPECT_EQ(split.tail, Tail::kClean);
  EXPECT_TRUE(split.records.empty());
}

TEST_F(LogTest, EmptyRecordIsFramedCorrectly) {
  // Framing does not judge contents: a zero-length record is a record.
  dest_ = std::string(log_format::kMagic) + Varint(0);
  const SplitLogResult split = Split();
  EXPECT_EQ(split.tail, Tail::kClean);
  ASSERT_EQ(split.records.size(), 1u);
  EXPECT_TRUE(split.records[0].bytes.empty());
}

TEST_F(LogTest, EveryMagicByteIsChecked) {
  WriteRecords(0, 1);
  const std::string good = dest_;
  for (size_t i = 0; i < 8; ++i) {
    SCOPED_TRACE(i);
    dest_ = good;
    XorByte(i, 0x01);
    const SplitLogResult split = Split();
    EXPECT_EQ(split.tail, Tail::kCorrupt);
    EXPECT_EQ(split.tail_offset, 0u);
    EXPECT_THAT(split.tail_reason, HasSubstr("magic"));
    EXPECT_TRUE(split.records.empty());
  }
}

TEST_F(LogTest, ShortFileInsideMagicIsTruncated) {
  for (size_t n = 0; n < 8; ++n) {
    dest_ = std::string(log_format::kMagic.substr(0, n));
    EXPECT_EQ(Split().tail, Tail::kTruncated) << n;
  }
}

TEST_F(LogTest, ShortFileNotMatchingMagicIsCorrupt) {
  dest_ = "PYX";
  const SplitLogResult split = Split();
  EXPECT_EQ(split.tail, Tail::kCorrupt);
  EXPECT_THAT(split.tail_reason, HasSubstr("magic"));
}

TEST_F(LogTest, EveryTruncationPointIsReported) {
  WriteRecords(0, 3);
  const std::string good = dest_;
  const SplitLogResult full = SplitLog(good);
  std::vector<uint64_t> ends;  // Where each record ends.
  for (const RawRecord& raw : full.records) {
    ends.push_back(raw.bytes.data() + raw.bytes.size() - good.data());
  }
  for (size_t cut = 8; cut < good.size(); ++cut) {
    SCOPED_TRACE(cut);
    dest_ = good;
    ShrinkTo(cut);
    const SplitLogResult split = Split();
    size_t complete = 0;
    while (complete < ends.size() && ends[complete] <= cut) ++complete;
    EXPECT_EQ(split.records.size(), complete);
    const bool at_boundary =
        cut == 8 || (complete > 0 && ends[complete - 1] == cut);
    if (at_boundary) {
      EXPECT_EQ(split.tail, Tail::kClean);
    } else {
      EXPECT_EQ(split.tail, Tail::kTruncated);
      EXPECT_EQ(split.tail_offset, complete == 0 ? 8 : ends[complete - 1]);
    }
  }
}

TEST_F(LogTest, TruncatedInsideLengthPrefix) {
  Open(0);
  Write(HeaderRecord(0));
  Write(BigRecord(1000));  // Two-byte length prefix.
  const uint64_t offset = Split().records[1].offset;
  ShrinkTo(offset + 1);
  const SplitLogResult split = Split();
  EXPECT_EQ(split.tail, Tail::kTruncated);
  EXPECT_EQ(split.tail_offset, offset);
  EXPECT_THAT(split.tail_reason, HasSubstr("length prefix"));
  EXPECT_EQ(split.records.size(), 1u);
}

TEST_F(LogTest, TruncatedInsideRecord) {
  WriteRecords(0, 2);
  const uint64_t offset = Split().records[2].offset;
  ShrinkTo(dest_.size() - 1);
  const SplitLogResult split = Split();
  EXPECT_EQ(split.tail, Tail::kTruncated);
  EXPECT_EQ(split.tail_offset, offset);
  EXPECT_THAT(split.tail_reason, HasSubstr("inside a record"));
  EXPECT_EQ(split.records.size(), 2u);
}

TEST_F(LogTest, OverlongLengthPrefixIsCorrupt) {
  WriteRecords(0, 1);
  const uint64_t end = dest_.size();
  dest_ += std::string("\x80\x80\x80\x80\x01", 5);
  const SplitLogResult split = Split();
  EXPECT_EQ(split.tail, Tail::kCorrupt);
  EXPECT_EQ(split.tail_offset, end);
  EXPECT_THAT(split.tail_reason, HasSubstr("too long"));
  EXPECT_EQ(split.records.size(), 2u);
}

TEST_F(LogTest, NonMinimalLengthPrefixIsCorrupt) {
  // The same length encoded in more bytes than needed would let two files
  // with different bytes frame the same records.
  for (const std::string& prefix :
       {std::string("\x80\x00", 2), std::string("\x85\x00", 2),
        std::string("\x85\x80\x00", 3), std::string("\xff\x80\x80\x00", 4)}) {
    WriteRecords(0, 1);
    const uint64_t end = dest_.size();
    dest_ += prefix + std::string(200, 'x');
    const SplitLogResult split = Split();
    EXPECT_EQ(split.tail, Tail::kCorrupt) << ToHex(prefix);
    EXPECT_EQ(split.tail_offset, end);
    EXPECT_THAT(split.tail_reason, HasSubstr("not minimal"));
    dest_.clear();
  }
}

TEST_F(LogTest, LargestRecordLengthIsAcceptedOneMoreIsCorrupt) {
  dest_ = std::string(log_format::kMagic) + Varint(log_format::kMaxRecordSize);
  EXPECT_EQ(Split().tail, Tail::kTruncated);  // Allowed length, missing bytes.
  dest_ =
      std::string(log_format::kMagic) + Varint(log_format::kMaxRecordSize + 1);
  const SplitLogResult split = Split();
  EXPECT_EQ(split.tail, Tail::kCorrupt);
  EXPECT_EQ(split.tail_offset, 8u);
  EXPECT_THAT(split.tail_reason, HasSubstr("exceeds the limit"));
}

TEST_F(LogTest, CorruptLengthKeepsEarlierRecords) {
  WriteRecords(0, 3);
  const SplitLogResult good = Split();
  // Turn the third record's one-byte length into an oversized varint start.
  XorByte(good.records[2].offset, 0x80);
  const SplitLogResult split = Split();
  EXPECT_NE(split.tail, Tail::kClean);
  ASSERT_EQ(split.records.size(), 2u);
  EXPECT_EQ(split.records[1].bytes, good.records[1].bytes);
}

TEST_F(LogTest, WriterRefusesOversizedRecord) {
  Open(0);
  Write(HeaderRecord(0));
  const std::string before = dest_;
  const absl::Status status =
      writer_->Append(BigRecord(log_format::kMaxRecordSize + 1));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(dest_, before);
  EXPECT_EQ(writer_->record_count(), 1u);
}

// ---------------------------------------------------------------------------
// Parsing the split records (ForEachRecord, ParseLogRecords, TailStatus).

TEST_F(LogTest, ParsesEveryRecordOfACleanLog) {
  WriteRecords(0, 3);
  EXPECT_TRUE(TailStatus(Split()).ok());
  absl::StatusOr<std::vector<v1::LogRecord>> records = ParseLogRecords(Split());
  ASSERT_TRUE(records.ok()) << records.status();
  ASSERT_EQ(records->size(), 4u);
  EXPECT_TRUE((*records)[0].has_header());
  EXPECT_EQ((*records)[3].commit().seat(), 2u);
}

TEST_F(LogTest, ForEachRecordStopsWhereItsVisitorDoes) {
  WriteRecords(0, 3);
  ShrinkTo(dest_.size() - 1);  // A tail it never reaches.
  std::vector<uint64_t> visited;
  const absl::Status status =
      ForEachRecord(Split(), [&visited](uint64_t index, v1::LogRecord&) {
        visited.push_back(index);
        return index < 1;
      });
  EXPECT_TRUE(status.ok()) << status;
  EXPECT_EQ(visited, (std::vector<uint64_t>{0, 1}));
}

TEST_F(LogTest, ARecordThatDoesNotParseIsNamedAfterTheOnesBefore) {
  WriteRecords(0, 1);
  dest_ += Varint(1) + "\xff";  // A tag cut short.
  std::vector<uint64_t> visited;
  const absl::Status status =
      ForEachRecord(Split(), [&visited](uint64_t index, v1::LogRecord&) {
        visited.push_back(index);
        return true;
      });
  EXPECT_EQ(status, absl::DataLossError("record 2 does not parse"));
  EXPECT_EQ(visited, (std::vector<uint64_t>{0, 1}));
  EXPECT_EQ(ParseLogRecords(Split()).status(), status);
}

TEST_F(LogTest, ATailIsReportedOnceEveryRecordIsVisited) {
  WriteRecords(0, 2);
  const uint64_t offset = Split().records[2].offset;
  ShrinkTo(dest_.size() - 1);
  const absl::Status tail = absl::DataLossError(
      absl::StrCat("file ends inside a record at byte ", offset));
  EXPECT_EQ(TailStatus(Split()), tail);
  uint64_t visited = 0;
  EXPECT_EQ(ForEachRecord(Split(),
                          [&visited](uint64_t, v1::LogRecord&) {
                            ++visited;
                            return true;
                          }),
            tail);
  EXPECT_EQ(visited, 2u);
  EXPECT_EQ(ParseLogRecords(Split()).status(), tail);
}

// ---------------------------------------------------------------------------
// The hash chain.

TEST_F(LogTest, PrevHashChainsStoredBytes) {
  WriteRecords(0, 5);
  const SplitLogResult split = Split();
  const std::vector<v1::LogRecord> records = Parse();
  ASSERT_EQ(records.size(), 6u);
  EXPECT_EQ(records[0].prev_hash(), std::string(32, '\0'));
  for (size_t i = 1; i < records.size(); ++i) {
    EXPECT_EQ(records[i].prev_hash(),
              AsView(Sha256(split.records[i - 1].bytes)))
        << i;
  }
}

TEST_F(LogTest, WriterOverwritesCallersPrevHash) {
  Open(0);
  v1::LogRecord header = HeaderRecord(0);
  header.set_prev_hash("bogus");
  Write(header);
  v1::LogRecord commit = CommitRecord(1, 0);
  commit.set_prev_hash(std::string(32, '\xff'));
  Write(commit);
  const std::vector<v1::LogRecord> records = Parse();
  EXPECT_EQ(records[0].prev_hash(), std::string(32, '\0'));
  EXPECT_EQ(records[1].prev_hash(), AsView(Sha256(Split().records[0].bytes)));
}

// ---------------------------------------------------------------------------
// Checkpoints and the seal.

// Checks that `record` (at `index`) is a valid referee signature over the
// records before it.
void ExpectSignature(const v1::Signature& signature, uint64_t index,
                     std::string_view previous_bytes) {
  EXPECT_EQ(signature.record_count(), index);
  EXPECT_EQ(signature.chain_hash(), AsView(Sha256(previous_bytes)));
  EXPECT_TRUE(VerifySignature(
      TestKey().public_key(),
      LogSignatureMessage(kMatchId, index, signature.chain_hash()),
      signature.signature()));
}

TEST_F(LogTest, CheckpointAfterEveryNRecords) {
  for (uint32_t interval : {1u, 2u, 3u, 5u}) {
    SCOPED_TRACE(interval);
    dest_.clear();
    WriteRecords(interval, 11);
    const SplitLogResult split = Split();
    const std::vector<v1::LogRecord> records = Parse();
    uint32_t since = 0;
    int checkpoints = 0;
    for (size_t i = 0; i < records.size(); ++i) {
      if (since == interval) {
        ASSERT_TRUE(records[i].has_checkpoint()) << i;
        ExpectSignature(records[i].checkpoint(), i, split.records[i - 1].bytes);
        since = 0;
        ++checkpoints;
      } else {
        EXPECT_FALSE(records[i].has_checkpoint()) << i;
        ++since;
      }
    }
    EXPECT_EQ(checkpoints, 12 / static_cast<int>(interval));
    EXPECT_EQ(writer_->record_count(), records.size());
  }
}

TEST_F(LogTest, NoCheckpointsWithIntervalZero) {
  WriteRecords(0, 40);
  for (const v1::LogRecord& record : Parse()) {
    EXPECT_FALSE(record.has_checkpoint());
  }
}

TEST_F(LogTest, SealSignsEverythingBeforeIt) {
  WriteRecords(3, 4);  // Header, c, c, [checkpoint], c, c.
  Seal();
  const SplitLogResult split = Split();
  const std::vector<v1::LogRecord> records = Parse();
  ASSERT_EQ(records.size(), 7u);
  ASSERT_TRUE(records.back().has_seal());
  ExpectSignature(records.back().seal(), 6, split.records[5].bytes);
  EXPECT_EQ(records.back().prev_hash(), AsView(Sha256(split.records[5].bytes)));
}

TEST_F(LogTest, SealRightAfterCheckpoint) {
  WriteRecords(2, 3);  // Header, c, [checkpoint], c, c, [checkpoint].
  Seal();
  const std::vector<v1::LogRecord> records = Parse();
  ASSERT_EQ(records.size(), 7u);
  EXPECT_TRUE(records[5].has_checkpoint());
  ASSERT_TRUE(records[6].has_seal());
  ExpectSignature(records[6].seal(), 6, Split().records[5].bytes);
}

TEST_F(LogTest, SignatureDependsOnMatchId) {
  WriteRecords(0, 1);
  Seal();
  const v1::Signature seal = Parse().back().seal();
  EXPECT_FALSE(VerifySignature(
      TestKey().public_key(),
      LogSignatureMessage(std::string(kMatchIdSize, '\0'), seal.record_count(),
                          seal.chain_hash()),
      seal.signature()));
}

TEST_F(LogTest, NothingAfterSeal) {
  WriteRecords(4, 2);
  Seal();
  const std::string sealed = dest_;
  const uint64_t count = writer_->record_count();
  EXPECT_EQ(writer_->Append(CommitRecord(2, 0)).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(writer_->Seal().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(dest_, sealed);
  EXPECT_EQ(writer_->record_count(), count);
}

// ---------------------------------------------------------------------------
// Durability and sink errors.

TEST_F(LogTest, FsyncPolicies) {
  struct Case {
    FsyncPolicy policy;
    int syncs;
  };
  // Header + 5 commits with interval 3: two checkpoints, then the seal.
  for (const Case& c :
       {Case{FsyncPolicy::kNever, 0}, Case{FsyncPolicy::kCheckpoints, 3},
        Case{FsyncPolicy::kEveryRecord, 9 + 3}}) {
    dest_.clear();
    syncs_ = 0;
    Open(3, c.policy);
    Write(HeaderRecord(3));
    for (int i = 0; i < 5; ++i) Write(CommitRecord(1, i));
    Seal();
    // kCheckpoints: each checkpoint and the seal. kEveryRecord: each of the
    // 9 records (checkpoints and seal included), plus those same 3 syncs.
    EXPECT_EQ(syncs_, c.syncs) << static_cast<int>(c.policy);
  }
}

TEST_F(LogTest, SinkErrorIsReturned) {
  Open(0);
  Write(HeaderRecord(0));
  fail_ = true;
  EXPECT_EQ(writer_->Append(CommitRecord(1, 0)).code(),
            absl::StatusCode::kUnavailable);
  EXPECT_EQ(writer_->record_count(), 1u);
}

TEST_F(LogTest, ABatchIsWrittenAtItsEndAsTheSameBytes) {
  WriteRecords(4, 6);  // A checkpoint after the header and 3 commits.
  const std::string unbatched = dest_;
  dest_.clear();
  Open(4);
  Write(HeaderRecord(4));
  writer_->BeginBatch();
  Write(CommitRecord(1, 0));
  Write(CommitRecord(1, 1));
  const size_t before = dest_.size();
  EXPECT_EQ(dest_.size(), before);  // Nothing written yet...
  Write(CommitRecord(1, 2));        // ...until the checkpoint syncs.
  EXPECT_GT(dest_.size(), before);
  Write(CommitRecord(1, 3));
  Write(CommitRecord(1, 4));
  const size_t pending = dest_.size();
  Write(CommitRecord(1, 5));
  EXPECT_EQ(dest_.size(), pending);
  ASSERT_TRUE(writer_->EndBatch().ok());
  EXPECT_EQ(dest_, unbatched);
  EXPECT_EQ(writer_->record_count(), 8u);
}

TEST_F(LogTest, AWriterHoldsNoBufferBetweenBatches) {
  Open(0);
  Write(HeaderRecord(0));
  EXPECT_LE(writer_->buffer_capacity(), std::string().capacity());
  writer_->BeginBatch();
  for (int seat = 0; seat < 8; ++seat) Write(CommitRecord(1, seat));
  EXPECT_GT(writer_->buffer_capacity(), 8 * 32u);  // Held until the end...
  ASSERT_TRUE(writer_->EndBatch().ok());
  EXPECT_LE(writer_->buffer_capacity(), std::string().capacity());  // ...only.
}

TEST_F(LogTest, ABatchThatCannotBeWrittenReportsIt) {
  Open(0);
  Write(HeaderRecord(0));
  writer_->BeginBatch();
  Write(CommitRecord(1, 0));
  fail_ = true;
  EXPECT_EQ(writer_->EndBatch().code(), absl::StatusCode::kUnavailable);
}

TEST(StringLogSinkTest, AppendsInMemory) {
  std::string out;
  StringLogSink sink(&out);
  ASSERT_TRUE(sink.Append("ab").ok());
  ASSERT_TRUE(sink.Append(std::string_view("\0c", 2)).ok());
  ASSERT_TRUE(sink.Sync().ok());
  EXPECT_EQ(out, std::string("ab\0c", 4));
}

TEST(SecretFileTest, OwnerOnlyFromTheStartEvenOverAnOpenFile) {
  const TempDir dir("secret");
  ASSERT_TRUE(dir.ok());
  const std::string path = dir.File("token");
  // An existing world-readable file keeps its mode through O_CREAT.
  std::ofstream(path) << "old contents, longer than the secret\n";
  ASSERT_EQ(chmod(path.c_str(), 0644), 0);
  ASSERT_TRUE(WriteSecretFile(path, "s3cret\n").ok());
  struct stat info = {};
  ASSERT_EQ(stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600);
  EXPECT_EQ(*ReadFileToString(path), "s3cret\n");
  EXPECT_FALSE(WriteSecretFile(dir.File("missing/token"), "x").ok());
}

// A running match's log is its owner's alone (it holds the seed); once the
// match has ended it is public.
TEST(FileLogSinkTest, ALogIsOwnerOnlyUntilMadePublic) {
  const TempDir dir("modes");
  ASSERT_TRUE(dir.ok());
  const std::string path = dir.File("m.pyrlog");
  const mode_t umask_was = umask(0);  // A permissive umask changes nothing.
  auto sink = FileLogSink::Create(path);
  umask(umask_was);
  ASSERT_TRUE(sink.ok()) << sink.status();
  struct stat info = {};
  ASSERT_EQ(stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600);
  sink->reset();
  ASSERT_TRUE(MakeLogPublic(path).ok());
  ASSERT_EQ(stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0644);
  // A match broken before it wrote a log has none to open.
  EXPECT_TRUE(MakeLogPublic(dir.File("never-written.pyrlog")).ok());
  EXPECT_FALSE(MakeLogPublic(dir.File("m.pyrlog/below")).ok());
}

// A broken match's log is read-only for all (0444), a mark that needs no
// free space; a running (0600) or finished (0644) log is never so marked.
TEST(FileLogSinkTest, ABrokenLogIsMarkedReadOnlyForAll) {
  const TempDir dir("broken");
  ASSERT_TRUE(dir.ok());
  const std::string path = dir.File("m.pyrlog");
  auto sink = FileLogSink::Create(path);
  ASSERT_TRUE(sink.ok()) << sink.status();
  ASSERT_TRUE((*sink)->Append("header").ok());
  sink->reset();
  EXPECT_FALSE(LogIsMarkedBroken(path));  // Running: 0600.
  ASSERT_TRUE(MakeLogPublic(path).ok());
  EXPECT_FALSE(LogIsMarkedBroken(path));  // Finished: 0644.
  ASSERT_TRUE(MarkLogBroken(path).ok());
  struct stat info = {};
  ASSERT_EQ(stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0444);
  EXPECT_TRUE(LogIsMarkedBroken(path));
  EXPECT_EQ(*ReadFileToString(path), "header");  // Its bytes are untouched.
  ASSERT_TRUE(MarkLogBroken(path).ok());  // Marking again changes nothing.
  EXPECT_TRUE(LogIsMarkedBroken(path));
  // A match broken before it wrote a log has none to mark.
  EXPECT_TRUE(MarkLogBroken(dir.File("never-written.pyrlog")).ok());
  EXPECT_FALSE(LogIsMarkedBroken(dir.File("never-written.pyrlog")));
  EXPECT_FALSE(MarkLogBroken(dir.File("m.pyrlog/below")).ok());
}

// A pipe whose read end is `fds[0]`, fed `bytes` by a thread that then
// closes the write end; join the thread once the read end is drained.
std::thread FeedPipe(const int fds[2], std::string bytes) {
  return std::thread([fd = fds[1], bytes = std::move(bytes)] {
    size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
      if (n <= 0) break;
      done += static_cast<size_t>(n);
    }
    close(fd);
  });
}

TEST(ReadFileToStringTest, ReadsFilesAndPipesAndRefusesADirectory) {
  const TempDir dir("read");
  ASSERT_TRUE(dir.ok());
  // A file of every byte value, larger than a page.
  std::string bytes;
  for (int i = 0; i < 100000; ++i) bytes.push_back(static_cast<char>(i * 7));
  std::ofstream(dir.File("log"), std::ios::binary) << bytes;
  EXPECT_EQ(*ReadFileToString(dir.File("log")), bytes);
  std::ofstream(dir.File("empty"));
  EXPECT_EQ(*ReadFileToString(dir.File("empty")), "");
  // A directory is an error, not an empty file (a log "ending at byte 0").
  const absl::StatusOr<std::string> directory = ReadFileToString(dir.path());
  EXPECT_FALSE(directory.ok());
  EXPECT_THAT(directory.status().message(),
              ::testing::HasSubstr("is a directory"));
  EXPECT_EQ(ReadFileToString(dir.File("missing")).status().code(),
            absl::StatusCode::kNotFound);
  // A pipe (`replay verify /dev/stdin`, `<(...)`) has no size: it is read
  // to its end.
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  std::thread writer = FeedPipe(fds, bytes);
  const absl::StatusOr<std::string> piped =
      ReadFileToString(absl::StrCat("/proc/self/fd/", fds[0]));
  writer.join();
  close(fds[0]);
  ASSERT_TRUE(piped.ok()) << piped.status();
  EXPECT_EQ(*piped, bytes);
}

// A file over the limit (`max_bytes`, else the machine's memory) is
// refused: unread when it says its size, after one byte more than the limit
// when it does not (a pipe).
TEST(ReadFileToStringTest, RefusesAFileOverItsLimit) {
  const TempDir dir("read_limit");
  ASSERT_TRUE(dir.ok());
  std::ofstream(dir.File("ten"), std::ios::binary) << "0123456789";
  EXPECT_EQ(*ReadFileToString(dir.File("ten"), 10), "0123456789");
  const absl::StatusOr<std::string> over = ReadFileToString(dir.File("ten"), 9);
  EXPECT_EQ(over.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(over.status().message(),
            absl::StrCat("cannot read ", dir.File("ten"),
                         ": it is 10 bytes, more than the 9 bytes read of "
                         "one file"));
  // A sparse file larger than the machine's memory is not allocated: by
  // default, that is the limit.
  std::ofstream(dir.File("sparse"));
  const uint64_t memory = PhysicalMemoryBytes();
  std::filesystem::resize_file(dir.File("sparse"), memory + 1);
  const absl::StatusOr<std::string> sparse =
      ReadFileToString(dir.File("sparse"));
  EXPECT_EQ(sparse.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(
      sparse.status().message(),
      absl::StrCat("cannot read ", dir.File("sparse"), ": it is ", memory + 1,
                   " bytes, more than this machine's memory (", memory,
                   " bytes)"));
  // A pipe is read up to one byte past the limit, then refused.
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  std::thread writer = FeedPipe(fds, std::string(100000, 'x'));
  const std::string path = absl::StrCat("/proc/self/fd/", fds[0]);
  const absl::StatusOr<std::string> piped = ReadFileToString(path, 5000);
  char rest[4096];  // Drained, so that the writer ends without a SIGPIPE.
  while (read(fds[0], rest, sizeof(rest)) > 0) {
  }
  writer.join();
  close(fds[0]);
  EXPECT_EQ(piped.status().message(),
            absl::StrCat("cannot read ", path,
                         ": it holds more than the 5000 bytes read of one "
                         "file"));
}

TEST(FsyncPolicyTest, ParsesTheFlagsNamesAndRefusesOthers) {
  EXPECT_EQ(ParseFsyncPolicy("never").value(), FsyncPolicy::kNever);
  EXPECT_EQ(ParseFsyncPolicy("checkpoints").value(), FsyncPolicy::kCheckpoints);
  EXPECT_EQ(ParseFsyncPolicy("every_record").value(),
            FsyncPolicy::kEveryRecord);
  for (const char* bad : {"", "Never", "always", "every-record"}) {
    const absl::StatusOr<FsyncPolicy> policy = ParseFsyncPolicy(bad);
    EXPECT_EQ(policy.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(policy.status().message(),
                ::testing::HasSubstr(absl::StrCat("not \"", bad, "\"")));
  }
}

// A log that cannot be created for want of a file descriptor is refused
// RESOURCE_EXHAUSTED (a later try may succeed), another reason
// FAILED_PRECONDITION.
TEST(FileLogSinkTest, OutOfFileDescriptorsIsResourceExhausted) {
  const TempDir dir("log_sink_test");
  ASSERT_TRUE(dir.ok());
  absl::Status full;
  {
    const NoDescriptorLeft none;
    ASSERT_TRUE(none.ok());
    full = FileLogSink::Create(dir.File("a.pyrlog")).status();
  }
  EXPECT_EQ(full.code(), absl::StatusCode::kResourceExhausted) << full;
  EXPECT_THAT(full.message(), ::testing::HasSubstr("Too many open files"));

  EXPECT_EQ(FileLogSink::Create(dir.File("missing/b.pyrlog")).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(FileLogSink::Create(dir.File("a.pyrlog")).ok());
}

// A deferred sync needs no new file descriptor: when the process has none
// left (a flood of clients took them all), a running match's checkpoint
// and seal are still made durable, instead of the match breaking ("dup
// ...: Too many open files"). The job holds the sink's own descriptor,
// open until the job is gone even when the sink went first (a sealed log).
TEST(FileLogSinkTest, ADeferredSyncNeedsNoNewFileDescriptor) {
  const TempDir dir("log_sink_test");
  ASSERT_TRUE(dir.ok());
  const std::string path = dir.File("a.pyrlog");
  const int fd = LowestFreeDescriptor();  // The sink's.
  absl::StatusOr<std::unique_ptr<FileLogSink>> sink = FileLogSink::Create(path);
  ASSERT_TRUE(sink.ok()) << sink.status();
  ASSERT_TRUE((*sink)->Append("header").ok());
  ASSERT_TRUE((*sink)->Sync().ok());  // The name is durable (as a match's).
  // Once with descriptors to spare: UBSan's vptr check reads an object of a
  // dynamic type it has not met before through a pipe (sanitizer_common's
  // IsAccessibleMemoryRange), and with no descriptor left it would report
  // the job's shared_ptr as "invalid vptr" when the test runs alone.
  (*sink)->SyncLater()([](absl::Status) {});
  absl::Status reported = absl::UnknownError("not run");
  {
    const NoDescriptorLeft none;
    ASSERT_TRUE(none.ok());
    ASSERT_TRUE((*sink)->Append("seal").ok());
    SyncJob job = (*sink)->SyncLater();
    sink->reset();  // Sealed: the sink goes before its last sync runs.
    EXPECT_NE(fcntl(fd, F_GETFD), -1) << "the job holds the file open";
    job([&](absl::Status s) { reported = s; });
  }
  EXPECT_TRUE(reported.ok()) << reported;
  EXPECT_EQ(fcntl(fd, F_GETFD), -1) << "closed with the last job";
  EXPECT_EQ(*ReadFileToString(path), "headerseal");

  // Through a journal (the referee's default): the bytes since the last
  // sync are read back through the same descriptor and committed.
  const std::string second = dir.File("b.pyrlog");
  LogJournal::Options journal_options;
  journal_options.log_dir = dir.path();
  absl::StatusOr<std::unique_ptr<LogJournal>> journal =
      LogJournal::Open(dir.File("journal"), journal_options);
  ASSERT_TRUE(journal.ok()) << journal.status();
  sink = FileLogSink::Create(second);
  ASSERT_TRUE(sink.ok()) << sink.status();
  (*sink)->set_journal(std::shared_ptr<LogJournal>(std::move(*journal)));
  ASSERT_TRUE((*sink)->Append("header").ok());
  ASSERT_TRUE((*sink)->Sync().ok());
  ASSERT_TRUE((*sink)->Append("checkpoint").ok());
  auto run = [](SyncJob job) {
    absl::Notification reported;
    absl::Status status;
    job([&](absl::Status s) {
      status = std::move(s);
      reported.Notify();
    });
    reported.WaitForNotification();
    return status;
  };
  // The journal's first commit makes its file (a descriptor it keeps).
  ASSERT_TRUE(run((*sink)->SyncLater()).ok());
  {
    const NoDescriptorLeft none;
    ASSERT_TRUE(none.ok());
    ASSERT_TRUE((*sink)->Append("seal").ok());
    const absl::Status committed = run((*sink)->SyncLater());
    EXPECT_TRUE(committed.ok()) << committed;
  }
  // The journal holds the bytes, durably: a power loss now would have them
  // copied back into the log at the next start.
  std::vector<std::string> journaled;
  for (const auto& file :
       std::filesystem::directory_iterator(dir.File("journal"))) {
    const absl::StatusOr<std::string> bytes =
        ReadFileToString(file.path().string());
    ASSERT_TRUE(bytes.ok()) << bytes.status();
    for (const JournalEntry& entry : ParseJournal(*bytes).entries) {
      journaled.push_back(
          absl::StrCat(entry.offset, ":", std::string(entry.bytes)));
    }
  }
  EXPECT_THAT(journaled, ::testing::ElementsAre("6:checkpoint", "16:seal"));
  sink->reset();
  EXPECT_EQ(*ReadFileToString(second), "headercheckpointseal");
}

// A new log's name is made durable with its first bytes: the first sync of
// a log Create made syncs its directory too (seen here through a directory
// that cannot be opened any more: it was renamed), later syncs and a log
// opened to append do not.
TEST(FileLogSinkTest, TheFirstSyncOfANewLogSyncsItsDirectory) {
  const TempDir dir("log_sink_test");
  ASSERT_TRUE(dir.ok());
  ASSERT_EQ(mkdir(dir.File("logs").c_str(), 0755), 0);
  const std::string path = dir.File("logs/a.pyrlog");
  {
    absl::StatusOr<std::unique_ptr<FileLogSink>> sink =
        FileLogSink::Create(path);
    ASSERT_TRUE(sink.ok()) << sink.status();
    ASSERT_TRUE((*sink)->Append("header").ok());
    ASSERT_EQ(rename(dir.File("logs").c_str(), dir.File("moved").c_str()), 0);
    const absl::Status first = (*sink)->Sync();
    EXPECT_THAT(
        first.message(),
        ::testing::HasSubstr("cannot open the directory " + dir.File("logs")))
        << first;
    ASSERT_EQ(rename(dir.File("moved").c_str(), dir.File("logs").c_str()), 0);
    EXPECT_TRUE((*sink)->Sync().ok());
    ASSERT_EQ(rename(dir.File("logs").c_str(), dir.File("moved").c_str()), 0);
    ASSERT_TRUE((*sink)->Append("more").ok());
    EXPECT_TRUE((*sink)->Sync().ok());  // The name is durable already.
    ASSERT_EQ(rename(dir.File("moved").c_str(), dir.File("logs").c_str()), 0);
  }
  // The same through SyncLater's job (a sink without a journal).
  const std::string second = dir.File("logs/b.pyrlog");
  absl::StatusOr<std::unique_ptr<FileLogSink>> sink =
      FileLogSink::Create(second);
  ASSERT_TRUE(sink.ok()) << sink.status();
  ASSERT_TRUE((*sink)->Append("header").ok());
  SyncJob job = (*sink)->SyncLater();
  ASSERT_EQ(rename(dir.File("logs").c_str(), dir.File("moved").c_str()), 0);
  absl::Status reported = absl::UnknownError("not run");
  job([&](absl::Status s) { reported = s; });
  EXPECT_THAT(reported.message(),
              ::testing::HasSubstr("cannot open the directory"))
      << reported;
  ASSERT_EQ(rename(dir.File("moved").c_str(), dir.File("logs").c_str()), 0);
  // A log reopened to append (after a restart) was synced, name and all,
  // when it was made.
  absl::StatusOr<std::unique_ptr<FileLogSink>> reopened =
      FileLogSink::OpenForAppend(path, 6);
  ASSERT_TRUE(reopened.ok()) << reopened.status();
  ASSERT_EQ(rename(dir.File("logs").c_str(), dir.File("moved").c_str()), 0);
  ASSERT_TRUE((*reopened)->Append("more").ok());
  EXPECT_TRUE((*reopened)->Sync().ok());
}

}  // namespace
}  // namespace pyramid
