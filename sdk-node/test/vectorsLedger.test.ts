/**
 * The shared ledger and poller vectors (conformance-tests/vectors/ledger.json and poller.json, read in
 * place: the one source for all four SDKs) against the Ledger and the poller's pure decisions
 * (planPoll, afterPoll, emptyPollPause, pollDeadlineMs).
 */
import * as fs from 'fs'
import * as path from 'path'
import { Ledger, type Slot } from '../src/worker/ledger'
import { afterPoll, emptyPollPause, planPoll, pollDeadlineMs, type PollDecision, type PollInput } from '../src/worker/pollplan'

/** Walks up from this file to the repository root's conformance-tests/vectors/<name>. */
function readVectors<T>(name: string): T {
  const rel = path.join('conformance-tests', 'vectors', name)
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const p = path.join(dir, rel)
    if (fs.existsSync(p)) return JSON.parse(fs.readFileSync(p, 'utf8')) as T
    if (path.dirname(dir) === dir) throw new Error(`${rel} not found above ${__dirname}`)
  }
}

interface Step {
  op: string
  n?: number
  parks?: boolean
  due?: boolean
  resting?: boolean
  slot?: string
  want?: unknown
  jobs?: number
  free?: number
}

const ledgerV = readVectors<{ cases: { name: string; max: number; steps: Step[] }[] }>('ledger.json')

describe('ledger vectors (ledger.json)', () => {
  it('has the cases', () => {
    expect(ledgerV.cases.length).toBeGreaterThanOrEqual(10)
  })

  it.each(ledgerV.cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const l = new Ledger(c.max)
    const slots = new Map<string, Slot>()
    const slotWant = (i: number, s: Step, got: Slot | undefined) => {
      const where = `step ${i} ${s.op}`
      if (s.want === null) {
        expect({ where, slot: got !== undefined }).toEqual({ where, slot: false })
      } else {
        expect({ where, slot: got !== undefined }).toEqual({ where, slot: true })
        slots.set(s.want as string, got!)
      }
    }
    c.steps.forEach((s, i) => {
      const where = `step ${i} ${s.op}`
      switch (s.op) {
        case 'pollWanted':
          expect({ where, ...l.pollWanted() }).toEqual({ where, ...(s.want as object) })
          break
        case 'setPollDue':
          l.setPollDue(s.due!)
          break
        case 'restPoll':
          l.restPoll(s.resting!)
          break
        case 'reservePoll':
          expect({ where, got: l.reservePoll(s.n!, s.parks!) }).toEqual({ where, got: s.want })
          break
        case 'takePoll':
          slotWant(i, s, l.takePoll())
          break
        case 'returnPoll':
          l.returnPoll()
          break
        case 'reserveStream':
          expect({ where, got: l.reserveStream() }).toEqual({ where, got: s.want })
          break
        case 'claimStream':
          slotWant(i, s, l.claimStream())
          break
        case 'dropStream':
          l.dropStream()
          break
        case 'release': {
          const slot = slots.get(s.slot!)
          if (!slot) throw new Error(`${where}: no slot ${s.slot}`)
          slot.release()
          break
        }
        case 'check':
          expect({ where, jobs: l.held, free: l.free }).toEqual({ where, jobs: s.jobs, free: s.free })
          break
        default:
          throw new Error(`${where}: unknown op`)
      }
    })
  })
})

interface PlanCase {
  name: string
  in: PollInput
  out: { send: boolean; ask?: number; requestTimeoutMs?: number; parks?: boolean; markDue: boolean; fairnessInMs?: number | null }
}

const pollerV = readVectors<{
  plan: { cases: PlanCase[] }
  deadline: { cases: { requestTimeoutMs: number; deadlineMs: number }[] }
  emptyPause: { cases: { requestTimeoutMs: number; elapsedMs: number; pause: boolean }[] }
  afterPoll: {
    cases: {
      pushing: boolean
      failed: boolean
      asked: number
      got: number
      backfill: boolean
      parks: boolean
      firstJobMs: number | null
      due: boolean
      stall: boolean
    }[]
  }
}>('poller.json')

describe('poller vectors (poller.json)', () => {
  it('has every section', () => {
    expect(pollerV.plan.cases.length).toBeGreaterThanOrEqual(10)
    expect(pollerV.deadline.cases.length).toBeGreaterThan(0)
    expect(pollerV.emptyPause.cases.length).toBeGreaterThan(0)
    expect(pollerV.afterPoll.cases.length).toBeGreaterThan(0)
  })

  it.each(pollerV.plan.cases.map((c) => [c.name, c] as const))('plan: %s', (_name, c) => {
    const o = c.out
    const want: PollDecision = o.send
      ? { send: true, ask: o.ask!, requestTimeoutMs: o.requestTimeoutMs!, parks: o.parks!, markDue: false }
      : { send: false, markDue: o.markDue, fairnessInMs: o.fairnessInMs ?? null }
    expect(planPoll(c.in)).toEqual(want)
  })

  it.each(pollerV.deadline.cases)('deadline for requestTimeout $requestTimeoutMs ms is $deadlineMs ms', (c) => {
    expect(pollDeadlineMs(c.requestTimeoutMs)).toBe(c.deadlineMs)
  })

  it.each(pollerV.emptyPause.cases)('empty answer after $elapsedMs ms (requestTimeout $requestTimeoutMs ms): pause $pause', (c) => {
    expect(emptyPollPause(c.requestTimeoutMs, c.elapsedMs)).toBe(c.pause)
  })

  it.each(pollerV.afterPoll.cases.map((c, i) => [i, c] as const))('afterPoll case %d', (_i, c) => {
    const { due, stall, ...input } = c
    expect(afterPoll(input)).toEqual({ due, stall })
  })
})
