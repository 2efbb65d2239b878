/** Injection token of the module's {@link Client} (see {@link InjectJobwireClient}). */
export const JOBWIRE_CLIENT = Symbol.for('jobwire:client')

/** Injection token of the resolved {@link JobwireModuleOptions}. @internal */
export const JOBWIRE_MODULE_OPTIONS = Symbol.for('jobwire:module-options')

/** Metadata key under which {@link JobWorker} stores its options on a method. @internal */
export const JOB_WORKER_METADATA = 'jobwire:job-worker'

/** Default of {@link JobwireModuleOptions.closeTimeoutMs}: 30 s, as every jobwire integration. */
export const DEFAULT_CLOSE_TIMEOUT_MS = 30_000
