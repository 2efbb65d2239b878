import { SetMetadata } from '@nestjs/common'
import type { HandlerResult, Job, Variables, WorkerDefinition } from '@jobwire/sdk'
import { JOB_WORKER_METADATA } from './constants'

/**
 * Options of {@link JobWorker}: the SDK's worker options ({@link WorkerDefinition}: `variables`
 * schema, `customHeaders`, `retryPolicy`, `middleware`, `maxJobsActive`, ...) with the job `type`;
 * the handler is the decorated method.
 */
export type JobWorkerOptions<V = Variables, H = Record<string, string>> = Omit<WorkerDefinition<V, H>, 'handler'> & {
  /** Job type to work on. required */
  type: string
}

/** The signature a `@JobWorker` method must have: the SDK's job handler. */
export type JobWorkerMethod<V, H> = (job: Job<V, H>, ctx: { signal: AbortSignal }) => Promise<HandlerResult> | HandlerResult

/**
 * Makes a provider method a job worker: the module starts one worker per decorated method when the
 * application has bootstrapped and closes it gracefully when the application shuts down. The
 * method is called on the provider instance (its injected dependencies are there) with the job
 * and `{ signal }`; what it returns completes the job, as a handler given to `Client.startWorkers`.
 * With a `variables` schema, `job.variables` is the schema's validated output.
 *
 * @example
 * const Order = z.object({ orderId: z.string(), amount: z.number() })
 * \@Injectable()
 * export class OrderWorkers {
 *   constructor(private readonly payments: PaymentService) {}
 *   \@JobWorker({ type: 'charge', variables: Order, maxJobsActive: 8 })
 *   async charge(job: Job<z.infer<typeof Order>>) {
 *     return { receipt: await this.payments.charge(job.variables.orderId, job.variables.amount) }
 *   }
 * }
 */
export function JobWorker<V = Variables, H = Record<string, string>>(options: JobWorkerOptions<V, H>) {
  if (!options || typeof options.type !== 'string' || options.type.trim() === '') throw new TypeError('jobwire: @JobWorker needs a job type: @JobWorker({ type: "..." })')
  const mark = SetMetadata(JOB_WORKER_METADATA, options)
  return <M extends JobWorkerMethod<V, H>>(target: object, key: string | symbol, descriptor: TypedPropertyDescriptor<M>): void => {
    mark(target, key, descriptor)
  }
}
