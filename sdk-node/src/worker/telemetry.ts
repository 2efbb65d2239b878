import { context, metrics, trace, SpanKind, SpanStatusCode, type Attributes, type Context, type MetricOptions, type ObservableCallback, type ObservableGauge, type Span } from '@opentelemetry/api'

const SCOPE = 'jobwire'
const VERSION = '0.1.0'

/** Outcome names used for spans and the handled counter. */
export type Outcome = 'completed' | 'failed' | 'error' | 'expired' | 'not_found' | 'returned' | 'duplicate' | 'undelivered' | 'unsettled' | 'cancelled'

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/

/** Parent context from a W3C traceparent value (no propagator needed). */
function parentFrom(traceparent: unknown): Context {
  if (typeof traceparent !== 'string') return context.active()
  const m = TRACEPARENT.exec(traceparent.trim().toLowerCase())
  if (!m || m[1] === 'ff' || /^0+$/.test(m[2]!) || /^0+$/.test(m[3]!)) return context.active()
  return trace.setSpanContext(context.active(), {
    traceId: m[2]!,
    spanId: m[3]!,
    traceFlags: parseInt(m[4]!, 16) & 1,
    isRemote: true,
  })
}

/**
 * OpenTelemetry instruments of one worker. API only: every call is a no-op
 * until the application installs a provider.
 * @internal
 */
/**
 * Bucket bounds, in seconds, the duration histogram advises (an SDK view may override them):
 * OpenTelemetry's default bounds are meant for milliseconds.
 */
export const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300]

export class Telemetry {
  private readonly tracer = trace.getTracer(SCOPE, VERSION)
  private readonly meter = metrics.getMeter(SCOPE, VERSION)
  private readonly activated = this.meter.createCounter('jobwire.worker.jobs.activated', { description: 'jobs received by the worker' })
  private readonly handled = this.meter.createCounter('jobwire.worker.jobs.handled', { description: 'jobs finished, by outcome' })
  // `advice` came with @opentelemetry/api 1.7; older APIs (the range starts at 1.4) ignore it
  private readonly duration = this.meter.createHistogram('jobwire.worker.job.duration', {
    unit: 's',
    description: 'handler duration',
    advice: { explicitBucketBoundaries: DURATION_BUCKETS },
  } as MetricOptions)
  private readonly reconnects = this.meter.createCounter('jobwire.worker.stream.reconnects', { description: 'stream reopens' })
  private readonly polls = this.meter.createCounter('jobwire.worker.poll.requests', { description: 'ActivateJobs calls, by result' })
  private readonly base: Attributes
  private readonly gauge: ObservableGauge
  private readonly observeCapacity: ObservableCallback

  constructor(jobType: string, workerName: string, capacityUsed: () => number) {
    this.base = Object.freeze({ 'jobwire.job.type': jobType, 'jobwire.worker.name': workerName })
    this.gauge = this.meter.createObservableGauge('jobwire.worker.capacity.used', { description: 'jobs held by the worker' })
    this.observeCapacity = (r) => r.observe(capacityUsed(), this.base)
    this.gauge.addCallback(this.observeCapacity)
  }


  /** The attribute sets of the per-job counters, built once per value (not per job); frozen, as they are shared. */
  private readonly attrs = new Map<string, Attributes>()

  private attrsOf(name: 'activation' | 'outcome', value: string): Attributes {
    const k = `${name}=${value}`
    let a = this.attrs.get(k)
    if (a === undefined) {
      a = Object.freeze({ ...this.base, [name]: value })
      this.attrs.set(k, a)
    }
    return a
  }

  jobActivated(activation: 'push' | 'poll', n = 1): void {
    this.activated.add(n, this.attrsOf('activation', activation))
  }

  jobHandled(outcome: Outcome, durationS?: number): void {
    this.handled.add(1, this.attrsOf('outcome', outcome))
    if (durationS !== undefined) this.duration.record(durationS, this.base)
  }

  streamReconnect(reason: 'error' | 'closed' | 'recycled' | 'stalled'): void {
    this.reconnects.add(1, { ...this.base, reason })
  }

  /** The worker closed: stop observing its capacity (a closed worker must not stay in the meter). */
  dispose(): void {
    this.gauge.removeCallback(this.observeCapacity)
  }

  pollRequest(result: 'jobs' | 'empty' | 'error' | 'cancelled'): void {
    this.polls.add(1, { ...this.base, result })
  }

  /** Starts the `process job <type>` span (CONSUMER); its context is active around the handler. */
  startJobSpan(type: string, attributes: Attributes, traceparent: unknown): { span: Span; ctx: Context } {
    const parent = parentFrom(traceparent)
    const span = this.tracer.startSpan(`process job ${type}`, { kind: SpanKind.CONSUMER, attributes }, parent)
    return { span, ctx: trace.setSpan(parent, span) }
  }

  endJobSpan(span: Span, outcome: Outcome, err?: unknown): void {
    span.setAttribute('jobwire.job.outcome', outcome)
    if (outcome === 'completed') span.setStatus({ code: SpanStatusCode.OK })
    else {
      if (err instanceof Error) span.recordException(err)
      span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : outcome })
    }
    span.end()
  }
}
