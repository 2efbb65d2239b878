import { Injectable, ServiceUnavailableException } from '@nestjs/common'
import type { WorkerState } from '@jobwire/sdk'
import { JobwireLifecycle } from './lifecycle'

/** One worker in a {@link JobwireHealthReport}. */
export interface JobwireWorkerHealth {
  /** The worker's name (`workerName`: sent as `worker` on activation). */
  name: string
  /** Its job type. */
  type: string
  /** Its state: idle | polling | streaming | backoff | closing | closed. */
  state: WorkerState
  /** Jobs it holds right now. */
  heldJobs: number
}

/** The health of the module's workers: the same JSON shape in every jobwire integration. */
export interface JobwireHealthReport {
  /** UP when every worker is idle, polling or streaming (no workers: UP); else DOWN. */
  status: 'UP' | 'DOWN'
  workers: JobwireWorkerHealth[]
}

const UP_STATES: ReadonlySet<WorkerState> = new Set<WorkerState>(['idle', 'polling', 'streaming'])

/**
 * Health of the `@JobWorker` workers, from each worker's state: `idle`, `polling`, `streaming` are
 * UP; `backoff` (the gateway is unreachable or refusing), `closing` and `closed` are DOWN.
 *
 * @example
 * \@Controller('health')
 * export class HealthController {
 *   constructor(private readonly jobwire: JobwireHealth) {}
 *   \@Get('jobwire') check() { return this.jobwire.checkOrThrow() } // 200, or 503 with the same body
 * }
 */
@Injectable()
export class JobwireHealth {
  constructor(private readonly lifecycle: JobwireLifecycle) {}

  /** The report: `{ status, workers: [{ name, type, state, heldJobs }] }`. */
  check(): JobwireHealthReport {
    const workers = this.lifecycle.workers.map((w) => ({ name: w.options.workerName, type: w.options.jobType, state: w.state, heldJobs: w.heldJobs }))
    return { status: workers.every((w) => UP_STATES.has(w.state)) ? 'UP' : 'DOWN', workers }
  }

  /** The report when UP; else throws a `ServiceUnavailableException` whose body is the report (HTTP 503 from a controller). */
  checkOrThrow(): JobwireHealthReport {
    const report = this.check()
    if (report.status !== 'UP') throw new ServiceUnavailableException(report)
    return report
  }
}
