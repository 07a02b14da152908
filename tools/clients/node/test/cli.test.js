// Unit tests of the Node kit's command line (lib/cli.js): --help prints
// every flag with its description, as the Python kit's argparse help does
// (--matches saying what 0 does with a seat token and with a bot token,
// --reconnect_for_s what 0 does, as docs/writing-a-bot.md's flag table);
// an unreadable file is a usage error (2) naming its flag; negative counts
// are usage errors.
'use strict';

const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
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
    'reconnect_for_s S', 'deadline_margin_ms MS', 'tls_ca FILE', 'state_dir DIR',
    'proto_dir DIR', 'quiet',
    'verbose', 'help'];
  for (const flag of flags) {
    assert.match(out, new RegExp(`^  --${flag} +[a-zA-Z(]\\S* .*\\S$`, 'm'), flag);
  }
  assert.match(out, /^ {2}--depth N +how deep to look$/m);
  assert.match(out, /^ {2}--width VALUE +\(default: 3\)$/m);
});

/** The description --help gives `--FLAG ARG` (--help exits 0). */
async function helpOf(flag, arg) {
  const { status, out } = await run(['--help']);
  assert.strictEqual(status, 0);
  const usage = `  --${flag} ${arg} `;
  const line = out.split('\n').find((l) => l.startsWith(usage));
  return line.slice(usage.length).replace(/^ +/, '');
}

test('--matches says what 0 does with a seat token and with a bot token', async () => {
  // A seat token's stream ends once its match ends; a bot token's stays
  // open. The Python kit and docs/writing-a-bot.md say the same.
  assert.strictEqual(await helpOf('matches', 'N'), 'exit after this many matches '
    + 'ended (0: with a seat token, when its match ends; with a bot token, run until stopped)');
});

test('--reconnect_for_s says what docs/writing-a-bot.md says, 0 included', async () => {
  // It said "(0: exit)"; the doc's flag table, and the Python kit, say more.
  assert.strictEqual(await helpOf('reconnect_for_s', 'S'), 'reconnect for at most '
    + 'this many seconds without a referee (0: exit at once)');
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
  for (const [flag, kind] of [['matches', 'integer'], ['reconnect_for_s', 'number'],
    ['deadline_margin_ms', 'integer']]) {
    // eslint-disable-next-line no-await-in-loop
    for (const args of [[`--${flag}=-1`], [`--${flag}`, '-1']]) {
      // eslint-disable-next-line no-await-in-loop
      const { status, err } = await run(args);
      assert.strictEqual(status, 2, args.join(' '));
      assert.match(err, new RegExp(`^pyramid_kit: --${flag}: not a non-negative ${kind}: -1`));
    }
  }
});

test('a count that is not an integer is a usage error, as in the Python kit', async () => {
  // Python's argparse refuses them ("invalid non-negative integer value"),
  // the C++ bot a --matches of 1.5 too; --reconnect_for_s takes a fraction
  // in both kits.
  for (const flag of ['matches', 'deadline_margin_ms']) {
    // eslint-disable-next-line no-await-in-loop
    const { status, err } = await run([`--${flag}=1.5`]);
    assert.deepStrictEqual([status, err],
      [2, `pyramid_kit: --${flag}: not a non-negative integer: 1.5\n`]);
  }
  const { status, err } = await runWith({ PYRAMID_TOKEN: undefined, PYRAMID_TOKEN_FILE: undefined },
    ['--reconnect_for_s=1.5']);
  assert.deepStrictEqual([status, err], [2, 'pyramid_kit: no token: give --token_file, or set '
    + '$PYRAMID_TOKEN_FILE or $PYRAMID_TOKEN\n']);
});

/** run(argv) with the environment's `vars` set (undefined: unset) meanwhile. */
async function runWith(vars, argv) {
  const saved = Object.fromEntries(Object.keys(vars).map((k) => [k, process.env[k]]));
  const set = (values) => {
    for (const [k, v] of Object.entries(values)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  };
  set(vars);
  try {
    return await run(argv);
  } finally {
    set(saved);
  }
}

// The referee address is checked before anything is dialled: without it,
// `127.0.0.1` dialled port 443 and `http://...` was retried for 300 s.
test('a referee address that is not HOST:PORT is a usage error', async () => {
  const form = 'is HOST:PORT (PORT 1 to 65535; an IPv6 host in brackets, as [::1]:50051) '
    + 'or unix:PATH';
  const cases = [
    ['127.0.0.1', `${form}: no port in "127.0.0.1"`],
    ['127.0.0.1:99999', `${form}: port 99999 is out of range in "127.0.0.1:99999"`],
    ['127.0.0.1:0', `${form}: port 0 is out of range in "127.0.0.1:0"`],
    ['http://127.0.0.1:24100', `${form}, not a URL: "http://127.0.0.1:24100"`],
    ['unix:', `${form}, not "unix:"`],
    ['::1:50051', `${form}, not "::1:50051"`],
    ['127.0.0.1:', `${form}, not "127.0.0.1:"`],
    [':50051', `${form}, not ":50051"`],
  ];
  for (const [address, why] of cases) {
    // eslint-disable-next-line no-await-in-loop
    const { status, err } = await runWith({ PYRAMID_TOKEN: 'token' }, [`--referee=${address}`]);
    assert.strictEqual(status, 2, address);
    assert.strictEqual(err, `pyramid_kit: --referee ${why}\n`);
  }
  const { status, err } = await runWith({ PYRAMID_TOKEN: 'token', PYRAMID_REFEREE: 'localhost' },
    []);
  assert.strictEqual(status, 2);
  assert.strictEqual(err, `pyramid_kit: $PYRAMID_REFEREE ${form}: no port in "localhost"\n`);
  const { addressProblem } = require('../lib/protocol');
  for (const good of ['127.0.0.1:50051', '[::1]:50051', 'localhost:1', 'referee.example:65535',
    '[fe80::1%eth0]:8080', 'unix:/run/referee.sock']) {
    assert.strictEqual(addressProblem(good), '', good);
  }
});

test('an empty token file is said to be empty', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'token-'));
  const file = path.join(dir, 'seat-0.token');
  fs.writeFileSync(file, '\n');
  const { status, err } = await runWith({ PYRAMID_TOKEN: undefined }, [`--token_file=${file}`]);
  assert.strictEqual(status, 2);
  assert.strictEqual(err, `pyramid_kit: --token_file: ${file} is empty\n`);
  const fromEnv = await runWith({ PYRAMID_TOKEN_FILE: file }, []);
  assert.strictEqual(fromEnv.err, `pyramid_kit: $PYRAMID_TOKEN_FILE: ${file} is empty\n`);
  fs.rmSync(dir, { recursive: true });
});

test('key files are refused as the C++ bot refuses them, led by --key_file', async () => {
  // A public key file holds 64 hex digits too: taken as a seed, every
  // commit was signed with a key the seat does not have, and every match
  // forfeited. Refused at start, in the C++ bot's words (its
  // ReadSigningKey), as the Python kit refuses it; so are a key that is not
  // the secret half of the X.pub beside it and text that is no key.
  const publicHex = 'd75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a';
  const seedHex = '9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60';
  const otherHex = 'd04ab232742bb4ab3a1368bd4615e4e6d0224ab71a016baf8520a332c9778737';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'key-'));
  const key = path.join(dir, 'seat.key');
  const pub = `${key}.pub`;
  // [--key_file, what seat.key holds, what seat.key.pub holds, what is said
  // after "--key_file: "].
  const cases = [
    [pub, seedHex, publicHex, `${pub} is a public key file (.pub): give the secret key file `
      + '(keygen writes it without .pub)'],
    [key, publicHex, publicHex, `${key} holds the public key that ${pub} holds, not a secret key: `
      + `give the secret key file (the one keygen wrote beside ${pub})`],
    [key, seedHex, otherHex, `${pub}, next to it, holds another public key than ${key}'s: the key `
      + `in ${key} is not its secret half; give the secret key that matches ${pub}, or remove `
      + `or replace ${pub} (keygen writes a matching pair)`],
    [key, '', publicHex, `${key}: expected 64 hex digits, found nothing`],
    [key, '00'.repeat(31), publicHex, `${key}: expected 64 hex digits, found 62 of them`],
    [key, `0x${'00'.repeat(32)}`, publicHex,
      `${key}: expected 64 hex digits, found 66 characters, not all hex digits`],
    [key, '\xff'.repeat(32), publicHex,
      `${key}: expected 64 hex digits, found 32 characters, not all hex digits`],
  ];
  for (const [given, keyHolds, pubHolds, says] of cases) {
    fs.writeFileSync(key, `${keyHolds}\n`, 'latin1');
    fs.writeFileSync(pub, `${pubHolds}\n`);
    // eslint-disable-next-line no-await-in-loop
    const { status, err } = await runWith({ PYRAMID_TOKEN: 'token' }, [`--key_file=${given}`]);
    assert.deepStrictEqual([status, err], [2, `pyramid_kit: --key_file: ${says}\n`], says);
  }
  // The pair keygen writes; a PATH.pub that holds no public key (a copy of
  // the secret, no point of the curve; garbage) or is no regular file is
  // not the pair check's business.
  const { SeatKey } = require('../lib/protocol');
  fs.writeFileSync(key, `${seedHex}\n`);
  for (const beside of [publicHex, seedHex, 'not a key']) {
    fs.writeFileSync(pub, `${beside}\n`);
    assert.strictEqual(SeatKey.fromFile(key).publicKey.toString('hex'), publicHex, beside);
  }
  fs.rmSync(pub);
  fs.mkdirSync(pub);
  assert.strictEqual(SeatKey.fromFile(key).publicKey.toString('hex'), publicHex);
  fs.rmSync(dir, { recursive: true });
});

test('a token file holding no token is said after its flag', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'token-'));
  const file = path.join(dir, 'bad.token');
  fs.writeFileSync(file, 'two words\n');
  const { status, err } = await runWith({ PYRAMID_TOKEN: undefined }, [`--token_file=${file}`]);
  assert.deepStrictEqual([status, err], [2, `pyramid_kit: --token_file: ${file} does not hold `
    + 'a token: a token is printable ASCII without spaces\n']);
  const fromEnv = await runWith({ PYRAMID_TOKEN_FILE: file }, []);
  assert.match(fromEnv.err, new RegExp(`^pyramid_kit: \\$PYRAMID_TOKEN_FILE: ${file} does not `));
  fs.rmSync(dir, { recursive: true });
});

test('a --tls_ca file without a certificate is refused, as the C++ bot refuses it', async () => {
  // gRPC took it, then failed every connection ("empty address list"), and
  // the bot retried a referee that was up until it gave up.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tls-'));
  const file = path.join(dir, 'ca.pem');
  for (const holds of ['', '-----BEGIN PRIVATE KEY-----\nMC4=\n-----END PRIVATE KEY-----\n']) {
    fs.writeFileSync(file, holds);
    // eslint-disable-next-line no-await-in-loop
    const { status, err } = await runWith({ PYRAMID_TOKEN: 'token' }, [`--tls_ca=${file}`]);
    assert.deepStrictEqual([status, err], [2, `pyramid_kit: --tls_ca: ${file} holds no PEM `
      + 'certificate (-----BEGIN CERTIFICATE-----)\n'], holds);
  }
  fs.rmSync(dir, { recursive: true });
});

test('a state directory that cannot be written is a usage error naming it', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'state-'));
  const file = path.join(dir, 'a-file');
  fs.writeFileSync(file, '');
  const { status, err } = await runWith({ PYRAMID_TOKEN: 'token' },
    [`--state_dir=${path.join(file, 'sub')}`]);
  assert.strictEqual(status, 2);
  assert.strictEqual(err, `pyramid_kit: --state_dir: cannot use ${file}/sub: Not a directory\n`);
  const fromEnv = await runWith({ PYRAMID_TOKEN: 'token', PYRAMID_STATE_DIR: file }, []);
  assert.strictEqual(fromEnv.status, 2);
  assert.strictEqual(fromEnv.err, `pyramid_kit: $PYRAMID_STATE_DIR: cannot use ${file}: `
    + 'Not a directory\n');
  fs.rmSync(dir, { recursive: true });
});
