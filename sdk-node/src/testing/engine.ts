// Level 2 of the test kit: a real engine (the optional @jobwire/engine package, or the binary named
// by JOBWIRE_ENGINE) and a handle that deploys, starts instances, moves the engine clock and resets.
import { spawn, type ChildProcess } from 'node:child_process'
import * as fs from 'node:fs'
import { createRequire } from 'node:module'
import * as os from 'node:os'
import * as path from 'node:path'
import * as readline from 'node:readline'
import * as grpc from '@grpc/grpc-js'
import * as protoLoader from '@grpc/proto-loader'
import { Client } from '../client.js'
import { NotFoundError, toJobwireError } from '../errors.js'
import type { ActivateJobsResponse__Output } from '../generated/gateway_protocol/ActivateJobsResponse.js'
import type { AdminServiceClient } from '../generated/jobwire/admin/v1/AdminService.js'
import type { ProtoGrpcType } from '../generated/admin.js'
import type { Variables } from '../job.js'
import { parseLossless, variablesToJson } from '../json.js'
import { protoPath } from '../protoPath.js'
import { Transport, type LongLease } from '../transport.js'
import { resolveClientConfig } from '../config.js'

/** Options of {@link startTestEngine}. */
export interface TestEngineOptions {
  /** Gateway port on 127.0.0.1. default: 0 (a free port) */
  port?: number
  /** More `jobwire-engine dev` flags. default: none */
  args?: string[]
  /** How long to wait for the engine to listen, ms. default: 30000 */
  startTimeoutMs?: number
}

/** Options of the awaiting calls ({@link TestEngine.awaitCompleted}, {@link TestEngine.awaitIncident}). */
export interface AwaitOptions {
  /** How long to wait, ms. default: 10000 */
  timeoutMs?: number
}

/** An open incident, as {@link TestEngine.awaitIncident} returns it. */
export interface Incident {
  /** Incident key (decimal string). */
  key: string
  /** JOB_NO_RETRIES, UNHANDLED_ERROR_EVENT, CONDITION_ERROR, EXTRACT_VALUE_ERROR, MESSAGE_SIZE_EXCEEDED. */
  type: string
  /** The incident's message. */
  message: string
  /** Key of the element instance the incident is on (decimal string). */
  elementInstanceKey: string
  /** Key of the job it is about (decimal string); `"0"` when it is not about a job. */
  jobKey: string
}

/** A job as the engine sees it ({@link TestEngine.jobs}). */
export interface TestJob {
  /** Job key (decimal string). */
  key: string
  /** Job type. */
  type: string
  /** JOB_STATE_ACTIVATABLE or JOB_STATE_ACTIVATED. */
  state: string
  /** Retries left. */
  retries: number
  /** Worker it is activated for; empty when activatable. */
  worker: string
  /** Process instance key (decimal string). */
  processInstanceKey: string
}

/** A process-instance key: the decimal string the SDK returns (or a bigint / safe number). */
export type InstanceKey = string | bigint | number

const ENGINE_ENV = 'JOBWIRE_ENGINE'

/** A running engine process with its port and data dir. */
interface Proc {
  address: string
  port: number
  stop(): Promise<void>
}

function spawnBinary(bin: string, port: number, dataDir: string, args: string[], timeoutMs: number): Promise<Proc> {
  const child: ChildProcess = spawn(bin, ['dev', '--port', String(port), '--no-ui', '--exit-on-stdin-close', '--data-dir', dataDir, ...args], { stdio: ['pipe', 'pipe', 'inherit'] })
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  return new Promise((resolve, reject) => {
    const banner: string[] = []
    const lines = readline.createInterface({ input: child.stdout! })
    const fail = (why: string) => {
      clearTimeout(timer)
      lines.close()
      child.kill('SIGKILL')
      reject(new Error(`jobwire: the engine (${bin}) did not start: ${why}${banner.length ? ` (${banner.join(' | ')})` : ''}`))
    }
    const timer = setTimeout(() => fail(`no listening line after ${timeoutMs} ms`), timeoutMs)
    const onError = (e: Error) => fail(e.message)
    const onExit = (code: number | null, sig: string | null) => fail(`exit ${code ?? sig}`)
    child.once('error', onError)
    child.once('exit', onExit)
    lines.on('line', (line) => {
      banner.push(line)
      const m = / listening on (\S+)/.exec(line)
      if (!m) return
      clearTimeout(timer)
      child.removeListener('error', onError)
      child.removeListener('exit', onExit)
      lines.removeAllListeners('line')
      const address = m[1]!
      resolve({
        address,
        port: Number(address.slice(address.lastIndexOf(':') + 1)),
        stop: async () => {
          if (child.exitCode !== null || child.signalCode !== null) return
          child.kill('SIGKILL')
          await exited
        },
      })
    })
  })
}

interface EnginePackage {
  start(o: { port?: number; dataDir?: string; args?: string[]; timeoutMs?: number }): Promise<{ address: string; port: number; process: ChildProcess; close(o?: { timeoutMs?: number }): Promise<unknown> }>
}

async function launch(port: number, dataDir: string, args: string[], timeoutMs: number): Promise<Proc> {
  const bin = process.env[ENGINE_ENV]
  if (bin) return spawnBinary(bin, port, dataDir, args, timeoutMs)
  let pkg: EnginePackage
  try {
    // Resolved from this package's own folder (its admin.proto), in the CommonJS and the ESM build alike.
    pkg = createRequire(protoPath('admin.proto'))('@jobwire/engine') as EnginePackage
  } catch (e) {
    throw new Error(`jobwire: startTestEngine needs the engine: npm install --save-dev @jobwire/engine (or set ${ENGINE_ENV}=/path/to/jobwire-engine): ${(e as Error).message}`)
  }
  const e = await pkg.start({ port, dataDir, args, timeoutMs })
  return {
    address: e.address,
    port: e.port,
    stop: async () => {
      e.process.kill('SIGKILL')
      await e.close({ timeoutMs: 5_000 })
    },
  }
}

function call<Res>(stub: AdminServiceClient, method: string, req: object): Promise<Res> {
  return new Promise((resolve, reject) => {
    const fn = (stub as unknown as Record<string, (r: object, md: grpc.Metadata, o: grpc.CallOptions, cb: (e: grpc.ServiceError | null, r?: Res) => void) => void>)[method]!
    fn.call(stub, req, new grpc.Metadata(), { deadline: Date.now() + 30_000 }, (err, res) => (err ? reject(toJobwireError(err, method)) : resolve(res!)))
  })
}

function keyOf(k: InstanceKey): string {
  return typeof k === 'string' ? k : k.toString()
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms))
}

/**
 * A real engine for process tests, started by {@link startTestEngine}: one per test file (or run),
 * {@link TestEngine.reset} before each test. Every wait is bounded; {@link TestEngine.close} stops
 * the engine and closes {@link TestEngine.client}.
 *
 * @example
 * const engine = await startTestEngine()
 * await engine.deploy('order.bpmn')
 * const order = await engine.createInstance('order', { amount: 10 })
 * await engine.completeJobs('ship', { shipped: true })
 * const vars = await engine.awaitCompleted(order)
 * await engine.close()
 */
export class TestEngine {
  private readonly admin: AdminServiceClient
  private readonly transport: Transport
  private readonly lease: LongLease
  private closed = false

  /** @internal */
  constructor(
    private proc: Proc,
    private readonly dataDir: string,
    private readonly args: string[],
    private readonly startTimeoutMs: number,
  ) {
    this.client = new Client({ address: proc.address, insecure: true })
    const def = protoLoader.loadSync(protoPath('admin.proto'), { longs: String, enums: String, defaults: true, oneofs: true })
    const pkg = grpc.loadPackageDefinition(def) as unknown as ProtoGrpcType
    this.admin = new pkg.jobwire.admin.v1.AdminService(proc.address, grpc.credentials.createInsecure())
    this.transport = new Transport(resolveClientConfig({ address: proc.address, insecure: true }))
    this.lease = this.transport.leaseLong()
  }

  /** A client connected to the engine; closed by {@link TestEngine.close}. */
  readonly client: Client

  /** The gateway address, `127.0.0.1:PORT` (the SDK's `address` option). */
  get address(): string {
    return this.proc.address
  }

  /** Deploys a BPMN file (a path) or BPMN XML (a string starting with `<`); resolves to the deployed process ids. */
  async deploy(pathOrXml: string): Promise<string[]> {
    const d = pathOrXml.trimStart().startsWith('<')
      ? await this.client.deployResource({ name: 'process.bpmn', content: pathOrXml })
      : await this.client.deployFiles(pathOrXml)
    return d.processes.map((p) => p.bpmnProcessId)
  }

  /** Starts an instance of the latest version of `processId`; resolves to its key (decimal string). */
  async createInstance(processId: string, variables?: Record<string, unknown> | string): Promise<string> {
    const pi = await this.client.createProcessInstance({ bpmnProcessId: processId, variables })
    return pi.processInstanceKey
  }

  private async instance(key: InstanceKey) {
    const k = keyOf(key)
    const res = await call<{ instances: Array<{ key: string; state: string; variables: string; incidentCount: number; bpmnProcessId: string }> }>(this.admin, 'ListProcessInstances', { includeInstances: true })
    return res.instances.find((i) => i.key === k)
  }

  /** The instance's variables (root scope). Rejects with the SDK's `NotFoundError` when the engine does not know the instance. */
  async variables(instance: InstanceKey): Promise<Variables> {
    const i = await this.instance(instance)
    if (!i) throw new NotFoundError(`jobwire: process instance ${keyOf(instance)} not found`, grpc.status.NOT_FOUND)
    return parseLossless(i.variables || '{}') as Variables
  }

  /** Open incidents of the instance. */
  async incidents(instance: InstanceKey): Promise<Incident[]> {
    const res = await call<{ incidents: Incident[] }>(this.admin, 'ListIncidents', { processInstanceKey: keyOf(instance) })
    return res.incidents.map((i) => ({ key: i.key, type: i.type, message: i.message, elementInstanceKey: i.elementInstanceKey, jobKey: i.jobKey }))
  }

  /** What a failed wait shows: the instance's state, variables, incidents and open jobs. */
  private async describe(instance: InstanceKey): Promise<string> {
    const i = await this.instance(instance)
    if (!i) return `process instance ${keyOf(instance)} is unknown to the engine`
    const incidents = await this.incidents(instance)
    const jobs = (await this.allJobs('')).filter((j) => j.processInstanceKey === keyOf(instance))
    return [
      `process instance ${i.key} (${i.bpmnProcessId}) is ${i.state.replace('PROCESS_INSTANCE_STATE_', '')}`,
      `variables: ${i.variables || '{}'}`,
      `incidents: ${incidents.length ? incidents.map((x) => `${x.type}: ${x.message}`).join('; ') : 'none'}`,
      `open jobs: ${jobs.length ? jobs.map((j) => `${j.type} (${j.state.replace('JOB_STATE_', '')}, retries ${j.retries})`).join(', ') : 'none'}`,
    ].join('\n  ')
  }

  /** Waits until the instance completed; resolves to its variables. Rejects with an Error describing the instance when `timeoutMs` (default 10000) passes. */
  async awaitCompleted(instance: InstanceKey, options: AwaitOptions = {}): Promise<Variables> {
    const until = Date.now() + (options.timeoutMs ?? 10_000)
    for (;;) {
      const i = await this.instance(instance)
      if (i?.state === 'PROCESS_INSTANCE_STATE_COMPLETED') return parseLossless(i.variables || '{}') as Variables
      if (Date.now() >= until) throw new Error(`jobwire: process instance ${keyOf(instance)} did not complete within ${options.timeoutMs ?? 10_000} ms:\n  ${await this.describe(instance)}`)
      await sleep(10)
    }
  }

  /** Waits until the instance has an open incident; resolves to the first. Rejects with an Error describing the instance when `timeoutMs` (default 10000) passes. */
  async awaitIncident(instance: InstanceKey, options: AwaitOptions = {}): Promise<Incident> {
    const until = Date.now() + (options.timeoutMs ?? 10_000)
    for (;;) {
      const found = await this.incidents(instance)
      if (found.length > 0) return found[0]!
      if (Date.now() >= until) throw new Error(`jobwire: process instance ${keyOf(instance)} got no incident within ${options.timeoutMs ?? 10_000} ms:\n  ${await this.describe(instance)}`)
      await sleep(10)
    }
  }

  private async allJobs(jobType: string): Promise<TestJob[]> {
    const res = await call<{ jobs: TestJob[] }>(this.admin, 'ListJobs', { type: jobType, includeJobs: true })
    return res.jobs
      .filter((j) => j.state === 'JOB_STATE_ACTIVATABLE' || j.state === 'JOB_STATE_ACTIVATED')
      .map((j) => ({ key: j.key, type: j.type, state: j.state, retries: j.retries, worker: j.worker, processInstanceKey: j.processInstanceKey }))
  }

  /** The jobs of `jobType` that are activatable or activated. */
  jobs(jobType: string): Promise<TestJob[]> {
    return this.allJobs(jobType)
  }

  /**
   * Activates every activatable job of `jobType` (ActivateJobs, as a worker) and completes each with
   * `variables`: stands in for a worker the test does not run. Resolves to how many it completed;
   * rejects with the SDK's typed error when the activation fails (e.g. `BackpressureError` under
   * {@link TestEngine.injectResourceExhausted}).
   */
  async completeJobs(jobType: string, variables?: Record<string, unknown> | string): Promise<number> {
    const vars = variablesToJson(variables ?? {}, 'completeJobs')
    let done = 0
    for (;;) {
      const req = { type: jobType, worker: 'jobwire-test', timeout: '60000', maxJobsToActivate: 100, fetchVariable: [], requestTimeout: '-1', tenantIds: [] }
      const { call: stream } = await this.lease.serverStream<ActivateJobsResponse__Output>('ActivateJobs', req, Date.now() + 30_000)
      const keys = await new Promise<string[]>((resolve, reject) => {
        const got: string[] = []
        stream.on('data', (r: ActivateJobsResponse__Output) => got.push(...r.jobs.map((j) => j.key)))
        stream.on('error', (e) => reject(toJobwireError(e, 'ActivateJobs')))
        stream.on('end', () => resolve(got))
      })
      if (keys.length === 0) return done
      for (const jobKey of keys) await this.client.completeJob({ jobKey, variables: vars })
      done += keys.length
    }
  }

  private clockOf(r: { nowMs: string }): Date {
    return new Date(Number(r.nowMs))
  }

  /** The engine time. */
  async clock(): Promise<Date> {
    return this.clockOf(await call<{ nowMs: string }>(this.admin, 'GetClock', {}))
  }

  /** Moves engine time forward by `durationMs` and processes what became due (timers, job time-outs, retry back-offs); resolves to the new engine time once that is done. */
  async advanceClock(durationMs: number): Promise<Date> {
    return this.clockOf(await call<{ nowMs: string }>(this.admin, 'AdvanceClock', { durationMs: String(Math.round(durationMs)) }))
  }

  /** Sets engine time (never backwards) and processes what became due; resolves to the new engine time. */
  async setClock(time: Date | number): Promise<Date> {
    const ms = typeof time === 'number' ? time : time.getTime()
    return this.clockOf(await call<{ nowMs: string }>(this.admin, 'SetClock', { epochMs: String(Math.round(ms)) }))
  }

  /** Drops everything clients created (deployments, instances, jobs, messages, incidents, timers) and sets the clock back to wall time. Call it before each test. */
  async reset(): Promise<void> {
    await call(this.admin, 'ResetState', {})
  }

  /** The next `count` calls of `method` (default ActivateJobs) fail with RESOURCE_EXHAUSTED. */
  async injectResourceExhausted(count: number, options: { method?: string } = {}): Promise<void> {
    await call(this.admin, 'InjectFault', { reject: { method: options.method ?? 'ActivateJobs', code: grpc.status.RESOURCE_EXHAUSTED, count, message: 'jobwire test kit: injected RESOURCE_EXHAUSTED' } })
  }

  /** Ends every open push stream and parked long poll with UNAVAILABLE (workers reconnect); resolves to how many it ended. */
  async dropStreams(): Promise<number> {
    const r = await call<{ streamsClosed: number; longPollsClosed: number }>(this.admin, 'ResetStreams', { code: 0, includeLongPolls: true })
    return r.streamsClosed + r.longPollsClosed
  }

  /** Removes every injected fault. */
  async clearFaults(): Promise<void> {
    await call(this.admin, 'ClearFaults', {})
  }

  /** Stops the engine process and starts it again on the same port and data dir (a gateway restart: connections drop, state stays). */
  async restartGateway(): Promise<void> {
    await this.proc.stop()
    this.proc = await launch(this.proc.port, this.dataDir, this.args, this.startTimeoutMs)
  }

  /** Closes the client and stops the engine (its data dir is removed). Safe to call twice. */
  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    this.lease.release()
    this.transport.close()
    this.admin.close()
    await this.client.close()
    await this.proc.stop()
    fs.rmSync(this.dataDir, { recursive: true, force: true })
  }
}

/**
 * Starts a real engine for process tests: `@jobwire/engine` (install it as a dev dependency), or the
 * binary named by the `JOBWIRE_ENGINE` environment variable. Start one per test file (`beforeAll`),
 * call {@link TestEngine.reset} before each test and {@link TestEngine.close} at the end.
 *
 * @example
 * let engine: TestEngine
 * beforeAll(async () => { engine = await startTestEngine() })
 * beforeEach(() => engine.reset())
 * afterAll(() => engine.close())
 */
export async function startTestEngine(options: TestEngineOptions = {}): Promise<TestEngine> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'jobwire-test-'))
  const args = ['--no-fsync', ...(options.args ?? [])]
  const timeoutMs = options.startTimeoutMs ?? 30_000
  try {
    const proc = await launch(options.port ?? 0, dataDir, args, timeoutMs)
    return new TestEngine(proc, dataDir, args, timeoutMs)
  } catch (e) {
    fs.rmSync(dataDir, { recursive: true, force: true })
    throw e
  }
}
