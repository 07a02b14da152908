// The Bot base class: a strategy plus everything around it.
//
// Contract (the same as the Python kit's pyramid_kit/bot.py). Subclass Bot
// and implement choose(game, observation, legalActions), which returns an
// Action as a plain object (e.g. { rock_paper_pyramid: { piece } }) or a
// Promise of one; call run(referee, token). The kit then, on one Play
// stream per token:
// - answers decision 0 with 32 secure random bytes naming the log header the
//   referee announced (SeedContribution.header_hash: a copy of the request's
//   header_hash, so that the seat's commitment binds the header) and every
//   later decision with the strategy's action: serialized once, committed
//   with a fresh 32-byte salt, those very bytes revealed when asked (or right
//   after the commit when the decision has a single seat);
// - signs every commit when given a SeatKey;
// - keys all state on (match, seat, decision), so one bot token plays any
//   number of matches at once;
// - commits to each decision once: a decision asked again gets the same
//   commitment (after a reconnection, or a referee's restart that lost the
//   reveal), and is refused with a line saying so when older than the
//   seat's newest decision, when its match is over, or when its commitment
//   was dropped to make room, so that a referee cannot draw the strategy's
//   choice again (docs/writing-a-bot.md, "What a bot must never do"); also
//   refused with a line: a match id that is not 16 bytes in hex and a
//   request whose view refers to a result never received. It keeps the
//   commitments of at most MAX_OPEN_DECISIONS seats (a seat's newer
//   decision closes its older one): past that, the least recently used is
//   dropped to make room, one whose reveal was acknowledged if any, else
//   the oldest whose reveal is owed (with a line). A message the kit cannot
//   handle otherwise is logged and skipped, never thrown out of run();
// - when the commit deadline comes within deadlineMarginMs before the
//   strategy's promise settles, commits the fallback action (the first
//   listed legal action, or `canonical` for an unlisted Pyramid Shambo
//   payment: always legal) and ignores the late answer; an answer at hand
//   at once (within AT_ONCE_MS of the strategy's call) is committed even
//   when the clock leaves no time after the margin (which is said once per
//   match). A strategy that blocks the event loop keeps the deadline timer
//   from firing: its answer, checked against the clock as it comes, gets
//   the fallback committed in its place past that time (said late, as the
//   Python kit's timer would have done), and nothing past the commit
//   deadline itself (said, with what to do: a worker thread). A strategy
//   that throws or
//   rejects gets the fallback too (logged as a failure, not as late: its
//   stack once, the same error again counted), and so does one whose
//   action is not an Action (a key that is no field of its message, or an
//   enum name its enum lacks: a warning naming the field) or that the
//   decision's list of legal actions does not hold (a warning naming the
//   decision; decisions without a list are not checked). A strategy that
//   blocks the event loop blocks the kit (its streams, its other matches):
//   run a slow one in a worker thread;
// - when the stream breaks for a reason a reconnection can mend, opens a new
//   one with the same token, backing off from 100 ms doubling to 5 s, for at
//   most reconnectForS seconds without a referee, and commits or reveals
//   again whatever the referee asks for (its last wait cut to what is left
//   of reconnectForS). While the referee is away, a wait is no blind sleep:
//   the channel tries to connect at most 250 ms (plus jitter) after each
//   failed attempt, and the new stream opens as soon as one succeeds, so
//   that the bot is back within a few hundred milliseconds of a referee's
//   restart, before the deadlines it reopens (docs/durability.md); only a
//   referee that is up and ended the stream itself is waited for whole.
//   A stream the referee ended because
//   a newer stream of the same token replaced it (another process plays
//   this token) is not reopened: the run stops with a failure, so that two
//   processes do not take the token from each other forever; nor is a stream
//   the referee ended DATA_LOSS because it broke the token's match
//   (BROKEN_FAILURE: the match never resumes);
// - with a state directory (stateDir, --state_dir), writes each commitment's
//   record there durably before the commitment leaves (lib/state.js: the
//   Python kit's format), so that a process restarted between a commit and
//   its reveal reveals it (or commits it again, never another) when the
//   referee asks, whatever the state of its reveal (a referee that lost an
//   acknowledged reveal in a power loss asks that decision again). A record
//   stays until its match ends (MatchEnded, or its DATA_LOSS error), which
//   removes all of that match's; after a restart, the seat's newest
//   decision is the largest with a record, and an older one without a
//   record of its own is refused as above. A record that cannot be written
//   is said, and its decision committed without it (a restart before its
//   reveal faults the seat). A commitment the referee holds and no record
//   keeps is said once per decision (the seat will fault);
// - stops cleanly on stop() (the command line calls it on SIGINT and
//   SIGTERM), after `matches` matches ended, or when the referee closes the
//   stream (it does so to a seat token's once its match ended): before
//   `matches` matches ended, with a failure saying so.
'use strict';

const grpc = require('@grpc/grpc-js');
const crypto = require('node:crypto');
const protocol = require('./protocol');
const state = require('./state');
const { load, encodeAction } = require('./proto');

// At most this many seats' commitments are kept at once (the salt and action
// of each seat's newest decision, or its request while it is being decided).
// Past it, the least recently used is dropped to make room: one whose reveal
// was acknowledged if any, else the oldest whose reveal is owed. A dropped
// decision asked again is refused, never committed to anew.
const MAX_OPEN_DECISIONS = 4096;

// A strategy's distinct errors (type and message) remembered, to print
// each one's stack once.
const STRATEGY_ERRORS = 64;

// Stream errors that another attempt cannot mend.
const FINAL = new Set([grpc.status.UNAUTHENTICATED, grpc.status.PERMISSION_DENIED,
  grpc.status.INVALID_ARGUMENT, grpc.status.UNIMPLEMENTED]);

// How the referee ends the older of two streams of one token
// (docs/protocol.md, "Reconnecting"). A bot never sees it for a stream of its
// own that broke (it reads only its newest stream), so it means that another
// process connected with this token.
const REPLACED_DETAILS = 'replaced by a newer stream';
const REPLACED_FAILURE = 'another process connected with this token; stopping';

// How the referee ends a seat token's stream once it broke the token's match
// (cannot go on with it: its log cannot be written; docs/protocol.md), and
// every later stream of that token: DATA_LOSS, after the PlayError saying so.
// Nothing else ends a Play stream so, and the match never resumes.
const BROKEN_FAILURE = 'the referee broke the match; not reconnecting';

/** Whether a stream ended because a newer one of its token replaced it. */
function replaced(error) {
  return error.code === grpc.status.ABORTED && error.details === REPLACED_DETAILS;
}

/** Whether a stream ended because the referee broke the token's match. */
function broken(error) {
  return error.code === grpc.status.DATA_LOSS;
}

/**
 * A stream error as one line, "UNAVAILABLE: details". grpc-js ends a failed
 * connection's details with "Resolution note: " and the name resolver's
 * note, which is most often empty: an empty one is dropped.
 */
function statusText(error) {
  const details = String(error.details ?? '').replace(/\s*Resolution note:\s*$/, '');
  return `${grpc.status[error.code] ?? error.code}: ${details}`;
}

/** The first listed legal action, else the unlisted Shambo payment's canonical one. */
function fallbackAction(game, observation, legalActions) {
  if (legalActions && legalActions.length) return legalActions[0];
  if (game === 'pyramid_shambo' && observation && observation.pyramid_shambo &&
      observation.pyramid_shambo.phase === 'SHAMBO_PHASE_PAYMENT') {
    return { pyramid_shambo: { canonical: true } };
  }
  throw new Error(`${game}: no legal action listed and none known`);
}

/**
 * Decision 0's action: 32 bytes from the secure random source, naming the
 * log header the seed decision's request announced (its header_hash, when
 * the referee sent one), so that the seat's commitment binds that header.
 */
function seedAction(request) {
  const seed = { contribution: crypto.randomBytes(32) };
  const headerHash = request && request.header_hash;
  if (headerHash && headerHash.length) seed.header_hash = Buffer.from(headerHash);
  return { seed };
}

// While the referee is away, a connection is tried again at most this long
// (plus gRPC's jitter of a fifth) after the last one failed.
const CONNECT_RETRY_MS = 250;

// When the commit deadline is already within the margin as a decision
// arrives, the strategy's answer is committed if it comes this soon after
// the strategy is called ("at once"), as in the Python kit (AT_ONCE_S).
const AT_ONCE_MS = 50;

class Bot {
  /**
   * The strategy. `legalActions` is null when the game does not list them
   * (build the action from the observation, or return
   * fallbackAction(game, observation, null)).
   */
  // eslint-disable-next-line class-methods-use-this, no-unused-vars
  choose(game, observation, legalActions) {
    throw new Error('a Bot must implement choose()');
  }

  /** The whole DecisionRequest, for strategies that need more. Calls choose. */
  decide(request) {
    return this.choose(request.game, request.observation,
      request.legal_actions_listed ? request.legal_actions : null);
  }

  /** Every DecisionResult. Default: nothing. */
  // eslint-disable-next-line class-methods-use-this, no-unused-vars
  onResult(result) {}

  /**
   * Once per seat whose MatchEnded this run gets: a bot token holding
   * several seats of one match gets one call for each (a seat token's match
   * over before the run included); an end sent again gets none. Default:
   * prints the rank (unless this.quiet).
   */
  onMatchEnded(ended) {
    if (this.quiet) return;
    const seats = (ended.outcome && ended.outcome.seats) || [];
    if (ended.seat >= seats.length) return; // No rank to print (the runner said so).
    const mine = seats[ended.seat];
    console.log(`match ${ended.match_id} seat ${ended.seat}: rank ${mine.rank}, `
      + `score ${mine.score}${mine.forfeited ? ' (forfeited)' : ''} [${ended.outcome.termination}]`);
  }

  /**
   * Plays until done; resolves to a summary { matchesEnded, errors,
   * fallbacks, strategyFailures, streams, failure }.
   * options: key (SeatKey), matches, reconnectForS (300),
   * deadlineMarginMs (500), credentials (grpc credentials; default
   * plaintext), protoDir, stateDir (keep every commitment there until its
   * match ends, so that a restarted bot still reveals it; see
   * lib/state.js), log (function of one line; default stderr), verbose
   * (log every message received). Throws when `referee` is not HOST:PORT.
   */
  async run(referee, token, options = {}) {
    const bad = protocol.addressProblem(referee);
    if (bad) throw new Error(`the referee address ${bad}`);
    if (options.stateDir) state.prepareDir(options.stateDir);
    this.runner = new Runner(this, referee, token, options);
    return this.runner.run();
  }

  /** Ends run() cleanly. */
  stop() {
    if (this.runner) this.runner.stop();
  }
}

class Runner {
  constructor(bot, referee, token, options) {
    this.bot = bot;
    this.token = token;
    this.key = options.key || null;
    this.matches = options.matches || 0;
    this.reconnectForS = options.reconnectForS ?? 300;
    this.marginMs = options.deadlineMarginMs ?? 500;
    this.verbose = Boolean(options.verbose);
    // Where commitments are kept until their match ends (null: in memory
    // only).
    this.stateDir = options.stateDir || null;
    this.log = options.log || ((line) => process.stderr.write(`pyramid_kit: ${line}\n`));
    const { Referee, Action } = load(options.protoDir);
    this.Action = Action;
    // gRPC's own reconnection backoff grows to 2 minutes: here a failed
    // connection is tried again within CONNECT_RETRY_MS, so that a bot is
    // back within a few hundred milliseconds of a referee's restart, before
    // its deadlines (awaitReferee).
    this.client = new Referee(referee, options.credentials || grpc.credentials.createInsecure(), {
      'grpc.initial_reconnect_backoff_ms': 100,
      'grpc.max_reconnect_backoff_ms': CONNECT_RETRY_MS,
    });
    // "match/seat/decision" -> entry: the newest decision of each seat, kept
    // after its reveal is acknowledged, since a referee that lost the reveal
    // (a power loss, docs/durability.md) asks it again after a restart and
    // must get the same commitment.
    this.pending = new Map();
    // Per "match seat", until its match ends: the newest decision (a BigInt)
    // the run has opened, the end of what it ever commits to anew. One here
    // that this.pending lacks was dropped to make room. A few dozen bytes a
    // seat, as this.ended keeps for every match over.
    this.newest = new Map();
    this.maxOpenDecisions = MAX_OPEN_DECISIONS;
    // The keys of this.pending, least recently used first: those whose
    // reveal was acknowledged, and the others (the reveal owed).
    this.lruAcked = new Set();
    this.lruOwed = new Set();
    this.ended = new Set();
    // "match seat" of the seats whose end this run has seen (each told to
    // the bot once).
    this.endedSeats = new Set();
    this.summary = {
      matchesEnded: 0, errors: 0, fallbacks: 0, strategyFailures: 0, streams: 0, failure: '',
    };
    this.stream = 0;
    // Per "match seat": the observation of the last DecisionResult on this
    // stream, which a DecisionRequest with observation_in_result refers to
    // (the Play feature "observation-once").
    this.views = new Map();
    this.call = null;
    this.stopping = false;
    this.wakeUp = null;
    // "match/seat/decision" of the decisions whose commitment the referee
    // holds and this process does not (said once each), and the matches
    // whose commit clock leaves the strategy no time (said once each).
    this.missingSaid = new Set();
    this.noTimeSaid = new Set();
    // A strategy's error (its stack) -> how many times it was raised: its
    // stack is printed the first time only. At most STRATEGY_ERRORS kept.
    this.strategyErrors = new Map();
  }

  async run() {
    let backoff = 100;
    let brokenSince = null;
    try {
      while (!this.stopping) {
        // eslint-disable-next-line no-await-in-loop
        const { got, error } = await this.playOnce();
        if (!error && !this.stopping) {
          // Done, or the referee closed the stream: it does so to a seat
          // token's once its match ended.
          this.summary.failure = this.closedEarly();
        }
        if (!error || this.stopping) break;
        const status = statusText(error);
        if (replaced(error)) {
          this.summary.failure = `${REPLACED_FAILURE} (stream ended: ${status})`;
          break;
        }
        if (broken(error)) {
          this.summary.failure = `${BROKEN_FAILURE} (stream ended: ${status})`;
          break;
        }
        if (FINAL.has(error.code) || this.reconnectForS <= 0) {
          this.summary.failure = `stream ended: ${status}`;
          break;
        }
        const now = Date.now();
        if (got || brokenSince === null) {
          brokenSince = now;
          backoff = 100;
        }
        // The last wait is cut to what is left of reconnectForS, so that the
        // run gives up on time (its last attempt at the end of the window).
        const left = this.reconnectForS * 1000 - (now - brokenSince);
        if (left <= 0) {
          this.summary.failure = `no referee for ${((now - brokenSince) / 1000).toFixed(1)} s`;
          break;
        }
        const wait = Math.min(backoff, left);
        // In seconds, as the Python kit and docs/writing-a-bot.md say it: "0.1 s".
        this.log(`stream ended (${status}); reconnecting in ${(wait / 1000).toFixed(1)} s`);
        // eslint-disable-next-line no-await-in-loop
        const back = await this.awaitReferee(wait);
        // The referee came back: a stream it ends at once is retried soon.
        backoff = back ? 100 : Math.min(backoff * 2, 5000);
      }
    } finally {
      for (const entry of this.pending.values()) clearTimeout(entry.timer);
      this.client.close();
    }
    this.summary.matchesEnded = this.ended.size;
    return this.summary;
  }

  /**
   * Why the run ends when the referee closed the stream before `matches`
   * matches ended (empty: it did not).
   */
  closedEarly() {
    if (!this.matches || this.enough()) return '';
    return `the referee closed the stream after ${this.ended.size} of ${this.matches} matches: `
      + 'a seat token plays one match';
  }

  /**
   * The wait before the next stream, at most `ms` (resolves early on
   * stop()). While the channel is not connected (the referee is away), it
   * is made to connect, an attempt at most CONNECT_RETRY_MS (plus gRPC's
   * jitter) after the last one failed, and the wait ends as soon as it is:
   * resolves true then (the referee is back), else false. A channel
   * connected at the start (the referee is up and ended the stream itself)
   * waits `ms` whole, the backoff that spares a referee refusing streams.
   */
  async awaitReferee(ms) {
    const channel = this.client.getChannel();
    const until = Date.now() + ms;
    const stopped = new Promise((resolve) => { this.wakeUp = resolve; });
    if (channel.getConnectivityState(false) === grpc.connectivityState.READY) {
      let timer;
      await Promise.race([new Promise((resolve) => { timer = setTimeout(resolve, ms); }), stopped]);
      clearTimeout(timer);
      return false;
    }
    while (!this.stopping) {
      // true: an idle channel starts connecting.
      const state = channel.getConnectivityState(true);
      if (state === grpc.connectivityState.READY) return true;
      const left = until - Date.now();
      if (left <= 0) return false;
      // A change of state, or the next look (which connects an idle channel).
      const deadline = Date.now() + Math.min(left, CONNECT_RETRY_MS);
      // eslint-disable-next-line no-await-in-loop
      await Promise.race([stopped, new Promise((resolve) => {
        channel.watchConnectivityState(state, deadline, () => resolve());
      })]);
    }
    return false;
  }

  /** One Play stream: resolves when it ends, with the error that ended it. */
  playOnce() {
    this.stream += 1;
    this.summary.streams += 1;
    const metadata = new grpc.Metadata();
    metadata.set('authorization', `Bearer ${this.token}`);
    metadata.set('pyramid-play-features', 'observation-once, batch');
    this.views.clear(); // A new stream: views come afresh.
    const call = this.client.Play(metadata);
    this.call = call;
    let got = false;
    return new Promise((resolve) => {
      let settled = false;
      const finish = (error) => {
        if (settled) return;
        settled = true;
        call.removeAllListeners('data');
        call.cancel();
        resolve({ got, error });
      };
      call.on('data', (response) => {
        got = true;
        let more = true;
        try {
          more = this.handle(response);
        } catch (error) { // A malformed message must not end the run.
          this.log(`could not handle a ${response && response.kind} from the referee; ignoring it: `
            + `${error && error.stack ? error.stack : error}`);
        }
        if (!more) finish(null);
      });
      call.on('error', (error) => finish(error));
      call.on('end', () => finish(null));
    });
  }

  stop() {
    this.stopping = true;
    if (this.call) this.call.cancel();
    if (this.wakeUp) this.wakeUp();
  }

  send(message) {
    try {
      this.call.write(message);
    } catch (error) {
      // The stream is gone: the referee asks again after the reconnection.
    }
  }

  /** Returns false once enough matches have ended. */
  handle(response) {
    const { kind } = response;
    const m = response[kind];
    if (kind === 'batch') { // The Play feature "batch": each in order.
      return m.responses.map((inner) => this.handle(inner)).every(Boolean);
    }
    if (this.verbose) this.log(`<- ${kind}: ${JSON.stringify(m)}`);
    if (kind === 'decision') {
      this.onDecision(m);
    } else if (kind === 'reveal_request') {
      if (this.pending.has(keyOf(m))) {
        this.reveal(keyOf(m));
      } else if (this.resume(m)) {
        this.reveal(keyOf(m));
      }
    } else if (kind === 'reveal_ack') {
      // The choice is kept in memory: a referee that lost the reveal (a
      // power loss under --fsync=checkpoints, docs/durability.md) opens the
      // decision again after its restart, and gets the same commitment.
      // Owed no more, it is the first to go when room is needed. Its record
      // in the state directory stays until the match ends.
      const entry = this.pending.get(keyOf(m));
      if (entry) clearTimeout(entry.timer);
      if (entry && entry.revealedOn >= 0) this.touch(keyOf(m), true);
    } else if (kind === 'result') {
      this.views.set(`${m.match_id} ${m.seat}`, m.observation);
      this.bot.onResult(m);
    } else if (kind === 'match_ended') {
      return this.onMatchEnded(m);
    } else if (kind === 'error') {
      this.summary.errors += 1;
      this.log(`match ${m.match_id} seat ${m.seat} decision ${m.decision_id}: code ${m.code}: `
        + `${m.message}${m.faulted ? ' (faulted)' : ''}`);
      if (m.code === grpc.status.DATA_LOSS) {
        // The match broke (the referee could not write its log) and
        // stopped: no MatchEnded will ever come. It is over.
        this.end(m.match_id, m.seat);
        return !this.enough();
      }
    }
    return true;
  }

  onMatchEnded(ended) {
    if (this.end(ended.match_id, ended.seat)) {
      const seats = (ended.outcome && ended.outcome.seats) || [];
      if (ended.seat >= seats.length) {
        this.log(`match ${JSON.stringify(ended.match_id)} seat ${ended.seat} ended, but its `
          + `outcome has ${seats.length} seat(s): no rank for this seat`);
      }
      this.bot.onMatchEnded(ended);
    }
    return !this.enough();
  }

  /**
   * Forgets what the seat's match still had pending; returns whether this is
   * the first end of that seat this run has seen.
   */
  end(matchId, seat) {
    this.views.delete(`${matchId} ${seat}`);
    for (const [key, entry] of this.pending) {
      if (entry.request.match_id === matchId) this.forget(key);
    }
    for (const key of this.missingSaid) {
      if (key.startsWith(`${matchId}/`)) this.missingSaid.delete(key);
    }
    // Every record of the match, this process's or an earlier one's: the
    // one place records go.
    if (this.stateDir) {
      try {
        state.removeRecords(this.stateDir, matchId);
      } catch (error) {
        this.log(`match ${matchId}: cannot remove its records from ${this.stateDir}: `
          + `${error.message}`);
      }
    }
    // Its decisions are refused from now on (this.ended).
    for (const key of this.newest.keys()) {
      if (key.startsWith(`${matchId} `)) this.newest.delete(key);
    }
    // Each match counts once, on whichever stream its end comes. A seat
    // token whose match ended before this run (while the bot was away) is
    // sent that end on connecting and nothing else ever: it counts, as
    // build/bin/bot counts it, so that --matches=1 ends instead of waiting
    // forever.
    this.ended.add(matchId);
    const seatKey = `${matchId} ${seat}`;
    if (this.endedSeats.has(seatKey)) return false;
    this.endedSeats.add(seatKey);
    return true;
  }

  /** Whether as many matches as asked for have ended. */
  enough() {
    return Boolean(this.matches && this.ended.size >= this.matches);
  }

  /**
   * Closes an open decision (its strategy's answer, if any comes, is
   * dropped). Its record, if any, stays until the match ends.
   */
  forget(key) {
    const entry = this.pending.get(key);
    if (entry) clearTimeout(entry.timer);
    this.pending.delete(key);
    this.lruAcked.delete(key);
    this.lruOwed.delete(key);
  }

  /** Makes `key` the most recently used of lruAcked (`acked`) or lruOwed. */
  touch(key, acked) {
    this.lruAcked.delete(key);
    this.lruOwed.delete(key);
    (acked ? this.lruAcked : this.lruOwed).add(key);
    this.pending.get(key).acked = acked;
  }

  /**
   * At maxOpenDecisions, drops the least recently used choice: one whose
   * reveal was acknowledged if any, else the oldest whose reveal is owed
   * (with a line). Its decision is refused from then on, as this.newest
   * keeps its number.
   */
  makeRoom() {
    if (this.pending.size < this.maxOpenDecisions) return;
    const owed = this.lruAcked.size === 0;
    const first = (owed ? this.lruOwed : this.lruAcked).values().next();
    if (first.done) return;
    if (owed) {
      const r = this.pending.get(first.value).request;
      this.log(`match ${r.match_id} seat ${r.seat} decision ${r.decision_id}: dropping its `
        + `commitment, whose reveal is owed, to make room (${this.maxOpenDecisions} decisions `
        + `open at once, the kit's limit); ${this.stateDir ? `its record in ${this.stateDir} `
          + 'answers it from now on, if there is one, else it is refused'
          : 'it is refused from now on'}`);
    }
    this.forget(first.value);
  }

  /**
   * The seat's newest decision (a BigInt, or undefined): the run's, or, for
   * a seat new to this process, the largest decision with a record in the
   * state directory (an earlier process committed to it).
   */
  newestOf(matchId, seat) {
    const seatKey = `${matchId} ${seat}`;
    if (!this.newest.has(seatKey) && this.stateDir) {
      try {
        const recorded = state.newestRecord(this.stateDir, matchId, seat);
        if (recorded !== null) this.newest.set(seatKey, recorded);
      } catch (error) {
        this.log(`cannot list ${this.stateDir}: ${error.message}`);
      }
    }
    return this.newest.get(seatKey);
  }

  /**
   * Why the run refuses to open `request`, a decision it has no choice for
   * (empty: it may); `recorded`: the state directory holds its record,
   * whose commitment it may always send again, never another.
   */
  refusal(request, recorded = false) {
    if (typeof request.match_id !== 'string' || !/^[0-9a-fA-F]{32}$/.test(request.match_id)) {
      return 'its match id is not 16 bytes in hex';
    }
    if (this.ended.has(request.match_id)) return 'its match is over';
    if (recorded) return '';
    const newest = this.newestOf(request.match_id, request.seat);
    // Only a decision whose choice this.pending lacks is asked about.
    if (newest !== undefined && BigInt(request.decision_id) === newest) {
      if (this.stateDir) {
        return `its commitment is not held (dropped to make room, ${this.maxOpenDecisions} `
          + `decisions open at once, the kit's limit, or its record in ${this.stateDir} `
          + 'unusable), and a commitment is never signed twice';
      }
      return `its commitment was dropped to make room (${this.maxOpenDecisions} decisions open `
        + 'at once, the kit\'s limit), and a commitment is never signed twice';
    }
    if (newest !== undefined && BigInt(request.decision_id) < newest) {
      return `the seat committed to decision ${newest} already, and a commitment is never `
        + 'signed twice';
    }
    return '';
  }

  onDecision(request) {
    const where = `match ${JSON.stringify(request.match_id)} seat ${request.seat} `
      + `decision ${request.decision_id}`;
    if (request.observation_in_result) {
      // The view is the one of the DecisionResult just received.
      const view = this.views.get(`${request.match_id} ${request.seat}`);
      if (!view) {
        this.log(`${where}: the request refers to a result never received; ignoring it`);
        return;
      }
      request.observation = view;
      request.observation_in_result = false;
    }
    const key = keyOf(request);
    let entry = this.pending.get(key);
    if (request.committed) {
      // The reveal comes later; a commitment this process does not hold
      // (it restarted) comes from the state directory, if there.
      if (!entry) this.resume(request);
      return;
    }
    if (entry) {
      // Asked again after a reconnection: the same choice, unless already
      // sent on this stream or still being decided. One whose reveal was
      // acknowledged is asked again by a referee that lost the reveal: its
      // record is still there (records stay until the match ends).
      if (entry.action && entry.committedOn !== this.stream) this.commit(entry);
      return;
    }
    // A record in the state directory: this process (or an earlier one)
    // chose already, and the referee may hold that commitment (or lost it
    // in a power loss, its reveal perhaps acknowledged): the same one
    // again, never another.
    const record = this.refusal(request, true) ? null : this.loadRecord(request);
    const why = this.refusal(request, record !== null);
    if (why) {
      this.log(`refusing ${where}: ${why}`);
      return;
    }
    if (record) {
      entry = this.open(request, record);
      this.commit(entry);
      if (request.acting_seats.length === 1) this.reveal(key);
      return;
    }
    entry = this.open(request, null);
    if (request.decision_id === '0') {
      this.settle(entry, seedAction(request), 'seed');
      return;
    }
    const deadline = Number(request.commit_deadline_unix_ms);
    if (deadline) {
      const left = deadline - Date.now();
      if (left <= this.marginMs && !this.noTimeSaid.has(request.match_id)) {
        // A strategy that answers at once still commits its answer: the
        // timer below fires after the promise chain of an answer at hand.
        this.noTimeSaid.add(request.match_id);
        this.log(`match ${request.match_id}: the commit clock (${Math.max(Math.round(left), 0)} `
          + `ms) leaves the strategy no time after the kit's margin (${this.marginMs} ms); a `
          + 'strategy that has not answered at once commits the fallback action');
      }
      entry.timer = setTimeout(() => this.fallBack(entry), Math.max(left - this.marginMs, 0));
    }
    Promise.resolve()
      .then(() => {
        entry.calledAt = Date.now();
        return this.bot.decide(request);
      })
      .then((action) => {
        if (!this.late(entry)) this.settle(entry, action, 'strategy');
      }, (error) => {
        this.strategyFailed(entry, error);
      });
  }

  /**
   * Whether the strategy's answer to the open decision of `entry`, come
   * now, is too late to commit, as the Python kit's rule has it: past the
   * commit deadline minus the margin, or, when that left the strategy no
   * time, past AT_ONCE_MS after its call. The deadline timer commits the
   * fallback then, unless the strategy blocked the event loop, which the
   * timer cannot fire through: past that time, the fallback is committed
   * now in place of the answer (said late), and past the deadline itself
   * nothing is (the referee closed the decision and faults the seat): that
   * is said with what to do about it.
   */
  late(entry) {
    const r = entry.request;
    const deadline = Number(r.commit_deadline_unix_ms);
    if (!deadline || this.pending.get(keyOf(r)) !== entry || entry.action) return false;
    const now = Date.now();
    if (now <= Math.max(deadline - this.marginMs, entry.calledAt + AT_ONCE_MS)) return false;
    if (now < deadline) {
      this.fallBack(entry);
      return true;
    }
    clearTimeout(entry.timer); // Nothing is committed to this decision.
    this.log(`match ${r.match_id} seat ${r.seat} decision ${r.decision_id}: the event loop was `
      + `blocked past the commit deadline (the strategy answered ${now - deadline} ms after it, `
      + 'and the fallback timer could not run meanwhile): nothing is committed, and the referee '
      + 'faults the seat; run a slow strategy in a worker thread (node:worker_threads) or make '
      + 'it yield (docs/writing-a-bot.md, "JavaScript")');
    return true;
  }

  /**
   * Opens the decision of `request`, new to this process: the seat's
   * newest, whose older decision is over (the referee moved on), unless it
   * is an older one read back from its record. With `record` ({ action,
   * salt }, from the state directory), its choice is that one.
   */
  open(request, record) {
    const key = keyOf(request);
    const seatKey = `${request.match_id} ${request.seat}`;
    const older = this.newest.get(seatKey);
    const id = BigInt(request.decision_id);
    if (older !== undefined && older < id) {
      this.forget(`${request.match_id}/${request.seat}/${older}`);
    }
    if (older === undefined || older < id) this.newest.set(seatKey, id);
    this.makeRoom();
    const entry = {
      request, salt: null, action: null, committedOn: -1, revealedOn: -1, timer: null,
      acked: false, calledAt: 0,
    };
    if (record) {
      entry.salt = record.salt;
      entry.action = record.action;
      if (!this.bot.quiet) {
        this.log(`match ${request.match_id} seat ${request.seat} decision ${request.decision_id}: `
          + `resuming the commitment kept in ${this.stateDir}`);
      }
    }
    this.pending.set(key, entry);
    this.touch(key, false);
    return entry;
  }

  /** The record of `m`'s decision in the state directory, or null (said why). */
  loadRecord(m) {
    if (!this.stateDir) return null;
    try {
      return state.readRecord(this.stateDir, m.match_id, m.seat, m.decision_id);
    } catch (error) {
      this.log(`match ${m.match_id} seat ${m.seat} decision ${m.decision_id}: ${error.message}`);
      return null;
    }
  }

  /**
   * A commitment the referee holds and this process has no choice for
   * (`m` a RevealRequest, or a DecisionRequest with committed: true): from
   * the state directory, opened as committed, when its record is there
   * (returns true); else said once per decision. Nothing for a decision
   * refused (its match over, older than the seat's newest, dropped to make
   * room: said already).
   */
  resume(m) {
    if (this.refusal(m, true)) return false; // Its match id or its match.
    const record = this.loadRecord(m);
    if (this.refusal(m, record !== null)) return false;
    if (!record) {
      const key = keyOf(m);
      if (!this.missingSaid.has(key)) {
        this.missingSaid.add(key);
        this.log(`match ${m.match_id} seat ${m.seat} decision ${m.decision_id}: the referee holds `
          + 'a commitment this process does not have (restarted without --state_dir?); the seat '
          + 'will fault at the reveal deadline');
      }
      return false;
    }
    const request = m.acting_seats ? m : {
      match_id: m.match_id, seat: m.seat, decision_id: m.decision_id, acting_seats: [],
      legal_actions_listed: false, legal_actions: [],
    };
    const entry = this.open(request, record);
    entry.committedOn = this.stream; // The referee has it.
    return true;
  }

  /** Writes the entry's record to the state directory, if any. */
  saveRecord(entry) {
    if (!this.stateDir) return;
    const r = entry.request;
    try {
      state.writeRecord(this.stateDir, r.match_id, r.seat, r.decision_id, entry.action,
        entry.salt);
    } catch (error) {
      this.log(`match ${r.match_id} seat ${r.seat} decision ${r.decision_id}: cannot keep its `
        + `commitment in ${this.stateDir} (${error.message}); committing without it`);
    }
  }

  /**
   * Logs a strategy's error as the Python kit does, then falls back: the
   * stack the first time, a count for the same error again.
   */
  strategyFailed(entry, error) {
    const r = entry.request;
    this.summary.strategyFailures += 1;
    // The same error: the same type and message, as in the Python kit.
    const what = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    const times = (this.strategyErrors.get(what) || 0) + 1;
    this.strategyErrors.delete(what); // Most recent last.
    this.strategyErrors.set(what, times);
    if (this.strategyErrors.size > STRATEGY_ERRORS) {
      this.strategyErrors.delete(this.strategyErrors.keys().next().value);
    }
    const where = `strategy failed on match ${r.match_id} seat ${r.seat} decision `
      + `${r.decision_id}; sending the fallback action`;
    if (times === 1) {
      // The message first, then (like Python's traceback) the stack on the
      // lines after it.
      const stack = error instanceof Error && error.stack ? error.stack : String(error);
      this.log(`${where}\n${stack}`);
    } else {
      this.log(`${where}: the strategy raised the same error again (${times} times so far)`);
    }
    this.fallBack(entry, 'failed');
  }

  /**
   * Commits the fallback action, unless the decision is settled: `why` is
   * 'late' (the deadline timer, which says so), 'failed' or 'illegal' (the
   * strategy threw or chose an unlisted action, already said).
   */
  fallBack(entry, why = 'late') {
    if (entry.action || this.pending.get(keyOf(entry.request)) !== entry) return;
    clearTimeout(entry.timer); // Settled now, or never: not late.
    const r = entry.request;
    let action;
    try {
      action = fallbackAction(r.game, r.observation, r.legal_actions_listed ? r.legal_actions : null);
    } catch (error) {
      this.log(`match ${r.match_id} decision ${r.decision_id}: ${error.message}`);
      return;
    }
    this.summary.fallbacks += 1;
    if (why === 'late') {
      this.log(`match ${r.match_id} seat ${r.seat} decision ${r.decision_id}: the strategy is late; `
        + 'committing the fallback action');
    }
    this.settle(entry, action, 'fallback');
  }

  /**
   * Fixes the action (first come, first served), commits, reveals if
   * single-seat. `source` 'strategy': the strategy's answer, checked
   * against the listed legal actions.
   */
  settle(entry, action, source) {
    if (entry.action || this.pending.get(keyOf(entry.request)) !== entry) return;
    const r = entry.request;
    let bytes;
    try {
      bytes = encodeAction(this.Action, action);
    } catch (error) {
      // Not an object, a key that is no field of its message, or an enum
      // field set to a name its enum lacks.
      this.log(`match ${r.match_id} seat ${r.seat} decision ${r.decision_id}: the strategy's `
        + `action is not an Action: ${error.message}; sending the fallback action`);
      this.fallBack(entry, 'illegal');
      return;
    }
    if (source === 'strategy' && r.legal_actions_listed && !this.listed(bytes, r.legal_actions)) {
      // The referee would fault the seat (FAULT_ILLEGAL_ACTION).
      const n = r.legal_actions.length;
      this.log(`match ${r.match_id} seat ${r.seat} decision ${r.decision_id}: the strategy's `
        + `action is not ${n === 1 ? 'the only legal action' : `one of the ${n} legal actions`}; `
        + 'sending the fallback action');
      this.fallBack(entry, 'illegal');
      return;
    }
    clearTimeout(entry.timer);
    entry.salt = protocol.newSalt();
    entry.action = bytes; // Serialized once: what is hashed is what is revealed.
    // Durable before the commitment leaves (--state_dir).
    this.saveRecord(entry);
    this.commit(entry);
    if (entry.request.acting_seats.length === 1) this.reveal(keyOf(entry.request));
  }

  /**
   * Whether the serialized action is one of `legalActions` (plain objects),
   * compared as messages: every field with its default filled in, so that
   * an explicit 0 and an absent field are the same, as in protobuf.
   */
  listed(bytes, legalActions) {
    const canonical = (b) => JSON.stringify(this.Action.toObject(this.Action.decode(b), {
      longs: String, enums: String, bytes: String, defaults: true,
    }));
    const wanted = canonical(bytes);
    return legalActions.some((a) => canonical(encodeAction(this.Action, a)) === wanted);
  }

  commit(entry) {
    const r = entry.request;
    entry.committedOn = this.stream;
    this.touch(keyOf(r), false); // Its reveal is owed (again).
    const c = protocol.commitment(r.match_id, r.seat, r.decision_id, entry.salt, entry.action);
    const signature = this.key ? this.key.signCommit(r.match_id, r.seat, r.decision_id, c)
      : Buffer.alloc(0);
    this.send({
      commit: {
        match_id: r.match_id, seat: r.seat, decision_id: r.decision_id, commitment: c, signature,
      },
    });
  }

  reveal(key) {
    const entry = this.pending.get(key);
    if (!entry || !entry.action || entry.revealedOn === this.stream) return;
    entry.revealedOn = this.stream;
    this.touch(key, entry.acked);
    const r = entry.request;
    this.send({
      reveal: {
        match_id: r.match_id, seat: r.seat, decision_id: r.decision_id, salt: entry.salt,
        action: entry.action,
      },
    });
  }
}

function keyOf(m) {
  return `${m.match_id}/${m.seat}/${m.decision_id}`;
}

// Runner is exported for the kit's unit tests only (test/runner.test.js).
module.exports = {
  Bot, fallbackAction, seedAction, Runner, REPLACED_FAILURE, statusText, MAX_OPEN_DECISIONS,
};
