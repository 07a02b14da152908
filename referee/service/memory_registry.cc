// The registry in memory (NewMemoryRegistry): what a lobby without a
// durable registry keeps, gone with the process.
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "referee/core/log_format.h"
#include "referee/service/registry.h"

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

// Keeps each match compactly (its info serialized, its tokens in one
// table): a lobby without a durable registry runs as long as one with.
class MemoryRegistry final : public Registry {
 public:
  absl::Status AddBot(const StoredBot& bot) override {
    absl::MutexLock lock(&mu_);
    bots_.push_back(bot);
    tokens_[bot.token.id] = bot.token;
    return absl::OkStatus();
  }

  absl::Status AddMatch(const StoredMatch& match) override {
    absl::MutexLock lock(&mu_);
    const int64_t seq = ++last_seq_;
    Kept& kept = matches_[seq];
    kept.info = match.info.SerializeAsString();
    kept.status = match.info.status();
    kept.log_name = match.log_name;
    kept.referee_contribution = match.referee_contribution;
    kept.acknowledged = match.acknowledged;
    by_id_[match.info.match_id()] = seq;
    if (!match.info.label().empty() && kept.status != v1::MATCH_BROKEN) {
      labels_[match.info.label()].insert(seq);
    }
    if (!match.info.request_id().empty()) {
      auto [request, first] =
          requests_.try_emplace(match.info.request_id(), seq);
      if (!first) {
        kept.earlier_request = request->second;
        request->second = seq;
      }
    }
    for (const StoredToken& token : match.seat_tokens) {
      tokens_[token.id] = token;
      kept.token_ids.push_back(token.id);
    }
    return absl::OkStatus();
  }

  absl::Status RemoveMatch(const std::string& match_id) override {
    absl::MutexLock lock(&mu_);
    auto it = by_id_.find(match_id);
    if (it == by_id_.end()) return absl::OkStatus();
    const int64_t seq = it->second;
    const Kept& kept = matches_.at(seq);
    for (const std::string& id : kept.token_ids) tokens_.erase(id);
    const v1::MatchInfo info = Unpack(seq, kept).info;
    ForgetLabelLocked(info.label(), seq);
    // Taken out of its request_id's list: the request_id then names the
    // newest match of it still kept, as the SQLite registry's does.
    auto request = requests_.find(info.request_id());
    if (request != requests_.end()) {
      if (request->second == seq) {
        if (kept.earlier_request == 0) {
          requests_.erase(request);
        } else {
          request->second = kept.earlier_request;
        }
      } else {
        // The newer match that lists this one lists this one's earlier.
        for (int64_t later = request->second; later != 0;) {
          Kept& newer = matches_.at(later);
          if (newer.earlier_request == seq) {
            newer.earlier_request = kept.earlier_request;
            break;
          }
          later = newer.earlier_request;
        }
      }
    }
    matches_.erase(seq);
    by_id_.erase(it);
    return absl::OkStatus();
  }

  absl::Status MarkAcknowledged(const std::string& match_id) override {
    absl::MutexLock lock(&mu_);
    auto it = by_id_.find(match_id);
    if (it != by_id_.end()) {
      matches_.at(it->second).acknowledged = StoredMatch::Acknowledged::kYes;
    }
    return absl::OkStatus();
  }

  absl::Status EndMatch(const v1::MatchInfo& info) override {
    absl::MutexLock lock(&mu_);
    auto it = by_id_.find(info.match_id());
    if (it == by_id_.end()) return absl::OkStatus();
    Kept& kept = matches_.at(it->second);
    // Its label as recorded when it was added (as the SQLite registry's
    // column keeps it).
    if (info.status() == v1::MATCH_BROKEN) {
      ForgetLabelLocked(Unpack(it->second, kept).info.label(), it->second);
    }
    kept.info = info.SerializeAsString();
    kept.status = info.status();
    kept.referee_contribution.clear();
    kept.referee_contribution.shrink_to_fit();
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<StoredBot>> LoadBots() const override {
    absl::MutexLock lock(&mu_);
    return bots_;
  }

  absl::StatusOr<std::vector<StoredMatch>> LoadMatches(
      int64_t after, int limit) const override {
    absl::MutexLock lock(&mu_);
    std::vector<StoredMatch> loaded;
    for (auto it = matches_.upper_bound(after);
         it != matches_.end() && static_cast<int>(loaded.size()) < limit;
         ++it) {
      StoredMatch& match = loaded.emplace_back(Unpack(it->first, it->second));
      for (const std::string& id : it->second.token_ids) {
        match.seat_tokens.push_back(tokens_.at(id));
      }
    }
    return loaded;
  }

  absl::StatusOr<StoredMatch> FindMatch(
      const std::string& match_id) const override {
    absl::MutexLock lock(&mu_);
    auto it = by_id_.find(match_id);
    if (it == by_id_.end()) {
      return absl::NotFoundError(absl::StrCat("no match ", match_id));
    }
    return Unpack(it->second, matches_.at(it->second));
  }

  absl::StatusOr<std::string> FindRequest(
      const std::string& request_id) const override {
    absl::MutexLock lock(&mu_);
    auto it = requests_.find(request_id);
    if (request_id.empty() || it == requests_.end()) {
      return absl::NotFoundError("no match for the request_id");
    }
    v1::MatchInfo info;
    if (!info.ParseFromString(matches_.at(it->second).info)) std::abort();
    return info.match_id();
  }

  absl::StatusOr<std::vector<StoredMatch>> FindLabelled(
      const std::string& label, int64_t before, int limit) const override {
    absl::MutexLock lock(&mu_);
    std::vector<StoredMatch> found;
    auto seqs = labels_.find(label);
    if (label.empty() || seqs == labels_.end()) return found;
    auto it =
        before == 0 ? seqs->second.end() : seqs->second.lower_bound(before);
    while (it != seqs->second.begin() &&
           static_cast<int>(found.size()) < limit) {
      --it;
      found.push_back(Unpack(*it, matches_.at(*it)));
    }
    return found;
  }

  absl::StatusOr<StoredToken> FindToken(const std::string& id) const override {
    absl::MutexLock lock(&mu_);
    auto it = tokens_.find(id);
    if (it == tokens_.end()) return absl::NotFoundError("no such token");
    return it->second;
  }

  absl::StatusOr<std::vector<StoredMatch>> ListMatches(
      int64_t before, int limit, v1::MatchStatus status) const override {
    absl::MutexLock lock(&mu_);
    std::vector<StoredMatch> listed;
    auto it = before == 0 ? matches_.end() : matches_.lower_bound(before);
    while (it != matches_.begin() && static_cast<int>(listed.size()) < limit) {
      --it;
      if (status == v1::MATCH_STATUS_UNSPECIFIED ||
          it->second.status == status) {
        listed.push_back(Unpack(it->first, it->second));
      }
    }
    return listed;
  }

  absl::StatusOr<int64_t> CountLoggedMatches() const override {
    absl::MutexLock lock(&mu_);
    int64_t logged = 0;
    for (const auto& [seq, kept] : matches_) {
      logged += !log_format::LogFileName(kept.log_name).empty() &&
                (kept.status == v1::MATCH_FINISHED ||
                 (kept.status == v1::MATCH_RUNNING &&
                  kept.acknowledged != StoredMatch::Acknowledged::kNo));
    }
    return logged;
  }

 private:
  struct Kept {
    std::string info;  // MatchInfo, serialized.
    v1::MatchStatus status = v1::MATCH_RUNNING;
    std::string log_name;
    std::string referee_contribution;
    StoredMatch::Acknowledged acknowledged = StoredMatch::Acknowledged::kNo;
    std::vector<std::string> token_ids;  // Its seat tokens'.
    // The seq of the newest match kept that was created before it with the
    // same request_id; 0 when none. From requests_, these list a
    // request_id's matches newest first (more than one only when a retry
    // replaced a broken match), so that removing one is cheap.
    int64_t earlier_request = 0;
  };

  // Takes match `seq` out of its label's matches (it broke, or is gone).
  void ForgetLabelLocked(const std::string& label, int64_t seq)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    auto seqs = labels_.find(label);
    if (seqs == labels_.end()) return;
    seqs->second.erase(seq);
    if (seqs->second.empty()) labels_.erase(seqs);
  }

  // The match as StoredMatch, without its seat tokens.
  static StoredMatch Unpack(int64_t seq, const Kept& kept) {
    StoredMatch match;
    match.seq = seq;
    // Serialized here: it parses.
    if (!match.info.ParseFromString(kept.info)) std::abort();
    match.log_name = kept.log_name;
    match.referee_contribution = kept.referee_contribution;
    match.acknowledged = kept.acknowledged;
    return match;
  }

  mutable absl::Mutex mu_;
  std::vector<StoredBot> bots_ ABSL_GUARDED_BY(mu_);
  int64_t last_seq_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<int64_t, Kept> matches_ ABSL_GUARDED_BY(mu_);  // By seq.
  absl::flat_hash_map<std::string, int64_t> by_id_ ABSL_GUARDED_BY(mu_);
  // request_id -> the seq of the newest match kept that was created with it
  // (the older ones: Kept::earlier_request).
  absl::flat_hash_map<std::string, int64_t> requests_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, StoredToken> tokens_ ABSL_GUARDED_BY(mu_);
  // label -> the seqs of the matches kept with it that did not break
  // (FindLabelled); no entry for the empty label.
  absl::flat_hash_map<std::string, std::set<int64_t>> labels_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace

std::unique_ptr<Registry> NewMemoryRegistry() {
  return std::make_unique<MemoryRegistry>();
}

}  // namespace pyramid
