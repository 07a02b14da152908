// Unit tests of the Node kit's stream runner (lib/bot.js): how it counts the
// ends of matches, without a referee (the client connects lazily and never
// does here).
'use strict';

const assert = require('node:assert');
const test = require('node:test');
const grpc = require('@grpc/grpc-js');
const { Bot, Runner } = require('../lib/bot');

function runner(matches) {
  const lines = [];
  const r = new Runner(new Bot(), '127.0.0.1:1', 'token', {
    matches, log: (line) => lines.push(line),
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
