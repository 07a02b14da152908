#!/usr/bin/env node
// A deliberately slow Node kit bot, for tests/node_kit_test.sh.
//
// Contract: plays like tools/clients/node/examples/random_bot.js, except that
// its (asynchronous) strategy waits --delay_ms before answering each of its
// first --slow_decisions decisions (0: every decision). With a delay past the
// commit deadline the kit must commit its fallback action in time, so the
// match ends with no fault. Takes the kit's shared flags too.
'use strict';

const { Bot, fallbackAction, main, parse } = require('../tools/clients/node');

const EXTRA = { delay_ms: { type: 'string', default: '3000' },
  slow_decisions: { type: 'string', default: '0' } };

class SlowBot extends Bot {
  constructor(delayMs, slowDecisions) {
    super();
    this.delayMs = delayMs;
    this.left = slowDecisions;
    this.every = slowDecisions === 0;
  }

  async choose(game, observation, legalActions) {
    const slow = this.every || this.left > 0;
    this.left -= 1;
    if (slow) await new Promise((resolve) => { setTimeout(resolve, this.delayMs); });
    if (legalActions && legalActions.length) {
      return legalActions[Math.floor(Math.random() * legalActions.length)];
    }
    return fallbackAction(game, observation, legalActions);
  }
}

main((flags) => new SlowBot(Number(flags.delay_ms), Number(flags.slow_decisions)),
  process.argv.slice(2), EXTRA).then((status) => { process.exitCode = status; });
