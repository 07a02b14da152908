// bench_tlog: the referee's transparency log (docs/transparency-log.md) at
// the scale of a whole competition circuit: a tree of --leaves (default
// 1,000,000) sealed logs in SQLite, as the referee keeps it.
//
//   bench_tlog [--leaves=1000000] [--dir=/tmp] [--benchmark_filter=...]
//
// Builds the tree once in a temporary database (one transaction, timed and
// printed), signs its checkpoint, then measures, each against a baseline
// taken in the same run:
//   Append            one durable append (its own transaction, fsynced, as
//                     the referee appends each sealed log) to the big tree;
//   FsyncFloor        the baseline for Append: write 32 bytes to a file in
//                     the same directory and fdatasync it;
//   InclusionProof    the tlog-proof of a random leaf against the signed
//                     checkpoint, from the stored nodes;
//   ConsistencyProof  from a random older size to the checkpoint's size;
//   MemoryInclusion   the baseline for both proofs: the same proof from an
//                     in-memory tree of the same size (no storage);
//   VerifyInclusion   what an offline client pays to check a proof.
// Report the ratios: Append / FsyncFloor and InclusionProof /
// MemoryInclusion.
//
// A mistake on the command line (an unknown flag, a bad value, a --dir in
// which no directory can be made, a --benchmark_filter that names no
// benchmark) is a usage error, exit status 2, naming it, before the tree is
// built (tools/benchmark_flags.h).
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "benchmark/benchmark.h"
#include "referee/crypto/bytes.h"
#include "referee/crypto/ed25519.h"
#include "referee/crypto/sha256.h"
#include "referee/service/transparency_log.h"
#include "referee/tlog/merkle.h"
#include "tools/benchmark_flags.h"

namespace pyramid {
namespace {

uint64_t g_leaves = 1000000;
std::string g_dir = "/tmp";

// Leaf i of the benchmark tree: a fake match id and log hash, both
// determined by i.
std::pair<std::string, Digest> Leaf(uint64_t i) {
  const Digest hash = Sha256({"bench_tlog leaf", absl::StrCat(i)});
  return {ToHex(AsView(hash)).substr(0, 32), hash};
}

// The shared fixture: the stored tree, its in-memory twin, and the
// directory they live in (removed at exit).
struct World {
  std::string dir;
  std::unique_ptr<TransparencyLog> log;
  tlog::MemoryTree memory;
  uint64_t checkpoint_size = 0;
  uint64_t appended = 0;  // By BM_Append, beyond checkpoint_size.
};

// Why no temporary directory can be made in `dir` ("" when one can): it
// is not there, not a directory, or not writable.
std::string DirProblem(const std::string& dir) {
  struct stat st;
  if (stat(dir.c_str(), &st) != 0) return std::strerror(errno);
  if (!S_ISDIR(st.st_mode)) return "not a directory";
  if (access(dir.c_str(), W_OK | X_OK) != 0) return std::strerror(errno);
  return "";
}

World& TheWorld() {
  static World* world = [] {
    auto* w = new World;
    std::string pattern = g_dir + "/bench-tlog-XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) {
      std::fprintf(stderr,
                   "bench_tlog: cannot make a directory in --dir=%s: %s\n",
                   g_dir.c_str(), std::strerror(errno));
      std::exit(2);
    }
    w->dir = pattern;
    const SigningKey key = SigningKey::Generate();
    absl::StatusOr<std::unique_ptr<TransparencyLog>> log =
        TransparencyLog::Open(w->dir + "/tlog.sqlite3", key,
                              TransparencyLog::DefaultOrigin(key.public_key()));
    if (!log.ok()) {
      std::fprintf(stderr, "open: %s\n", log.status().ToString().c_str());
      std::exit(2);
    }
    w->log = std::move(*log);
    const auto start = std::chrono::steady_clock::now();
    constexpr uint64_t kBatch = 100000;
    for (uint64_t begin = 0; begin < g_leaves; begin += kBatch) {
      std::vector<std::pair<std::string, Digest>> batch;
      for (uint64_t i = begin; i < std::min(g_leaves, begin + kBatch); ++i) {
        batch.push_back(Leaf(i));
        w->memory.Append(tlog::LeafHash(AsView(batch.back().second)));
      }
      if (absl::Status s = w->log->AppendAll(batch); !s.ok()) {
        std::fprintf(stderr, "append: %s\n", s.ToString().c_str());
        std::exit(2);
      }
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    if (!w->log->Checkpoint(0).ok()) std::exit(2);
    w->checkpoint_size = w->log->size();
    std::fprintf(stderr,
                 "bench_tlog: built a tree of %llu leaves in %.1f s "
                 "(%.0f leaves/s, batches of %llu per transaction), %s\n",
                 static_cast<unsigned long long>(g_leaves), seconds,
                 g_leaves / seconds, static_cast<unsigned long long>(kBatch),
                 (w->dir + "/tlog.sqlite3").c_str());
    std::atexit([] {
      std::error_code ignored;
      std::filesystem::remove_all(TheWorld().dir, ignored);
    });
    return w;
  }();
  return *world;
}

void BM_FsyncFloor(benchmark::State& state) {
  World& w = TheWorld();
  const std::string path = w.dir + "/fsync-floor";
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) {
    state.SkipWithError("cannot open the floor file");
    return;
  }
  const Digest bytes = Sha256({"floor"});
  for (auto _ : state) {
    if (write(fd, bytes.data(), bytes.size()) !=
            static_cast<ssize_t>(bytes.size()) ||
        fdatasync(fd) != 0) {
      state.SkipWithError("write or fdatasync failed");
      break;
    }
  }
  close(fd);
}
BENCHMARK(BM_FsyncFloor)->UseRealTime();

void BM_Append(benchmark::State& state) {
  World& w = TheWorld();
  for (auto _ : state) {
    const auto [id, hash] = Leaf(g_leaves + w.appended++);
    if (!w.log->Append(id, hash).ok()) {
      state.SkipWithError("append failed");
      break;
    }
  }
  state.counters["tree_size"] = static_cast<double>(w.log->size());
}
BENCHMARK(BM_Append)->UseRealTime();

void BM_InclusionProof(benchmark::State& state) {
  World& w = TheWorld();
  std::mt19937_64 random(1);  // Picks leaves; reaches no output.
  for (auto _ : state) {
    const auto [id, hash] = Leaf(random() % w.checkpoint_size);
    absl::StatusOr<TlogLeaf> leaf = w.log->FindLeaf(id);
    if (!leaf.ok()) {
      state.SkipWithError("leaf not found");
      break;
    }
    absl::StatusOr<tlog::TlogProof> proof =
        w.log->InclusionProof(*leaf, w.checkpoint_size);
    if (!proof.ok()) {
      state.SkipWithError("proof failed");
      break;
    }
    benchmark::DoNotOptimize(proof->hashes.data());
  }
}
BENCHMARK(BM_InclusionProof)->UseRealTime();

void BM_ConsistencyProof(benchmark::State& state) {
  World& w = TheWorld();
  std::mt19937_64 random(2);
  for (auto _ : state) {
    const uint64_t old_size = 1 + random() % w.checkpoint_size;
    absl::StatusOr<std::vector<Digest>> proof =
        w.log->ConsistencyProof(old_size, w.checkpoint_size);
    if (!proof.ok()) {
      state.SkipWithError("proof failed");
      break;
    }
    benchmark::DoNotOptimize(proof->data());
  }
}
BENCHMARK(BM_ConsistencyProof)->UseRealTime();

void BM_MemoryInclusion(benchmark::State& state) {
  World& w = TheWorld();
  std::mt19937_64 random(1);
  auto source = [&w](int level, uint64_t index) {
    return w.memory.Subtree(level, index);
  };
  for (auto _ : state) {
    std::vector<Digest> proof = tlog::InclusionProof(
        random() % w.checkpoint_size, w.checkpoint_size, source);
    benchmark::DoNotOptimize(proof.data());
  }
}
BENCHMARK(BM_MemoryInclusion)->UseRealTime();

void BM_VerifyInclusion(benchmark::State& state) {
  World& w = TheWorld();
  auto source = [&w](int level, uint64_t index) {
    return w.memory.Subtree(level, index);
  };
  const uint64_t index = w.checkpoint_size / 3;
  const std::vector<Digest> proof =
      tlog::InclusionProof(index, w.checkpoint_size, source);
  const Digest root = tlog::RootHash(w.checkpoint_size, source);
  const Digest leaf = w.memory.Subtree(0, index);
  for (auto _ : state) {
    if (!tlog::VerifyInclusion(index, w.checkpoint_size, leaf, proof, root)) {
      state.SkipWithError("the proof does not verify");
      break;
    }
  }
}
BENCHMARK(BM_VerifyInclusion);

}  // namespace
}  // namespace pyramid

int main(int argc, char** argv) {
  constexpr std::string_view kProgram = "bench_tlog";
  // Our flags first; the rest are Google Benchmark's.
  std::vector<char*> rest = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    const pyramid::bench::FlagArgument flag =
        pyramid::bench::SplitFlag(argv[i]);
    const std::string name(flag.name);
    if ((name == "leaves" || name == "dir") && !flag.value) {
      pyramid::bench::UsageError(
          kProgram, absl::StrCat("--", name, " needs a value (--", name,
                                 name == "leaves" ? "=N" : "=DIR", ")"));
    }
    if (name == "leaves") {
      const std::string value(*flag.value);
      if (!absl::SimpleAtoi(value, &pyramid::g_leaves) ||
          pyramid::g_leaves == 0) {
        pyramid::bench::UsageError(
            kProgram,
            absl::StrCat("--leaves is a positive number, not \"", value, "\""));
      }
    } else if (name == "dir") {
      pyramid::g_dir = std::string(*flag.value);
    } else if (name == "help") {
      std::printf(
          "bench_tlog: the transparency log at a million leaves.\n\n"
          "  --leaves=N  leaves in the tree (default 1000000)\n"
          "  --dir=DIR   where its temporary database goes (default /tmp)\n\n"
          "and Google Benchmark's flags:\n");
      rest.push_back(argv[i]);
    } else {
      rest.push_back(argv[i]);
    }
  }
  int rest_argc = static_cast<int>(rest.size());
  pyramid::bench::CheckBenchmarkValues(kProgram, rest_argc, rest.data());
  benchmark::Initialize(&rest_argc, rest.data());
  pyramid::bench::RefuseLeftArguments(kProgram, rest_argc, rest.data());
  // The tree is built in --dir only once a benchmark runs: a directory it
  // cannot be made in is refused now, before any work.
  if (const std::string problem = pyramid::DirProblem(pyramid::g_dir);
      !problem.empty()) {
    pyramid::bench::UsageError(
        kProgram, absl::StrCat("--dir=", pyramid::g_dir, ": ", problem));
  }
  pyramid::bench::RunBenchmarks(kProgram);
  benchmark::Shutdown();
  return 0;
}
