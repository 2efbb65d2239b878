// The reference engine's admin API (jobwire.admin.v1, same port as the gateway): the engine's view of jobs.
import * as path from 'node:path'
import * as grpc from '@grpc/grpc-js'
import * as protoLoader from '@grpc/proto-loader'

const ADMIN_PROTO = path.resolve(__dirname, '..', '..', '..', 'proto', 'jobwire', 'admin', 'v1', 'admin.proto')

export interface JobInfo {
  key: string
  type: string
  state: string
  worker: string
  activationCount: number
  yieldCount: number
  timeoutCount: number
  completeCount: number
  failCount: number
  processInstanceKey: string
  elementInstanceKey: string
}

export interface ProcessInstanceInfo {
  key: string
  bpmnProcessId: string
  /** e.g. PROCESS_INSTANCE_STATE_ACTIVE */
  state: string
  /** JSON object of the root-scope variables. */
  variables: string
  processDefinitionKey: string
  version: number
}

export class Admin {
  private readonly stub: any
  constructor(address: string) {
    const def = protoLoader.loadSync(ADMIN_PROTO, { longs: String, enums: String, defaults: true, includeDirs: [path.resolve(__dirname, '..', '..', '..', 'proto')] })
    const pkg = grpc.loadPackageDefinition(def) as any
    this.stub = new pkg.jobwire.admin.v1.AdminService(address, grpc.credentials.createInsecure())
  }

  jobs(type: string): Promise<JobInfo[]> {
    return new Promise((resolve, reject) =>
      this.stub.ListJobs({ type, includeJobs: true }, (err: Error | null, res: any) => (err ? reject(err) : resolve(res.jobs as JobInfo[]))),
    )
  }

  /** Requests the engine counted for a gRPC method (all peers). */
  requestCount(method: string): Promise<number> {
    return new Promise((resolve, reject) =>
      this.stub.GetRequestCounts({ method }, (err: Error | null, res: any) =>
        err ? reject(err) : resolve((res.counts as Array<{ count: string }>).reduce((n, c) => n + Number(c.count), 0)),
      ),
    )
  }

  /** Stops pushing to streams of `type` for `durationMs` (jobs go to polls), as the stall_streams fault. */
  stallStreams(type: string, durationMs: number): Promise<void> {
    return new Promise((resolve, reject) => this.stub.InjectFault({ stallStreams: { type, durationMs } }, (err: Error | null) => (err ? reject(err) : resolve())))
  }

  /** The engine's process instances of `bpmnProcessId`. */
  processInstances(bpmnProcessId: string): Promise<ProcessInstanceInfo[]> {
    return new Promise((resolve, reject) =>
      this.stub.ListProcessInstances({ bpmnProcessId, includeInstances: true }, (err: Error | null, res: any) => (err ? reject(err) : resolve(res.instances as ProcessInstanceInfo[]))),
    )
  }

  /** The gateway rejects the next `count` requests of `method` with `code` before handling them (nothing applied). */
  reject(method: string, code: number, count: number): Promise<void> {
    return new Promise((resolve, reject) =>
      this.stub.InjectFault({ reject: { method, code, count, message: `injected by the test` } }, (err: Error | null) => (err ? reject(err) : resolve())),
    )
  }

  close(): void {
    this.stub.close()
  }
}
