#include "referee/tlog/merkle.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "referee/crypto/bytes.h"

namespace pyramid::tlog {
namespace {

// The leaves of the RFC 6962 reference test vectors (Certificate
// Transparency's and Trillian's test suites), and the tree heads of their
// first 1..8 leaves.
const char* const kLeaves[] = {"",
                               "00",
                               "10",
                               "2021",
                               "3031",
                               "40414243",
                               "5051525354555657",
                               "606162636465666768696a6b6c6d6e6f"};
const char* const kRoots[] = {
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328"};

std::string Hex(const Digest& d) { return ToHex(AsView(d)); }

std::vector<std::string> Hexes(const std::vector<Digest>& ds) {
  std::vector<std::string> out;
  for (const Digest& d : ds) out.push_back(Hex(d));
  return out;
}

MemoryTree ReferenceTree(int size) {
  MemoryTree tree;
  for (int i = 0; i < size; ++i) {
    tree.Append(LeafHash(*FromHex(kLeaves[i])));
  }
  return tree;
}

// A callable for SubtreeSource (which only refers to it: pass it directly).
auto Source(const MemoryTree& tree) {
  return
      [&tree](int level, uint64_t index) { return tree.Subtree(level, index); };
}

TEST(MerkleTest, EmptyTreeIsTheHashOfNothing) {
  EXPECT_EQ(Hex(EmptyRoot()),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(MemoryTree().Root(), EmptyRoot());
}

TEST(MerkleTest, ReproducesTheRfc6962ReferenceRoots) {
  for (int size = 1; size <= 8; ++size) {
    EXPECT_EQ(Hex(ReferenceTree(size).Root()), kRoots[size - 1])
        << "size " << size;
  }
}

TEST(MerkleTest, ReproducesTheReferenceInclusionProofs) {
  const MemoryTree tree = ReferenceTree(8);
  EXPECT_EQ(
      Hexes(InclusionProof(0, 8, Source(tree))),
      (std::vector<std::string>{
          "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
          "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
          "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"}));
  EXPECT_EQ(
      Hexes(InclusionProof(5, 8, Source(tree))),
      (std::vector<std::string>{
          "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
          "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
          "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"}));
}

TEST(MerkleTest, ReproducesTheReferenceConsistencyProofs) {
  const MemoryTree tree = ReferenceTree(8);
  EXPECT_EQ(
      Hexes(ConsistencyProof(1, 8, Source(tree))),
      (std::vector<std::string>{
          "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
          "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
          "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4"}));
  EXPECT_EQ(
      Hexes(ConsistencyProof(6, 8, Source(tree))),
      (std::vector<std::string>{
          "0ebc5d3437fbe2db158b9f126a1d118e308181031d0a949f8dededebc558ef6a",
          "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
          "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"}));
  EXPECT_TRUE(ConsistencyProof(8, 8, Source(tree)).empty());
}

// The vectors of docs/transparency-log.md: the first 7 reference leaves.
TEST(MerkleTest, ReproducesTheDocumentedSevenLeafVectors) {
  const MemoryTree tree = ReferenceTree(7);
  EXPECT_EQ(Hex(tree.Root()), kRoots[6]);
  const std::vector<Digest> inclusion = InclusionProof(5, 7, Source(tree));
  EXPECT_EQ(
      Hexes(inclusion),
      (std::vector<std::string>{
          "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
          "b08693ec2e721597130641e8211e7eedccb4c26413963eee6c1e2ed16ffb1a5f",
          "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7"}));
  EXPECT_TRUE(VerifyInclusion(5, 7, LeafHash(*FromHex(kLeaves[5])), inclusion,
                              tree.Root()));
  // Certificate Transparency's reference proof for 3 -> 7.
  const std::vector<Digest> consistency = ConsistencyProof(3, 7, Source(tree));
  EXPECT_EQ(
      Hexes(consistency),
      (std::vector<std::string>{
          "0298d122906dcfc10892cb53a73992fc5b9f493ea4c9badb27b791b4127a7fe7",
          "07506a85fd9dd2f120eb694f86011e5bb4662e5c415a62917033d4a9624487e7",
          "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
          "837dbb152e9b079010717e84e865da4ebc0fa198a806d59d31bf15accef22d0e"}));
  EXPECT_TRUE(VerifyConsistency(3, 7, ReferenceTree(3).Root(), tree.Root(),
                                consistency));
}

// A tree of `size` leaves "leaf 0", "leaf 1", ...
MemoryTree NumberedTree(int size) {
  MemoryTree tree;
  for (int i = 0; i < size; ++i) {
    tree.Append(LeafHash("leaf " + std::to_string(i)));
  }
  return tree;
}

Digest Flip(Digest d, int bit) {
  d[bit / 8] ^= static_cast<uint8_t>(1 << (bit % 8));
  return d;
}

// The bits the exhaustive tests below flip in each hash: one in every byte,
// a different one of its eight from byte to byte (bit i % 8 of byte i). A
// proof check that skipped or mis-compared any byte of any hash lets one of
// them through. Flipping all 256 bits cost eight times as much (the tests'
// whole time in the sanitizer build was a minute) and tested SHA-256, not the
// proofs: one bit changed anywhere changes a hash.
std::vector<int> FlippedBits() {
  std::vector<int> bits;
  for (int byte = 0; byte < 32; ++byte) bits.push_back(8 * byte + byte % 8);
  return bits;
}

TEST(MerkleTest, EveryInclusionProofUpTo64LeavesVerifiesAndNoChangedByteDoes) {
  for (int size = 1; size <= 64; ++size) {
    const MemoryTree tree = NumberedTree(size);
    const Digest root = tree.Root();
    for (int index = 0; index < size; ++index) {
      const Digest leaf = LeafHash("leaf " + std::to_string(index));
      std::vector<Digest> proof = InclusionProof(index, size, Source(tree));
      ASSERT_TRUE(VerifyInclusion(index, size, leaf, proof, root))
          << index << " of " << size;
      for (int bit : FlippedBits()) {
        EXPECT_FALSE(
            VerifyInclusion(index, size, leaf, proof, Flip(root, bit)));
        EXPECT_FALSE(
            VerifyInclusion(index, size, Flip(leaf, bit), proof, root));
        for (size_t h = 0; h < proof.size(); ++h) {
          proof[h] = Flip(proof[h], bit);
          EXPECT_FALSE(VerifyInclusion(index, size, leaf, proof, root))
              << index << " of " << size << ", hash " << h << " bit " << bit;
          proof[h] = Flip(proof[h], bit);
        }
      }
      // Another index, a proof one hash short or long.
      for (int other = 0; other < size; ++other) {
        if (other != index) {
          EXPECT_FALSE(VerifyInclusion(other, size, leaf, proof, root));
        }
      }
      EXPECT_FALSE(VerifyInclusion(index + size, size, leaf, proof, root));
      if (!proof.empty()) {
        std::vector<Digest> shorter(proof.begin(), proof.end() - 1);
        EXPECT_FALSE(VerifyInclusion(index, size, leaf, shorter, root));
      }
      std::vector<Digest> longer = proof;
      longer.push_back(root);
      EXPECT_FALSE(VerifyInclusion(index, size, leaf, longer, root));
    }
  }
}

TEST(MerkleTest,
     EveryConsistencyProofUpTo64LeavesVerifiesAndNoChangedByteDoes) {
  const MemoryTree full = NumberedTree(64);
  std::vector<Digest> roots{EmptyRoot()};
  for (int size = 1; size <= 64; ++size) {
    roots.push_back(NumberedTree(size).Root());
  }
  for (int new_size = 1; new_size <= 64; ++new_size) {
    for (int old_size = 0; old_size <= new_size; ++old_size) {
      std::vector<Digest> proof =
          ConsistencyProof(old_size, new_size, Source(full));
      const Digest& old_root = roots[old_size];
      const Digest& new_root = roots[new_size];
      ASSERT_TRUE(
          VerifyConsistency(old_size, new_size, old_root, new_root, proof))
          << old_size << " to " << new_size;
      for (int bit : FlippedBits()) {
        EXPECT_FALSE(VerifyConsistency(old_size, new_size, Flip(old_root, bit),
                                       new_root, proof));
        if (old_size > 0) {
          EXPECT_FALSE(VerifyConsistency(old_size, new_size, old_root,
                                         Flip(new_root, bit), proof));
        }
        for (size_t h = 0; h < proof.size(); ++h) {
          proof[h] = Flip(proof[h], bit);
          EXPECT_FALSE(
              VerifyConsistency(old_size, new_size, old_root, new_root, proof))
              << old_size << " to " << new_size << ", hash " << h;
          proof[h] = Flip(proof[h], bit);
        }
      }
      if (old_size > 0 && old_size < new_size) {
        // The proof does not prove a different old tree.
        for (int other = 1; other < new_size; ++other) {
          if (other == old_size) continue;
          EXPECT_FALSE(
              VerifyConsistency(other, new_size, roots[other], new_root, proof))
              << other << " with the proof for " << old_size;
        }
      }
    }
  }
  // A bigger old tree than the new one never verifies.
  EXPECT_FALSE(VerifyConsistency(5, 4, roots[5], roots[4], {}));
}

// An inclusion proof binds its leaf's index: with any bit of the index
// changed, no proof of trees up to 64 leaves verifies. (The tree size is not
// bound by the proof alone: the same hashes prove leaf 0 of 5 and of 7
// against the same root. It is bound by the signed checkpoint that names
// size and root together; evidence_test flips every bit of a tlog-proof,
// size and signature included.)
TEST(MerkleTest, NoInclusionProofVerifiesWithABitOfItsIndexChanged) {
  const MemoryTree full = NumberedTree(64);
  for (uint64_t size = 1; size <= 64; ++size) {
    const Digest root = NumberedTree(static_cast<int>(size)).Root();
    for (uint64_t index = 0; index < size; ++index) {
      const Digest leaf = LeafHash("leaf " + std::to_string(index));
      const std::vector<Digest> proof =
          InclusionProof(index, size, Source(full));
      for (int bit = 0; bit < 64; ++bit) {
        EXPECT_FALSE(VerifyInclusion(index ^ (uint64_t{1} << bit), size, leaf,
                                     proof, root))
            << index << " of " << size << ", index bit " << bit;
      }
    }
  }
}

TEST(MerkleTest, MemoryTreeAgreesWithRangeHashesOfItsPrefixes) {
  const MemoryTree tree = NumberedTree(37);
  for (uint64_t size = 1; size <= 37; ++size) {
    EXPECT_EQ(RootHash(size, Source(tree)), NumberedTree(size).Root());
  }
}

}  // namespace
}  // namespace pyramid::tlog
