// Unit tests of durable commitments (--state_dir, lib/state.js): a record
// is written (durably, in the file name and fields the Python kit shares)
// before its commitment is sent; a process restarted on the same directory
// reveals it, or commits it again, never another, whatever the state of
// its reveal; records stay until their match ends (the one place they go,
// as in the Python kit); after a restart, a decision older than the seat's
// newest record without a record of its own is refused; and a commitment
// the referee holds that no record keeps is said once per decision.
'use strict';

const assert = require('node:assert');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const test = require('node:test');
const { Bot, Runner } = require('../lib/bot');
const state = require('../lib/state');

const M = '00112233445566778899aabbccddeeff';
const OTHER = 'ffeeddccbbaa99887766554433221100';

/** A runner (a process of the bot) on `dir`, recording what it sends and says. */
function start(dir, choose = () => ({ flaming_pyramids: { fall: 'FP_LEFT' } })) {
  const bot = new Bot();
  bot.quiet = true;
  bot.choose = choose;
  const lines = [];
  const r = new Runner(bot, '127.0.0.1:1', 'token', {
    log: (line) => lines.push(line), stateDir: dir,
  });
  r.bot.onMatchEnded = () => {};
  const sent = [];
  r.send = (message) => sent.push(message);
  r.client.close();
  return { r, lines, sent };
}

function decision(matchId, decisionId, fields = {}) {
  return {
    kind: 'decision',
    decision: {
      match_id: matchId, seat: 1, decision_id: String(decisionId), game: 'flaming_pyramids',
      acting_seats: [0, 1], simultaneous: true, legal_actions_listed: false, legal_actions: [],
      observation: {}, commit_deadline_unix_ms: '0', header_hash: Buffer.alloc(32),
      committed: false, ...fields,
    },
  };
}

const message = (kind, matchId, decisionId) => ({
  kind, [kind]: { match_id: matchId, seat: 1, decision_id: String(decisionId) },
});
const tick = () => new Promise((resolve) => { setImmediate(resolve); });
const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'state-'));

test('a record is durable before its commitment is sent, in the shared format', async () => {
  const dir = tempDir();
  const { r, sent } = start(dir);
  const file = path.join(dir, `${M}-1-4.json`);
  let atCommit = null;
  r.send = (m) => {
    sent.push(m);
    if (m.commit) atCommit = JSON.parse(fs.readFileSync(file, 'utf8'));
  };
  r.handle(decision(M, 4));
  await tick();
  assert.strictEqual(sent.length, 1);
  const entry = r.pending.get(`${M}/1/4`);
  assert.deepStrictEqual(atCommit, {
    match_id: M, seat: 1, decision_id: 4, action: entry.action.toString('base64'),
    salt: entry.salt.toString('base64'),
  });
  // No temporary file is left.
  assert.deepStrictEqual(fs.readdirSync(dir), [`${M}-1-4.json`]);
  fs.rmSync(dir, { recursive: true });
});

test('a restarted process reveals what the first one committed to', async () => {
  const dir = tempDir();
  const first = start(dir);
  first.r.handle(decision(M, 0)); // The seed: settled at once.
  first.r.handle(decision(M, 2));
  await tick();
  const [, commit] = first.sent.map((m) => m.commit);
  const { salt, action } = first.r.pending.get(`${M}/1/2`);
  // Killed; a new process on the same directory. The referee owes it the
  // reveal of decision 2 (a RevealRequest) ...
  const second = start(dir, () => { throw new Error('never asked'); });
  second.r.handle(message('reveal_request', M, 2));
  assert.deepStrictEqual(second.sent, [{
    reveal: { match_id: M, seat: 1, decision_id: '2', salt, action },
  }]);
  assert.deepStrictEqual(second.lines, []);
  // ... its ack keeps the record, and so did decision 2 the seed's: records
  // stay until the match ends.
  second.r.handle(message('reveal_ack', M, 2));
  assert.deepStrictEqual(fs.readdirSync(dir).sort(), [`${M}-1-0.json`, `${M}-1-2.json`]);
  // A third process, told of decision 2 as committed, its record lost (by
  // hand): nothing to reveal.
  fs.rmSync(path.join(dir, `${M}-1-2.json`));
  const third = start(dir);
  third.r.handle(decision(M, 2, { committed: true }));
  third.r.handle(decision(M, 2, { committed: true }));
  assert.deepStrictEqual(third.lines, [`match ${M} seat 1 decision 2: the referee holds a `
    + 'commitment this process does not have (restarted without --state_dir?); the seat will '
    + 'fault at the reveal deadline']);
  assert.ok(commit);
  fs.rmSync(dir, { recursive: true });
});

test('a committed decision is resumed from its record and revealed when asked', async () => {
  const dir = tempDir();
  const first = start(dir);
  first.r.handle(decision(M, 3));
  await tick();
  const { salt, action } = first.r.pending.get(`${M}/1/3`);
  const second = start(dir);
  second.r.handle(decision(M, 3, { committed: true }));
  assert.deepStrictEqual(second.sent, []); // The referee has it: nothing sent.
  second.r.handle(message('reveal_request', M, 3));
  assert.deepStrictEqual(second.sent, [{
    reveal: { match_id: M, seat: 1, decision_id: '3', salt, action },
  }]);
  fs.rmSync(dir, { recursive: true });
});

test('a decision asked again after a restart gets the same commitment', async () => {
  const dir = tempDir();
  const first = start(dir);
  first.r.handle(decision(M, 5));
  await tick();
  // The process died before (or as) its commit left: the referee asks
  // again, and the record, not the strategy, answers.
  const second = start(dir, () => { throw new Error('never asked'); });
  second.r.handle(decision(M, 5));
  assert.deepStrictEqual(second.sent, first.sent);
  assert.strictEqual(second.r.summary.strategyFailures, 0);
  fs.rmSync(dir, { recursive: true });
});

test('a record written by the Python kit is read', () => {
  const dir = tempDir();
  const salt = Buffer.alloc(32, 7);
  const action = Buffer.from('22021001', 'hex');
  // json.dumps of the Python kit's record.
  fs.writeFileSync(path.join(dir, `${M}-1-6.json`), JSON.stringify({
    match_id: M, seat: 1, decision_id: 6, action: action.toString('base64'),
    salt: salt.toString('base64'),
  }).replace(/":/g, '": ').replace(/,"/g, ', "'));
  const { r, sent } = start(dir);
  r.handle(message('reveal_request', M, 6));
  assert.deepStrictEqual(sent,
    [{ reveal: { match_id: M, seat: 1, decision_id: '6', salt, action } }]);
  fs.rmSync(dir, { recursive: true });
});

test('the end of a match removes its records, and no other match\'s', async () => {
  const dir = tempDir();
  const { r } = start(dir);
  r.handle(decision(M, 1));
  r.handle(decision(OTHER, 1));
  await tick();
  // An earlier process's record of another seat, and a temporary file a
  // crash left.
  state.writeRecord(dir, M, 2, '1', Buffer.from('x'), Buffer.alloc(32));
  fs.writeFileSync(path.join(dir, `${M}-1-2.json.123.tmp`), '');
  fs.writeFileSync(path.join(dir, `${M}-1-3.json.k2x_9a8b.tmp`), ''); // Python's mkstemp.
  r.handle({
    kind: 'match_ended', match_ended: { match_id: M, seat: 1, outcome: { seats: [{}, {}] } },
  });
  assert.deepStrictEqual(fs.readdirSync(dir), [`${OTHER}-1-1.json`]);
  fs.rmSync(dir, { recursive: true });
});

test('without a state directory, a missing commitment is said once per decision', () => {
  const lines = [];
  const bot = new Bot();
  const r = new Runner(bot, '127.0.0.1:1', 'token', { log: (line) => lines.push(line) });
  r.client.close();
  r.send = () => {};
  r.handle(message('reveal_request', M, 2));
  r.handle(message('reveal_request', M, 2));
  r.handle(decision(M, 2, { committed: true }));
  r.handle(message('reveal_request', M, 3));
  assert.deepStrictEqual(lines, [2, 3].map((d) => `match ${M} seat 1 decision ${d}: the referee `
    + 'holds a commitment this process does not have (restarted without --state_dir?); the seat '
    + 'will fault at the reveal deadline'));
});

test('a name that is not a match id, seat and decision never reaches a path', () => {
  const dir = tempDir();
  assert.throws(() => state.writeRecord(dir, '../../etc', 1, '2', Buffer.alloc(1),
    Buffer.alloc(32)), /no record can be named/);
  assert.throws(() => state.readRecord(dir, M, 1, '2/../3'), /no record can be named/);
  const { r, sent, lines } = start(dir);
  r.handle(message('reveal_request', '../x', 1));
  assert.deepStrictEqual([sent, lines, fs.readdirSync(dir)], [[], [], []]);
  fs.rmSync(dir, { recursive: true });
});

test('a revealed decision asked again (the referee lost the reveal) keeps its record', async () => {
  // The same in both kits (the Python kit's StateDirTest): the record of a
  // decision whose reveal was acknowledged stays, and the decision asked
  // again after a reconnection gets the same commitment, its record
  // unchanged.
  const dir = tempDir();
  const { r, sent } = start(dir);
  const file = path.join(dir, `${M}-1-7.json`);
  r.handle(decision(M, 7));
  await tick();
  const text = fs.readFileSync(file, 'utf8');
  r.handle(message('reveal_request', M, 7));
  r.handle(message('reveal_ack', M, 7));
  assert.strictEqual(fs.readFileSync(file, 'utf8'), text); // Answered: kept.
  r.stream += 1; // A referee restart that lost the reveal.
  r.handle(decision(M, 7));
  assert.deepStrictEqual(sent[2], sent[0]); // The same commitment ...
  assert.strictEqual(fs.readFileSync(file, 'utf8'), text); // ... its record unchanged.
  fs.rmSync(dir, { recursive: true });
});

test('after an acknowledged reveal and a restart, the decision gets the same commitment', async () => {
  // A referee that lost records in a power loss opens decisions again, even
  // those whose reveal it acknowledged: never a second commitment.
  const dir = tempDir();
  const first = start(dir);
  first.r.handle(decision(M, 0)); // The seed: settled at once.
  first.r.handle(message('reveal_request', M, 0));
  first.r.handle(message('reveal_ack', M, 0));
  first.r.handle(decision(M, 1));
  await tick();
  first.r.handle(message('reveal_request', M, 1));
  first.r.handle(message('reveal_ack', M, 1));
  const [c0, , c1, reveal1] = first.sent;
  assert.ok(c0.commit && c1.commit && reveal1.reveal);
  const second = start(dir, () => { throw new Error('never asked'); });
  second.r.handle(decision(M, 1));
  second.r.handle(message('reveal_request', M, 1));
  // An older decision with a record: its commitment again too.
  second.r.handle(decision(M, 0));
  assert.deepStrictEqual(second.sent, [c1, reveal1, c0]);
  assert.deepStrictEqual(second.lines, []);
  assert.strictEqual(second.r.summary.strategyFailures, 0);
  fs.rmSync(dir, { recursive: true });
});

test('after a restart, an older decision without a record is refused', async () => {
  const dir = tempDir();
  const first = start(dir);
  first.r.handle(decision(M, 3));
  await tick();
  assert.strictEqual(first.sent[0].commit.decision_id, '3');
  const second = start(dir);
  second.r.handle(decision(M, 2));
  await tick();
  assert.deepStrictEqual(second.sent, []); // No commitment.
  assert.deepStrictEqual(second.lines, [`refusing match "${M}" seat 1 decision 2: the seat `
    + 'committed to decision 3 already, and a commitment is never signed twice']);
  assert.deepStrictEqual(fs.readdirSync(dir), [`${M}-1-3.json`]);
  // A newer decision is a new one; another seat's is its own.
  second.r.handle(decision(M, 4));
  second.r.handle(decision(M, 2, { seat: 0 }));
  await tick();
  assert.deepStrictEqual(second.sent.map((m) => [m.commit.seat, m.commit.decision_id]).sort(),
    [[0, '2'], [1, '4']]);
  fs.rmSync(dir, { recursive: true });
});

test('prepareDir makes the missing directories', () => {
  const dir = tempDir();
  const deep = path.join(dir, 'a', 'b');
  state.prepareDir(deep);
  assert.ok(fs.statSync(deep).isDirectory());
  state.prepareDir(deep); // There already: fine.
  fs.rmSync(dir, { recursive: true });
});
