import type { ModuleMetadata, InjectionToken, OptionalFactoryDependency } from '@nestjs/common'
import type { ClientOptions, Middleware, StartWorkersOptions } from '@jobwire/sdk'

/** Options of {@link JobwireModule.forRoot}. */
export interface JobwireModuleOptions {
  /**
   * The client's options (docs/configuration.md): `address`, `insecure`, `oauth`, ... Options not
   * given are read from the environment by the SDK (ZEEBE_ADDRESS, ZEEBE_CLIENT_ID, ...).
   * default: `{}` (environment only)
   */
  client?: ClientOptions
  /**
   * Worker options applied to every `@JobWorker` method (`maxJobsActive`, `jobTimeoutMs`,
   * `requestTimeoutMs`, `pollIntervalMs`, `streamEnabled`, `fetchVariables`, `tenantIds`,
   * `workerName`, ...); the decorator's own options win. default: none (the SDK's defaults)
   */
  workerDefaults?: StartWorkersOptions['defaults']
  /**
   * On application shutdown every worker closes gracefully (drains, hands back jobs that did
   * not start, waits for running handlers) for at most this long, then the client closes.
   * default: 30000
   */
  closeTimeoutMs?: number
  /** Middleware around every handler, outside each worker's own middleware. default: none */
  middleware?: Middleware[]
}

/** Options of {@link JobwireModule.forRootAsync}: the options come from a factory with injected dependencies. */
export interface JobwireModuleAsyncOptions extends Pick<ModuleMetadata, 'imports'> {
  /** Providers to inject into `useFactory`, in its parameter order. */
  inject?: Array<InjectionToken | OptionalFactoryDependency>
  /** Returns the module's options (may be async). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  useFactory: (...args: any[]) => JobwireModuleOptions | Promise<JobwireModuleOptions>
}
