/**
 * @jobwire/sdk/testing: test your workers. Level 1 runs a handler through the worker's own
 * execution path with no network ({@link makeJob}, {@link runHandler}); level 2 runs processes on a
 * real engine from the optional `@jobwire/engine` package ({@link startTestEngine}).
 * Works under any test runner (Jest, Vitest, node:test): nothing here imports one.
 *
 * @example
 * import { makeJob, runHandler } from '@jobwire/sdk/testing'
 * const result = await runHandler(async (job) => ({ doubled: Number(job.variables.n) * 2 }), makeJob({ variables: { n: 21 } }))
 * // result.outcome === 'completed', result.variables => { doubled: 42 }
 * @packageDocumentation
 */
export { makeJob, runHandler } from './handler.js'
export type { MakeJobOptions, RunHandlerOptions, HandlerRunResult, HandlerOutcome } from './handler.js'
export { startTestEngine, TestEngine } from './engine.js'
export type { TestEngineOptions, AwaitOptions, Incident, TestJob, InstanceKey } from './engine.js'
