// The reference engine for these tests: @jobwire/sdk/testing's startTestEngine with the monorepo's
// binary (engine-reference/bin/jobwire-engine, `make engine`) unless JOBWIRE_ENGINE names another.
// Tests FAIL when it is missing. Plus the engine's admin view of jobs (ListJobs), which the
// close checks read: state, timeouts.
import * as fs from 'node:fs'
import * as path from 'node:path'
import * as grpc from '@grpc/grpc-js'
import * as protoLoader from '@grpc/proto-loader'
import { startTestEngine, type TestEngine } from '@jobwire/sdk/testing'

const ROOT = path.resolve(__dirname, '..', '..', '..')
const BIN = path.join(ROOT, 'engine-reference', 'bin', 'jobwire-engine')

export async function engine(): Promise<TestEngine> {
  if (!process.env.JOBWIRE_ENGINE) {
    if (!fs.existsSync(BIN)) throw new Error(`reference engine not found at ${BIN}: run 'make engine'`)
    process.env.JOBWIRE_ENGINE = BIN
  }
  return startTestEngine()
}

export interface AdminJob {
  key: string
  type: string
  state: string
  timeoutCount: number
  activationCount: number
  completeCount: number
  failCount: number
  errorMessage: string
}

/** The engine's admin API (jobwire.admin.v1): every job of a type, whatever its state. */
export class Admin {
  private readonly stub: grpc.Client & Record<string, Function>
  constructor(address: string) {
    const proto = path.join(ROOT, 'proto')
    const def = protoLoader.loadSync(path.join(proto, 'jobwire', 'admin', 'v1', 'admin.proto'), { longs: String, enums: String, defaults: true, includeDirs: [proto] })
    const pkg = grpc.loadPackageDefinition(def) as any
    this.stub = new pkg.jobwire.admin.v1.AdminService(address, grpc.credentials.createInsecure())
  }

  jobs(type: string): Promise<AdminJob[]> {
    return new Promise((resolve, reject) =>
      this.stub.ListJobs({ type, includeJobs: true }, (err: Error | null, res: { jobs: AdminJob[] }) =>
        err ? reject(err) : resolve(res.jobs.map((j) => ({ ...j, timeoutCount: Number(j.timeoutCount), activationCount: Number(j.activationCount), completeCount: Number(j.completeCount), failCount: Number(j.failCount) })))),
    )
  }

  close(): void {
    this.stub.close()
  }
}

/** A one-service-task process. */
export function oneTask(processId: string, jobType: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="defs" targetNamespace="http://jobwire.dev/test">
  <bpmn:process id="${processId}" isExecutable="true">
    <bpmn:startEvent id="start"><bpmn:outgoing>f1</bpmn:outgoing></bpmn:startEvent>
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="task" />
    <bpmn:serviceTask id="task" name="task">
      <bpmn:extensionElements><zeebe:taskDefinition type="${jobType}" retries="3" /></bpmn:extensionElements>
      <bpmn:incoming>f1</bpmn:incoming><bpmn:outgoing>f2</bpmn:outgoing>
    </bpmn:serviceTask>
    <bpmn:sequenceFlow id="f2" sourceRef="task" targetRef="end" />
    <bpmn:endEvent id="end"><bpmn:incoming>f2</bpmn:incoming></bpmn:endEvent>
  </bpmn:process>
</bpmn:definitions>
`
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

/** Polls `cond` every 10 ms until true; throws `what` after `timeoutMs`. */
export async function until(cond: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`not within ${timeoutMs} ms: ${what}`)
    await sleep(10)
  }
}
