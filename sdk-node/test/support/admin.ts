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

  close(): void {
    this.stub.close()
  }
}
