// pyramid-kit for Node: write a bot for the pyramid referee in a few lines.
// Subclass Bot, implement choose(game, observation, legalActions), and pass
// an instance to main() (flags --referee, --token_file, --key_file, ...).
// The protocol (commit-reveal, salts, seat keys, many matches on one bot
// token, reconnection, deadlines, shutdown) is done for you; see
// docs/writing-a-bot.md.
'use strict';

const { Bot, fallbackAction, seedAction } = require('./bot');
const { main, parse } = require('./cli');
const protocol = require('./protocol');
const proto = require('./proto');

module.exports = {
  Bot, fallbackAction, seedAction, main, parse, protocol, proto,
};
