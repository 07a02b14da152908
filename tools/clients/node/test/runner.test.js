// Unit tests of the Node kit's stream runner (lib/bot.js), without a referee
// (the client connects lazily and never does here): how it counts the ends
// of matches; that a strategy that throws, or returns an action the
// decision does not list, gets the fallback with one line saying so (as the
// Python kit's, never "late"); that one whose strategy blocked the event
// loop past its time gets the fallback, and nothing past the commit
// deadline (said, with what to do); that the seed decision's action names the
// log header the request announced; that a stream replaced by a newer
// one of its token, or one the referee ended DATA_LOSS (it broke the match),
// stops the run instead of reconnecting; and what it does
// with what a malicious referee sends, and at its bound of open decisions
// (the least recently used dropped to make room, never committed to again).
'use strict';

const assert = require('node:assert');
const test = require('node:test');
const grpc = require('@grpc/grpc-js');
const { Bot, Runner, statusText } = require('../lib/bot');

function runner(matches, bot = new Bot(), options = {}) {
  const lines = [];
  const r = new Runner(bot, '127.0.0.1:1', 'token', {
    matches, log: (line) => lines.push(line), ...options,
  });
  r.bot.onMatchEnded = () => {};
  return { r, lines };
}

function ended(matchId) {
  return {
    kind: 'match_ended',
    match_ended: { match_id: matchId, seat: 0, outcome: { seats: [{}] } },
  };
}

function broken(matchId) {
  return {
    kind: 'error',
    error: {
      match_id: matchId, seat: 0, decision_id: 0, code: grpc.status.DATA_LOSS,
      message: 'the match is broken and stopped: no space left on device',
    },
  };
}

test('a broken match counts as over: --matches 1 ends on it', () => {
  const { r, lines } = runner(1);
  assert.strictEqual(r.handle(broken('m1')), false);
  assert.strictEqual(r.summary.errors, 1);
  assert.ok(lines.some((l) => l.includes('broken and stopped')));
  r.client.close();
});

test('each match counts once, whichever way its end comes', () => {
  const { r } = runner(2);
  assert.strictEqual(r.handle(ended('m1')), true);
  assert.strictEqual(r.handle(ended('m1')), true); // Sent again: no count.
  assert.strictEqual(r.handle(broken('m2')), false);
  assert.strictEqual(r.ended.size, 2);
  r.client.close();
});

test('other errors do not end a match', () => {
  const { r } = runner(1);
  const refused = broken('m1');
  refused.error.code = grpc.status.FAILED_PRECONDITION;
  assert.strictEqual(r.handle(refused), true);
  assert.strictEqual(r.ended.size, 0);
  r.client.close();
});

const MATCH = 'ab'.repeat(16);
const LEGAL = [{ flaming_pyramids: { fall: 'FP_LEFT' } },
  { flaming_pyramids: { place: { tile: 3, row: 0, x: 0 } } }];
const sleep = (ms) => new Promise((resolve) => { setTimeout(resolve, ms); });

/**
 * One decision whose deadline timer fires 100 ms in (were it still open),
 * answered by `choose`; resolves after 400 ms to { lines, committed, r }.
 */
async function decide(choose, listed = true) {
  const bot = new Bot();
  bot.choose = choose;
  const { r, lines } = runner(0, bot);
  r.onDecision({
    match_id: MATCH, seat: 1, decision_id: '3', game: 'flaming_pyramids', acting_seats: [1],
    legal_actions_listed: listed, legal_actions: listed ? LEGAL : [], observation: {},
    commit_deadline_unix_ms: String(Date.now() + 600),
  });
  await sleep(400);
  r.client.close();
  const committed = r.pending.get(`${MATCH}/1/3`).action;
  return { lines, committed, r };
}

const bytesOf = (action) => {
  const { r } = runner(0);
  r.client.close();
  return require('../lib/proto').encodeAction(r.Action, action);
};

test('a strategy that throws gets the fallback, said as the Python kit says it, not late', async () => {
  const { lines, committed, r } = await decide(() => { throw new Error('boom'); });
  assert.deepStrictEqual(committed, bytesOf(LEGAL[0]));
  assert.strictEqual(lines.length, 1, lines.join('\n---\n'));
  const [first, second] = lines[0].split('\n');
  assert.strictEqual(first, `strategy failed on match ${MATCH} seat 1 decision 3; `
    + 'sending the fallback action');
  assert.strictEqual(second, 'Error: boom');
  assert.deepStrictEqual([r.summary.strategyFailures, r.summary.fallbacks], [1, 1]);
});

test('a late strategy is said late', async () => {
  const { lines } = await decide(() => new Promise(() => {}));
  assert.deepStrictEqual(lines, [`match ${MATCH} seat 1 decision 3: the strategy is late; `
    + 'committing the fallback action']);
});

test('an action the decision does not list gets the fallback', async () => {
  const { lines, committed, r } = await decide(() => ({ flaming_pyramids: { fall: 'FP_RIGHT' } }));
  assert.deepStrictEqual(committed, bytesOf(LEGAL[0]));
  assert.deepStrictEqual(lines, [`match ${MATCH} seat 1 decision 3: the strategy's action is not `
    + 'one of the 2 legal actions; sending the fallback action']);
  assert.strictEqual(r.summary.fallbacks, 1);
});

test('a listed action built anew, defaults left out, is sent', async () => {
  const mine = { flaming_pyramids: { place: { tile: 3 } } };
  const { lines, committed, r } = await decide(() => mine);
  assert.deepStrictEqual(committed, bytesOf(mine));
  assert.deepStrictEqual([lines, r.summary.fallbacks], [[], 0]);
});

test('a decision without a list is not checked', async () => {
  const mine = { flaming_pyramids: { fall: 'FP_RIGHT' } };
  const { lines, committed, r } = await decide(() => mine, false);
  assert.deepStrictEqual(committed, bytesOf(mine));
  assert.deepStrictEqual([lines, r.summary.fallbacks], [[], 0]);
});

test('the seed action names the header the seed decision announced', () => {
  const { r } = runner(0);
  const headerHash = Buffer.alloc(32, 0x5a);
  const sent = [];
  r.send = (message) => sent.push(message);
  r.onDecision({
    match_id: MATCH, seat: 0, decision_id: '0', game: 'rock_paper_pyramid', acting_seats: [0, 1],
    legal_actions_listed: false, legal_actions: [], observation: {}, header_hash: headerHash,
    commit_deadline_unix_ms: '0',
  });
  r.client.close();
  const { action } = r.pending.get(`${MATCH}/0/0`);
  const seed = r.Action.toObject(r.Action.decode(action), { bytes: Buffer }).seed;
  assert.strictEqual(seed.contribution.length, 32);
  assert.deepStrictEqual(Buffer.from(seed.header_hash), headerHash);
  assert.deepStrictEqual(sent.map((m) => Object.keys(m)[0]), ['commit']);
  // A referee that announces none (an empty header_hash): the seed names none.
  const { seed: none } = require('../lib/bot').seedAction({ header_hash: Buffer.alloc(0) });
  assert.strictEqual(none.header_hash, undefined);
  assert.strictEqual(bytesOf({ seed: none }).length, 36);
});

/**
 * Runs with streams that end as `ends` say (then a clean close), each having
 * received a message if `got`.
 */
async function runStreams(...ends) {
  return runStreamsGot(true, ...ends);
}

async function runStreamsGot(got, ...ends) {
  const { r, lines } = runner(0, new Bot(), { reconnectForS: 60 });
  r.playOnce = async () => {
    r.summary.streams += 1;
    return { got, error: ends.shift() || null };
  };
  const summary = await r.run();
  return { summary, lines };
}

test('a stream replaced by a newer one of its token stops the run', async () => {
  const { summary, lines } = await runStreams(
    { code: grpc.status.ABORTED, details: 'replaced by a newer stream' },
  );
  assert.strictEqual(summary.streams, 1);
  assert.strictEqual(summary.failure, 'another process connected with this token; stopping '
    + '(stream ended: ABORTED: replaced by a newer stream)');
  assert.deepStrictEqual(lines, []);
});

// The referee broke the token's match: every new stream would end so (the
// run reconnected every 0.1 s for --reconnect_for_s).
test('a stream ended DATA_LOSS (the referee broke the match) stops the run', async () => {
  const why = 'the match is broken and stopped: cannot write its log (its log '
    + 'verifies up to its last checkpoint)';
  const { summary, lines } = await runStreams(
    { code: grpc.status.DATA_LOSS, details: why },
    { code: grpc.status.DATA_LOSS, details: why },
  );
  assert.strictEqual(summary.streams, 1);
  assert.strictEqual(summary.failure, 'the referee broke the match; not reconnecting '
    + `(stream ended: DATA_LOSS: ${why})`);
  assert.deepStrictEqual(lines, []);
});

test('other stream ends reconnect, and say why', async () => {
  const { summary, lines } = await runStreams(
    { code: grpc.status.UNAVAILABLE, details: 'Connection dropped' },
    { code: grpc.status.ABORTED, details: 'something else' },
  );
  assert.deepStrictEqual([summary.streams, summary.failure], [3, '']);
  assert.deepStrictEqual(lines, [
    'stream ended (UNAVAILABLE: Connection dropped); reconnecting in 0.1 s',
    'stream ended (ABORTED: something else); reconnecting in 0.1 s',
  ]);
});

test('the backoff doubles while no stream gets a message, said in seconds as Python says it', async () => {
  const refused = { code: grpc.status.UNAVAILABLE, details: 'refused' };
  const { summary, lines } = await runStreamsGot(false, refused, refused, refused);
  assert.deepStrictEqual([summary.streams, summary.failure], [4, '']);
  assert.deepStrictEqual(lines, [
    'stream ended (UNAVAILABLE: refused); reconnecting in 0.1 s',
    'stream ended (UNAVAILABLE: refused); reconnecting in 0.2 s',
    'stream ended (UNAVAILABLE: refused); reconnecting in 0.4 s',
  ]);
});

/**
 * A channel whose state is `states[0]` until a watch of it, then the next
 * one (the last one stays); records the watches' deadlines (ms from now)
 * and whether a connection was asked for.
 */
function fakeChannel(...states) {
  const channel = {
    deadlines: [],
    asked: 0,
    getConnectivityState(tryToConnect) {
      if (tryToConnect) channel.asked += 1;
      return states[0];
    },
    watchConnectivityState(state, deadline, callback) {
      channel.deadlines.push(deadline - Date.now());
      if (states.length > 1) states.shift();
      setImmediate(callback);
    },
  };
  return channel;
}

// The referee restarted: no blind sleep while it is away (a Node kit bot
// forfeited a 2-second clock after a 3.6 s outage, sleeping its backoff);
// the channel is asked to connect, looked at again within 250 ms, and the
// next stream opens as soon as it is connected, the backoff back to 0.1 s.
test('while the referee is away, the wait ends as soon as the channel connects', async () => {
  const { READY, TRANSIENT_FAILURE, CONNECTING } = grpc.connectivityState;
  const refused = { code: grpc.status.UNAVAILABLE, details: 'refused' };
  const { r, lines } = runner(0, new Bot(), { reconnectForS: 60 });
  const channels = [fakeChannel(TRANSIENT_FAILURE, CONNECTING, READY),
    fakeChannel(TRANSIENT_FAILURE, READY)];
  let current = null;
  r.client.getChannel = () => current;
  const ends = [refused, refused];
  r.playOnce = async () => {
    r.summary.streams += 1;
    current = channels.shift() || null;
    return { got: false, error: ends.shift() || null };
  };
  const seen = [...channels];
  const start = Date.now();
  const summary = await r.run();
  assert.ok(Date.now() - start < 5000, 'a wait ran its whole backoff');
  assert.deepStrictEqual([summary.streams, summary.failure], [3, '']);
  assert.deepStrictEqual(lines, [
    'stream ended (UNAVAILABLE: refused); reconnecting in 0.1 s',
    'stream ended (UNAVAILABLE: refused); reconnecting in 0.1 s',
  ]);
  for (const channel of seen) {
    assert.ok(channel.asked > 0, 'no connection asked for');
    assert.ok(channel.deadlines.length > 0);
    for (const ms of channel.deadlines) assert.ok(ms <= 250, `looked at after ${ms} ms`);
  }
});

// A referee that is up and ends the stream itself (the channel connected)
// is not knocked at again at once: its backoff is waited out, doubling.
test('a connected channel waits out the backoff, doubling', async () => {
  const refused = { code: grpc.status.UNAVAILABLE, details: 'refused' };
  const { r, lines } = runner(0, new Bot(), { reconnectForS: 60 });
  const channel = fakeChannel(grpc.connectivityState.READY);
  r.client.getChannel = () => channel;
  const ends = [refused, refused, refused];
  r.playOnce = async () => {
    r.summary.streams += 1;
    return { got: false, error: ends.shift() || null };
  };
  const summary = await r.run();
  assert.deepStrictEqual([summary.streams, summary.failure], [4, '']);
  assert.deepStrictEqual(lines, [
    'stream ended (UNAVAILABLE: refused); reconnecting in 0.1 s',
    'stream ended (UNAVAILABLE: refused); reconnecting in 0.2 s',
    'stream ended (UNAVAILABLE: refused); reconnecting in 0.4 s',
  ]);
  assert.deepStrictEqual([channel.asked, channel.deadlines], [0, []]);
});

test('a stream error is one line, without grpc-js empty resolution note', () => {
  const refused = 'No connection established. Last error: connect ECONNREFUSED 127.0.0.1:1.';
  assert.strictEqual(
    statusText({ code: grpc.status.UNAVAILABLE, details: `${refused} Resolution note: ` }),
    `UNAVAILABLE: ${refused}`,
  );
  assert.strictEqual(
    statusText({ code: grpc.status.UNAVAILABLE, details: `${refused} Resolution note: no such host` }),
    `UNAVAILABLE: ${refused} Resolution note: no such host`,
  );
  assert.strictEqual(statusText({ code: grpc.status.ABORTED, details: 'replaced by a newer stream' }),
    'ABORTED: replaced by a newer stream');
});

// What the runner does with what a malicious (or broken) referee sends: it
// never commits twice to a decision, refuses a match id that is not 16
// bytes, says what it cannot use instead of throwing, and keeps a bounded
// number of decisions open (an adversarial tester's findings).
const M = '00112233445566778899aabbccddeeff';
const OTHER = 'ffeeddccbbaa99887766554433221100';

function malicious() {
  const bot = new Bot();
  bot.quiet = true;
  bot.choose = () => ({ flaming_pyramids: { fall: 'FP_LEFT' } });
  const { r, lines } = runner(0, bot);
  r.bot.onMatchEnded = Bot.prototype.onMatchEnded.bind(bot);
  const sent = [];
  r.send = (message) => sent.push(message);
  r.client.close();
  return { r, lines, sent };
}

function decision(matchId, decisionId, seat = 0, fields = {}) {
  return {
    kind: 'decision',
    decision: {
      match_id: matchId, seat, decision_id: String(decisionId), game: 'flaming_pyramids',
      acting_seats: [seat, seat + 1], simultaneous: true, legal_actions_listed: false,
      legal_actions: [], observation: {}, commit_deadline_unix_ms: '0',
      header_hash: Buffer.alloc(32),
      ...fields,
    },
  };
}

const message = (kind, fields) => ({ kind, [kind]: { seat: 0, ...fields } });

test('a decision is committed to once', () => {
  const { r, lines, sent } = malicious();
  // The seed decision is settled at once.
  r.handle(decision(M, 0));
  assert.strictEqual(sent.length, 1);
  const first = sent[0].commit;
  // After a reconnection, asked again while the reveal is owed: the same commitment.
  r.stream += 1;
  r.handle(decision(M, 0));
  assert.strictEqual(sent.length, 2);
  assert.deepStrictEqual(sent[1].commit, first);
  r.handle(message('commit_ack', { match_id: M, decision_id: '0' }));
  r.handle(message('reveal_request', { match_id: M, decision_id: '0' }));
  assert.deepStrictEqual(Object.keys(sent[2]), ['reveal']);
  r.handle(message('reveal_ack', { match_id: M, decision_id: '0' }));
  // Revealed and acknowledged: asked again on the same stream, nothing; on
  // a new stream (a referee that lost the reveal in a power loss,
  // docs/durability.md), the same commitment, never another.
  r.handle(decision(M, 0));
  assert.strictEqual(sent.length, 3);
  r.stream += 1;
  r.handle(decision(M, 0));
  assert.strictEqual(sent.length, 4);
  assert.deepStrictEqual(sent[3].commit, first);
  r.handle(decision(M, 3));
  assert.ok(r.pending.has(`${M}/0/3`));
  r.handle(decision(M, 2)); // Older than the newest.
  assert.ok(!r.pending.has(`${M}/0/2`));
  r.handle({
    kind: 'match_ended', match_ended: { match_id: OTHER, seat: 0, outcome: { seats: [{}] } },
  });
  r.handle(decision(OTHER, 4)); // Its match is over.
  assert.ok(!r.pending.has(`${OTHER}/0/4`));
  assert.strictEqual(lines.length, 2, lines.join('\n'));
  assert.strictEqual(lines[0], `refusing match "${M}" seat 0 decision 2: the seat committed to `
    + 'decision 3 already, and a commitment is never signed twice');
  assert.match(lines[1], /decision 4: its match is over$/);
});

test('a match id not of 16 bytes is refused', () => {
  const { r, lines, sent } = malicious();
  r.handle(decision('zz-not-hex', 0));
  r.handle(decision('41'.repeat(32), 0));
  r.handle(decision('41'.repeat(4), 1));
  r.handle(decision(`zz${'41'.repeat(15)}`, 1));
  assert.deepStrictEqual([r.pending.size, sent.length], [0, 0]);
  assert.strictEqual(lines.length, 4, lines.join('\n'));
  assert.strictEqual(lines[0], 'refusing match "zz-not-hex" seat 0 decision 0: its match id is '
    + 'not 16 bytes in hex');
});

test('an end without the seat\'s outcome is said', () => {
  const { r, lines } = malicious();
  r.bot.quiet = false;
  const ended77 = { kind: 'match_ended', match_ended: { match_id: M, seat: 77 } };
  assert.strictEqual(r.handle(ended77), true);
  assert.deepStrictEqual(lines, [`match "${M}" seat 77 ended, but its outcome has 0 seat(s): `
    + 'no rank for this seat']);
  assert.ok(r.ended.has(M));
});

test('a view never received is said', () => {
  const { r, lines } = malicious();
  r.handle(decision(M, 1, 0, { observation_in_result: true, observation: null }));
  assert.strictEqual(r.pending.size, 0);
  assert.deepStrictEqual(lines, [`match "${M}" seat 0 decision 1: the request refers to a result `
    + 'never received; ignoring it']);
});

// Match `n` (1 to 9) of a test, seat 0 in each.
const matchNo = (n) => `${'0'.repeat(31)}${n}`;

// Sends the seed decision of `matchId` (settled at once) and, with
// `reveal`, its RevealRequest and RevealAck; returns what the runner sent.
function seed(r, sent, matchId, reveal = false) {
  const before = sent.length;
  r.handle(decision(matchId, 0));
  if (reveal) {
    r.handle(message('reveal_request', { match_id: matchId, decision_id: '0' }));
    r.handle(message('reveal_ack', { match_id: matchId, decision_id: '0' }));
  }
  return sent.slice(before);
}

// Past maxOpenDecisions, the least recently used choice is dropped to make
// room, and a new decision is answered (it was refused, so a long-running
// bot whose seats' MatchEnded never came, their match over while it was
// away, refused every new decision once 4,096 had gathered).
test('seats whose end never came do not block new decisions', () => {
  const { r, lines, sent } = malicious();
  r.maxOpenDecisions = 3;
  for (let n = 1; n <= 6; n += 1) {
    assert.deepStrictEqual(seed(r, sent, matchNo(n), true).map((m) => Object.keys(m)[0]),
      ['commit', 'reveal'], String(n));
  }
  assert.deepStrictEqual([...r.pending.keys()].sort(),
    [4, 5, 6].map((n) => `${matchNo(n)}/0/0`));
  assert.deepStrictEqual(lines, []);
});

// What makes room is a choice whose reveal was acknowledged, else the oldest
// whose reveal is owed; either way, its decision asked again is refused and
// its reveal asked for is not sent: a commitment is never signed twice.
test('a dropped decision is never committed to again', () => {
  const { r, lines, sent } = malicious();
  r.maxOpenDecisions = 2;
  const [m1, m2, m3, m4] = [1, 2, 3, 4].map(matchNo);
  const [c1] = seed(r, sent, m1); // Owed.
  seed(r, sent, m2, true); // Acknowledged.
  const [c3] = seed(r, sent, m3); // Drops m2's, though m1's is older.
  r.stream += 1; // A reconnection.
  assert.deepStrictEqual(seed(r, sent, m1), [c1]); // Kept: the same.
  assert.deepStrictEqual(seed(r, sent, m2), []); // Dropped: refused.
  assert.deepStrictEqual(seed(r, sent, m3), [c3]); // Kept: the same.
  const [c4] = seed(r, sent, m4); // Drops m1's, the oldest owed.
  assert.strictEqual(c4.commit.match_id, m4);
  assert.deepStrictEqual(seed(r, sent, m1), []); // Dropped: refused.
  const before = sent.length;
  r.handle(message('reveal_request', { match_id: m1, decision_id: '0' }));
  assert.strictEqual(sent.length, before); // Not revealed.
  assert.deepStrictEqual(lines, [
    `refusing match "${m2}" seat 0 decision 0: its commitment was dropped to make room (2 `
      + 'decisions open at once, the kit\'s limit), and a commitment is never signed twice',
    `match ${m1} seat 0 decision 0: dropping its commitment, whose reveal is owed, to make `
      + 'room (2 decisions open at once, the kit\'s limit); it is refused from now on',
    `refusing match "${m1}" seat 0 decision 0: its commitment was dropped to make room (2 `
      + 'decisions open at once, the kit\'s limit), and a commitment is never signed twice',
  ]);
});

// Wording (a bot author's review): one legal action is not "one of the 1
// legal actions"; an enum name its enum lacks is said to be that, not an
// unlisted action; a strategy that throws the same error every decision
// prints its stack once, then counts.
test('a single legal action is said in the singular', async () => {
  const bot = new Bot();
  bot.choose = () => ({ flaming_pyramids: { fall: 'FP_RIGHT' } });
  const { r, lines } = runner(0, bot);
  r.send = () => {};
  r.onDecision({
    match_id: MATCH, seat: 1, decision_id: '3', game: 'flaming_pyramids', acting_seats: [1, 2],
    legal_actions_listed: true, legal_actions: [LEGAL[0]], observation: {},
    commit_deadline_unix_ms: '0',
  });
  await sleep(50);
  r.client.close();
  assert.deepStrictEqual(lines, [`match ${MATCH} seat 1 decision 3: the strategy's action is not `
    + 'the only legal action; sending the fallback action']);
});

test('a misspelt enum name is said to be no value of its enum, naming the field', async () => {
  const { lines, committed, r } = await decide(() => ({ flaming_pyramids: { fall: 'FP_LEFTT' } }));
  assert.deepStrictEqual(committed, bytesOf(LEGAL[0]));
  assert.deepStrictEqual(lines, [`match ${MATCH} seat 1 decision 3: the strategy's action is not `
    + 'an Action: flaming_pyramids.fall is "FP_LEFTT", not a value of the enum '
    + 'pyramid.referee.v1.FpDirection; sending the fallback action']);
  assert.strictEqual(r.summary.fallbacks, 1);
  // Nested: a piece's colour.
  const { Action } = require('../lib/proto').load();
  assert.throws(() => require('../lib/proto').encodeAction(Action,
    { rock_paper_pyramid: { piece: { colour: 'RPP_PURPLE', size: 'RPP_LARGE' } } }),
  new RegExp('^Error: rock_paper_pyramid\\.piece\\.colour is "RPP_PURPLE", not a value of the '
    + 'enum pyramid\\.referee\\.v1\\.RppColour$'));
});

// A misspelt field name was dropped by protobufjs, and the action sent
// was another one ("not one of the 2 legal actions", or worse, a legal one).
test('a misspelt field name is said to be no field of its message, naming it', async () => {
  const { lines, committed, r } = await decide(() => ({ flaming_pyramids: { fal: 'FP_LEFT' } }));
  assert.deepStrictEqual(committed, bytesOf(LEGAL[0]));
  assert.deepStrictEqual(lines, [`match ${MATCH} seat 1 decision 3: the strategy's action is not `
    + 'an Action: flaming_pyramids.fal is not a field of the message '
    + 'pyramid.referee.v1.FlamingPyramidsAction; sending the fallback action']);
  assert.strictEqual(r.summary.fallbacks, 1);
  const { Action, encode } = { ...require('../lib/proto').load(),
    encode: require('../lib/proto').encodeAction };
  // At the top, and nested.
  assert.throws(() => encode(Action, { rock_paper_pyramd: {} }),
    /^Error: rock_paper_pyramd is not a field of the message pyramid\.referee\.v1\.Action$/);
  assert.throws(() => encode(Action,
    { rock_paper_pyramid: { peice: { colour: 'RPP_RED', size: 'RPP_LARGE' } } }),
  new RegExp('^Error: rock_paper_pyramid\\.peice is not a field of the message '
    + 'pyramid\\.referee\\.v1\\.RockPaperPyramidAction$'));
  // A key set to undefined sets nothing.
  assert.deepStrictEqual(encode(Action, { ...LEGAL[0], extra: undefined }), bytesOf(LEGAL[0]));
  // An action as the kit gets it from the referee (every field, and each
  // oneof's name: action.kind) is one.
  for (const legal of LEGAL) {
    const asReceived = Action.toObject(Action.decode(bytesOf(legal)), {
      longs: String, enums: String, bytes: Buffer, defaults: true, oneofs: true,
    });
    assert.strictEqual(asReceived.kind, 'flaming_pyramids');
    assert.deepStrictEqual(encode(Action, asReceived), bytesOf(legal));
  }
});

test('the same error raised again prints its stack once, then counts', async () => {
  const bot = new Bot();
  // A new Error each time, of the same type and message: the same error.
  bot.choose = () => { throw new Error('boom'); };
  const { r, lines } = runner(0, bot);
  r.send = () => {};
  for (let d = 1; d <= 3; d += 1) {
    r.onDecision({
      match_id: MATCH, seat: 1, decision_id: String(d), game: 'flaming_pyramids',
      acting_seats: [1, 2], legal_actions_listed: true, legal_actions: LEGAL, observation: {},
      commit_deadline_unix_ms: '0',
    });
    // eslint-disable-next-line no-await-in-loop
    await sleep(20);
  }
  r.client.close();
  assert.strictEqual(lines.length, 3, lines.join('\n---\n'));
  assert.match(lines[0],
    /^strategy failed on match \S+ seat 1 decision 1; sending the fallback action\nError: boom\n {4}at /);
  assert.strictEqual(lines[1], `strategy failed on match ${MATCH} seat 1 decision 2; sending the `
    + 'fallback action: the strategy raised the same error again (2 times so far)');
  assert.strictEqual(lines[2], `strategy failed on match ${MATCH} seat 1 decision 3; sending the `
    + 'fallback action: the strategy raised the same error again (3 times so far)');
  assert.deepStrictEqual([r.summary.strategyFailures, r.summary.fallbacks], [3, 3]);
});

// A commit clock at or below the margin: a strategy that answers at once
// still commits its answer (no fallback), and the match is told once that
// a slower one gets the fallback.
test('a commit clock within the margin is said once a match; an answer at once is kept', async () => {
  const bot = new Bot();
  bot.choose = () => LEGAL[1];
  const { r, lines } = runner(0, bot, { deadlineMarginMs: 500 });
  const sent = [];
  r.send = (m) => sent.push(m);
  for (const d of ['1', '2']) {
    r.onDecision({
      match_id: MATCH, seat: 1, decision_id: d, game: 'flaming_pyramids', acting_seats: [1, 2],
      legal_actions_listed: true, legal_actions: LEGAL, observation: {},
      commit_deadline_unix_ms: String(Date.now() + 300),
    });
    // eslint-disable-next-line no-await-in-loop
    await sleep(50);
  }
  r.client.close();
  assert.strictEqual(r.summary.fallbacks, 0);
  assert.strictEqual(sent.length, 2);
  assert.deepStrictEqual(r.pending.get(`${MATCH}/1/2`).action, bytesOf(LEGAL[1]));
  assert.strictEqual(lines.length, 1, lines.join('\n'));
  assert.match(lines[0], new RegExp(`^match ${MATCH}: the commit clock \\(\\d{1,3} ms\\) `
    + 'leaves '
    + 'the strategy no time after the kit\'s margin \\(500 ms\\); a strategy that has not '
    + 'answered at once commits the fallback action$'));
});

// --reconnect_for_s is kept: the last wait is cut to what is left, and the
// failure says the real time (with 2 the kit waited 3 s).
test('the last backoff is cut to what is left of --reconnect_for_s', async () => {
  const refused = { code: grpc.status.UNAVAILABLE, details: 'refused' };
  const { r, lines } = runner(0, new Bot(), { reconnectForS: 0.5 });
  r.playOnce = async () => {
    r.summary.streams += 1;
    return { got: false, error: refused };
  };
  const start = Date.now();
  const summary = await r.run();
  const took = Date.now() - start;
  assert.ok(took >= 480 && took < 700, `took ${took} ms`);
  assert.deepStrictEqual(lines, [
    'stream ended (UNAVAILABLE: refused); reconnecting in 0.1 s',
    'stream ended (UNAVAILABLE: refused); reconnecting in 0.2 s',
    'stream ended (UNAVAILABLE: refused); reconnecting in 0.2 s',
  ]);
  assert.strictEqual(summary.failure, 'no referee for 0.5 s');
});

/** Keeps the event loop for `ms` (a strategy that computes without yielding). */
function block(ms) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // Busy.
  }
}

/**
 * One decision with `deadlineMs` on its commit clock and a 100 ms margin,
 * answered with LEGAL[1] by a strategy that blocks the event loop for
 * `blockMs` first; resolves once its fallback timer would have fired,
 * to { lines, sent, r }.
 */
async function blocked(deadlineMs, blockMs) {
  const bot = new Bot();
  bot.choose = () => {
    block(blockMs);
    return LEGAL[1];
  };
  const { r, lines } = runner(0, bot, { deadlineMarginMs: 100 });
  const sent = [];
  r.send = (m) => sent.push(m);
  r.onDecision({
    match_id: MATCH, seat: 1, decision_id: '3', game: 'flaming_pyramids', acting_seats: [1, 2],
    legal_actions_listed: true, legal_actions: LEGAL, observation: {},
    commit_deadline_unix_ms: String(Date.now() + deadlineMs),
  });
  await sleep(100);
  r.client.close();
  return { lines, sent, r };
}

// A strategy that blocks the event loop past the kit's margin keeps the
// fallback timer from firing: its answer, come late, was committed (the
// Python kit, whose strategy runs in a thread, commits the fallback).
test('an answer that blocked the event loop past the margin gets the fallback', async () => {
  const { lines, sent, r } = await blocked(400, 350);
  assert.strictEqual(sent.length, 1);
  assert.deepStrictEqual(r.pending.get(`${MATCH}/1/3`).action, bytesOf(LEGAL[0]));
  assert.deepStrictEqual(lines, [`match ${MATCH} seat 1 decision 3: the strategy is late; `
    + 'committing the fallback action']);
  assert.strictEqual(r.summary.fallbacks, 1);
});

// Past the commit deadline, the referee has closed the decision (it
// refused the late answer, or faulted the seat): nothing is sent, and the
// line says why and what to do.
test('an answer that blocked the event loop past the deadline is dropped, said', async () => {
  const { lines, sent, r } = await blocked(200, 300);
  assert.deepStrictEqual(sent, []);
  assert.strictEqual(r.pending.get(`${MATCH}/1/3`).action, null);
  assert.strictEqual(lines.length, 1, lines.join('\n'));
  assert.match(lines[0], new RegExp(`^match ${MATCH} seat 1 decision 3: the event loop was `
    + 'blocked past the commit deadline \\(the strategy answered \\d+ ms after it, and the '
    + 'fallback timer could not run meanwhile\\): nothing is committed, and the referee faults '
    + 'the seat; run a slow strategy in a worker thread \\(node:worker_threads\\) or make it '
    + 'yield \\(docs/writing-a-bot.md, "JavaScript"\\)$'));
  assert.strictEqual(r.summary.fallbacks, 0);
});

// With no time after the margin, an answer within AT_ONCE_MS of the call
// is kept, as in the Python kit, even one that computed synchronously.
test('a synchronous answer at once is kept when the clock leaves no time', async () => {
  const { lines, sent, r } = await blocked(80, 20);
  assert.strictEqual(sent.length, 1);
  assert.deepStrictEqual(r.pending.get(`${MATCH}/1/3`).action, bytesOf(LEGAL[1]));
  assert.strictEqual(r.summary.fallbacks, 0);
  assert.strictEqual(lines.length, 1, lines.join('\n'));
  assert.match(lines[0], /leaves the strategy no time after the kit's margin \(100 ms\)/);
});

// onMatchEnded, per seat: a bot token holding three seats of one match was
// told of seat 0's end only (build/bin/bot prints each seat's).
test('each seat of a match is told its end once, and the match counts once', () => {
  const { r } = runner(2);
  const told = [];
  r.bot.onMatchEnded = (e) => told.push(e.seat);
  for (const seat of [0, 1, 2, 1]) { // Seat 1's end sent again: not told.
    const end = ended('m1');
    end.match_ended.seat = seat;
    end.match_ended.outcome.seats = [{}, {}, {}];
    assert.strictEqual(r.handle(end), true);
  }
  assert.deepStrictEqual(told, [0, 1, 2]);
  assert.strictEqual(r.ended.size, 1); // One match of --matches 2.
  r.client.close();
});

/** A run whose one stream the referee closes after match m1 ended. */
async function closedAfterOne(matches) {
  const { r } = runner(matches);
  r.playOnce = async () => {
    r.summary.streams += 1;
    r.handle(ended('m1'));
    return { got: true, error: null };
  };
  return r.run();
}

// A seat token with --matches=2: the referee closes its stream after its
// one match, and the run said nothing of why it exited 1.
test('a stream closed before its --matches ended says why', async () => {
  const summary = await closedAfterOne(2);
  assert.strictEqual(summary.failure, 'the referee closed the stream after 1 of 2 matches: '
    + 'a seat token plays one match');
  for (const matches of [0, 1]) {
    // eslint-disable-next-line no-await-in-loop
    assert.strictEqual((await closedAfterOne(matches)).failure, '');
  }
});
