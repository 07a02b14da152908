#include "tools/bench_common.h"

#include <time.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <utility>

#include "referee/core/clock.h"
#include "referee/core/local_runner.h"
#include "referee/core/log_sink.h"
#include "referee/crypto/ed25519.h"
#include "referee/crypto/sha256.h"

namespace pyramid::bench {

absl::StatusOr<PlayedLogs> PlayLogs(
    std::string_view corpus, int referee_keys, int count,
    const std::function<MatchConfig(int index)>& config_for) {
  const EntropySource entropy = DeterministicEntropy(Sha256(corpus));
  PlayedLogs played;
  std::vector<SigningKey> keys;
  for (int k = 0; k < referee_keys; ++k) {
    std::string seed(kKeySeedSize, '\0');
    entropy(seed.data(), seed.size());
    keys.push_back(*SigningKey::FromSeed(seed));
    played.public_keys.push_back(keys.back().public_key());
  }
  FakeClock clock;
  for (int i = 0; i < count; ++i) {
    std::string log;
    absl::StatusOr<std::unique_ptr<Match>> match =
        Match::Create(config_for(i), keys[i % keys.size()],
                      std::make_unique<StringLogSink>(&log), &clock, entropy);
    if (!match.ok()) return match.status();
    if (absl::Status s = RunRandomMatch(**match, entropy); !s.ok()) return s;
    match->reset();
    clock.Advance(absl::Seconds(1));
    played.bytes += log.size();
    played.logs.push_back(std::move(log));
  }
  return played;
}

double ThreadCpuSeconds() {
  timespec now;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + now.tv_nsec * 1e-9;
}

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid]
                                : (values[mid - 1] + values[mid]) / 2;
}

namespace {
volatile uint64_t g_sink = 0;
}  // namespace

void Keep(uint64_t value) { g_sink = g_sink + value; }

Rounds TimeRounds(int reps, const std::vector<std::function<void()>>& phases) {
  Rounds rounds;
  for (int round = 0; round < reps; ++round) {
    std::vector<double>& times = rounds.emplace_back();
    for (const std::function<void()>& phase : phases) {
      if (!phase) {
        times.push_back(0);
        continue;
      }
      const double start = ThreadCpuSeconds();
      phase();
      times.push_back(ThreadCpuSeconds() - start);
    }
  }
  return rounds;
}

double MedianTime(const Rounds& rounds, size_t phase) {
  std::vector<double> times;
  for (const std::vector<double>& round : rounds) times.push_back(round[phase]);
  return Median(times);
}

double MedianRatio(
    const Rounds& rounds, size_t base,
    const std::function<double(const std::vector<double>&)>& of) {
  std::vector<double> ratios;
  for (const std::vector<double>& round : rounds) {
    const double value = of(round);
    if (round[base] > 0 && value > 0) ratios.push_back(value / round[base]);
  }
  return Median(ratios);
}

int ReportEachGame(
    size_t games, bool separate,
    const std::function<std::optional<std::string>(size_t)>& report) {
  std::vector<std::string> lines;
  for (size_t i = 0; i < games; ++i) {
    if (separate && !lines.empty()) std::printf("\n");
    std::optional<std::string> line = report(i);
    if (!line) return 1;
    lines.push_back(*std::move(line));
  }
  std::printf("\n");
  for (const std::string& line : lines) std::printf("%s\n", line.c_str());
  return 0;
}

bool PositiveCounts(std::string_view program, int logs, int reps) {
  if (logs >= 1 && reps >= 1) return true;
  std::cerr << program << ": " << (logs < 1 ? "--logs" : "--reps")
            << " must be positive, not " << (logs < 1 ? logs : reps) << "\n";
  return false;
}

}  // namespace pyramid::bench
