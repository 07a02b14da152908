// Durable commitments (--state_dir): a bot restarted between a commit and
// its reveal reveals what it committed to, instead of faulting at the
// reveal deadline.
//
// Contract: before a commitment is sent, its record is written to
// DIR/<match_id>-<seat>-<decision_id>.json, one JSON object
//   {"match_id": "<32 hex digits>", "seat": <int>, "decision_id": <int>,
//    "action": "<base64 of the serialized Action committed to>",
//    "salt": "<base64 of the 32-byte salt>"}
// written to a temporary file in DIR, fsync'd, renamed over the name, and
// DIR fsync'd: once writeRecord returns, the record survives a crash or a
// power loss. A record that cannot be written (ENOSPC, EIO, ...) is said in
// a warning, and that decision is committed without it: a restart before
// its reveal faults the seat. The Python kit writes and reads the very same
// files, so a record written by either kit is read by the other. Names are
// built only from a match id of 32 hex digits, a seat number and a decision
// number of digits (anything else is refused before it reaches a path).
//
// A record is kept until its match ends, whatever its reveal's state (a
// referee that lost the reveal in a power loss asks that decision again,
// and gets the same commitment): removeRecords removes every record of a
// match, and any temporary file a crash left of one
// (DIR/<match_id>-*.json and DIR/<match_id>-*.json.*.tmp), when its
// MatchEnded or DATA_LOSS error arrives; nothing else removes records (the
// Python kit has the same rule). newestRecord is the seat's largest
// decision with a record: after a restart, the seat's newest decision,
// older ones without a record of their own being refused. prepareDir makes
// DIR durably (each directory made, its parent fsync'd).
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const MATCH_ID = /^[0-9a-fA-F]{32}$/;
const DIGITS = /^[0-9]+$/;

/** Whether (matchId, seat, decisionId) can name a record. */
function nameable(matchId, seat, decisionId) {
  return typeof matchId === 'string' && MATCH_ID.test(matchId)
    && DIGITS.test(String(seat)) && DIGITS.test(String(decisionId));
}

function recordName(matchId, seat, decisionId) {
  if (!nameable(matchId, seat, decisionId)) {
    throw new Error(`no record can be named after match ${JSON.stringify(matchId)} seat `
      + `${JSON.stringify(seat)} decision ${JSON.stringify(decisionId)}`);
  }
  return `${matchId}-${seat}-${decisionId}.json`;
}

/** fsyncs the directory `dir`, so that a rename in it is durable. */
function syncDir(dir) {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Makes DIR (and its parents) if missing, fsyncing the parent of each
 * directory made (so that DIR survives a power loss), and checks that this
 * process can write in it; throws the system's error saying why not.
 */
function prepareDir(dir) {
  if (fs.existsSync(dir) && !fs.statSync(dir).isDirectory()) {
    const error = new Error(`ENOTDIR: not a directory, open '${dir}'`);
    error.code = 'ENOTDIR';
    throw error;
  }
  const missing = [];
  for (let here = path.resolve(dir); !fs.existsSync(here);) {
    missing.push(here);
    const parent = path.dirname(here);
    if (parent === here) break;
    here = parent;
  }
  for (const made of missing.reverse()) {
    try {
      fs.mkdirSync(made);
    } catch (error) {
      if (error.code !== 'EEXIST') throw error; // Made meanwhile by another process.
    }
    syncDir(path.dirname(made));
  }
  fs.accessSync(dir, fs.constants.W_OK | fs.constants.X_OK);
}

/**
 * Writes the record durably (temporary file, fsync, rename, directory
 * fsync). `decisionId` a decimal string or number; `action`, `salt` Buffers.
 */
function writeRecord(dir, matchId, seat, decisionId, action, salt) {
  const name = recordName(matchId, seat, decisionId);
  // decision_id written as the digits it is (a uint64 in the protocol).
  const b64 = (bytes) => Buffer.from(bytes).toString('base64');
  const text = `{"match_id": ${JSON.stringify(matchId)}, "seat": ${Number(seat)}, `
    + `"decision_id": ${String(decisionId)}, "action": "${b64(action)}", `
    + `"salt": "${b64(salt)}"}\n`;
  // The temporary file's name starts as the record's, so that the end of
  // its match removes one a crash left behind.
  const temp = path.join(dir, `${name}.${process.pid}.tmp`);
  const fd = fs.openSync(temp, 'w', 0o600);
  try {
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(temp, path.join(dir, name));
  syncDir(dir);
}

/**
 * The record of (matchId, seat, decisionId) as { action, salt } (Buffers),
 * or null when there is none. Throws an Error saying what is wrong with a
 * record that is there but cannot be used.
 */
function readRecord(dir, matchId, seat, decisionId) {
  const name = recordName(matchId, seat, decisionId);
  const file = path.join(dir, name);
  let text;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if (error.code === 'ENOENT') return null;
    throw new Error(`cannot read ${file}: ${error.message}`);
  }
  let record;
  try {
    record = JSON.parse(text);
  } catch (error) {
    throw new Error(`${file} is not JSON: ${error.message}`);
  }
  const b64 = (field) => {
    const value = record && record[field];
    if (typeof value !== 'string' || !/^[A-Za-z0-9+/]*={0,2}$/.test(value)) {
      throw new Error(`${file}: "${field}" is not base64`);
    }
    return Buffer.from(value, 'base64');
  };
  if (!record || typeof record !== 'object' || String(record.match_id).toLowerCase()
      !== matchId.toLowerCase() || record.seat !== Number(seat)
      || String(record.decision_id) !== String(decisionId)) {
    throw new Error(`${file} is not the record of match ${matchId} seat ${seat} decision `
      + `${decisionId}`);
  }
  const action = b64('action');
  const salt = b64('salt');
  if (salt.length !== 32) throw new Error(`${file}: the salt is not 32 bytes`);
  return { action, salt };
}

// A record's name, or a temporary file's (NAME.<pid>.tmp here,
// NAME.<random>.tmp in Python).
const NAME = /^([0-9a-fA-F]{32})-([0-9]+)-([0-9]+)\.json(\.[^/]+\.tmp)?$/;

/**
 * The largest decision (a BigInt) of (matchId, seat) with a record, by
 * name; null when there is none.
 */
function newestRecord(dir, matchId, seat) {
  if (typeof matchId !== 'string' || !MATCH_ID.test(matchId)) return null;
  let newest = null;
  for (const name of fs.readdirSync(dir)) {
    const m = NAME.exec(name);
    if (!m || m[4] || m[1].toLowerCase() !== matchId.toLowerCase()
        || Number(m[2]) !== Number(seat)) continue;
    const id = BigInt(m[3]);
    if (newest === null || id > newest) newest = id;
  }
  return newest;
}

/**
 * Removes every record of the match (and temporary files a crash left):
 * its end, the one place records go. Returns how many it removed.
 */
function removeRecords(dir, matchId) {
  if (typeof matchId !== 'string' || !MATCH_ID.test(matchId)) return 0;
  let removed = 0;
  for (const name of fs.readdirSync(dir)) {
    const m = NAME.exec(name);
    if (!m || m[1] !== matchId) continue;
    try {
      fs.unlinkSync(path.join(dir, name));
      removed += 1;
    } catch (error) {
      if (error.code !== 'ENOENT') throw error;
    }
  }
  return removed;
}

module.exports = {
  nameable, recordName, prepareDir, writeRecord, readRecord, newestRecord, removeRecords,
};
