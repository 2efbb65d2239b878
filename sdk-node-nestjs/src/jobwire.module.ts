import { Inject, Module, type DynamicModule, type Provider } from '@nestjs/common'
import { DiscoveryModule } from '@nestjs/core'
import { Client } from '@jobwire/sdk'
import { JOBWIRE_CLIENT, JOBWIRE_MODULE_OPTIONS } from './constants'
import { JobwireHealth } from './health'
import { JobwireLifecycle } from './lifecycle'
import type { JobwireModuleAsyncOptions, JobwireModuleOptions } from './options'

function checkOptions(o: JobwireModuleOptions): JobwireModuleOptions {
  if (o === null || typeof o !== 'object') throw new TypeError('jobwire: JobwireModule options must be an object')
  const t = o.closeTimeoutMs
  if (t !== undefined && (typeof t !== 'number' || !Number.isFinite(t) || t < 0)) throw new RangeError(`jobwire: closeTimeoutMs must be a number ≥ 0, got ${String(t)}`)
  return o
}

const clientProvider: Provider = {
  provide: JOBWIRE_CLIENT,
  // Bad client options (no address, half a TLS pair, ...) fail the application's start with the SDK's error.
  useFactory: (options: JobwireModuleOptions) => new Client(options.client ?? {}),
  inject: [JOBWIRE_MODULE_OPTIONS],
}

/**
 * The jobwire module: one {@link Client} from the options (injectable with
 * {@link InjectJobwireClient}), a worker per `@JobWorker` provider method started on
 * `onApplicationBootstrap` and closed gracefully on `beforeApplicationShutdown`, and
 * {@link JobwireHealth}. Global: import it once, in the root module.
 *
 * @example
 * \@Module({ imports: [JobwireModule.forRoot({ client: { address: 'localhost:26500', insecure: true } })], providers: [OrderWorkers] })
 * export class AppModule {}
 * // main.ts: app.enableShutdownHooks() so that SIGTERM closes the workers gracefully
 */
@Module({})
export class JobwireModule {
  /** The module with fixed options. */
  static forRoot(options: JobwireModuleOptions = {}): DynamicModule {
    return JobwireModule.build([{ provide: JOBWIRE_MODULE_OPTIONS, useValue: checkOptions(options) }], [])
  }

  /** The module with options from a factory (e.g. from `ConfigService`): `{ imports, inject, useFactory }`. */
  static forRootAsync(options: JobwireModuleAsyncOptions): DynamicModule {
    if (!options || typeof options.useFactory !== 'function') throw new TypeError('jobwire: JobwireModule.forRootAsync needs a useFactory')
    const factory = options.useFactory
    return JobwireModule.build(
      [{ provide: JOBWIRE_MODULE_OPTIONS, useFactory: async (...args: unknown[]) => checkOptions(await factory(...args)), inject: options.inject ?? [] }],
      options.imports ?? [],
    )
  }

  private static build(optionProviders: Provider[], imports: NonNullable<JobwireModuleAsyncOptions['imports']>): DynamicModule {
    return {
      module: JobwireModule,
      global: true,
      imports: [DiscoveryModule, ...imports],
      providers: [...optionProviders, clientProvider, JobwireLifecycle, JobwireHealth],
      exports: [JOBWIRE_CLIENT, JobwireLifecycle, JobwireHealth],
    }
  }
}

/** Injects the module's {@link Client}: `constructor(@InjectJobwireClient() private readonly client: Client) {}`. */
export function InjectJobwireClient(): PropertyDecorator & ParameterDecorator {
  return Inject(JOBWIRE_CLIENT)
}
