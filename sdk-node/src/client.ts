import * as fs from 'node:fs/promises'
import * as path from 'node:path'
import { resolveClientConfig, type ClientOptions } from './config.js'
import type { Variables } from './job.js'
import { parseLossless, variablesToJson, type JsonValue } from './json.js'
import { Transport, type CallOptions } from './transport.js'
import { RequestCancelledError } from './errors.js'
import { Worker } from './worker/worker.js'
import { groupWorkerOptions, resolveWorkerOptions, type JobHandler, type StartWorkersOptions, type WorkerDefinition, type WorkerOptions } from './worker/options.js'
import { toDeployment, toProcessInstance, toTopology, type Deployment, type ProcessInstance, type ProcessInstanceResult, type Topology } from './types.js'
import { key, type Key, type VariablesInput } from './inputs.js'
import {
  broadcastSignalWire,
  evaluateDecisionWire,
  migrateProcessInstanceWire,
  modifyProcessInstanceWire,
  sendCommand,
  toDecisionEvaluation,
  type BroadcastSignalRequest,
  type DecisionEvaluation,
  type EvaluateDecisionRequest,
  type MigrateProcessInstanceRequest,
  type ModifyProcessInstanceRequest,
} from './commands.js'

export type { Key, VariablesInput } from './inputs.js'

/** What identifies the process to start. */
export interface CreateProcessInstanceRequest {
  /** BPMN process id (with `version`), or use processDefinitionKey. */
  bpmnProcessId?: string
  /** Version; default -1 = latest. */
  version?: number
  /** Definition key instead of id + version. */
  processDefinitionKey?: Key
  /** Start variables. */
  variables?: VariablesInput
  /** Tenant. */
  tenantId?: string
  /**
   * Start before these elements instead of at the none start event (the engine
   * refuses elements it cannot start at, such as boundary events, with
   * `InvalidArgumentError`).
   */
  startElementIds?: string[]
}

/**
 * The jobwire client: one gRPC channel (per gateway address), shared by every
 * worker it creates. Configured from options, else the environment
 * (ZEEBE_ADDRESS, ZEEBE_CLIENT_ID, …), else `127.0.0.1:26500` plaintext.
 *
 * @example
 * const client = new Client()
 * await client.deployFiles('order.bpmn')
 * await client.createProcessInstance({ bpmnProcessId: 'order', variables: { id: 1 } })
 * client.createWorker({ jobType: 'ship', handler: async (job) => ({ shipped: true }) })
 */
export class Client {
  private readonly transport: Transport
  private readonly workers = new Set<Worker<never>>()
  private closed = false

  /** Creates a client; nothing connects until the first call. */
  constructor(options: ClientOptions = {}) {
    this.transport = new Transport(resolveClientConfig(options))
  }

  /** Workers created and not closed yet. */
  get workerCount(): number {
    return this.workers.size
  }

  /** Gateway addresses in use. */
  get addresses(): readonly string[] {
    return this.transport.config.addresses
  }

  /**
   * Creates and starts a worker for one job type: the low-level form of {@link Client.startWorkers}
   * (which starts workers declared without a client). See {@link WorkerOptions} for defaults.
   *
   * @example
   * const w = client.createWorker({ jobType: 'charge', maxJobsActive: 8, handler: async (job, { signal }) => {
   *   await charge(job.variables.amount, { signal })
   *   return { charged: true }
   * } })
   */
  createWorker<V = Variables, H = Record<string, string>>(options: WorkerOptions<V, H>): Worker<V, H> {
    if (this.closed) throw new RequestCancelledError('jobwire: createWorker after close(): the client is closed')
    const w: Worker<V, H> = new Worker<V, H>(this.transport, options, this.transport.config.logger, () => this.workers.delete(w as unknown as Worker<never>))
    this.workers.add(w as unknown as Worker<never>)
    return w
  }

  /**
   * Starts a group of workers declared without a client: `defs` maps each job type to its
   * handler or {@link WorkerDefinition}. `middleware` wraps every handler of the group (outside
   * each worker's own); `defaults` are worker options every definition starts from. All or
   * nothing: options are checked for every worker before any starts.
   *
   * @example
   * const Order = z.object({ orderId: z.string(), amount: z.number() })
   * const workers = client.startWorkers({
   *   charge: defineWorker({ variables: Order, handler: async (job) => ({ total: job.variables.amount * 2 }) }),
   *   notify: async (job) => ({ notified: true }),
   * }, { middleware: [logging], defaults: { maxJobsActive: 8 } })
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  startWorkers(defs: Record<string, JobHandler | WorkerDefinition<any, any>>, options: StartWorkersOptions = {}): Record<string, Worker> {
    if (this.closed) throw new RequestCancelledError('jobwire: startWorkers after close(): the client is closed')
    if (!defs || typeof defs !== 'object' || Array.isArray(defs)) throw new TypeError('jobwire: startWorkers needs an object { jobType: handler or WorkerDefinition }')
    const all = Object.entries(defs).map(([jobType, def]) => groupWorkerOptions(jobType, def, options ?? {}))
    for (const o of all) resolveWorkerOptions(o) // every worker's options are valid, or none starts
    const out: Record<string, Worker> = {}
    for (const o of all) out[o.jobType] = this.createWorker(o) as unknown as Worker
    return out
  }

  /** Deploys one resource (BPMN XML as string or bytes). */
  async deployResource(resource: { name: string; content: string | Uint8Array } | Array<{ name: string; content: string | Uint8Array }>, options: CallOptions & { tenantId?: string } = {}): Promise<Deployment> {
    const list = Array.isArray(resource) ? resource : [resource]
    const resources = list.map((r) => ({ name: r.name, content: typeof r.content === 'string' ? Buffer.from(r.content, 'utf8') : Buffer.from(r.content) }))
    return toDeployment(await this.transport.unary('DeployResource', { resources, tenantId: options.tenantId ?? '' }, options))
  }

  /** Reads files and deploys them in one deployment. */
  async deployFiles(...paths: string[]): Promise<Deployment> {
    const resources = await Promise.all(paths.map(async (p) => ({ name: path.basename(p), content: await fs.readFile(p) })))
    return this.deployResource(resources)
  }

  /** Starts a process instance. */
  async createProcessInstance(req: CreateProcessInstanceRequest, options: CallOptions = {}): Promise<ProcessInstance> {
    return toProcessInstance(await this.transport.unary('CreateProcessInstance', this.createReq(req), options))
  }

  /** Starts a process instance and waits for its result (variables). */
  async createProcessInstanceWithResult(
    req: CreateProcessInstanceRequest & { requestTimeoutMs?: number; fetchVariables?: string[] },
    options: CallOptions = {},
  ): Promise<ProcessInstanceResult> {
    const rt = req.requestTimeoutMs ?? 0
    const res = await this.transport.unary<Record<string, unknown> & { variables: string }>(
      'CreateProcessInstanceWithResult',
      { request: this.createReq(req), requestTimeout: String(rt), fetchVariables: req.fetchVariables ?? [] },
      { ...options, timeoutMs: options.timeoutMs ?? Math.max(this.transport.config.commandTimeoutMs, rt + 10_000) },
    )
    const v = parseLossless(res.variables || '{}') as JsonValue
    return { ...toProcessInstance(res), variablesJson: res.variables || '{}', variables: (v && typeof v === 'object' && !Array.isArray(v) ? v : {}) as Variables }
  }

  private createReq(req: CreateProcessInstanceRequest): object {
    return {
      bpmnProcessId: req.bpmnProcessId ?? '',
      version: req.version ?? -1,
      processDefinitionKey: req.processDefinitionKey === undefined ? '0' : key(req.processDefinitionKey, 'processDefinitionKey'),
      variables: variablesToJson(req.variables, 'createProcessInstance'),
      tenantId: req.tenantId ?? '',
      startInstructions: (req.startElementIds ?? []).map((elementId) => ({ elementId })),
    }
  }

  /** Cancels a running process instance. */
  async cancelProcessInstance(processInstanceKey: Key, options: CallOptions = {}): Promise<void> {
    await this.transport.unary('CancelProcessInstance', { processInstanceKey: key(processInstanceKey, 'processInstanceKey') }, options)
  }

  /** Publishes a message; resolves to the message key. `timeToLiveMs` default 0 (correlate now or drop). */
  async publishMessage(
    msg: { name: string; correlationKey?: string; timeToLiveMs?: number; messageId?: string; variables?: VariablesInput; tenantId?: string },
    options: CallOptions = {},
  ): Promise<string> {
    const res = await this.transport.unary<{ key: string }>(
      'PublishMessage',
      {
        name: msg.name,
        correlationKey: msg.correlationKey ?? '',
        timeToLive: String(msg.timeToLiveMs ?? 0),
        messageId: msg.messageId ?? '',
        variables: variablesToJson(msg.variables, 'publishMessage'),
        tenantId: msg.tenantId ?? '',
      },
      options,
    )
    return res.key
  }

  /** Sets variables on a scope (process or element instance); resolves to the command key. */
  async setVariables(req: { elementInstanceKey: Key; variables: VariablesInput; local?: boolean }, options: CallOptions = {}): Promise<string> {
    const res = await this.transport.unary<{ key: string }>(
      'SetVariables',
      { elementInstanceKey: key(req.elementInstanceKey, 'elementInstanceKey'), variables: variablesToJson(req.variables, 'setVariables'), local: req.local ?? false },
      options,
    )
    return res.key
  }

  /** Resolves an incident. */
  async resolveIncident(incidentKey: Key, options: CallOptions = {}): Promise<void> {
    await this.transport.unary('ResolveIncident', { incidentKey: key(incidentKey, 'incidentKey') }, options)
  }

  /** Sets a job's retries. */
  async updateJobRetries(req: { jobKey: Key; retries: number }, options: CallOptions = {}): Promise<void> {
    await this.transport.unary('UpdateJobRetries', { jobKey: key(req.jobKey, 'jobKey'), retries: req.retries }, options)
  }

  /** Sets a job's activation timeout, counted from now. */
  async updateJobTimeout(req: { jobKey: Key; timeoutMs: number }, options: CallOptions = {}): Promise<void> {
    await this.transport.unary('UpdateJobTimeout', { jobKey: key(req.jobKey, 'jobKey'), timeout: String(req.timeoutMs) }, options)
  }

  /** Completes a job by key (outside a worker). */
  async completeJob(req: { jobKey: Key; variables?: VariablesInput }, options: CallOptions = {}): Promise<void> {
    await this.transport.unary('CompleteJob', { jobKey: key(req.jobKey, 'jobKey'), variables: variablesToJson(req.variables, 'completeJob') }, options)
  }

  /** Fails a job by key (outside a worker). */
  async failJob(req: { jobKey: Key; retries: number; message?: string; retryBackOffMs?: number; variables?: VariablesInput }, options: CallOptions = {}): Promise<void> {
    await this.transport.unary(
      'FailJob',
      {
        jobKey: key(req.jobKey, 'jobKey'),
        retries: req.retries,
        errorMessage: req.message ?? '',
        retryBackOff: String(req.retryBackOffMs ?? 0),
        variables: variablesToJson(req.variables, 'failJob'),
      },
      options,
    )
  }

  /** Throws a BPMN error from a job by key (outside a worker). */
  async throwError(req: { jobKey: Key; code: string; message?: string; variables?: VariablesInput }, options: CallOptions = {}): Promise<void> {
    await this.transport.unary(
      'ThrowError',
      { jobKey: key(req.jobKey, 'jobKey'), errorCode: req.code, errorMessage: req.message ?? '', variables: variablesToJson(req.variables, 'throwError') },
      options,
    )
  }

  /**
   * Evaluates a deployed decision, by id (its latest version) or by key, with variables. A decision
   * that fails to evaluate resolves too, with `failedDecisionId` and `failureMessage` set; an unknown
   * decision rejects with NotFoundError. Resent after UNAVAILABLE or RESOURCE_EXHAUSTED (shared
   * backoff, at most 5 attempts, within `timeoutMs`).
   *
   * @example
   * const r = await client.evaluateDecision({ decisionId: 'discount', variables: { total: 120 } })
   * if (r.failedDecisionId) throw new Error(r.failureMessage)
   * console.log(r.decisionOutput) // e.g. 0.1
   */
  async evaluateDecision(req: EvaluateDecisionRequest, options: CallOptions = {}): Promise<DecisionEvaluation> {
    return toDecisionEvaluation(await sendCommand(this.transport, 'EvaluateDecision', evaluateDecisionWire(req), options))
  }

  /**
   * Modifies a running process instance in one step: activates elements (with variables per scope)
   * and terminates element instances. Resent only after RESOURCE_EXHAUSTED: after UNAVAILABLE or a
   * deadline the modification may have been applied, so the error is returned at once.
   *
   * @example
   * await client.modifyProcessInstance({
   *   processInstanceKey,
   *   activate: [{ elementId: 'review', variables: [{ variables: { reason: 'manual' } }] }],
   *   terminate: [stuckElementInstanceKey],
   * })
   */
  async modifyProcessInstance(req: ModifyProcessInstanceRequest, options: CallOptions = {}): Promise<void> {
    await sendCommand(this.transport, 'ModifyProcessInstance', modifyProcessInstanceWire(req), options)
  }

  /**
   * Moves a running process instance to another process definition, element by element. Resent only
   * after RESOURCE_EXHAUSTED.
   *
   * @example
   * await client.migrateProcessInstance({
   *   processInstanceKey,
   *   targetProcessDefinitionKey: v2.processDefinitionKey,
   *   mappings: [{ sourceElementId: 'check', targetElementId: 'checkV2' }],
   * })
   */
  async migrateProcessInstance(req: MigrateProcessInstanceRequest, options: CallOptions = {}): Promise<void> {
    await sendCommand(this.transport, 'MigrateProcessInstance', migrateProcessInstanceWire(req), options)
  }

  /**
   * Deletes a deployed resource (a process definition, decision requirements graph or form) by key.
   * A process definition with running instances is refused (FailedPreconditionError); an unknown key
   * is NotFoundError. Resent only after RESOURCE_EXHAUSTED.
   *
   * @example
   * const d = await client.deployFiles('order.bpmn')
   * await client.deleteResource(d.processes[0].processDefinitionKey)
   */
  async deleteResource(resourceKey: Key, options: CallOptions = {}): Promise<void> {
    await sendCommand(this.transport, 'DeleteResource', { resourceKey: key(resourceKey, 'resourceKey') }, options)
  }

  /**
   * Broadcasts a signal: every signal start event and waiting signal catch event with that name is
   * triggered, with the variables. Resolves to the signal's key. Resent only after RESOURCE_EXHAUSTED
   * (a resent signal would start the processes a second time).
   *
   * @example
   * const signalKey = await client.broadcastSignal({ signalName: 'stock-arrived', variables: { sku: 'A-1' } })
   */
  async broadcastSignal(req: BroadcastSignalRequest, options: CallOptions = {}): Promise<string> {
    const res = await sendCommand<{ key: string }>(this.transport, 'BroadcastSignal', broadcastSignalWire(req), options)
    return String(res.key)
  }

  /** The cluster topology. */
  async topology(options: CallOptions = {}): Promise<Topology> {
    return toTopology(await this.transport.unary('Topology', {}, options))
  }

  /** Closes every worker (each with `timeoutMs`), then the channel. */
  async close(options: { timeoutMs?: number } = {}): Promise<void> {
    this.closed = true
    await Promise.all([...this.workers].map((w) => w.close(options)))
    this.transport.close()
  }
}
