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

/**
 * The `size` bytes the file at `path` holds as hex digits (surrounding ASCII
 * whitespace allowed). Throws an Error led by `flag` when it cannot be read
 * (readFile's) or saying what it holds instead, as the C++ programs say it
 * ("--key_file: F: expected 64 hex digits, found 62 of them").
 */
function readHexFile(flag, path, size) {
  const text = readFile(flag, path, 'latin1').replace(/^[ \t\n\v\f\r]+|[ \t\n\v\f\r]+$/g, '');
  if (text.length === 2 * size && /^[0-9a-fA-F]*$/.test(text)) return Buffer.from(text, 'hex');
  let found = `${text.length} characters, not all hex digits`;
  if (!text) found = 'nothing';
  else if (/^[0-9a-fA-F]+$/.test(text)) found = `${text.length} of them`;
  throw new Error(`${flag}: ${path}: expected ${2 * size} hex digits, found ${found}`);
}

// Edwards25519 (RFC 8032 5.1): -x^2 + y^2 = 1 + d x^2 y^2 over GF(P); L is
// the order of its main subgroup.
const P = 2n ** 255n - 19n;
const L = 2n ** 252n + 27742317777372353535851937790883648493n;
const mod = (a) => ((a % P) + P) % P;
function pow(base, exp) {
  let result = 1n;
  let b = mod(base);
  for (let e = exp; e > 0n; e >>= 1n) {
    if (e & 1n) result = (result * b) % P;
    b = (b * b) % P;
  }
  return result;
}
const D = mod(-121665n * pow(121666n, P - 2n));
const SQRT_M1 = pow(2n, (P - 1n) / 4n);

/** Extended coordinates [X, Y, Z, T] of a + b (a complete formula). */
function add([X1, Y1, Z1, T1], [X2, Y2, Z2, T2]) {
  const a = mod((Y1 - X1) * (Y2 - X2));
  const b = mod((Y1 + X1) * (Y2 + X2));
  const c = mod(2n * D * T1 * T2);
  const d = mod(2n * Z1 * Z2);
  const [e, f, g, h] = [b - a, d - c, d + c, b + a];
  return [mod(e * f), mod(g * h), mod(f * g), mod(e * h)];
}

/** n times the point p (n > 0). */
function times(n, p) {
  let result = [0n, 1n, 1n, 0n];
  let doubled = p;
  for (let k = n; k > 0n; k >>= 1n) {
    if (k & 1n) result = add(result, doubled);
    doubled = add(doubled, doubled);
  }
  return result;
}

const isIdentity = ([X, Y, Z]) => X === 0n && Y === Z;

/**
 * Whether the 32 bytes `key` are an Ed25519 public key: the canonical
 * encoding of a point of the curve's main subgroup, not of small order
 * (libsodium's crypto_core_ed25519_is_valid_point, as the C++ programs and
 * the Python kit check it; Node's crypto takes any 32 bytes).
 */
function isPublicKey(key) {
  if (key.length !== 32) return false;
  const bytes = Buffer.from(key);
  bytes[31] &= 0x7f; // The sign of x: either point has the same order.
  const y = BigInt(`0x${Buffer.from(bytes).reverse().toString('hex')}`);
  if (y >= P) return false;
  const u = mod(y * y - 1n);
  const v = mod(D * y * y + 1n);
  // x = sqrt(u / v) (RFC 8032 5.1.3), if there is one.
  let x = mod(u * pow(v, 3n) * pow(u * pow(v, 7n), (P - 5n) / 8n));
  if (mod(v * x * x) !== u) {
    if (mod(v * x * x) !== mod(-u)) return false;
    x = mod(x * SQRT_M1);
  }
  const point = [x, y, 1n, mod(x * y)];
  return !isIdentity(times(8n, point)) && isIdentity(times(L, point));
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
   * Reads a key file as `keygen` writes it: 64 hex digits of the seed
   * (surrounding whitespace and upper case allowed). Throws an Error led by
   * --key_file, worded as the C++ bot's (ReadSigningKey,
   * referee/crypto/ed25519.cc), for a file that cannot be read, a public
   * key file (a name ending in .pub: its 64 hex digits would sign with a
   * "secret" anyone has), text that is not 64 hex digits, and a key that is
   * not the secret half of the public key in PATH.pub beside it, when that
   * is a regular file holding one.
   */
  static fromFile(path) {
    const flag = '--key_file';
    if (String(path).endsWith('.pub')) {
      throw new Error(`${flag}: ${path} is a public key file (.pub): give the secret key file `
        + '(keygen writes it without .pub)');
    }
    const seed = readHexFile(flag, path, 32);
    const key = new SeatKey(seed);
    const sibling = `${path}.pub`;
    let published = null;
    try {
      if (fs.statSync(sibling).isFile()) published = readHexFile(flag, sibling, 32);
    } catch (error) {
      published = null; // Missing, or not a key: not this check's business.
    }
    if (published && isPublicKey(published) && !published.equals(key.publicKey)) {
      if (published.equals(seed)) {
        throw new Error(`${flag}: ${path} holds the public key that ${sibling} holds, not a `
          + `secret key: give the secret key file (the one keygen wrote beside ${sibling})`);
      }
      throw new Error(`${flag}: ${sibling}, next to it, holds another public key than `
        + `${path}'s: the key in ${path} is not its secret half; give the secret key that `
        + `matches ${sibling}, or remove or replace ${sibling} (keygen writes a matching pair)`);
    }
    return key;
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
 * Throws, naming where it came from (a file after its flag or variable, as
 * the C++ bot names it: "--token_file: F ..."), when that holds no token: a
 * token is printable ASCII without spaces (it travels as gRPC metadata), or
 * when the file cannot be read or is empty.
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
    throw new Error(`${file ? `${flag}: ${file}` : '$PYRAMID_TOKEN'} does not hold a token: a `
      + 'token is printable ASCII without spaces');
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
  isPublicKey,
};
