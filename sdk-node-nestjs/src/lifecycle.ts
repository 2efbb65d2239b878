import { Inject, Injectable, Logger, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common'
import { DiscoveryService, MetadataScanner } from '@nestjs/core'
import type { Client, JobHandler, Worker, WorkerDefinition } from '@jobwire/sdk'
import { DEFAULT_CLOSE_TIMEOUT_MS, JOBWIRE_CLIENT, JOBWIRE_MODULE_OPTIONS, JOB_WORKER_METADATA } from './constants'
import type { JobWorkerOptions } from './job-worker.decorator'
import type { JobwireModuleOptions } from './options'

/** A discovered `@JobWorker` method. */
interface Found {
  where: string
  options: JobWorkerOptions
  handler: JobHandler
}

/**
 * Starts a worker for every `@JobWorker` provider method when the application has bootstrapped
 * (`onApplicationBootstrap`) and closes them gracefully, then the client, when it shuts down
 * (`beforeApplicationShutdown`: `app.close()`, or a signal with `app.enableShutdownHooks()`).
 * Added by {@link JobwireModule}; inject it to read the running workers.
 */
@Injectable()
export class JobwireLifecycle implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Jobwire')
  private started: Worker[] = []
  private closing: Promise<void> | undefined

  constructor(
    @Inject(JOBWIRE_CLIENT) private readonly client: Client,
    @Inject(JOBWIRE_MODULE_OPTIONS) private readonly options: JobwireModuleOptions,
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
  ) {}

  /** The workers started from `@JobWorker` methods (kept after close, in state `closed`). */
  get workers(): readonly Worker[] {
    return this.started
  }

  onApplicationBootstrap(): void {
    const found = this.discover()
    const defs: Record<string, WorkerDefinition> = {}
    const where: Record<string, string> = {}
    for (const f of found) {
      const { type, ...def } = f.options
      if (where[type]) throw new TypeError(`jobwire: two @JobWorker methods for job type "${type}": ${where[type]} and ${f.where}`)
      where[type] = f.where
      defs[type] = { ...def, handler: f.handler } as WorkerDefinition
    }
    if (found.length === 0) return
    try {
      this.started = Object.values(this.client.startWorkers(defs, { defaults: this.options.workerDefaults, middleware: this.options.middleware }))
    } catch (e) {
      // Bad worker options: the application does not start; workers started before the bad one stop at once.
      this.closing = this.client.close({ timeoutMs: 0 })
      throw e
    }
    for (const w of this.started) this.logger.log(`worker ${w.options.jobType} started (${where[w.options.jobType]})`)
  }

  async beforeApplicationShutdown(): Promise<void> {
    if (!this.closing) {
      const timeoutMs = this.options.closeTimeoutMs ?? DEFAULT_CLOSE_TIMEOUT_MS
      const held = this.started.reduce((n, w) => n + w.heldJobs, 0)
      if (this.started.length > 0) this.logger.log(`closing ${this.started.length} worker(s), ${held} job(s) held, closeTimeoutMs ${timeoutMs}`)
      const t0 = Date.now()
      this.closing = this.client.close({ timeoutMs }).then(() => {
        if (this.started.length > 0) this.logger.log(`workers closed in ${Date.now() - t0} ms`)
      })
    }
    await this.closing
  }

  private discover(): Found[] {
    const out: Found[] = []
    for (const wrapper of this.discovery.getProviders()) {
      const instance = wrapper.instance as Record<string | symbol, unknown> | undefined
      const proto = wrapper.metatype && typeof wrapper.metatype === 'function' ? wrapper.metatype.prototype : instance && Object.getPrototypeOf(instance)
      if (!proto || typeof proto !== 'object') continue
      for (const name of this.scanner.getAllMethodNames(proto)) {
        const options = Reflect.getMetadata(JOB_WORKER_METADATA, proto[name]) as JobWorkerOptions | undefined
        if (!options) continue
        const label = `${wrapper.name ? String(wrapper.name) : proto.constructor?.name}.${name}`
        if (!wrapper.isDependencyTreeStatic() || !instance) throw new TypeError(`jobwire: @JobWorker ${label}: the provider must be a singleton (default scope), not request- or transient-scoped`)
        const method = instance[name] as (...args: unknown[]) => unknown
        out.push({ where: label, options, handler: ((job, ctx) => method.call(instance, job, ctx)) as JobHandler })
      }
    }
    return out
  }
}
