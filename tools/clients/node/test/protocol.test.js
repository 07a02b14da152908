// Unit tests of the Node kit: protocol bytes against
// testdata/vectors/primitives.txt, the fallback action, and action encoding
// with proto/ loaded at run time. Run with `npm test` in tools/clients/node.
'use strict';

const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const test = require('node:test');
const { protocol, proto, fallbackAction } = require('..');

const VECTORS = path.resolve(__dirname, '..', '..', '..', '..', 'testdata', 'vectors',
  'primitives.txt');

function vectors() {
  const out = {};
  for (const line of fs.readFileSync(VECTORS, 'utf8').split('\n')) {
    const i = line.indexOf('=');
    if (i > 0 && !line.trimStart().startsWith('#')) {
      out[line.slice(0, i).trim()] = line.slice(i + 1).trim();
    }
  }
  return out;
}

test('commitments match the vectors', () => {
  const v = vectors();
  for (const p of ['commit', 'commit2']) {
    const got = protocol.commitment(v[`${p}.match_id`], Number(v[`${p}.seat`]),
      v[`${p}.decision_id`], Buffer.from(v[`${p}.salt`], 'hex'),
      Buffer.from(v[`${p}.action`], 'hex'));
    assert.strictEqual(got.toString('hex'), v[`${p}.hash`], p);
  }
});

test('a token file holding no token is named, not sent', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'token-'));
  const file = path.join(dir, 't');
  const good = `0123456789abcdef.${'ab'.repeat(32)}`;
  fs.writeFileSync(file, `${good}\n`);
  assert.strictEqual(protocol.readToken(file), good);
  for (const bad of [Buffer.from([1, 0xff, 0x20, 0x74]), Buffer.from('two words'),
    Buffer.from('café')]) {
    fs.writeFileSync(file, bad);
    assert.throws(() => protocol.readToken(file), /does not hold a token/);
  }
  fs.rmSync(dir, { recursive: true });
});

test('commit signature matches the vector', () => {
  const v = vectors();
  const key = new protocol.SeatKey(Buffer.from(v['commit_sig.key_seed'], 'hex'));
  assert.strictEqual(key.publicKey.toString('hex'), v['commit_sig.public_key']);
  const args = [v['commit_sig.match_id'], Number(v['commit_sig.seat']),
    v['commit_sig.decision_id'], Buffer.from(v['commit_sig.commitment'], 'hex')];
  assert.strictEqual(protocol.commitSignatureMessage(...args).toString('hex'),
    v['commit_sig.message']);
  assert.strictEqual(key.signCommit(...args).toString('hex'), v['commit_sig.signature']);
});

test('key files read as keygen writes them', () => {
  const v = vectors();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'kit-'));
  const file = path.join(dir, 'k');
  fs.writeFileSync(file, Buffer.from(v['keyfile.secret_contents'], 'hex'));
  assert.strictEqual(`${protocol.SeatKey.fromFile(file).publicKey.toString('hex')}\n`,
    Buffer.from(v['keyfile.public_contents'], 'hex').toString());
  for (const bad of ['', `0x${'00'.repeat(32)}`, '00'.repeat(31), 'zz'.repeat(32)]) {
    fs.writeFileSync(file, `${bad}\n`);
    assert.throws(() => protocol.SeatKey.fromFile(file), bad);
  }
  fs.rmSync(dir, { recursive: true });
});

test('a public key is a point of the main subgroup, as libsodium checks it', () => {
  // The C++ programs' IsValidPublicKey (crypto_core_ed25519_is_valid_point);
  // the Python kit calls it through PyNaCl, which answered these.
  const cases = [
    ['d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a', true],
    // Its negation (the sign bit of x flipped): a public key too.
    ['d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707519a', true],
    ['d04ab232742bb4ab3a1368bd4615e4e6d0224ab71a016baf8520a332c9778737', true],
    // A secret seed: no point of the curve.
    ['9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60', false],
    // The first key plus a point of order 8: on the curve, not in the subgroup.
    ['3b5b475c4b82dd1572799fc546f4c6c03e478c6654aa4c7f945b347ea32af60d', false],
    // Small order: the identity, (0, -1), a point of order 8.
    [`01${'00'.repeat(31)}`, false],
    [`ec${'ff'.repeat(30)}7f`, false],
    ['26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05', false],
    // Not canonical: y = p.
    [`ed${'ff'.repeat(30)}7f`, false],
  ];
  for (const [hex, want] of cases) {
    assert.strictEqual(protocol.isPublicKey(Buffer.from(hex, 'hex')), want, hex);
  }
  assert.strictEqual(protocol.isPublicKey(Buffer.alloc(31)), false);
});

test('fallback actions are legal', () => {
  const listed = [{ flaming_pyramids: { fall: 'FP_LEFT' } }];
  assert.strictEqual(fallbackAction('flaming_pyramids', {}, listed), listed[0]);
  const payment = { pyramid_shambo: { phase: 'SHAMBO_PHASE_PAYMENT' } };
  assert.deepStrictEqual(fallbackAction('pyramid_shambo', payment, null),
    { pyramid_shambo: { canonical: true } });
  assert.throws(() => fallbackAction('pyramid_shambo', { pyramid_shambo: { phase: 'x' } }, null));
});

test('actions encode with proto/ loaded at run time', () => {
  const { Action } = proto.load();
  assert.strictEqual(proto.encodeAction(Action, { flaming_pyramids: { fall: 'FP_LEFT' } })
    .toString('hex'), '22021001');
  assert.throws(() => proto.encodeAction(Action, undefined));
  assert.throws(() => proto.encodeAction(Action, 'rock'));
});
