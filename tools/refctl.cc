// refctl: command-line client for the referee's administration and read-only
// calls.
//
//   refctl [--referee=ADDR] [--admin_token_file=F] register-bot NAME
//          [--public_key=HEX] [--token_out=FILE]
//   refctl ... create-match --game=G [--options=TEXT] --seats=N
//          [--bots=ID,ID,...] [--token_dir=DIR [--replace_tokens]]
//          [--commit_timeout_ms=..]
//          [--reveal_timeout_ms=..] [--forfeit_policy=forfeit|default]
//   refctl ... get-match MATCH
//   refctl ... list [--status=running|finished|broken]
//   refctl ... watch MATCH [--views]  (one JSON event per line, written
//                                      as it arrives; --views: the whole
//                                      public view after each move instead
//                                      of what it changed; a referee that
//                                      goes away meanwhile, stopped or
//                                      restarted, is said so, exit 1)
//   refctl ... get-log MATCH --out=FILE [--retry_for_s=N]
//       (retries UNAVAILABLE with backoff for up to N s, default 30,
//        saying on stderr that it waits)
//   refctl ... health [SERVICE]     (grpc.health.v1: prints SERVING, ...;
//                                    exit 0 only when SERVING)
//   refctl ... checkpoint [--size=N] [--out=FILE]
//       The transparency log's signed checkpoint (the latest, or of size N).
//   refctl ... inclusion MATCH|LOG_SHA256 [--size=N] [--out=FILE]
//       The log's inclusion proof as a C2SP tlog-proof file.
//   refctl ... consistency OLD NEW [--out=FILE]
//       The consistency proof between two tree sizes (for `replay
//       consistency`).
//
// The admin token goes with register-bot and create-match (which need it)
// and with every read command but health when refctl has one (a referee
// started with --public_watch=false answers reads only to its token
// holders). Tokens are written to files (mode 0600), never printed.
//
// Exit status: 0 done; 1 a refused call, with "refctl: CODE: message" on
// stderr (CODE: the gRPC status code's name, e.g. UNAVAILABLE when the
// referee takes no new match now), or a file that cannot be read or
// written; 2 a mistake in the command line (an unknown command, a wrong
// number of arguments, a bad flag value), found before any call.

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/flags/commandlineflag.h"
#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/flags/reflection.h"
#include "absl/flags/usage.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "google/protobuf/util/json_util.h"
#include "grpc/health/v1/health.grpc.pb.h"
#include "grpcpp/grpcpp.h"
#include "pyramid/referee/v1/referee_service.grpc.pb.h"
#include "referee/cli/log_fetch.h"
#include "referee/cli/program.h"
#include "referee/cli/referee_client.h"
#include "referee/cli/text_proto.h"
#include "referee/cli/token_text.h"
#include "referee/core/log_sink.h"
#include "referee/crypto/bytes.h"
#include "referee/games/printable_text.h"
#include "referee/service/view_delta.h"

ABSL_FLAG(std::string, referee, "127.0.0.1:50051", "Referee address.");
ABSL_FLAG(std::string, admin_token_file, "",
          "File holding the admin token (default: $PYRAMID_ADMIN_TOKEN "
          "unless empty, else referee-data/admin.token). Sent with every "
          "command but health; "
          "the read commands go without it when none is found (a referee "
          "started with --public_watch=false answers them only with it).");
ABSL_FLAG(std::string, tls_ca, "", "PEM roots: connect with TLS.");
ABSL_FLAG(std::string, public_key, "",
          "register-bot: the bot's Ed25519 public key, 64 hex digits.");
ABSL_FLAG(std::string, token_out, "",
          "register-bot: write the token here (default: NAME.token in the "
          "current directory, every character of NAME but letters, digits, "
          "'-' and '_' written as '_'); never over an existing file.");
ABSL_FLAG(std::string, game, "rock_paper_pyramid", "create-match: game id.");
ABSL_FLAG(std::string, options, "",
          "create-match: game options as protobuf text, e.g. "
          "'rock_paper_pyramid { red: true }'.");
ABSL_FLAG(int, seats, 0, "create-match: number of seats.");
ABSL_FLAG(std::string, bots, "",
          "create-match: comma-separated bot ids, one per seat (an empty "
          "entry issues a seat token instead).");
ABSL_FLAG(std::string, names, "", "create-match: comma-separated names.");
ABSL_FLAG(std::string, token_dir, ".",
          "create-match: seat tokens go to DIR/seat-N.token (DIR is "
          "created). A token file already there is never overwritten unless "
          "--replace_tokens: it may hold a seat token of a match still "
          "running, which the referee never gives again.");
ABSL_FLAG(bool, replace_tokens, false,
          "create-match: overwrite seat-N.token files already in --token_dir "
          "(the tokens of an earlier match, then lost).");
ABSL_FLAG(uint32_t, commit_timeout_ms, 0,
          "create-match: commit deadline (0: none). With all four clock "
          "flags 0 the match gets the referee's default clocks; once one is "
          "given, each means what it says (docs/protocol.md, \"Deadlines\").");
ABSL_FLAG(uint32_t, reveal_timeout_ms, 0,
          "create-match: reveal deadline (0: none; see --commit_timeout_ms: "
          "giving only a commit deadline leaves reveals without one).");
ABSL_FLAG(uint32_t, seed_timeout_ms, 0,
          "create-match: commit deadline of the seed decision (decision 0), "
          "from the match's creation: the time the seats' programs have to "
          "connect when they start after it (0: the commit deadline, or the "
          "referee's --seed_timeout_ms when the match takes its default "
          "clocks). Counts as none of the four clock flags.");
ABSL_FLAG(uint32_t, time_bank_ms, 0, "create-match: time bank.");
ABSL_FLAG(uint32_t, time_bank_increment_ms, 0, "create-match: increment.");
ABSL_FLAG(std::string, label, "",
          "create-match: the label the log's signed header carries (at most "
          "128 bytes).");
ABSL_FLAG(std::string, request_id, "",
          "create-match: makes a retry safe: running the same command again "
          "with the same --request_id creates no second match "
          "(docs/protocol.md, \"Retrying CreateMatch\").");
ABSL_FLAG(std::string, forfeit_policy, "forfeit",
          "create-match: forfeit or default (default action).");
ABSL_FLAG(std::string, status, "",
          "list: running, finished or broken (stopped for good: its log "
          "could not be written).");
ABSL_FLAG(bool, views, false,
          "watch: print the whole public view after each move (a PublicView) "
          "instead of the delta the referee sends.");
ABSL_FLAG(std::string, out, "",
          "get-log: output file; checkpoint, inclusion, consistency: output "
          "file instead of standard output.");
ABSL_FLAG(uint32_t, retry_for_s, 30,
          "get-log: how long to keep retrying while the referee answers "
          "UNAVAILABLE (it serves as many downloads as it takes at once, or "
          "cannot be reached now), waiting 0.1 s, then twice as long each "
          "time up to 5 s, and saying so on stderr (0: no retry).");
ABSL_FLAG(int64_t, size, 0,
          "checkpoint, inclusion: the tree size of a checkpoint the referee "
          "signed (0: the latest).");

namespace pyramid {
namespace {

namespace v1 = ::pyramid::referee::v1;

int Fail(const std::string& message) {
  std::cerr << "refctl: " << message << "\n";
  return 1;
}

// A mistake in the command line: exit status 2.
int Usage(const std::string& message) {
  std::cerr << "refctl: " << message << "\n";
  return 2;
}

// A call the referee refused or could not answer: its status code's name
// first (UNAVAILABLE means try again later; docs/protocol.md), then why.
int Fail(const grpc::Status& status) {
  return Fail(
      absl::StrCat(absl::StatusCodeToString(
                       static_cast<absl::StatusCode>(status.error_code())),
                   ": ", PrintableText(status.error_message())));
}

// The admin token from --admin_token_file, $PYRAMID_ADMIN_TOKEN (unless
// empty) or referee-data/admin.token, as FindAdminToken finds it. An error
// when the one named cannot be read or is not a token (gRPC would abort on
// its bytes); when none is found, an error too unless `optional` (then "").
absl::StatusOr<std::string> AdminToken(bool optional = false) {
  absl::StatusOr<FoundAdminToken> found =
      FindAdminToken(absl::GetFlag(FLAGS_admin_token_file), "the admin token",
                     "referee-data/admin.token");
  if (!found.ok()) return found.status();
  if (found->from == FoundAdminToken::From::kNone && !optional) {
    return absl::NotFoundError(
        "no admin token: give --admin_token_file or $PYRAMID_ADMIN_TOKEN (or "
        "run in the directory that holds referee-data/admin.token)");
  }
  return std::move(found->token);
}

// Adds the admin token to `context` (none when `optional` and none is
// found); AdminToken's error otherwise. The read commands send it when
// there is one (optional): a referee started with --public_watch=false
// answers them only to a caller with a token it issued.
absl::Status Authorize(grpc::ClientContext& context, bool optional = false) {
  absl::StatusOr<std::string> admin = AdminToken(optional);
  if (!admin.ok()) return admin.status();
  if (!admin->empty()) {
    AddBearer(context, *admin);
  }
  return absl::OkStatus();
}

// register-bot's token file: --token_out, else NAME.token in the current
// directory with every character of NAME but ASCII letters, digits, '-' and
// '_' written as '_' (a bot's name may hold any bytes, '/' and ".."
// included; the file stays where it was asked for).
std::string BotTokenPath(const std::string& name) {
  if (!absl::GetFlag(FLAGS_token_out).empty()) {
    return absl::GetFlag(FLAGS_token_out);
  }
  std::string file = name;
  for (char& c : file) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '-') {
      c = '_';
    }
  }
  return file + ".token";
}

// Whether a secret the referee is about to issue can be written to `path`:
// asked before the call that issues it, so that a path that cannot take it
// stops the command before the referee records anything whose secret would
// be lost. Its directory must exist and be writable, `path` must not be a
// directory, and an existing file is refused unless `replace` (a token is
// issued once: a file that may hold one is never overwritten unasked), with
// ALREADY_EXISTS saying "PATH exists and " then `if_exists` (what it may
// hold and what to do).
absl::Status CheckSecretPath(const std::filesystem::path& path, bool replace,
                             absl::string_view if_exists) {
  const std::filesystem::path dir =
      path.has_parent_path() ? path.parent_path() : ".";
  std::error_code error;
  if (!std::filesystem::is_directory(dir, error)) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot write ", path.string(), ": ", dir.string(),
                     " is not a directory"));
  }
  if (access(dir.c_str(), W_OK | X_OK) != 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "cannot write ", path.string(), ": ", std::strerror(errno)));
  }
  const std::filesystem::file_status status =
      std::filesystem::symlink_status(path, error);
  if (std::filesystem::is_directory(status)) {
    return absl::FailedPreconditionError(
        absl::StrCat("cannot write ", path.string(), ": it is a directory"));
  }
  if (!replace && std::filesystem::exists(status)) {
    return absl::AlreadyExistsError(
        absl::StrCat(path.string(), " exists and ", if_exists));
  }
  return absl::OkStatus();
}

// A message as one line of JSON, with the proto's field names and every
// field, zeros and empty ones included.
std::string Json(const google::protobuf::Message& message) {
  std::string json;
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  // Zeros too: seat 0's events would otherwise carry no seat.
  options.always_print_primitive_fields = true;
  (void)google::protobuf::util::MessageToJsonString(message, &json, options);
  return json;
}

// A watch event as Json prints it, except that a delta's `changed` holds
// only the fields the move set: printed with its zeros, every field the
// move left alone would read as reset (the ones it did empty are listed in
// `cleared`).
std::string WatchEventJson(const v1::WatchEvent& event) {
  if (!event.has_delta()) return Json(event);
  v1::WatchEvent rest = event;
  rest.clear_delta();
  std::string json = Json(rest);
  std::string delta;
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  (void)google::protobuf::util::MessageToJsonString(event.delta(), &delta,
                                                    options);
  json.pop_back();  // Its closing brace.
  absl::StrAppend(&json, json.size() > 1 ? "," : "", "\"delta\":", delta, "}");
  return json;
}

int RegisterBot(v1::Referee::Stub& stub, const std::string& name) {
  // The referee's bound (1 to 64 bytes), said before any call: a mistake in
  // the command line (the referee answered INVALID_ARGUMENT, exit 1).
  if (name.empty() || name.size() > 64) {
    return Usage(absl::StrCat(
        "register-bot: a bot's name is 1 to 64 bytes, not ", name.size()));
  }
  v1::RegisterBotRequest request;
  request.set_name(name);
  if (!absl::GetFlag(FLAGS_public_key).empty()) {
    absl::StatusOr<std::string> key = FromHex(absl::GetFlag(FLAGS_public_key));
    if (!key.ok() || key->size() != 32) {
      return Usage(
          "--public_key is 64 hex digits (an Ed25519 public key, 32 bytes)");
    }
    request.set_public_key(*key);
  }
  // The token is issued once: where it goes is checked first.
  const std::string out = BotTokenPath(name);
  if (absl::Status s = CheckSecretPath(
          out, /*replace=*/false,
          "may hold another bot's token: remove it or give --token_out");
      !s.ok()) {
    return Fail(absl::StrCat(s.message(), "; no bot registered"));
  }
  grpc::ClientContext context;
  if (absl::Status s = Authorize(context); !s.ok()) {
    return Fail(std::string(s.message()));
  }
  v1::RegisterBotResponse response;
  grpc::Status status = stub.RegisterBot(&context, request, &response);
  if (!status.ok()) return Fail(status);
  if (absl::Status s = WriteSecretFile(out, response.bot_token() + "\n");
      !s.ok()) {
    // The bot exists: say so, or its id would be lost with its token.
    return Fail(absl::StrCat(
        "bot ", response.bot_id(),
        " registered, but its token cannot be written: ", s.message()));
  }
  std::cout << PrintableText(response.bot_id()) << "\n";
  std::cerr << "bot token written to " << out << "\n";
  return 0;
}

// The CreateMatchRequest create-match's flags ask for; INVALID_ARGUMENT
// with the message for a mistake in them (a usage error).
absl::StatusOr<v1::CreateMatchRequest> RequestFromFlags() {
  v1::CreateMatchRequest request;
  request.mutable_game()->set_game(absl::GetFlag(FLAGS_game));
  if (absl::Status s =
          MergeTextProto(absl::GetFlag(FLAGS_options), *request.mutable_game());
      !s.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot parse --options: ", s.message()));
  }
  const std::vector<std::string> bots =
      absl::StrSplit(absl::GetFlag(FLAGS_bots), ',');
  const std::vector<std::string> names =
      absl::StrSplit(absl::GetFlag(FLAGS_names), ',');
  int seats = absl::GetFlag(FLAGS_seats);
  if (seats == 0 && !absl::GetFlag(FLAGS_bots).empty()) seats = bots.size();
  if (seats < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--seats must be positive, not ", seats));
  }
  if (seats == 0) return absl::InvalidArgumentError("give --seats or --bots");
  // One entry per seat, or none: a list of another length is a mistake
  // (an empty --bots entry already says "a seat token for this seat").
  auto one_per_seat = [seats](const char* flag, const std::string& value,
                              size_t entries) -> std::optional<std::string> {
    if (value.empty() || entries == static_cast<size_t>(seats)) {
      return std::nullopt;
    }
    return absl::StrCat(flag, " has ", entries, " entries for ", seats,
                        " seats: give one per seat");
  };
  for (const std::optional<std::string>& mistake :
       {one_per_seat("--bots", absl::GetFlag(FLAGS_bots), bots.size()),
        one_per_seat("--names", absl::GetFlag(FLAGS_names), names.size())}) {
    if (mistake) return absl::InvalidArgumentError(*mistake);
  }
  for (int i = 0; i < seats; ++i) {
    v1::SeatSpec* seat = request.add_seats();
    if (i < static_cast<int>(bots.size())) seat->set_bot_id(bots[i]);
    if (i < static_cast<int>(names.size())) seat->set_name(names[i]);
  }
  v1::ClockSettings* clocks = request.mutable_clocks();
  clocks->set_commit_timeout_ms(absl::GetFlag(FLAGS_commit_timeout_ms));
  clocks->set_reveal_timeout_ms(absl::GetFlag(FLAGS_reveal_timeout_ms));
  clocks->set_time_bank_ms(absl::GetFlag(FLAGS_time_bank_ms));
  clocks->set_time_bank_increment_ms(
      absl::GetFlag(FLAGS_time_bank_increment_ms));
  clocks->set_seed_timeout_ms(absl::GetFlag(FLAGS_seed_timeout_ms));
  const std::string policy = absl::GetFlag(FLAGS_forfeit_policy);
  if (policy == "default") {
    request.set_forfeit_policy(v1::FORFEIT_POLICY_DEFAULT_ACTION);
  } else if (policy != "forfeit") {
    return absl::InvalidArgumentError("--forfeit_policy is forfeit or default");
  }
  request.set_label(absl::GetFlag(FLAGS_label));
  request.set_request_id(absl::GetFlag(FLAGS_request_id));
  return request;
}

// Where seat `seat`'s token goes in --token_dir `dir`.
std::string SeatTokenPath(const std::filesystem::path& dir, int seat) {
  return (dir / absl::StrCat("seat-", seat, ".token")).string();
}

// Makes `dir` (--token_dir) and checks that the token of every seat of
// `request` without a bot can be written there (CheckSecretPath), before
// the call that issues the tokens. A token file already there is refused
// unless `replace` (--replace_tokens): it may hold a seat token of an
// earlier match still running, and the referee gives a match's tokens only
// in the answer that creates it (a retry with the same --request_id gets
// none), so an overwritten one is lost for good.
// The directories it makes go into `made`, deepest first, even when it
// fails: the caller takes them away again (if still empty) unless a match
// is created. An error ends with "; no match created".
absl::Status PrepareTokenDir(const std::filesystem::path& dir,
                             const v1::CreateMatchRequest& request,
                             bool replace,
                             std::vector<std::filesystem::path>* made) {
  std::error_code error;
  for (std::filesystem::path d = dir;
       !d.empty() && !std::filesystem::exists(d, error); d = d.parent_path()) {
    made->push_back(d);
  }
  std::filesystem::create_directories(dir, error);
  if (!std::filesystem::is_directory(dir)) {
    return absl::FailedPreconditionError(absl::StrCat(
        "--token_dir ", dir.string(), " is not a directory",
        error ? ": " + error.message() : "", "; no match created"));
  }
  for (int i = 0; i < request.seats_size(); ++i) {
    if (!request.seats(i).bot_id().empty()) continue;
    if (absl::Status s = CheckSecretPath(
            SeatTokenPath(dir, i), replace,
            "may hold a seat token of an earlier match, which the referee "
            "never gives again: remove it, give another --token_dir, or "
            "give --replace_tokens to overwrite it");
        !s.ok()) {
      return absl::Status(s.code(),
                          absl::StrCat(s.message(), "; no match created"));
    }
  }
  return absl::OkStatus();
}

int CreateMatch(v1::Referee::Stub& stub) {
  absl::StatusOr<v1::CreateMatchRequest> request = RequestFromFlags();
  if (!request.ok()) return Usage(std::string(request.status().message()));
  // Seat tokens are issued once: where they go is checked first, and files
  // already there are kept unless --replace_tokens (PrepareTokenDir). What
  // this command creates of --token_dir is taken away again unless a match
  // is created.
  const std::filesystem::path dir = absl::GetFlag(FLAGS_token_dir);
  std::vector<std::filesystem::path> made;
  absl::Cleanup unmake = [&made] {
    std::error_code ignored;
    for (const std::filesystem::path& d : made) {
      std::filesystem::remove(d, ignored);  // Only an empty directory goes.
    }
  };
  if (absl::Status s = PrepareTokenDir(
          dir, *request, absl::GetFlag(FLAGS_replace_tokens), &made);
      !s.ok()) {
    return Fail(std::string(s.message()));
  }
  grpc::ClientContext context;
  if (absl::Status s = Authorize(context); !s.ok()) {
    return Fail(std::string(s.message()));
  }
  v1::CreateMatchResponse response;
  grpc::Status status = stub.CreateMatch(&context, *request, &response);
  if (!status.ok()) return Fail(status);
  std::move(unmake).Cancel();
  for (int i = 0; i < response.seat_tokens_size(); ++i) {
    if (response.seat_tokens(i).empty()) continue;
    const std::string path = SeatTokenPath(dir, i);
    if (absl::Status s = WriteSecretFile(path, response.seat_tokens(i) + "\n");
        !s.ok()) {
      // The match exists: say so, or its id would be lost with the tokens.
      return Fail(absl::StrCat(
          "match ", response.match_id(),
          " created, but its tokens cannot be written: ", s.message()));
    }
    std::cerr << "seat " << i << " token written to " << path << "\n";
  }
  std::cout << PrintableText(response.match_id()) << "\n";
  return 0;
}

int GetMatch(v1::Referee::Stub& stub, const std::string& match_id) {
  grpc::ClientContext context;
  if (absl::Status s = Authorize(context, /*optional=*/true); !s.ok()) {
    return Fail(std::string(s.message()));
  }
  v1::GetMatchRequest request;
  request.set_match_id(match_id);
  v1::MatchInfo info;
  grpc::Status status = stub.GetMatch(&context, request, &info);
  if (!status.ok()) return Fail(status);
  std::cout << Json(info) << "\n";
  return 0;
}

int List(v1::Referee::Stub& stub) {
  v1::ListMatchesRequest request;
  const std::string filter = absl::GetFlag(FLAGS_status);
  if (filter == "running") {
    request.set_status(v1::MATCH_RUNNING);
  } else if (filter == "finished") {
    request.set_status(v1::MATCH_FINISHED);
  } else if (filter == "broken") {
    request.set_status(v1::MATCH_BROKEN);
  } else if (!filter.empty()) {
    return Usage(absl::StrCat("--status is running, finished or broken, not \"",
                              filter, "\""));
  }
  while (true) {
    grpc::ClientContext context;
    if (absl::Status s = Authorize(context, /*optional=*/true); !s.ok()) {
      return Fail(std::string(s.message()));
    }
    v1::ListMatchesResponse response;
    grpc::Status status = stub.ListMatches(&context, request, &response);
    if (!status.ok()) return Fail(status);
    for (const v1::MatchInfo& info : response.matches()) {
      // The referee's strings (a match's label is any client's), escaped:
      // one line a match, nothing in it for the terminal to act on.
      std::cout << PrintableText(info.match_id()) << "  "
                << PrintableText(info.game().game()) << "  "
                << v1::MatchStatus_Name(info.status())
                << (info.label().empty() ? "" : "  ")
                << PrintableText(info.label()) << "\n";
    }
    if (response.next_page_token().empty()) return 0;
    request.set_page_token(response.next_page_token());
  }
}

// What a watch of `match_id` says when its stream, which the referee at
// `address` had answered, ended `status`, a lost connection (UNAVAILABLE:
// gRPC's own words, "Cancelling all calls" from a referee stopping, "Socket
// closed"...): the referee went away, and the match may go on once it is
// back, so the watch is run again.
std::string WatchLost(const std::string& address, const std::string& match_id,
                      const grpc::Status& status) {
  return absl::StrCat(
      "the referee at ", address, " went away while watching match ",
      PrintableText(match_id),
      " (UNAVAILABLE: ", PrintableText(status.error_message()),
      "): it stopped or restarted, or the connection broke; the match may "
      "resume once the referee is back: run the watch again");
}

int Watch(v1::Referee::Stub& stub, const std::string& match_id) {
  grpc::ClientContext context;
  if (absl::Status s = Authorize(context, /*optional=*/true); !s.ok()) {
    return Fail(std::string(s.message()));
  }
  v1::WatchRequest request;
  request.set_match_id(match_id);
  auto reader = stub.Watch(&context, request);
  const bool views = absl::GetFlag(FLAGS_views);
  WatchedMatch followed;
  v1::WatchEvent event;
  bool answered = false;  // An event came: the referee took the watch.
  while (reader->Read(&event)) {
    answered = true;
    if (absl::Status s = followed.Apply(event); !s.ok()) {
      context.TryCancel();
      return Fail(absl::StrCat("a watch event did not apply: ", s.message()));
    }
    // Each line as it happens, also into a pipe or a file (where standard
    // output is buffered): a live view, and nothing lost when interrupted.
    if (views && event.has_delta()) {
      std::cout << Json(followed.state().view()) << std::endl;
    } else {
      std::cout << WatchEventJson(event) << std::endl;
    }
  }
  grpc::Status status = reader->Finish();
  if (answered && status.error_code() == grpc::StatusCode::UNAVAILABLE) {
    return Fail(WatchLost(absl::GetFlag(FLAGS_referee), match_id, status));
  }
  return status.ok() ? 0 : Fail(status);
}

// Waits `wait` before get-log's next try, cut short once `channel`
// connects (AwaitConnected): a referee that is back is tried within some
// 250 ms, as the bot reconnects (PlayClient::AwaitReferee), not after the
// wait. Returns whether it connected. A channel that is connected already
// (the referee answered UNAVAILABLE itself: --max_log_readers) waits it
// all.
bool AwaitReferee(grpc::Channel& channel, absl::Duration wait) {
  if (channel.GetState(/*try_to_connect=*/false) == GRPC_CHANNEL_READY) {
    absl::SleepFor(wait);
    return false;
  }
  return AwaitConnected(channel, absl::Now() + wait, {}) == Awaited::kConnected;
}

// GetLog into --out as the chunks come (DownloadLog, log_fetch.h, as the
// tournament runner fetches logs: at most 256 MiB, given up after 60 s
// without a chunk, --out there only once whole), retried while the referee
// answers UNAVAILABLE (at most --max_log_readers downloads at once, or not
// reachable now) for up to --retry_for_s, with backoff from 0.1 s doubling
// to 5 s, a wait cut short when the referee comes back (AwaitReferee);
// each wait is said on stderr.
int GetLog(grpc::Channel& channel, v1::Referee::Stub& stub,
           const std::string& match_id) {
  const std::string out = absl::GetFlag(FLAGS_out);
  if (out.empty()) return Usage("get-log needs --out=FILE");
  absl::StatusOr<std::string> admin = AdminToken(/*optional=*/true);
  if (!admin.ok()) return Fail(std::string(admin.status().message()));
  const absl::Time give_up =
      absl::Now() + absl::Seconds(absl::GetFlag(FLAGS_retry_for_s));
  const RetryRule retry =
      [&](const std::function<grpc::Status(grpc::ClientContext&)>& attempt) {
        Backoff backoff;
        while (true) {
          grpc::ClientContext context;
          if (!admin->empty()) AddBearer(context, *admin);
          const grpc::Status status = attempt(context);
          if (status.error_code() != grpc::StatusCode::UNAVAILABLE ||
              absl::Now() + backoff.delay() > give_up) {
            return status;
          }
          std::cerr << "refctl: UNAVAILABLE: "
                    << PrintableText(status.error_message()) << "; waiting "
                    << absl::FormatDuration(backoff.delay())
                    << " to retry (--retry_for_s)\n";
          if (AwaitReferee(channel, backoff.delay())) {
            backoff.Reset();  // A new outage, if any, begins at 100 ms.
          } else {
            backoff.Grow();
          }
        }
      };
  const absl::StatusOr<uint64_t> written = DownloadLogToFile(
      stub, match_id,
      {.address = absl::GetFlag(FLAGS_referee), .taker = "refctl", .what = ""},
      retry, out);
  if (!written.ok()) {
    return Fail(absl::StrCat(absl::StatusCodeToString(written.status().code()),
                             ": ", written.status().message()));
  }
  std::cerr << *written << " bytes written to " << out << "\n";
  return 0;
}

// grpc.health.v1.Health/Check of `service` ("": the server as a whole).
int Health(const std::shared_ptr<grpc::Channel>& channel,
           const std::string& service) {
  auto stub = grpc::health::v1::Health::NewStub(channel);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::seconds(5));
  grpc::health::v1::HealthCheckRequest request;
  request.set_service(service);
  grpc::health::v1::HealthCheckResponse response;
  const grpc::Status status = stub->Check(&context, request, &response);
  if (!status.ok()) return Fail(status);
  std::cout << grpc::health::v1::HealthCheckResponse::ServingStatus_Name(
                   response.status())
            << "\n";
  return response.status() == grpc::health::v1::HealthCheckResponse::SERVING
             ? 0
             : 1;
}

// Writes `text` to --out, or to standard output without it.
int Output(const std::string& text) {
  const std::string out = absl::GetFlag(FLAGS_out);
  if (out.empty()) {
    std::cout << text << std::flush;
    return 0;
  }
  if (absl::Status s = WriteFileAtomically(out, text); !s.ok()) {
    return Fail(std::string(s.message()));
  }
  return 0;
}

// --size: a tree size, or 0 for the latest. A negative one is the command
// line's mistake, said before any call.
absl::StatusOr<uint64_t> SizeFlag() {
  const int64_t size = absl::GetFlag(FLAGS_size);
  if (size < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--size is a tree size, a whole number 1 or more (0: the "
                     "latest), not ",
                     size));
  }
  return static_cast<uint64_t>(size);
}

int Checkpoint(v1::Referee::Stub& stub) {
  absl::StatusOr<uint64_t> size = SizeFlag();
  if (!size.ok()) return Usage(std::string(size.status().message()));
  grpc::ClientContext context;
  if (absl::Status s = Authorize(context, /*optional=*/true); !s.ok()) {
    return Fail(std::string(s.message()));
  }
  v1::GetCheckpointRequest request;
  request.set_tree_size(*size);
  v1::TlogCheckpoint checkpoint;
  grpc::Status status = stub.GetCheckpoint(&context, request, &checkpoint);
  if (!status.ok()) return Fail(status);
  return Output(checkpoint.note());
}

// Whether `text` is `digits` hex digits.
bool IsHex(const std::string& text, size_t digits) {
  return text.size() == digits &&
         std::all_of(text.begin(), text.end(),
                     [](unsigned char c) { return absl::ascii_isxdigit(c); });
}

int Inclusion(v1::Referee::Stub& stub, const std::string& log) {
  // Neither a match id nor a log hash is the command line's mistake, said
  // before any call (the referee answered NOT_FOUND, exit 1).
  v1::GetInclusionProofRequest request;
  if (IsHex(log, 64)) {
    request.set_log_sha256(*FromHex(log));
  } else if (IsHex(log, 32)) {
    request.set_match_id(log);
  } else {
    return Usage(absl::StrCat(
        "inclusion: \"", log.size() <= 64 ? log : log.substr(0, 64) + "...",
        "\" is neither a match id (32 hex digits) nor a log's SHA-256 (64 "
        "hex digits)"));
  }
  absl::StatusOr<uint64_t> size = SizeFlag();
  if (!size.ok()) return Usage(std::string(size.status().message()));
  grpc::ClientContext context;
  if (absl::Status s = Authorize(context, /*optional=*/true); !s.ok()) {
    return Fail(std::string(s.message()));
  }
  request.set_tree_size(*size);
  v1::InclusionProof proof;
  grpc::Status status = stub.GetInclusionProof(&context, request, &proof);
  if (!status.ok()) return Fail(status);
  return Output(proof.tlog_proof());
}

// Argument `name` (OLD or NEW) of `command`, a tree size: a whole number 1
// or more. INVALID_ARGUMENT naming the argument and what it is otherwise.
absl::StatusOr<uint64_t> TreeSizeArgument(const std::string& command,
                                          const std::string& name,
                                          const std::string& text) {
  uint64_t size = 0;
  if (absl::SimpleAtoi(text, &size) && size > 0) return size;
  return absl::InvalidArgumentError(absl::StrCat(
      command, ": ", name, " is a tree size, a whole number 1 or more, not \"",
      text.size() <= 64 ? text : text.substr(0, 64) + "...", "\""));
}

int Consistency(v1::Referee::Stub& stub, const std::string& old_size,
                const std::string& new_size) {
  // Sizes the referee would refuse whatever its tree are the command line's
  // mistake, said before any call (as `replay consistency` says swapped
  // checkpoints); a NEW past the tree's size is the referee's to say.
  absl::StatusOr<uint64_t> old_value =
      TreeSizeArgument("consistency", "OLD", old_size);
  if (!old_value.ok()) return Usage(std::string(old_value.status().message()));
  absl::StatusOr<uint64_t> new_value =
      TreeSizeArgument("consistency", "NEW", new_size);
  if (!new_value.ok()) return Usage(std::string(new_value.status().message()));
  if (*old_value > *new_value) {
    return Usage(absl::StrCat("consistency: the old size (", *old_value,
                              ") is larger than the new one (", *new_value,
                              "): swapped? The older size comes first"));
  }
  grpc::ClientContext context;
  if (absl::Status s = Authorize(context, /*optional=*/true); !s.ok()) {
    return Fail(std::string(s.message()));
  }
  v1::GetConsistencyProofRequest request;
  request.set_old_size(*old_value);
  request.set_new_size(*new_value);
  v1::ConsistencyProof proof;
  grpc::Status status = stub.GetConsistencyProof(&context, request, &proof);
  if (!status.ok()) return Fail(status);
  return Output(proof.proof_file());
}

constexpr char kUsage[] =
    "usage: refctl [flags] register-bot NAME | create-match | "
    "get-match MATCH | list | watch MATCH | get-log MATCH --out=FILE | "
    "health [SERVICE] | checkpoint | inclusion MATCH|LOG_SHA256 | "
    "consistency OLD NEW\n";

// What --help says before the flags.
constexpr char kHelp[] =
    "Administration client for the referee.\n\n"
    "Commands:\n"
    "  register-bot NAME      register a bot; its token goes to NAME.token\n"
    "                         or --token_out\n"
    "  create-match           --game, --seats or --bots, clocks; seat tokens\n"
    "                         go to --token_dir, never over files there\n"
    "                         unless --replace_tokens; prints the match id\n"
    "  get-match MATCH        the match's MatchInfo as JSON\n"
    "  list                   every match, newest first: id, game, status\n"
    "                         and label, if any (--status)\n"
    "  watch MATCH            one JSON event per line as it happens (--views)\n"
    "  get-log MATCH          the match's log, into --out=FILE (retries\n"
    "                         UNAVAILABLE for --retry_for_s)\n"
    "  health [SERVICE]       grpc.health.v1: SERVING or not\n"
    "  checkpoint             the transparency log's signed checkpoint\n"
    "  inclusion MATCH|LOG_SHA256\n"
    "                         a log's inclusion proof (a .tlog-proof file),\n"
    "                         by its match id or its file's SHA-256\n"
    "  consistency OLD NEW    the consistency proof between two tree sizes\n"
    "\n"
    "Exit status: 0 done; 1 a refused call or a file that cannot be read or\n"
    "written; 2 a mistake in the command line.";

int Main(const std::vector<std::string>& args) {
  if (args.empty()) {
    std::cerr << kUsage;
    return 2;
  }
  absl::StatusOr<std::shared_ptr<grpc::ChannelCredentials>> credentials =
      ClientCredentials(absl::GetFlag(FLAGS_tls_ca));
  if (!credentials.ok()) {
    return Fail(std::string(credentials.status().message()));
  }
  auto channel =
      grpc::CreateChannel(absl::GetFlag(FLAGS_referee), *credentials);
  auto stub = v1::Referee::NewStub(channel);
  const std::string& command = args[0];
  if (command == "register-bot" && args.size() == 2) {
    return RegisterBot(*stub, args[1]);
  }
  if (command == "create-match" && args.size() == 1) return CreateMatch(*stub);
  if (command == "get-match" && args.size() == 2)
    return GetMatch(*stub, args[1]);
  if (command == "list" && args.size() == 1) return List(*stub);
  if (command == "watch" && args.size() == 2) return Watch(*stub, args[1]);
  if (command == "get-log" && args.size() == 2)
    return GetLog(*channel, *stub, args[1]);
  if (command == "health" && args.size() <= 2) {
    return Health(channel, args.size() == 2 ? args[1] : "");
  }
  if (command == "checkpoint" && args.size() == 1) return Checkpoint(*stub);
  if (command == "inclusion" && args.size() == 2) {
    return Inclusion(*stub, args[1]);
  }
  if (command == "consistency" && args.size() == 3) {
    return Consistency(*stub, args[1], args[2]);
  }
  static constexpr const char* kCommands[] = {
      "register-bot", "create-match", "get-match",  "list",      "watch",
      "get-log",      "health",       "checkpoint", "inclusion", "consistency"};
  const bool known = std::find(std::begin(kCommands), std::end(kCommands),
                               command) != std::end(kCommands);
  std::cerr << "refctl: "
            << (known ? absl::StrCat(command, ": wrong number of arguments")
                      : absl::StrCat("unknown command \"", command, "\""))
            << "\n"
            << kUsage;
  return 2;
}

// Whether `arg` reads as a negative number ("-1", "-0.5"): no flag's name
// starts with a digit, so it is an argument, never a flag.
bool IsNegativeNumber(absl::string_view arg) {
  return arg.size() >= 2 && arg[0] == '-' && absl::ascii_isdigit(arg[1]);
}

// The command line with its arguments after a "--", in their order, when
// one of them reads as a negative number: the flag parser reads every
// argument starting with '-' as a flag (`consistency -1 3` said "unknown
// flag --1"), where the command is to say what is wrong with the number.
// `argv` unchanged otherwise. A flag given without '=' that takes a value
// takes the next argument, as the parser does (`--size -1` is --size's
// value, which the command judges).
std::vector<char*> NegativeNumbersAsArguments(int argc, char** argv) {
  std::vector<char*> flags = {argv[0]};
  std::vector<char*> arguments;
  bool negative_number = false;
  for (int i = 1; i < argc; ++i) {
    const absl::string_view arg = argv[i];
    if (arg == "--") {
      arguments.insert(arguments.end(), argv + i + 1, argv + argc);
      break;
    }
    if (IsNegativeNumber(arg)) negative_number = true;
    if (arg.size() < 2 || arg[0] != '-' || IsNegativeNumber(arg)) {
      arguments.push_back(argv[i]);
      continue;
    }
    flags.push_back(argv[i]);
    const absl::string_view name = arg.substr(arg[1] == '-' ? 2 : 1);
    if (name.find('=') != name.npos) continue;
    const absl::CommandLineFlag* flag = absl::FindCommandLineFlag(name);
    if (flag != nullptr && !flag->IsOfType<bool>() && i + 1 < argc) {
      flags.push_back(argv[++i]);
    }
  }
  if (!negative_number) return std::vector<char*>(argv, argv + argc);
  flags.push_back(const_cast<char*>("--"));
  flags.insert(flags.end(), arguments.begin(), arguments.end());
  return flags;
}

}  // namespace
}  // namespace pyramid

int main(int argc, char** argv) {
  std::vector<char*> args = pyramid::NegativeNumbersAsArguments(argc, argv);
  std::vector<char*> rest = pyramid::InitProgram(static_cast<int>(args.size()),
                                                 args.data(), pyramid::kHelp);
  return pyramid::Main(std::vector<std::string>(rest.begin() + 1, rest.end()));
}
