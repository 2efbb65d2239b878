/**
 * @jobwire/nestjs: job workers in a NestJS application. `JobwireModule.forRoot(options)` creates
 * the client, `@JobWorker({ type, ... })` provider methods become workers started after the
 * application bootstrapped and closed gracefully when it shuts down, `JobwireHealth` reports
 * their state.
 * @packageDocumentation
 */
export { JobwireModule, InjectJobwireClient } from './jobwire.module'
export { JobWorker } from './job-worker.decorator'
export type { JobWorkerOptions, JobWorkerMethod } from './job-worker.decorator'
export { JobwireHealth } from './health'
export type { JobwireHealthReport, JobwireWorkerHealth } from './health'
export { JobwireLifecycle } from './lifecycle'
export { JOBWIRE_CLIENT, DEFAULT_CLOSE_TIMEOUT_MS } from './constants'
export type { JobwireModuleOptions, JobwireModuleAsyncOptions } from './options'
