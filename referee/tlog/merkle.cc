#include "referee/tlog/merkle.h"

#include "referee/crypto/sha256.h"

namespace pyramid::tlog {
namespace {

// The largest power of two smaller than n (n >= 2).
uint64_t SplitPoint(uint64_t n) {
  uint64_t k = 1;
  while (k << 1 < n) k <<= 1;
  return k;
}

bool IsAlignedPowerOfTwo(uint64_t begin, uint64_t n, int* level) {
  if ((n & (n - 1)) != 0 || begin % n != 0) return false;
  *level = 0;
  while ((uint64_t{1} << *level) < n) ++*level;
  return true;
}

void Path(uint64_t index, uint64_t begin, uint64_t end, SubtreeSource source,
          std::vector<Digest>& out) {
  if (end - begin <= 1) return;
  const uint64_t mid = begin + SplitPoint(end - begin);
  if (index < mid) {
    Path(index, begin, mid, source, out);
    out.push_back(RangeHash(mid, end, source));
  } else {
    Path(index, mid, end, source, out);
    out.push_back(RangeHash(begin, mid, source));
  }
}

// SUBPROOF(m, D[begin:end], complete) of RFC 9162 section 2.1.4.1, with m
// counted from `begin`.
void SubProof(uint64_t m, uint64_t begin, uint64_t end, bool complete,
              SubtreeSource source, std::vector<Digest>& out) {
  if (m == end - begin) {
    if (!complete) out.push_back(RangeHash(begin, end, source));
    return;
  }
  const uint64_t k = SplitPoint(end - begin);
  if (m <= k) {
    SubProof(m, begin, begin + k, complete, source, out);
    out.push_back(RangeHash(begin + k, end, source));
  } else {
    SubProof(m - k, begin + k, end, false, source, out);
    out.push_back(RangeHash(begin, begin + k, source));
  }
}

}  // namespace

Digest EmptyRoot() { return Sha256(std::string_view()); }

Digest LeafHash(std::string_view data) {
  return Sha256({std::string_view("\x00", 1), data});
}

Digest NodeHash(const Digest& left, const Digest& right) {
  return Sha256({std::string_view("\x01", 1), AsView(left), AsView(right)});
}

Digest RangeHash(uint64_t begin, uint64_t end, SubtreeSource source) {
  int level = 0;
  if (IsAlignedPowerOfTwo(begin, end - begin, &level)) {
    return source(level, begin >> level);
  }
  const uint64_t mid = begin + SplitPoint(end - begin);
  return NodeHash(RangeHash(begin, mid, source), RangeHash(mid, end, source));
}

Digest RootHash(uint64_t size, SubtreeSource source) {
  return size == 0 ? EmptyRoot() : RangeHash(0, size, source);
}

std::vector<Digest> InclusionProof(uint64_t index, uint64_t size,
                                   SubtreeSource source) {
  std::vector<Digest> proof;
  if (index < size) Path(index, 0, size, source, proof);
  return proof;
}

std::vector<Digest> ConsistencyProof(uint64_t old_size, uint64_t new_size,
                                     SubtreeSource source) {
  std::vector<Digest> proof;
  if (old_size > 0 && old_size < new_size) {
    SubProof(old_size, 0, new_size, true, source, proof);
  }
  return proof;
}

bool VerifyInclusion(uint64_t index, uint64_t size, const Digest& leaf_hash,
                     absl::Span<const Digest> proof, const Digest& root) {
  if (index >= size) return false;
  uint64_t fn = index;
  uint64_t sn = size - 1;
  Digest r = leaf_hash;
  for (const Digest& p : proof) {
    if (sn == 0) return false;
    if ((fn & 1) == 1 || fn == sn) {
      r = NodeHash(p, r);
      while ((fn & 1) == 0 && fn != 0) {
        fn >>= 1;
        sn >>= 1;
      }
    } else {
      r = NodeHash(r, p);
    }
    fn >>= 1;
    sn >>= 1;
  }
  return sn == 0 && r == root;
}

bool VerifyConsistency(uint64_t old_size, uint64_t new_size,
                       const Digest& old_root, const Digest& new_root,
                       absl::Span<const Digest> proof) {
  if (old_size > new_size) return false;
  if (old_size == 0) return proof.empty() && old_root == EmptyRoot();
  if (old_size == new_size) return proof.empty() && old_root == new_root;
  if (proof.empty()) return false;
  // When the old tree is a complete subtree, its head is the proof's
  // implicit first node.
  std::vector<Digest> path;
  if ((old_size & (old_size - 1)) == 0) path.push_back(old_root);
  path.insert(path.end(), proof.begin(), proof.end());
  uint64_t fn = old_size - 1;
  uint64_t sn = new_size - 1;
  while ((fn & 1) == 1) {
    fn >>= 1;
    sn >>= 1;
  }
  Digest fr = path[0];
  Digest sr = path[0];
  for (size_t i = 1; i < path.size(); ++i) {
    const Digest& c = path[i];
    if (sn == 0) return false;
    if ((fn & 1) == 1 || fn == sn) {
      fr = NodeHash(c, fr);
      sr = NodeHash(c, sr);
      while ((fn & 1) == 0 && fn != 0) {
        fn >>= 1;
        sn >>= 1;
      }
    } else {
      sr = NodeHash(sr, c);
    }
    fn >>= 1;
    sn >>= 1;
  }
  return sn == 0 && fr == old_root && sr == new_root;
}

void MemoryTree::Append(const Digest& leaf_hash) {
  if (levels_.empty()) levels_.emplace_back();
  levels_[0].push_back(leaf_hash);
  // Every subtree this leaf completes.
  for (size_t k = 0; levels_[k].size() % 2 == 0; ++k) {
    if (levels_.size() == k + 1) levels_.emplace_back();
    const std::vector<Digest>& level = levels_[k];
    levels_[k + 1].push_back(
        NodeHash(level[level.size() - 2], level[level.size() - 1]));
  }
}

Digest MemoryTree::Subtree(int level, uint64_t index) const {
  return levels_[level][index];
}

Digest MemoryTree::Root() const {
  return RootHash(size(), [this](int level, uint64_t index) {
    return Subtree(level, index);
  });
}

}  // namespace pyramid::tlog
