// A log has exactly one valid encoding (docs/log-format.md, "Canonical
// encoding"): every re-encoding of a golden log's seal, the one record no
// hash or signature covers, must fail verification with a reason, whether
// it changes the seal's message or not. Then the SHA-256 of a log file
// identifies its match (the transparency log's leaves rely on it).
#include <string>
#include <string_view>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "pyramid/referee/v1/log.pb.h"
#include "referee/core/log_reader.h"
#include "referee/core/log_sink.h"
#include "referee/crypto/ed25519.h"
#include "replay/verifier.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;
using ::testing::HasSubstr;

constexpr char kGolden[] = "testdata/golden/rock_paper_pyramid/classic.pyrlog";

std::string Varint(uint64_t value) {
  std::string out;
  while (value >= 0x80) {
    out.push_back(static_cast<char>((value & 0x7f) | 0x80));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
  return out;
}

std::string Field(int number, int wire_type) {
  return Varint(static_cast<uint64_t>(number) << 3 | wire_type);
}

std::string Bytes(int number, const std::string& bytes) {
  return absl::StrCat(Field(number, 2), Varint(bytes.size()), bytes);
}

class CanonicalLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::string> file = ReadFileToString(kGolden);
    ASSERT_TRUE(file.ok()) << file.status();
    file_ = *file;
    const SplitLogResult split = SplitLog(file_);
    ASSERT_EQ(split.tail, SplitLogResult::Tail::kClean);
    const RawRecord& seal = split.records.back();
    seal_index_ = split.records.size() - 1;
    before_seal_ = file_.substr(0, seal.offset);
    ASSERT_TRUE(seal_.ParseFromString(std::string(seal.bytes)));
    ASSERT_TRUE(seal_.has_seal());
    absl::StatusOr<std::string> key =
        ParsePublicKey("testdata/golden/referee.pub");
    ASSERT_TRUE(key.ok());
    options_.pinned_key = *key;
    ASSERT_EQ(VerifyLog(file_, options_).kind, Verdict::Kind::kGenuine);
    ASSERT_EQ(WithSeal(Canonical()), file_);
  }

  // The seal as the referee wrote it, field by field.
  std::string RecordCount() const {
    return absl::StrCat(Field(1, 0), Varint(seal_.seal().record_count()));
  }
  std::string ChainHash() const { return Bytes(2, seal_.seal().chain_hash()); }
  std::string Signature() const { return Bytes(3, seal_.seal().signature()); }
  std::string Record(const std::string& signature_message,
                     const std::string& after = "") const {
    return absl::StrCat(Bytes(1, seal_.prev_hash()),
                        Bytes(11, signature_message), after);
  }
  std::string Canonical() const {
    return Record(absl::StrCat(RecordCount(), ChainHash(), Signature()));
  }
  std::string WithSeal(const std::string& record) const {
    return absl::StrCat(before_seal_, Varint(record.size()), record);
  }

  // `file` must fail at the seal with `reason`.
  void ExpectRejected(const std::string& file, const std::string& reason) {
    const Verdict v = VerifyLog(file, options_);
    EXPECT_EQ(v.kind, Verdict::Kind::kNotGenuine);
    EXPECT_EQ(v.bad_record, seal_index_);
    EXPECT_THAT(v.reason, HasSubstr(std::string(reason)));
  }

  std::string file_;
  std::string before_seal_;
  v1::LogRecord seal_;
  size_t seal_index_ = 0;
  VerifyOptions options_;
};

constexpr char kUnknown[] = "holds unknown fields";
constexpr char kEncoding[] = "is not in its canonical encoding";

TEST_F(CanonicalLogTest, UnknownFieldInTheSealIsRejected) {
  ExpectRejected(
      WithSeal(Record(absl::StrCat(RecordCount(), ChainHash(), Signature(),
                                   Field(15, 0), Varint(1)))),
      kUnknown);
}

TEST_F(CanonicalLogTest, UnknownFieldInTheRecordIsRejected) {
  ExpectRejected(
      WithSeal(Record(absl::StrCat(RecordCount(), ChainHash(), Signature()),
                      absl::StrCat(Field(20, 0), Varint(7)))),
      kUnknown);
}

TEST_F(CanonicalLogTest, PaddingIsRejected) {
  ExpectRejected(
      WithSeal(Record(absl::StrCat(RecordCount(), ChainHash(), Signature(),
                                   Bytes(99, std::string(1 << 20, '\0'))))),
      kUnknown);
}

TEST_F(CanonicalLogTest, ReorderedFieldsAreRejected) {
  ExpectRejected(
      WithSeal(Record(absl::StrCat(ChainHash(), RecordCount(), Signature()))),
      kEncoding);
  // The kind before prev_hash.
  ExpectRejected(
      WithSeal(absl::StrCat(
          Bytes(11, absl::StrCat(RecordCount(), ChainHash(), Signature())),
          Bytes(1, seal_.prev_hash()))),
      kEncoding);
}

TEST_F(CanonicalLogTest, DuplicatedFieldsAreRejected) {
  ExpectRejected(WithSeal(Record(absl::StrCat(RecordCount(), RecordCount(),
                                              ChainHash(), Signature()))),
                 kEncoding);
  ExpectRejected(WithSeal(Record(absl::StrCat(RecordCount(), ChainHash(),
                                              Signature(), Signature()))),
                 kEncoding);
}

TEST_F(CanonicalLogTest, NonMinimalVarintsAreRejected) {
  const uint64_t count = seal_.seal().record_count();
  ASSERT_LT(count, 128u);
  // The record count in two bytes.
  const std::string long_count = absl::StrCat(
      Field(1, 0), std::string{static_cast<char>(count | 0x80), '\0'});
  ExpectRejected(
      WithSeal(Record(absl::StrCat(long_count, ChainHash(), Signature()))),
      kEncoding);
  // The seal's length inside the record in two bytes.
  const std::string payload =
      absl::StrCat(RecordCount(), ChainHash(), Signature());
  ASSERT_LT(payload.size(), 128u);
  ExpectRejected(
      WithSeal(absl::StrCat(
          Bytes(1, seal_.prev_hash()), Field(11, 2),
          std::string{static_cast<char>(payload.size() | 0x80), '\0'},
          payload)),
      kEncoding);
}

TEST_F(CanonicalLogTest, AStrayEndGroupTagIsAParseError) {
  // Wire type 4 (end group) with no group open: in the record, inside the
  // seal, and as the whole record.
  for (const std::string& record :
       {Record(absl::StrCat(RecordCount(), ChainHash(), Signature()),
               Field(20, 4)),
        Record(
            absl::StrCat(RecordCount(), ChainHash(), Signature(), Field(3, 4))),
        Field(1, 4)}) {
    ExpectRejected(WithSeal(record), "not a LogRecord message");
  }
}

TEST_F(CanonicalLogTest, NonMinimalLengthPrefixOfTheSealIsCorrupt) {
  const std::string record = Canonical();
  ASSERT_LT(record.size(), 1u << 14);
  const std::string file = absl::StrCat(
      before_seal_,
      std::string{static_cast<char>((record.size() & 0x7f) | 0x80),
                  static_cast<char>((record.size() >> 7) | 0x80), '\0'},
      record);
  const Verdict v = VerifyLog(file, options_);
  EXPECT_EQ(v.kind, Verdict::Kind::kNotGenuine);
  EXPECT_THAT(v.reason, HasSubstr("not minimal"));
}

TEST_F(CanonicalLogTest, BytesAfterTheSealAreRejected) {
  for (const std::string& tail : {std::string("\x00", 1), std::string("\x05"),
                                  absl::StrCat(Varint(2), "\x08\x01")}) {
    const Verdict v = VerifyLog(file_ + tail, options_);
    EXPECT_EQ(v.kind, Verdict::Kind::kNotGenuine) << tail.size();
    EXPECT_FALSE(v.reason.empty());
  }
}

}  // namespace
}  // namespace pyramid
