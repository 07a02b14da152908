#include "referee/tlog/note.h"

#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"
#include "referee/crypto/bytes.h"
#include "referee/tlog/checkpoint.h"
#include "referee/tlog/merkle.h"
#include "referee/tlog/text.h"

namespace pyramid::tlog {
namespace {

// The example of golang.org/x/mod/sumdb/note, the reference implementation
// of C2SP signed notes: its signer key (PRIVATE+KEY+PeterNeumann+c74f20a3+
// AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz), verifier key, text and
// signed note. Ed25519 is deterministic, so signing reproduces it exactly.
constexpr char kGoSignerSeed[] = "AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz";
constexpr char kGoVerifierKey[] =
    "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW";
constexpr char kGoText[] =
    "If you think cryptography is the answer to your problem,\n"
    "then you don't know what your problem is.\n";
constexpr char kGoNote[] =
    "If you think cryptography is the answer to your problem,\n"
    "then you don't know what your problem is.\n"
    "\n"
    "\xe2\x80\x94 PeterNeumann "
    "x08go/ZJkuBS9UG/"
    "SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnA"
    "M=\n";

// The example of the C2SP signed-note specification's verifier keys.
constexpr char kSpecVerifierKey[] =
    "example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k";

SigningKey GoKey() {
  std::string seed;
  EXPECT_TRUE(absl::Base64Unescape(kGoSignerSeed, &seed));
  return *SigningKey::FromSeed(seed.substr(1));
}

TEST(NoteTest, ReproducesTheGoReferenceNoteByteForByte) {
  const SigningKey key = GoKey();
  EXPECT_EQ(Ed25519KeyId("PeterNeumann", key.public_key()), 0xc74f20a3u);
  EXPECT_EQ(FormatVerifierKey({"PeterNeumann", key.public_key()}),
            kGoVerifierKey);
  EXPECT_EQ(*SignNote(kGoText, "PeterNeumann", key), kGoNote);
}

TEST(NoteTest, OpensTheGoReferenceNote) {
  absl::StatusOr<NoteVerifier> verifier = ParseVerifierKey(kGoVerifierKey);
  ASSERT_TRUE(verifier.ok()) << verifier.status();
  absl::StatusOr<std::string> text = OpenNote(kGoNote, *verifier);
  ASSERT_TRUE(text.ok()) << text.status();
  EXPECT_EQ(*text, kGoText);
}

TEST(NoteTest, ParsesTheSpecificationsVerifierKey) {
  absl::StatusOr<NoteVerifier> verifier = ParseVerifierKey(kSpecVerifierKey);
  ASSERT_TRUE(verifier.ok()) << verifier.status();
  EXPECT_EQ(verifier->name, "example.com/foo");
  EXPECT_EQ(FormatVerifierKey(*verifier), kSpecVerifierKey);
}

TEST(NoteTest, RefusesMalformedVerifierKeys) {
  for (const char* bad : {
           "PeterNeumann+c74f20a4+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",
           "PeterNeumann+c74f20a3+Apc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",
           "PeterNeumann+c74f20a3+AhpcA2QcUPDhMQegwxbzhKqiBfsVkmqq/"
           "LDE4izWy10TW",
           "PeterNeumann+c74f20a3",
           "",
           "Peter Neumann+c74f20a3+ARpc",
       }) {
    EXPECT_FALSE(ParseVerifierKey(bad).ok()) << bad;
  }
}

TEST(NoteTest, EverySingleBitChangeOfTheNoteFailsToOpen) {
  const NoteVerifier verifier = *ParseVerifierKey(kGoVerifierKey);
  const std::string note = kGoNote;
  for (size_t i = 0; i < note.size(); ++i) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string changed = note;
      changed[i] ^= static_cast<char>(1 << bit);
      EXPECT_FALSE(OpenNote(changed, verifier).ok())
          << "byte " << i << " bit " << bit;
    }
  }
}

TEST(NoteTest, IgnoresOtherKeysButNeedsOneOfOurs) {
  const SigningKey key = GoKey();
  const NoteVerifier verifier = *ParseVerifierKey(kGoVerifierKey);
  const SigningKey other = SigningKey::Generate();
  const std::string by_other = *SignNote(kGoText, "witness.example", other);
  const std::string other_line = by_other.substr(by_other.rfind("\n\n") + 2);
  // A witness's line beside ours is ignored.
  EXPECT_TRUE(OpenNote(absl::StrCat(kGoNote, other_line), verifier).ok());
  // Only another key's line: not signed by us.
  EXPECT_FALSE(OpenNote(by_other, verifier).ok());
  // Our name with another key's signature (a different key id): ignored,
  // so the note is not signed by us.
  const std::string impostor = *SignNote(kGoText, "PeterNeumann", other);
  EXPECT_FALSE(OpenNote(impostor, verifier).ok());
  // No signature lines at all, or no blank line.
  EXPECT_FALSE(OpenNote(absl::StrCat(kGoText, "\n"), verifier).ok());
  EXPECT_FALSE(OpenNote(kGoText, verifier).ok());
  EXPECT_FALSE(SignNote("no final newline", "PeterNeumann", key).ok());
  EXPECT_FALSE(SignNote("control \x01\n", "PeterNeumann", key).ok());
  EXPECT_FALSE(SignNote("text\n", "has space", key).ok());
  EXPECT_FALSE(SignNote("text\n", "has\xc2\xa0nbsp", key).ok());
}

// OpenNote keeps the notes that opened: the same bytes opened again by the
// same verifier are not checked again (a referee answers every inclusion
// proof with its one checkpoint), and anything else is checked in full.
TEST(NoteTest, ANoteOpenedAgainIsCheckedOncePerChange) {
  const SigningKey key = SigningKey::Generate();
  const NoteVerifier verifier{"opened.example", key.public_key()};
  const std::string text = "opened once\n";
  const std::string note = *SignNote(text, verifier.name, key);
  const uint64_t before = NoteSignatureChecks();
  for (int i = 0; i < 100; ++i) {
    absl::StatusOr<std::string> opened = OpenNote(note, verifier);
    ASSERT_TRUE(opened.ok()) << opened.status();
    EXPECT_EQ(*opened, text);
  }
  EXPECT_EQ(NoteSignatureChecks(), before + 1);
  // Any byte changed is another note, checked and refused.
  for (size_t i = 0; i < note.size(); ++i) {
    std::string changed = note;
    changed[i] ^= 0x01;
    EXPECT_FALSE(OpenNote(changed, verifier).ok()) << "byte " << i;
  }
  // The same bytes with another key or another name are not opened.
  EXPECT_FALSE(
      OpenNote(note, {verifier.name, SigningKey::Generate().public_key()})
          .ok());
  EXPECT_FALSE(OpenNote(note, {"other.example", key.public_key()}).ok());
  // A note that did not open is not kept: checked each time.
  std::string forged = note;
  forged[0] = 'O';
  uint64_t checks = NoteSignatureChecks();
  EXPECT_FALSE(OpenNote(forged, verifier).ok());
  EXPECT_FALSE(OpenNote(forged, verifier).ok());
  EXPECT_EQ(NoteSignatureChecks(), checks + 2);
  // The kept note still opens unchecked; a newly signed one is checked
  // once; after many others the first is checked again, and still opens.
  checks = NoteSignatureChecks();
  EXPECT_TRUE(OpenNote(note, verifier).ok());
  EXPECT_EQ(NoteSignatureChecks(), checks);
  for (int i = 0; i < 20; ++i) {
    const std::string other =
        *SignNote(absl::StrCat("note ", i, "\n"), verifier.name, key);
    EXPECT_TRUE(OpenNote(other, verifier).ok());
    EXPECT_TRUE(OpenNote(other, verifier).ok());
  }
  EXPECT_EQ(NoteSignatureChecks(), checks + 20);
  EXPECT_TRUE(OpenNote(note, verifier).ok());
  EXPECT_EQ(NoteSignatureChecks(), checks + 21);
}

TEST(CheckpointTest, FormatsAndParsesTheThreeLines) {
  Checkpoint checkpoint{"example.com/behind-the-sofa", 20852163, {}};
  std::string root;
  ASSERT_TRUE(absl::Base64Unescape(
      "CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=", &root));
  std::copy(root.begin(), root.end(), checkpoint.root.begin());
  const std::string text = FormatCheckpoint(checkpoint);
  EXPECT_EQ(text,
            "example.com/behind-the-sofa\n20852163\n"
            "CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n");
  absl::StatusOr<Checkpoint> parsed = ParseCheckpoint(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->origin, checkpoint.origin);
  EXPECT_EQ(parsed->size, checkpoint.size);
  EXPECT_EQ(parsed->root, checkpoint.root);
  // Extension lines are allowed (and ignored).
  EXPECT_TRUE(ParseCheckpoint(text + "extension\n").ok());
  for (const char* bad : {
           "o\n012\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n",
           "o\n-1\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n",
           "o\n1\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I\n",
           "o\n1\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2J=\n",
           "\n1\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n",
           "o\n1\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=",
           "o\n1\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n\n",
           "o\n1\n",
       }) {
    EXPECT_FALSE(ParseCheckpoint(bad).ok()) << bad;
  }
}

TEST(CheckpointTest, OpensOnlyWhenTheOriginIsTheSignersName) {
  const SigningKey key = GoKey();
  const std::string text = FormatCheckpoint({"PeterNeumann", 3, EmptyRoot()});
  const NoteVerifier verifier{"PeterNeumann", key.public_key()};
  EXPECT_TRUE(
      OpenCheckpoint(*SignNote(text, "PeterNeumann", key), verifier).ok());
  const std::string elsewhere = FormatCheckpoint({"another", 3, EmptyRoot()});
  EXPECT_FALSE(
      OpenCheckpoint(*SignNote(elsewhere, "PeterNeumann", key), verifier).ok());
}

// The example of the C2SP tlog-proof specification (signatures elided
// there, so only its structure is checked).
constexpr char kSpecProof[] =
    "c2sp.org/tlog-proof@v1\n"
    "extra YWdlLXYxLjIuMS1kYXJ3aW4tYXJtNjQudGFyLmd6\n"
    "index 73894\n"
    "gSKyXoYZUgZ6jduWYrkDOARinOMGJveXjgMkBTcdPlQ=\n"
    "B95lDa8R83lS8n0eG+o0buTxRKQTYFi//1U8anccXmA=\n"
    "EKNzoDWG8LGC0Yp9o+sv3qllpMP9uHQ9B20KNL+Q1zs=\n"
    "RoopEkOdqkYqMB4MJXrbt/hMjOxsVn0IrWjpz1ZMMes=\n"
    "AHCioX9nLjsrse6YhjRRmk1WUEirVOLLRoOQ6vfO5vk=\n"
    "\n"
    "example.com/fancylog\n"
    "109482\n"
    "sFodV/vSp5O8n9a8QpW6PRY97tfOSW5bsc2Xl/EQi08=\n"
    "\n"
    "\xe2\x80\x94 example.com/fancylog hI2DJw1roloI=\n";

TEST(TlogProofTest, ParsesTheSpecificationsExampleAndFormatsItBack) {
  absl::StatusOr<TlogProof> proof = ParseTlogProof(kSpecProof);
  ASSERT_TRUE(proof.ok()) << proof.status();
  EXPECT_EQ(proof->extra, "age-v1.2.1-darwin-arm64.tar.gz");
  EXPECT_EQ(proof->index, 73894u);
  EXPECT_EQ(proof->hashes.size(), 5u);
  EXPECT_TRUE(proof->checkpoint.starts_with("example.com/fancylog\n"));
  EXPECT_EQ(FormatTlogProof(*proof), kSpecProof);
}

TEST(TlogProofTest, RefusesMalformedProofs) {
  const std::string good = kSpecProof;
  auto replace = [&](std::string_view from, std::string_view to) {
    std::string s = good;
    s.replace(s.find(from), from.size(), to);
    return s;
  };
  for (const std::string& bad : {
           replace("c2sp.org/tlog-proof@v1", "c2sp.org/tlog-proof@v2"),
           replace("index 73894", "index 073894"),
           replace("index 73894", "index  73894"),
           replace("index 73894\n", ""),
           replace("extra YWdl", "extra YWd"),
           replace("gSKyXoYZUgZ6jduWYrkDOARinOMGJveXjgMkBTcdPlQ=",
                   "gSKyXoYZUgZ6jduWYrkDOARinOMGJveXjgMkBTcdPl=="),
           replace("\n\nexample.com", "\nexample.com"),
           good.substr(0, good.find("\n\n") + 2),
       }) {
    EXPECT_FALSE(ParseTlogProof(bad).ok()) << bad;
  }
}

// A file converted to Windows line ends: each of the four formats names
// the carriage return and where it is, rather than a part it then misses
// ("no checkpoint") or a generic "control characters".
TEST(TlogTextTest, ACarriageReturnIsNamedWithItsOffset) {
  auto crlf = [](std::string_view text) {
    return absl::StrReplaceAll(ToAbsl(text), {{"\n", "\r\n"}});
  };
  const std::string why =
      "a carriage return (CR) at byte 22: lines end in a line feed alone "
      "(was the file converted to CR LF line ends?)";
  absl::Status status = ParseTlogProof(crlf(kSpecProof)).status();
  EXPECT_EQ(status.message(), "bad tlog-proof: " + why) << status;
  const std::string checkpoint =
      FormatCheckpoint({"example.com/behind-the-sofa", 1, EmptyRoot()});
  status = ParseCheckpoint(crlf(checkpoint)).status();
  EXPECT_EQ(status.message(),
            "bad checkpoint: a carriage return (CR) at byte "
            "27: lines end in a line feed alone (was the "
            "file converted to CR LF line ends?)")
      << status;
  status = ParseNote(crlf(kGoNote)).status();
  EXPECT_EQ(status.message(),
            "malformed note: a carriage return (CR) at byte 56: lines end in "
            "a line feed alone (was the file converted to CR LF line ends?)")
      << status;
  status =
      ParseConsistencyProof(crlf(FormatConsistencyProof({3, 7, {EmptyRoot()}})))
          .status();
  EXPECT_EQ(status.message(),
            "bad consistency proof: a carriage return (CR) "
            "at byte 35: lines end in a line feed alone "
            "(was the file converted to CR LF line ends?)")
      << status;
}

TEST(ConsistencyProofFileTest, RoundTrips) {
  ConsistencyProofFile proof{3, 7, {EmptyRoot(), LeafHash("x")}};
  const std::string text = FormatConsistencyProof(proof);
  absl::StatusOr<ConsistencyProofFile> parsed = ParseConsistencyProof(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->old_size, 3u);
  EXPECT_EQ(parsed->new_size, 7u);
  EXPECT_EQ(parsed->hashes, proof.hashes);
  EXPECT_FALSE(ParseConsistencyProof(text.substr(0, text.size() - 1)).ok());
  EXPECT_FALSE(ParseConsistencyProof("pyramid-referee/tlog-consistency@v1\n"
                                     "old 3\n")
                   .ok());
}

}  // namespace
}  // namespace pyramid::tlog
