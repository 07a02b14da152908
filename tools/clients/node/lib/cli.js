// The command line every kit bot shares (the Python kit's flags, which are
// the C++ reference bot's names).
//
// Contract: main(bot) parses process.argv, runs the bot (or the Bot that
// `bot(flags)` returns, for a factory that reads flags of its own, declared
// in `extra` as node:util parseArgs options), and resolves to the
// exit status: 0 when, without a PlayError, the --matches it was asked for
// ended (with 0: the referee closed the stream) or SIGINT/SIGTERM stopped
// it; 1 otherwise; 2 for bad flags.
//
//   --referee HOST:PORT       default $PYRAMID_REFEREE, else 127.0.0.1:50051
//   --token_file FILE         default $PYRAMID_TOKEN_FILE, else $PYRAMID_TOKEN
//   --key_file FILE           Ed25519 seed (keygen format): sign every commit
//   --matches N               exit after N matches ended (0: until stopped)
//   --reconnect_for_s S       reconnect for at most S s without a referee
//   --deadline_margin_ms MS   commit the fallback this long before a deadline
//   --tls_ca FILE             PEM roots: connect with TLS
//   --proto_dir DIR           the proto/ directory (default: $PYRAMID_PROTO_DIR,
//                             else the repository's; missing: exit 2)
//   --quiet / --verbose       print only problems / every message received
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { parseArgs } = require('node:util');
const grpc = require('@grpc/grpc-js');
const protocol = require('./protocol');
const { Bot } = require('./bot');
const { SERVICE_FILE, defaultProtoDir } = require('./proto');

const FLAGS = {
  referee: { type: 'string', default: process.env.PYRAMID_REFEREE || '127.0.0.1:50051' },
  token_file: { type: 'string' },
  key_file: { type: 'string' },
  matches: { type: 'string', default: '0' },
  reconnect_for_s: { type: 'string', default: '300' },
  deadline_margin_ms: { type: 'string', default: '500' },
  tls_ca: { type: 'string' },
  proto_dir: { type: 'string' },
  quiet: { type: 'boolean', default: false },
  verbose: { type: 'boolean', default: false },
  help: { type: 'boolean', default: false },
};

/** Parses argv (default: process.argv) with the shared flags plus `extra`. */
function parse(argv = process.argv.slice(2), extra = {}) {
  const { values } = parseArgs({ args: argv, options: { ...FLAGS, ...extra }, strict: true });
  return values;
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
      const all = Object.keys({ ...FLAGS, ...extra }).map((f) => `--${f}`).join(' ');
      console.log(`flags: ${all} (see lib/cli.js)`);
      return 0;
    }
    token = protocol.readToken(flags.token_file);
    if (flags.key_file) key = protocol.SeatKey.fromFile(flags.key_file);
    credentials = flags.tls_ca ? grpc.credentials.createSsl(fs.readFileSync(flags.tls_ca))
      : undefined;
    for (const f of ['matches', 'reconnect_for_s', 'deadline_margin_ms']) {
      if (!/^\d+(\.\d+)?$/.test(flags[f])) throw new Error(`--${f}: not a number: ${flags[f]}`);
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

module.exports = { main, parse };
