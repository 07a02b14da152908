// Unit tests of the Node kit's command line (lib/cli.js): --help prints
// every flag with its description, as the Python kit's argparse help does;
// an unreadable file is a usage error (2) naming its flag; negative counts
// are usage errors.
'use strict';

const assert = require('node:assert');
const path = require('node:path');
const test = require('node:test');
const { Bot } = require('../lib/bot');
const { main } = require('../lib/cli');

/** main(argv) with its standard output and error captured. */
async function run(argv, extra) {
  const out = [];
  const err = [];
  const log = console.log;
  const write = process.stderr.write;
  console.log = (line) => out.push(`${line}\n`);
  process.stderr.write = (chunk) => { err.push(String(chunk)); return true; };
  try {
    const status = await main(new Bot(), argv, extra);
    return { status, out: out.join(''), err: err.join('') };
  } finally {
    console.log = log;
    process.stderr.write = write;
  }
}

test('--help names every flag with its description', async () => {
  const { status, out } = await run(['--help'], {
    depth: { type: 'string', default: '2', arg: 'N', description: 'how deep to look' },
    width: { type: 'string', default: '3' },
  });
  assert.strictEqual(status, 0);
  const flags = ['referee HOST:PORT', 'token_file FILE', 'key_file FILE', 'matches N',
    'reconnect_for_s S', 'deadline_margin_ms MS', 'tls_ca FILE', 'proto_dir DIR', 'quiet',
    'verbose', 'help'];
  for (const flag of flags) {
    assert.match(out, new RegExp(`^  --${flag} +[a-zA-Z(]\\S* .*\\S$`, 'm'), flag);
  }
  assert.match(out, /^ {2}--depth N +how deep to look$/m);
  assert.match(out, /^ {2}--width VALUE +\(default: 3\)$/m);
});

test('a file that cannot be read is a usage error naming its flag', async () => {
  const missing = path.join(__dirname, 'no-such-file');
  const saved = process.env.PYRAMID_TOKEN;
  process.env.PYRAMID_TOKEN = 'token';
  try {
    for (const flag of ['token_file', 'key_file', 'tls_ca']) {
      // eslint-disable-next-line no-await-in-loop
      const { status, err } = await run([`--${flag}=${missing}`]);
      assert.strictEqual(status, 2, flag);
      assert.strictEqual(err, `pyramid_kit: --${flag}: cannot read ${missing}: `
        + 'No such file or directory\n');
    }
  } finally {
    if (saved === undefined) delete process.env.PYRAMID_TOKEN;
    else process.env.PYRAMID_TOKEN = saved;
  }
});

test('negative counts are usage errors', async () => {
  for (const flag of ['matches', 'reconnect_for_s', 'deadline_margin_ms']) {
    // eslint-disable-next-line no-await-in-loop
    for (const args of [[`--${flag}=-1`], [`--${flag}`, '-1']]) {
      // eslint-disable-next-line no-await-in-loop
      const { status, err } = await run(args);
      assert.strictEqual(status, 2, args.join(' '));
      assert.match(err, new RegExp(`^pyramid_kit: --${flag}: not a non-negative number: -1`));
    }
  }
});
