/**
 * The poller's decisions as pure functions (docs/worker-semantics.md, "Push and poll"), so the shared
 * vectors (conformance-tests/vectors/poller.json) check the same rules in every SDK: which poll to
 * send now, its RPC deadline, the pause after an empty answer, and what an answer means.
 * @internal
 */

/** While the stream keeps held above the poll threshold, a fairness poll is due this long after the last poll ended (rule 8). */
export const FAIRNESS_INTERVAL_MS = 1_000
/** A long poll whose first job came at least this long after sending is stall evidence (rule 6): a backlog is answered at once. */
export const STALL_PARKED_MIN_MS = 500

/** What the poller knows when it decides. */
export interface PollInput {
  /** max − held − reserved (Ledger.pollWanted) */
  free: number
  /** jobs held ≤ 30 % of capacity */
  below: boolean
  /** a stream is open */
  pushing: boolean
  /** the first poll, or one after the stream (re)opened */
  backfill: boolean
  /** the last poll got all it asked for while pushing */
  due: boolean
  sinceLastEndMs: number
  streamEnabled: boolean
  /** the worker's option (0: the gateway's default long poll, < 0: no long polling) */
  requestTimeoutMs: number
}

/** Send a poll for `ask` jobs, or wait for a change. */
export type PollDecision =
  | {
      send: true
      ask: number
      /** of this request (−1: answer at once) */
      requestTimeoutMs: number
      /** a long poll that may park: the stream reader may borrow from its pool */
      parks: boolean
      markDue: false
    }
  | {
      send: false
      /** the stream reader leaves the next free slot to this poll */
      markDue: boolean
      /** look again after this long even if nothing changes (null: only on a change) */
      fairnessInMs: number | null
    }

/**
 * Decides the next poll. A poll is sent when a slot is free and held is at or below the poll
 * threshold, or a backfill or fairness poll is due (rule 8: pushing above the threshold, a fairness
 * poll is due 1 s after the last poll ended, at once after a full one). Backfill (with streaming) and
 * fairness polls do not park.
 */
export function planPoll(i: PollInput): PollDecision {
  let fairness = false
  let fairnessInMs: number | null = null
  if (!i.backfill && !i.below && i.pushing) {
    if (i.due || i.sinceLastEndMs >= FAIRNESS_INTERVAL_MS) fairness = true
    else fairnessInMs = FAIRNESS_INTERVAL_MS - i.sinceLastEndMs
  }
  const special = i.backfill || fairness
  if (i.free <= 0 || !(special || i.below)) return { send: false, markDue: special && i.free <= 0, fairnessInMs }
  const rt = fairness || (i.backfill && i.streamEnabled) || i.requestTimeoutMs < 0 ? -1 : i.requestTimeoutMs
  return { send: true, ask: i.free, requestTimeoutMs: rt, parks: rt >= 0, markDue: false }
}

/**
 * What a poll's answer means: one that got as many jobs as it asked for while pushing makes the next
 * poll due at once (`due`); a long poll (not a backfill) whose first job came ≥ STALL_PARKED_MIN_MS
 * after sending is stall evidence (`stall`): its jobs became activatable while the stream should
 * have been pushing them.
 */
export function afterPoll(a: {
  pushing: boolean
  failed: boolean
  asked: number
  got: number
  backfill: boolean
  parks: boolean
  firstJobMs: number | null
}): { due: boolean; stall: boolean } {
  if (a.failed) return { due: false, stall: false }
  return {
    due: a.pushing && a.got > 0 && a.got >= a.asked,
    stall: a.got > 0 && !a.backfill && a.parks && a.firstJobMs !== null && a.firstJobMs >= STALL_PARKED_MIN_MS,
  }
}

/**
 * Whether an empty answer is followed by a pause of pollInterval: unless the gateway parked the call
 * for at least half its long-poll time (requestTimeout, or the gateway's default 10 s for 0). Without
 * long polling (negative) every empty answer pauses.
 */
export function emptyPollPause(requestTimeoutMs: number, elapsedMs: number): boolean {
  if (requestTimeoutMs < 0) return true
  if (requestTimeoutMs === 0) return elapsedMs < 5_000
  return elapsedMs < requestTimeoutMs / 2
}

/**
 * The RPC deadline of an ActivateJobs call (same rule in every SDK): the long-poll time plus 10 s;
 * with requestTimeout 0 (the gateway's default long poll, 10 s in Zeebe) 20 s; with long polling
 * off (negative) 10 s.
 */
export function pollDeadlineMs(requestTimeoutMs: number): number {
  if (requestTimeoutMs < 0) return 10_000
  if (requestTimeoutMs === 0) return 20_000
  return requestTimeoutMs + 10_000
}
