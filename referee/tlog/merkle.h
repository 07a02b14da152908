// Merkle tree hashing of RFC 9162 section 2.1 (the same as RFC 6962): the
// tree head of a list of leaves, inclusion proofs (2.1.3) and consistency
// proofs (2.1.4), and their verification. SHA-256; a leaf hashes as
// SHA-256(0x00 ‖ leaf data), an interior node as SHA-256(0x01 ‖ left ‖ right),
// and the empty tree's head is SHA-256 of nothing. docs/transparency-log.md
// has test vectors.
//
// Proof generation reads the tree through a SubtreeSource: the hash of any
// complete, aligned subtree (what an append-only store keeps), so a proof
// costs O(log² n) lookups whatever the tree's size. Pure functions, no I/O.
#ifndef PYRAMID_REFEREE_TLOG_MERKLE_H_
#define PYRAMID_REFEREE_TLOG_MERKLE_H_

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/types/span.h"
#include "referee/crypto/bytes.h"

namespace pyramid::tlog {

// SHA-256 of the empty string: the head of the tree of 0 leaves.
Digest EmptyRoot();
// SHA-256(0x00 ‖ data).
Digest LeafHash(std::string_view data);
// SHA-256(0x01 ‖ left ‖ right).
Digest NodeHash(const Digest& left, const Digest& right);

// The hash of the complete subtree of 2^level leaves that starts at leaf
// index << level. Only asked for subtrees that lie inside the tree.
using SubtreeSource = absl::FunctionRef<Digest(int level, uint64_t index)>;

// MTH(D[begin:end]) of RFC 9162; requires begin < end.
Digest RangeHash(uint64_t begin, uint64_t end, SubtreeSource source);
// The tree head of the first `size` leaves (EmptyRoot() for 0).
Digest RootHash(uint64_t size, SubtreeSource source);

// PATH(index, D[0:size]): the inclusion proof of leaf `index` in the tree of
// `size` leaves, from the leaf's sibling up to the root's child. Requires
// index < size.
std::vector<Digest> InclusionProof(uint64_t index, uint64_t size,
                                   SubtreeSource source);
// PROOF(old_size, D[0:new_size]): requires old_size <= new_size. Empty when
// old_size is 0 or equals new_size (nothing to prove).
std::vector<Digest> ConsistencyProof(uint64_t old_size, uint64_t new_size,
                                     SubtreeSource source);

// RFC 9162 section 2.1.3.2: true iff `proof` proves that the leaf whose hash
// is `leaf_hash` is leaf `index` of the tree of `size` leaves whose head is
// `root`.
bool VerifyInclusion(uint64_t index, uint64_t size, const Digest& leaf_hash,
                     absl::Span<const Digest> proof, const Digest& root);
// RFC 9162 section 2.1.4.2: true iff `proof` proves that the tree of
// `old_size` leaves with head `old_root` is a prefix of the tree of
// `new_size` leaves with head `new_root`. Equal sizes need equal heads and an
// empty proof; an old size of 0 needs the empty tree's head and an empty
// proof.
bool VerifyConsistency(uint64_t old_size, uint64_t new_size,
                       const Digest& old_root, const Digest& new_root,
                       absl::Span<const Digest> proof);

// A whole tree held in memory (tests, small tools): leaf hashes in order.
class MemoryTree {
 public:
  void Append(const Digest& leaf_hash);
  uint64_t size() const { return levels_.empty() ? 0 : levels_[0].size(); }
  // The complete subtree hashes, as a SubtreeSource wants them.
  Digest Subtree(int level, uint64_t index) const;
  Digest Root() const;

 private:
  // levels_[k][i]: the complete subtree of 2^k leaves starting at i << k.
  std::vector<std::vector<Digest>> levels_;
};

}  // namespace pyramid::tlog

#endif  // PYRAMID_REFEREE_TLOG_MERKLE_H_
