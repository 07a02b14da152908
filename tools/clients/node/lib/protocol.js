// The protocol's bytes: commitments, commit signatures, key files, tokens.
//
// Contract: byte for byte as docs/protocol.md ("Commit, then reveal") and
// docs/test-vectors.md define them; test/protocol.test.js checks each
// function against testdata/vectors/primitives.txt. Ed25519 comes from
// Node's own crypto module (no extra package).
'use strict';

const crypto = require('node:crypto');
const fs = require('node:fs');

const COMMIT_DOMAIN = Buffer.from('pyramid-referee/commit/v1\0', 'latin1');
const COMMIT_SIG_DOMAIN = Buffer.from('pyramid-referee/commit-sig/v1\0', 'latin1');
// DER prefix that makes a raw 32-byte Ed25519 seed a PKCS#8 key.
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** match_id (16 raw bytes) || u32be(seat) || u64be(decisionId). */
function header(matchIdHex, seat, decisionId) {
  const matchId = Buffer.from(matchIdHex, 'hex');
  if (matchId.length !== 16 || matchIdHex.length !== 32) {
    throw new Error(`match id ${JSON.stringify(matchIdHex)} is not 16 bytes`);
  }
  const out = Buffer.alloc(28);
  matchId.copy(out, 0);
  out.writeUInt32BE(Number(seat), 16);
  out.writeBigUInt64BE(BigInt(decisionId), 20);
  return out;
}

/** SHA-256(D_c || match_id || u32be(seat) || u64be(decision) || salt || action). */
function commitment(matchIdHex, seat, decisionId, salt, actionBytes) {
  if (salt.length !== 32) throw new Error('the salt must be 32 bytes');
  return crypto.createHash('sha256')
    .update(COMMIT_DOMAIN).update(header(matchIdHex, seat, decisionId))
    .update(salt).update(actionBytes).digest();
}

/** The 90 bytes a keyed seat signs: D_s || match_id || seat || decision || commitment. */
function commitSignatureMessage(matchIdHex, seat, decisionId, commitmentBytes) {
  return Buffer.concat([COMMIT_SIG_DOMAIN, header(matchIdHex, seat, decisionId),
    commitmentBytes]);
}

/** 32 fresh bytes from the system's secure random source. */
function newSalt() {
  return crypto.randomBytes(32);
}

/** An Ed25519 key for seats registered with its public key. */
class SeatKey {
  /** @param {Buffer} seed the 32-byte secret seed */
  constructor(seed) {
    if (seed.length !== 32) throw new Error('an Ed25519 seed is 32 bytes');
    this.privateKey = crypto.createPrivateKey({
      key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8',
    });
  }

  /**
   * Reads a key file as `keygen` writes it: 64 hex digits of the seed (a
   * file that cannot be read: an Error naming --key_file).
   */
  static fromFile(path) {
    const text = readFile('--key_file', path, 'latin1').trim();
    if (!/^[0-9a-fA-F]{64}$/.test(text)) {
      throw new Error(`${path}: an Ed25519 seed is 64 hex digits`);
    }
    return new SeatKey(Buffer.from(text, 'hex'));
  }

  /** The raw 32-byte public key. */
  get publicKey() {
    const der = crypto.createPublicKey(this.privateKey).export({ format: 'der', type: 'spki' });
    return der.subarray(der.length - 32);
  }

  /** Pure Ed25519 (RFC 8032) signature of message, 64 bytes. */
  sign(message) {
    return crypto.sign(null, message, this.privateKey);
  }

  /** CommitMove.signature for this commitment. */
  signCommit(matchIdHex, seat, decisionId, commitmentBytes) {
    return this.sign(commitSignatureMessage(matchIdHex, seat, decisionId, commitmentBytes));
  }
}

/**
 * fs.readFileSync(path, encoding), a failure thrown as an Error naming the
 * flag (or variable) and the file the way the Python kit does:
 * "--token_file: cannot read F: No such file or directory".
 */
function readFile(flag, path, encoding) {
  try {
    return fs.readFileSync(path, encoding);
  } catch (error) {
    // "ENOENT: no such file or directory, open 'F'": the middle part.
    const match = /^[A-Z]+: (.*), \w+ '/.exec(error.message || '');
    const why = match ? match[1].charAt(0).toUpperCase() + match[1].slice(1) : error.message;
    throw new Error(`${flag}: cannot read ${path}: ${why}`);
  }
}

/**
 * The Play token: from the file at path, else $PYRAMID_TOKEN_FILE (the
 * tournament runner sets it), else $PYRAMID_TOKEN itself. Never printed.
 * Throws, naming where it came from, when that holds no token: a token is
 * printable ASCII without spaces (it travels as gRPC metadata), or naming
 * the flag or variable and the file when the file cannot be read.
 */
function readToken(path) {
  const file = path || process.env.PYRAMID_TOKEN_FILE;
  const flag = path ? '--token_file' : '$PYRAMID_TOKEN_FILE';
  const token = (file ? readFile(flag, file, 'latin1') : process.env.PYRAMID_TOKEN || '').trim();
  if (!token && file) throw new Error(`${flag}: ${file} is empty`);
  if (!token) {
    throw new Error('no token: give --token_file, or set $PYRAMID_TOKEN_FILE or $PYRAMID_TOKEN');
  }
  if (!/^[\x21-\x7e]+$/.test(token)) {
    throw new Error(`${file || '$PYRAMID_TOKEN'} does not hold a token: a token is printable ` +
      'ASCII without spaces');
  }
  return token;
}

/**
 * What is wrong with a referee address (empty: nothing). One is HOST:PORT:
 * HOST a name or an IPv4 address, or an IPv6 address in brackets
 * ([::1]:50051); PORT 1 to 65535. No scheme (http://), no path. A Unix
 * domain socket, unix:PATH, is one too (as in the Python kit).
 */
function addressProblem(address) {
  const text = JSON.stringify(String(address));
  if (/^unix:./.test(String(address))) return '';
  const form = 'is HOST:PORT (PORT 1 to 65535; an IPv6 host in brackets, as [::1]:50051) '
    + 'or unix:PATH';
  // [IPv6 (with a %zone)]:PORT, or NAME:PORT.
  const shape = /^(\[[0-9A-Fa-f:.]+(%[A-Za-z0-9._-]+)?\]|[A-Za-z0-9._-]+):([0-9]+)$/;
  const m = shape.exec(String(address));
  if (!m) {
    if (/^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.test(String(address))) {
      return `${form}, not a URL: ${text}`;
    }
    if (/^[^:]*$/.test(String(address))) return `${form}: no port in ${text}`;
    return `${form}, not ${text}`;
  }
  const port = Number(m[3]);
  if (port < 1 || port > 65535) return `${form}: port ${m[3]} is out of range in ${text}`;
  return '';
}

module.exports = {
  commitment, commitSignatureMessage, newSalt, SeatKey, readToken, readFile, addressProblem,
};
