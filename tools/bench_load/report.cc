#include "tools/bench_load/report.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "referee/cli/allocator.h"

namespace pyramid::bench_load {
namespace {

std::string Kib(int64_t kib) {
  return absl::StrFormat("%.1f MiB", static_cast<double>(kib) / 1024.0);
}

uint32_t Percentile(const std::vector<uint32_t>& sorted, double p) {
  if (sorted.empty()) return 0;
  size_t rank = static_cast<size_t>(p * static_cast<double>(sorted.size()));
  if (rank >= sorted.size()) rank = sorted.size() - 1;
  return sorted[rank];
}

std::string Ms(uint32_t us) { return absl::StrFormat("%.2f ms", us / 1000.0); }

void Row(const std::string& name, const std::string& value,
         const std::string& note = "") {
  std::cout << absl::StrFormat("  %-34s %-22s %s\n", name, value, note);
}

void ReportSetting(const RunFigures& run) {
  std::cout << "bench_load: Rock, Paper, Pyramid! referee under load vs raw "
               "gRPC echo (loopback, 2 processes)\n";
  std::cout << absl::StrFormat(
      "  server: pid %d, the real Lobby + RefereeService (+ the echo "
      "service) in one grpc::Server;\n          logs in a temporary "
      "directory on disk, --fsync=%s, a signed checkpoint every %u "
      "records\n",
      run.server_pid, run.fsync, run.checkpoint_interval);
  std::cout << absl::StrFormat(
      "  client: this process, %d thread(s) (one completion queue each), %d "
      "channel(s) (one TCP connection each), async API; %u cores online\n",
      run.threads, run.num_channels, std::thread::hardware_concurrency());
  std::cout << absl::StrFormat(
      "  mode:   %s; think time %s; deadlines %d ms; observation-once "
      "%s; batch %s\n",
      run.load_options.bots > 0
          ? absl::StrFormat(
                "bot mode, %d bot streams carry every seat%s",
                run.load_options.bots,
                run.load_options.client_linger_us > 0
                    ? absl::StrFormat(
                          ", each lingering %d us to gather "
                          "its moves",
                          static_cast<int>(run.load_options.client_linger_us))
                    : "")
          : std::string("one Play stream per seat, with its seat token"),
      run.load_options.think_ms > 0
          ? absl::StrFormat("uniform in [0, %d] ms per decision",
                            run.load_options.think_ms)
          : std::string("none (flat out)"),
      run.load_options.deadline_ms,
      run.load_options.observation_once ? "on" : "off",
      run.load_options.batch ? "on" : "off");
}

double PerMessageUs(double cpu_seconds, uint64_t messages) {
  return messages ? 1e6 * cpu_seconds / messages : 0.0;
}

void ReportLatencies(const RunFigures& run) {
  Row("seat-decisions timed", absl::StrCat(run.latencies.size()),
      "every seat's every decision, from the release (10 per seat)");
  Row("decision latency p50", Ms(Percentile(run.latencies, 0.50)),
      "the referee's time, at the client, per seat: from the moment it");
  Row("decision latency p90", Ms(Percentile(run.latencies, 0.90)),
      "  is ready to commit (DecisionRequest received and think time");
  Row("decision latency p99", Ms(Percentile(run.latencies, 0.99)),
      "  over; seed decisions: the release) to the DecisionResult of");
  Row("decision latency max",
      Ms(run.latencies.empty() ? 0 : run.latencies.back()),
      "  that decision (the other seats' moves included)");
  Row("  from the last seat ready p50", Ms(Percentile(run.last_ready, 0.50)),
      "the same, from the moment the decision's last acting seat was");
  Row("  from the last seat ready p99", Ms(Percentile(run.last_ready, 0.99)),
      "  ready: without the other seats' think time");
  // Where in a match the slow decisions fall: e.g. those that follow
  // each match's first signed checkpoint, synced with --fsync=checkpoints.
  for (size_t d = 0; d < run.latencies_by_decision.size(); ++d) {
    const std::vector<uint32_t>& samples = run.latencies_by_decision[d];
    if (samples.empty()) continue;
    Row(absl::StrCat("  decision ", d, " p50 / p99"),
        absl::StrFormat("%.0f / %.0f ms", Percentile(samples, 0.50) / 1000.0,
                        Percentile(samples, 0.99) / 1000.0),
        d == 0 ? "by decision id (0: the seed decision), every seat's" : "");
  }
}

void ReportErrors(const RunFigures& run) {
  Row("faults (PlayError faulted=true)", absl::StrCat(run.faults),
      run.faults == 0
          ? ""
          : absl::StrCat("by decision: ", run.load->FaultSummary()));
  Row("  of which timeouts", absl::StrCat(run.timeouts),
      absl::StrCat("commit and reveal deadlines of ",
                   run.load_options.deadline_ms, " ms"));
  Row("other PlayErrors", absl::StrCat(run.play_errors));
  Row("stream errors", absl::StrCat(run.load->stream_error_count()));
  Row("create failures", absl::StrCat(run.load->create_failures()));
  Row("views taken from results", absl::StrCat(run.load->views_from_results()),
      run.load_options.observation_once
          ? absl::StrCat(
                "observation-once; missing: ", run.load->views_missing(),
                run.load->views_missing() == 0 ? "" : " (A BUG)")
          : "observation-once off (--observation_once=false)");
}

void ReportReferee(const RunFigures& run) {
  const int created = run.load->created();
  std::cout << "\n  Referee phase\n";
  Row("matches", absl::StrCat(created, " of ", run.load_options.matches),
      run.load_options.bots > 0
          ? absl::StrCat(kSeatsPerMatch * created, " seats on ",
                         run.load_options.bots, " bot Play streams")
          : absl::StrCat(kSeatsPerMatch * created,
                         " Play streams, one per seat, each with its "
                         "seat token"));
  Row("peak live", absl::StrCat(run.load->peak_live()),
      "matches created and not yet ended at the same moment");
  Row("live at release", absl::StrCat(run.load->live_at_release()),
      run.load->barrier_complete()
          ? "every match created and every seat holding its seed decision "
            "before any seat played"
          : absl::StrCat("barrier gave up: ", run.load->parked_at_release(),
                         " of ", kSeatsPerMatch * run.load_options.matches,
                         " seats were ready"));
  Row("matches finished", absl::StrCat(run.load->matches_ended()),
      run.AllEnded() ? "" : "NOT ALL MATCHES FINISHED");
  Row("set-up time",
      absl::StrFormat("%.2f s",
                      Seconds(run.load->release() - run.load->begin())),
      "CreateMatch calls and streams, until all seats were ready");
  Row("play time", absl::StrFormat("%.2f s", run.PlaySeconds()),
      "measured: from the release of all seats to the last MatchEnded");
  Row("moves", absl::StrCat(run.at_end.moves - run.at_start.moves),
      absl::StrCat("applied RPP actions (acked reveals of decisions >= 1; ",
                   kMovesPerMatch,
                   " per match); seed contributions not counted"));
  Row("moves/s", absl::StrFormat("%.0f", run.MovesPerSecond()));
  ReportLatencies(run);
  ReportErrors(run);
  Row("messages", absl::StrCat(run.load_messages),
      "client sent + received on the Play streams during the play");
  Row("messages/s (referee)", absl::StrFormat("%.0f", run.LoadRate()));
  Row("gRPC messages", absl::StrCat(run.load_wire),
      absl::StrFormat("%.2f Play messages each (batch %s)",
                      run.load_wire == 0
                          ? 0.0
                          : static_cast<double>(run.load_messages) /
                                static_cast<double>(run.load_wire),
                      run.load_options.batch ? "on" : "off"));
  Row("mean message size", absl::StrFormat("%zu bytes", run.mean_bytes),
      "serialized, both directions (every 8th message measured)");
  Row("server CPU", absl::StrFormat("%.2f s", run.server_cpu_play),
      absl::StrFormat("%.1f us per message (from the barrier release)",
                      PerMessageUs(run.server_cpu_play, run.load_messages)));
  Row("client CPU", absl::StrFormat("%.2f s", run.client_cpu_play),
      absl::StrFormat("%.1f us per message",
                      PerMessageUs(run.client_cpu_play, run.load_messages)));
  Row("logs verified",
      absl::StrCat(run.genuine, " of ", run.verified, " genuine"),
      "replay verifier on finished logs");
}

void ReportEchoRun(const EchoRun& run, const std::string& note) {
  const uint64_t messages = run.Messages();
  Row("  time", absl::StrFormat("%.2f s", Seconds(run.end - run.begin)), note);
  Row("  messages", absl::StrCat(messages), "client sent + received");
  Row("  server CPU", absl::StrFormat("%.2f s", run.server_cpu),
      absl::StrFormat("%.1f us per message",
                      PerMessageUs(run.server_cpu, messages)));
  Row("  client CPU", absl::StrFormat("%.2f s", run.client_cpu),
      absl::StrFormat("%.1f us per message",
                      PerMessageUs(run.client_cpu, messages)));
}

void ReportEcho(const RunFigures& run) {
  std::cout << "\n  Echo phase (same server process, channels and client "
               "threads)\n";
  if (!run.run_echo) {
    Row("skipped", "", "--echo_seconds=0");
    return;
  }
  Row("streams", absl::StrCat(run.echo_streams),
      run.echo_all
          ? "as many as seats; request/response ping-pong"
          : absl::StrCat("only ", run.echo->answered(), " answered at start"));
  Row("message size", absl::StrFormat("%zu bytes", run.echo->message_bytes()),
      "the referee phase's mean");
  Row("race: round trips", absl::StrCat(run.race_round_trips),
      "per stream, every stream released at once: the referee phase's "
      "message count");
  ReportEchoRun(run.race, "from the release to the last stream's last answer");
  Row("  messages/s (echo)", absl::StrFormat("%.0f", run.EchoRate()),
      run.race_done ? "the ratio's baseline" : "NOT EVERY STREAM FINISHED");
  for (size_t r = 1; r < run.rounds.size(); ++r) {
    Row(absl::StrCat("round ", r + 1, ": referee / race"),
        absl::StrFormat("%.0f / %.0f", run.rounds[r].referee_rate,
                        run.rounds[r].echo_rate),
        absl::StrCat("messages/s: ", run.load_options.matches,
                     " more matches, then the race again; faults ",
                     run.rounds[r].faults));
  }
  Row("steady window",
      absl::StrFormat("%.2f s", Seconds(run.window.end - run.window.begin)),
      "every stream running until stopped, after its first answer");
  ReportEchoRun(run.window, "");
  Row("  messages/s (echo)", absl::StrFormat("%.0f", run.window.Rate()),
      "the steady state: what raw gRPC allows at this many streams");
  Row("stream failures", absl::StrCat(run.echo->failures()),
      run.echo_done ? "" : "not all echo streams finished");
}

void ReportMemory(const RunFigures& run) {
  std::cout << "\n  Server memory (/proc/<pid>/status VmRSS; heap = "
            << AllocatorName() << "'s bytes in use)\n";
  Row("RSS baseline", Kib(run.baseline.rss_kib),
      absl::StrFormat("server up, no match; heap %s", Kib(run.heap_baseline)));
  Row("RSS all matches live", Kib(run.at_release.rss_kib),
      absl::StrFormat(
          "seats connected, seed decisions sent: +%.1f KiB per "
          "live match (heap +%.1f)",
          run.PerMatch(run.at_release.rss_kib - run.baseline.rss_kib),
          run.PerMatch(run.heap_release - run.heap_baseline)));
  Row("RSS peak (referee phase)", Kib(run.load_peak_kib),
      absl::StrFormat("sampled every 20 ms; heap peak %s (every 1 s), "
                      "+%.1f KiB per live match",
                      Kib(run.heap_peak),
                      run.PerMatch(run.heap_peak - run.heap_baseline)));
  Row("VmHWM after referee phase", Kib(run.after_load.hwm_kib));
  Row("heap after referee phase", Kib(run.heap_after_load),
      absl::StrFormat("%.1f KiB per finished match, kept by the lobby",
                      run.PerMatch(run.heap_after_load - run.heap_baseline)));
  if (run.run_echo) Row("RSS after echo phase", Kib(run.after_echo.rss_kib));
}

// What raw gRPC allows at this many streams, from the echo phase, which
// has a stream per seat in stream mode (a bot's batched stream has no
// such twin). Raw gRPC would finish echo msgs/s / kMessagesPerSeatDecision
// seat-decisions a second:
//  - flat out every seat always has a decision open, so by Little's law
//    no referee's mean decision latency could be below
//    seats / (those seat-decisions a second);
//  - for no deadline to pass, every seat must finish a decision per
//    deadline at the least: seats x kMessagesPerSeatDecision / deadline
//    messages a second.
void ReportEchoBounds(const RunFigures& run) {
  const double seats = kSeatsPerMatch * run.load->peak_live();
  const double echo_decisions = run.window.Rate() / kMessagesPerSeatDecision;
  if (!run.Paced() && echo_decisions > 0) {
    const double floor_ms = 1000.0 * seats / echo_decisions;
    Row("  echo's latency floor", absl::StrFormat("%.0f ms", floor_ms),
        absl::StrFormat("mean at the echo's rate, flat out: p99 <= 500 ms %s",
                        floor_ms <= 500 ? "within raw gRPC's reach"
                                        : "beyond raw gRPC here"));
  }
  const double needed =
      seats * kMessagesPerSeatDecision * 1000.0 / run.load_options.deadline_ms;
  Row("  echo's rate / deadlines need",
      absl::StrFormat("%.0f / %.0f msgs/s", run.window.Rate(), needed),
      run.window.Rate() >= needed
          ? "a decision per seat per deadline within raw gRPC's reach"
          : "raw gRPC here cannot finish a decision per seat per "
            "deadline: 0 timeouts beyond reach");
}

// The server's deadline scheduler: how late it took its queue entries.
void ReportLateness(const RunFigures& run) {
  const ServerProcess::Report& r = run.server_after_load;
  const bool ok = r.lateness_count > 0 && r.lateness_p99_us <= 1000;
  Row("scheduler lateness p99 / max",
      absl::StrFormat("%.2f / %.2f ms", r.lateness_p99_us / 1000.0,
                      r.lateness_max_us / 1000.0),
      absl::StrFormat("%d deadline entries popped; p99 target <= 1 ms: %s",
                      r.lateness_count,
                      r.lateness_count == 0 ? "none popped"
                      : ok                  ? "met"
                                            : "MISSED"));
  // What the seats' messages waited for when a checkpoint's sync held
  // them (docs/durability.md, "Checkpoint syncs").
  Row("checkpoint syncs: wait / sync p99",
      absl::StrFormat("%.1f / %.1f ms", r.sync_wait_p99_us / 1000.0,
                      r.sync_p99_us / 1000.0),
      absl::StrFormat("%d on the pool since the server started; max %.1f "
                      "/ %.1f ms; at most %d queued",
                      r.syncs, r.sync_wait_max_us / 1000.0,
                      r.sync_max_us / 1000.0, r.syncs_max_queued));
  if (r.journal_commits > 0) {
    Row("journal: commits / fdatasyncs",
        absl::StrFormat("%d / %d", r.journal_commits, r.journal_syncs),
        absl::StrFormat("%.1f checkpoints per sync, at most %d",
                        static_cast<double>(r.journal_commits) /
                            std::max<int64_t>(r.journal_syncs, 1),
                        r.journal_largest_group));
  }
}

void ReportErrorSamples(const RunFigures& run) {
  for (const std::string& e : run.load->create_errors()) {
    std::cout << "  create error: " << e << "\n";
  }
  for (const std::string& e : run.load->play_errors()) {
    std::cout << "  play error: " << e << "\n";
  }
  for (const std::string& e : run.load->stream_errors()) {
    std::cout << "  stream error: " << e << "\n";
  }
  if (!run.kept_dir.empty()) {
    std::cout << "  server data kept in " << run.kept_dir << "\n";
  }
}

void ReportSummary(const RunFigures& run) {
  const double load_cpu = run.server_cpu_play + run.client_cpu_play;
  const double echo_cpu = run.race.server_cpu + run.race.client_cpu;
  const uint64_t echo_messages = run.race.Messages();
  const double cpu_ratio =
      load_cpu > 0 && echo_cpu > 0 && echo_messages > 0
          ? (run.load_messages / load_cpu) / (echo_messages / echo_cpu)
          : 0;
  std::cout << "\n  Summary\n";
  Row("peak live", absl::StrCat(run.load->peak_live()),
      absl::StrCat("of --matches=", run.load_options.matches, "; ",
                   run.load->peak_live() == run.load_options.matches
                       ? "all live at once"
                       : "NOT ALL LIVE AT ONCE"));
  Row("moves/s", absl::StrFormat("%.0f", run.MovesPerSecond()));
  Row("matches/s", absl::StrFormat("%.1f", run.MatchesPerSecond()),
      "matches played / play time");
  Row("decision latency p50 / p99",
      Ms(Percentile(run.latencies, 0.50)) + " / " +
          Ms(Percentile(run.latencies, 0.99)),
      run.Paced() ? "holds the other seats' think time" : run.P99Verdict());
  if (run.Paced()) {
    Row("  from the last seat ready",
        Ms(Percentile(run.last_ready, 0.50)) + " / " +
            Ms(Percentile(run.last_ready, 0.99)),
        "the referee's share: " + run.P99Verdict());
  } else if (const double cycle_ms = run.DecisionCycleMs(); cycle_ms > 0) {
    Row("  mean decision cycle", absl::StrFormat("%.0f ms", cycle_ms),
        "seats / seat-decisions per second (Little's law): what a seat's "
        "decision and the wait for its next take on average, in any order "
        "of service");
  }
  if (run.run_echo) {
    std::vector<std::string> ratios;
    for (const Round& round : run.rounds) {
      ratios.push_back(absl::StrFormat("%.3f", round.Ratio()));
    }
    Row("msgs/s referee / echo", absl::StrFormat("%.3f", run.EchoRatio()),
        absl::StrCat(run.rounds.size() > 1 ? "the median of " : "",
                     absl::StrJoin(ratios, ", "),
                     run.EchoRatio() >= 0.8 ? "; target >= 0.8: met"
                                            : "; target >= 0.8: MISSED"));
    Row("  first pair per CPU-second", absl::StrFormat("%.3f", cpu_ratio),
        "messages per (server + client) CPU-second, referee / echo");
    Row("  first phase / steady window",
        absl::StrFormat("%.3f", run.window.Rate() > 0
                                    ? run.LoadRate() / run.window.Rate()
                                    : 0.0),
        "the echo without its ramp and tail");
    if (run.load_options.bots == 0) ReportEchoBounds(run);
  }
  Row("timeouts / faults", absl::StrCat(run.timeouts, " / ", run.faults),
      run.timeouts == 0 && run.faults == 0 ? "target 0: met"
                                           : "target 0: MISSED");
  Row("stream errors / moves",
      absl::StrCat(run.load->stream_error_count(), " / ",
                   run.at_end.moves - run.at_start.moves),
      absl::StrCat(run.PlayedThrough() ? "" : "target ", "none broken and ",
                   kMovesPerMatch,
                   " per match: ", run.PlayedThrough() ? "met" : "MISSED"));
  Row("RSS per live match", absl::StrFormat("%.1f KiB", run.RssPerLiveKib()),
      absl::StrFormat(
          "(peak - baseline) / %d peak live; target <= %.0f "
          "KiB: %s",
          run.load->peak_live(), run.RssTargetKib(),
          run.RssPerLiveKib() <= run.RssTargetKib() ? "met" : "MISSED"));
  Row("  all live, before play",
      absl::StrFormat("%.1f KiB", run.PerMatch(run.at_release.rss_kib -
                                               run.baseline.rss_kib)),
      "(RSS all matches live - baseline) / peak live");
  ReportLateness(run);
  ReportErrorSamples(run);
}

// The last line of stdout, for scripts: see the header comment.
void ReportKeyValues(const RunFigures& run) {
  std::cout << absl::StrFormat(
                   "peak_live=%d timeouts=%d p99_ms=%s echo_ratio=%s "
                   "rss_per_live_kib=%.1f stream_errors=%d",
                   run.load->peak_live(), run.timeouts,
                   run.JudgedLatencies().empty()
                       ? "-"
                       : absl::StrFormat("%.1f", run.P99Ms()),
                   run.run_echo ? absl::StrFormat("%.3f", run.EchoRatio())
                                : "-",
                   run.RssPerLiveKib(), run.load->stream_error_count())
            << "\n"
            << std::flush;
}

}  // namespace

bool RunFigures::AllEnded() const {
  return load->matches_ended() == load->created() &&
         load->created() == load_options.matches;
}

double RunFigures::PlaySeconds() const {
  return Seconds(load->last_end() - load->release());
}

bool RunFigures::PlayedThrough() const {
  return load->stream_error_count() == 0 &&
         at_end.moves - at_start.moves ==
             static_cast<uint64_t>(kMovesPerMatch * load_options.matches);
}

double RunFigures::MovesPerSecond() const {
  const double play_s = PlaySeconds();
  return play_s > 0 ? (at_end.moves - at_start.moves) / play_s : 0.0;
}

double RunFigures::DecisionCycleMs() const {
  const double play_s = PlaySeconds();
  const double decisions =
      static_cast<double>(at_end.moves - at_start.moves) +
      kSeatsPerMatch * static_cast<double>(load->created());
  if (play_s <= 0 || decisions <= 0) return 0.0;
  return 1000.0 * kSeatsPerMatch * load->peak_live() / (decisions / play_s);
}

double RunFigures::MatchesPerSecond() const {
  const double play_s = PlaySeconds();
  return play_s > 0 ? load->matches_ended() / play_s : 0.0;
}

double RunFigures::LoadRate() const {
  const double play_s = PlaySeconds();
  return play_s > 0 ? load_messages / play_s : 0;
}

double RunFigures::EchoRate() const { return race_done ? race.Rate() : 0; }

double RunFigures::PerMatch(int64_t kib) const {
  const int live = load->peak_live();
  return live > 0 ? static_cast<double>(kib) / live : 0.0;
}

double RunFigures::RssPerLiveKib() const {
  return PerMatch(std::max<int64_t>(0, load_peak_kib - baseline.rss_kib));
}

double RunFigures::RssTargetKib() const {
  return load_options.bots > 0 ? 16.0 : 64.0;
}

double RunFigures::EchoRatio() const {
  if (!race_done || rounds.empty()) return 0;
  std::vector<double> ratios;
  for (const Round& round : rounds) ratios.push_back(round.Ratio());
  std::sort(ratios.begin(), ratios.end());
  return ratios[(ratios.size() - 1) / 2];
}

bool RunFigures::Paced() const { return load_options.think_ms > 0; }

const std::vector<uint32_t>& RunFigures::JudgedLatencies() const {
  return Paced() ? last_ready : latencies;
}

double RunFigures::P99Ms() const {
  return Percentile(JudgedLatencies(), 0.99) / 1000.0;
}

std::string RunFigures::P99Verdict() const {
  return JudgedLatencies().empty() ? "no decision completed: p99 target MISSED"
         : !PlayedThrough() ? "not every move was played: p99 target MISSED"
         : P99Ms() <= 500   ? "p99 target <= 500 ms: met"
                            : "p99 target <= 500 ms: MISSED";
}

void PrintReport(const RunFigures& run) {
  ReportSetting(run);
  ReportReferee(run);
  ReportEcho(run);
  ReportMemory(run);
  ReportSummary(run);
  ReportKeyValues(run);
}

}  // namespace pyramid::bench_load
