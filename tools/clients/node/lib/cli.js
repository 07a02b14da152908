// The command line every kit bot shares (the Python kit's flags, which are
// the C++ reference bot's names).
//
// Contract: main(bot) parses process.argv, runs the bot (or the Bot that
// `bot(flags)` returns, for a factory that reads flags of its own, declared in
// `extra` as node:util parseArgs options), and resolves to the exit status: 0
// when, without a PlayError, the --matches it was asked for ended (with 0: the
// referee closed the stream, as it does a seat token's when its match ends) or
// SIGINT/SIGTERM stopped it; 1 otherwise (another process taking the token over
// included); 2 for bad flags (a negative count, a file that cannot be read or
// does not hold what its flag takes: an empty token file, a --key_file that is
// a public key file, X.pub, or not the secret half of the X.pub beside it, as
// the C++ bot refuses it, a --tls_ca that holds no PEM certificate; a referee
// address that is not HOST:PORT, a state directory that cannot be written: the
// message begins with the flag or variable).
// --help prints every flag with its description (an `extra` option may carry a
// `description` and an `arg` name for it too).
//
//   --referee HOST:PORT       default $PYRAMID_REFEREE, else 127.0.0.1:50051
//   --token_file FILE         default $PYRAMID_TOKEN_FILE, else $PYRAMID_TOKEN
//   --key_file FILE           Ed25519 seed (keygen format): sign every commit
//   --matches N               exit after N matches ended (0: with a seat
//                             token, when its match ends; with a bot token,
//                             run until stopped)
//   --reconnect_for_s S       reconnect for at most S s without a referee
//                             (0: exit at once)
//   --deadline_margin_ms MS   commit the fallback this long before a deadline
//   --tls_ca FILE             PEM roots: connect with TLS
//   --state_dir DIR           default $PYRAMID_STATE_DIR: keep each commitment
//                             there until its match ends (lib/state.js)
//   --proto_dir DIR           the proto/ directory (default: $PYRAMID_PROTO_DIR,
//                             else the repository's; missing: exit 2)
//   --quiet / --verbose       print only problems / every message received
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { parseArgs } = require('node:util');
const grpc = require('@grpc/grpc-js');
const protocol = require('./protocol');
const state = require('./state');
const { Bot } = require('./bot');
const { SERVICE_FILE, defaultProtoDir } = require('./proto');

// parseArgs options, each with the `arg` name and `description` --help
// prints (the Python kit's help texts).
const FLAGS = {
  // No parseArgs default: main() fills in $PYRAMID_REFEREE, else
  // 127.0.0.1:50051, knowing which it was to name it in a refusal.
  referee: {
    type: 'string',
    arg: 'HOST:PORT',
    description: 'referee address (default: $PYRAMID_REFEREE, else 127.0.0.1:50051)',
  },
  token_file: {
    type: 'string',
    arg: 'FILE',
    description: 'file holding a seat or bot token (default: $PYRAMID_TOKEN_FILE, else '
      + '$PYRAMID_TOKEN)',
  },
  key_file: {
    type: 'string',
    arg: 'FILE',
    description: 'Ed25519 secret key (keygen format) to sign commits with, for seats '
      + 'registered with its key',
  },
  matches: {
    type: 'string',
    default: '0',
    arg: 'N',
    description: 'exit after this many matches ended (0: with a seat token, when its match '
      + 'ends; with a bot token, run until stopped)',
  },
  reconnect_for_s: {
    type: 'string',
    default: '300',
    arg: 'S',
    description: 'reconnect for at most this many seconds without a referee (0: exit at once)',
  },
  deadline_margin_ms: {
    type: 'string',
    default: '500',
    arg: 'MS',
    description: 'commit the fallback action this long before the commit deadline if the '
      + 'strategy has not answered',
  },
  tls_ca: { type: 'string', arg: 'FILE', description: 'PEM root certificates: connect with TLS' },
  state_dir: {
    type: 'string',
    arg: 'DIR',
    description: 'keep each commitment (its salt and action) in this directory until its '
      + 'match ends, so that a bot restarted between a commit and its reveal still '
      + 'reveals (default: $PYRAMID_STATE_DIR, else in memory only)',
  },
  proto_dir: {
    type: 'string',
    arg: 'DIR',
    description: 'the repository\'s proto/ directory (default: $PYRAMID_PROTO_DIR, else the '
      + 'one next to this kit)',
  },
  quiet: { type: 'boolean', default: false, description: 'print only problems' },
  verbose: {
    type: 'boolean',
    default: false,
    description: 'print every message received, to standard error',
  },
  help: { type: 'boolean', default: false, description: 'print this help and exit' },
};

/** The options as parseArgs takes them: without `arg` and `description`. */
function parseArgsOptions(options) {
  return Object.fromEntries(Object.entries(options).map(([name, option]) => {
    const { arg, description, ...rest } = option;
    return [name, rest];
  }));
}

/**
 * argv with every `--flag VALUE` of a flag that takes a value written
 * `--flag=VALUE`, so that a VALUE beginning with "-" (`--matches -1`) is the
 * flag's value, as Python's kit takes it, and the kit's own check names
 * what is wrong with it (parseArgs would call it an ambiguous option).
 */
function joinValues(argv, options) {
  const joined = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '--') return joined.concat(argv.slice(i));
    const option = arg.startsWith('--') ? options[arg.slice(2)] : undefined;
    if (option && option.type === 'string' && i + 1 < argv.length) {
      i += 1;
      joined.push(`${arg}=${argv[i]}`);
    } else {
      joined.push(arg);
    }
  }
  return joined;
}

/**
 * A system error's reason as the C library says it ("Not a directory"),
 * from Node's "ENOTDIR: not a directory, mkdir 'F'".
 */
function systemWhy(error) {
  const match = /^[A-Z]+: (.*?), \w+ '/.exec(error.message || '');
  return match ? match[1].charAt(0).toUpperCase() + match[1].slice(1) : error.message;
}

/**
 * The PEM root certificates in the file --tls_ca names; an Error led by the
 * flag when it cannot be read or holds none (gRPC would take it, then fail
 * every connection, retried as if the referee were away), as the C++ bot
 * and the Python kit say it.
 */
function pemRoots(file) {
  const roots = protocol.readFile('--tls_ca', file);
  if (!roots.includes('-----BEGIN CERTIFICATE-----')) {
    throw new Error(`--tls_ca: ${file} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  }
  return roots;
}

/** Whether argv gives --NAME (as --NAME VALUE or --NAME=VALUE). */
function argvHas(argv, name) {
  return argv.some((arg) => arg === `--${name}` || arg.startsWith(`--${name}=`));
}

/** Parses argv (default: process.argv) with the shared flags plus `extra`. */
function parse(argv = process.argv.slice(2), extra = {}) {
  const options = parseArgsOptions({ ...FLAGS, ...extra });
  const { values } = parseArgs({ args: joinValues(argv, options), options, strict: true });
  return values;
}

/** --help: a usage line, then every flag with its description. */
function usage(extra = {}) {
  const script = process.argv[1] ? path.relative(process.cwd(), process.argv[1]) : 'bot.js';
  const rows = Object.entries({ ...FLAGS, ...extra }).map(([name, option]) => {
    const arg = option.type === 'boolean' ? '' : ` ${option.arg || 'VALUE'}`;
    let text = option.description || '';
    if (!option.description && option.default !== undefined && option.type !== 'boolean') {
      text = `(default: ${option.default})`;
    }
    return [`--${name}${arg}`, text];
  });
  const width = Math.max(...rows.map(([flag]) => flag.length)) + 2;
  return [`usage: node ${script} [flags]`, '', 'flags (--flag VALUE or --flag=VALUE):',
    ...rows.map(([flag, text]) => `  ${flag.padEnd(width)}${text}`.trimEnd())].join('\n');
}

async function main(botOrFactory, argv = process.argv.slice(2), extra = {}) {
  let bot = botOrFactory;
  let flags;
  let token;
  let key = null;
  let credentials;
  try {
    flags = parse(argv, extra);
    if (flags.help) {
      console.log(usage(extra));
      return 0;
    }
    // Counts are integers (1.5 matches is no count), as the Python kit
    // takes them (argparse, int) and the C++ bot its --matches.
    for (const [f, pattern, kind] of [['matches', /^\d+$/, 'integer'],
      ['reconnect_for_s', /^\d+(\.\d+)?$/, 'number'],
      ['deadline_margin_ms', /^\d+$/, 'integer']]) {
      if (!pattern.test(flags[f])) {
        throw new Error(`--${f}: not a non-negative ${kind}: ${flags[f]}`);
      }
    }
    // An empty flag or variable counts as not given, as in build/bin/bot.
    const refereeFrom = flags.referee ? '--referee' : '$PYRAMID_REFEREE';
    if (!flags.referee) flags.referee = process.env.PYRAMID_REFEREE || '127.0.0.1:50051';
    const badAddress = protocol.addressProblem(flags.referee);
    if (badAddress) throw new Error(`${refereeFrom} ${badAddress}`);
    token = protocol.readToken(flags.token_file);
    if (flags.key_file) key = protocol.SeatKey.fromFile(flags.key_file);
    credentials = flags.tls_ca ? grpc.credentials.createSsl(pemRoots(flags.tls_ca)) : undefined;
    if (!flags.state_dir) flags.state_dir = process.env.PYRAMID_STATE_DIR || undefined;
    if (flags.state_dir) {
      try {
        state.prepareDir(flags.state_dir);
      } catch (error) {
        const from = argvHas(argv, 'state_dir') ? '--state_dir' : '$PYRAMID_STATE_DIR';
        throw new Error(`${from}: cannot use ${flags.state_dir}: ${systemWhy(error)}`);
      }
    }
    const protoDir = flags.proto_dir || defaultProtoDir();
    if (!fs.existsSync(path.join(protoDir, SERVICE_FILE))) {
      throw new Error(`no ${SERVICE_FILE} under ${protoDir}: give --proto_dir DIR or `
        + '$PYRAMID_PROTO_DIR (the repository\'s proto/ directory)');
    }
  } catch (error) {
    process.stderr.write(`pyramid_kit: ${error.message}\n`);
    return 2;
  }
  if (!(bot instanceof Bot)) bot = bot(flags);
  bot.quiet = flags.quiet;
  const stop = () => bot.stop();
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  const matches = Number(flags.matches);
  const summary = await bot.run(flags.referee, token, {
    key,
    matches,
    reconnectForS: Number(flags.reconnect_for_s),
    deadlineMarginMs: Number(flags.deadline_margin_ms),
    credentials,
    protoDir: flags.proto_dir,
    stateDir: flags.state_dir,
    verbose: flags.verbose,
  });
  process.off('SIGINT', stop);
  process.off('SIGTERM', stop);
  const ok = summary.errors === 0 && !summary.failure;
  if (summary.failure) process.stderr.write(`pyramid_kit: giving up: ${summary.failure}\n`);
  if (!flags.quiet || !ok) {
    console.log(`pyramid_kit: ${summary.matchesEnded} match(es) ended, ${summary.errors} error(s), `
      + `${summary.fallbacks} fallback action(s), ${summary.streams} stream(s)`);
  }
  const done = !matches || summary.matchesEnded >= matches || bot.runner.stopping;
  return ok && done ? 0 : 1;
}

module.exports = { main, parse, usage };
