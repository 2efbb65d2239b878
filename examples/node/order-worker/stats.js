// Bookkeeping for `make run`: counts handled jobs and measures the hand-off
// latency (time from the previous task's handler returning to this handler
// starting: completion, engine, job push). Not needed in your own worker.
'use strict'
const { JobError } = require('@jobwire/sdk')

// Log buckets of 5 % width from 10 µs up (same as the Go example).
class Histogram {
  constructor() { this.counts = new Array(400).fill(0) }
  add(ms) {
    const i = ms > 0.01 ? Math.floor(Math.log(ms / 0.01) / Math.log(1.05)) : 0
    this.counts[Math.min(Math.max(i, 0), this.counts.length - 1)]++
  }
  quantile(q) {
    const n = this.counts.reduce((a, b) => a + b, 0)
    if (n === 0) return 0
    const rank = Math.ceil(q * n)
    let seen = 0
    for (let i = 0; i < this.counts.length; i++) {
      seen += this.counts[i]
      if (seen >= rank) return 0.01 * Math.pow(1.05, i + 1)
    }
    return 0
  }
}

class Stats {
  constructor(sdk) {
    this.sdk = sdk
    this.start = this.lastTime = performance.now()
    this.byType = {}
    this.handled = this.bpmnErrors = this.failed = this.inflight = this.lastN = 0
    this.total = new Histogram()
    this.window = new Histogram()
  }

  /**
   * A middleware that counts every job and passes the hand-off timestamp on. The payment worker
   * fetches only its typed input, so its hand-off from the load generator is not measured.
   */
  middleware() {
    return async (job, next) => {
      const startedAt = performance.timeOrigin + performance.now() // wall clock, ms with fractions
      this.inflight++
      try {
        const out = await next()
        if (out && typeof out === 'object' && !(out instanceof JobError)) out.handedOffAt = performance.timeOrigin + performance.now()
        return out
      } catch (err) {
        if (err instanceof JobError) this.bpmnErrors++
        else this.failed++
        throw err
      } finally {
        this.inflight--
        this.handled++
        this.byType[job.type] = (this.byType[job.type] || 0) + 1
        const at = Number(job.variables.handedOffAt)
        if (at > 0) {
          this.total.add(startedAt - at)
          this.window.add(startedAt - at)
        }
      }
    }
  }

  /** Writes one JSON line to stdout (read by examples/go/load). */
  print(final) {
    const now = performance.now()
    const rate = ((this.handled - this.lastN) * 1000) / Math.max(1, now - this.lastTime)
    process.stdout.write(JSON.stringify({
      stats: 'order-worker', sdk: this.sdk, final, uptime_s: (now - this.start) / 1000,
      handled: this.handled, by_type: this.byType, bpmn_errors: this.bpmnErrors, failed: this.failed,
      inflight: this.inflight, jobs_per_s: rate,
      p50_ms: this.window.quantile(0.5), p99_ms: this.window.quantile(0.99),
      total_p50_ms: this.total.quantile(0.5), total_p99_ms: this.total.quantile(0.99),
    }) + '\n')
    this.window = new Histogram()
    this.lastN = this.handled
    this.lastTime = now
  }
}

module.exports = { Stats }
