#!/usr/bin/env node
// A random bot for every game: a uniformly random legal action.
//
//   node random_bot.js --referee 127.0.0.1:50051 --token_file seat-0.token
//
// Flags: see lib/cli.js (--matches, --key_file, --quiet, ...).
'use strict';

const { Bot, fallbackAction, main } = require('..');

class RandomBot extends Bot {
  // eslint-disable-next-line class-methods-use-this
  choose(game, observation, legalActions) {
    if (legalActions && legalActions.length) return legalActions[Math.floor(Math.random() * legalActions.length)];
    // Unlisted (a Pyramid Shambo payment with very many options).
    return fallbackAction(game, observation, legalActions);
  }
}

main(new RandomBot()).then((status) => { process.exitCode = status; });
