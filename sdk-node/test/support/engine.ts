// Starts the reference engine (engine-reference/bin/jobwire-engine) as a test
// fixture. Tests that need it FAIL when it is missing or does not start.
import { spawn, type ChildProcess } from 'node:child_process'
import * as fs from 'node:fs'
import * as os from 'node:os'
import * as path from 'node:path'

export const ENGINE_BIN = process.env.JOBWIRE_ENGINE_BIN ?? path.resolve(__dirname, '..', '..', '..', 'engine-reference', 'bin', 'jobwire-engine')

export class Engine {
  private proc: ChildProcess | undefined
  port = 0
  oauthUrl: string | undefined
  readonly dataDir: string

  private constructor(private readonly extraArgs: string[], dataDir?: string) {
    this.dataDir = dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'jobwire-node-'))
  }

  /** Starts an engine on a free port (or `port`) with its own data dir. */
  static async start(opts: { args?: string[]; port?: number; dataDir?: string } = {}): Promise<Engine> {
    const e = new Engine(opts.args ?? [], opts.dataDir)
    await e.launch(opts.port ?? 0)
    return e
  }

  get address(): string {
    return `127.0.0.1:${this.port}`
  }

  private launch(port: number): Promise<void> {
    if (!fs.existsSync(ENGINE_BIN)) throw new Error(`reference engine not found at ${ENGINE_BIN}: run 'make engine'`)
    const args = ['dev', '--port', String(port), '--data-dir', this.dataDir, '--exit-on-stdin-close', '--no-fsync', ...this.extraArgs]
    const proc = spawn(ENGINE_BIN, args, { stdio: ['pipe', 'pipe', 'pipe'] })
    this.proc = proc
    return new Promise((resolve, reject) => {
      let out = ''
      const timer = setTimeout(() => {
        proc.kill('SIGKILL')
        reject(new Error(`engine did not start within 15 s; output:\n${out}`))
      }, 15_000)
      proc.stdout!.setEncoding('utf8')
      proc.stderr!.setEncoding('utf8')
      proc.stderr!.on('data', (d: string) => (out += d))
      proc.stdout!.on('data', (d: string) => {
        out += d
        const o = /oauth token endpoint (http:\/\/127\.0\.0\.1:\d+\/\S+)/.exec(out)
        if (o) this.oauthUrl = o[1]
        const m = /listening on 127\.0\.0\.1:(\d+)/.exec(out)
        if (m && (!this.extraArgs.includes('--oauth') || this.oauthUrl)) {
          clearTimeout(timer)
          this.port = Number(m[1])
          resolve()
        }
      })
      proc.once('exit', (code) => {
        clearTimeout(timer)
        reject(new Error(`engine exited (${code}) before listening; output:\n${out}`))
      })
    })
  }

  /** Kills the engine (SIGKILL, like a crash) and waits for the exit. */
  async kill(): Promise<void> {
    const p = this.proc
    this.proc = undefined
    if (!p || p.exitCode !== null) return
    await new Promise<void>((resolve) => {
      p.once('exit', () => resolve())
      p.kill('SIGKILL')
    })
  }

  /** Kill, then start again on the same port and data dir (a gateway restart). */
  async restart(downMs = 0): Promise<void> {
    await this.kill()
    if (downMs) await new Promise((r) => setTimeout(r, downMs))
    await this.launch(this.port)
  }

  /** Kills the engine and removes its data dir. */
  async stop(): Promise<void> {
    await this.kill()
    fs.rmSync(this.dataDir, { recursive: true, force: true })
  }
}

/** A one-service-task process. */
export function oneTaskProcess(processId: string, jobType: string, retries = 3): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="defs" targetNamespace="http://jobwire.dev/test">
  <bpmn:process id="${processId}" isExecutable="true">
    <bpmn:startEvent id="start"><bpmn:outgoing>f1</bpmn:outgoing></bpmn:startEvent>
    <bpmn:sequenceFlow id="f1" sourceRef="start" targetRef="task" />
    <bpmn:serviceTask id="task" name="task">
      <bpmn:extensionElements><zeebe:taskDefinition type="${jobType}" retries="${retries}" /></bpmn:extensionElements>
      <bpmn:incoming>f1</bpmn:incoming><bpmn:outgoing>f2</bpmn:outgoing>
    </bpmn:serviceTask>
    <bpmn:sequenceFlow id="f2" sourceRef="task" targetRef="end" />
    <bpmn:endEvent id="end"><bpmn:incoming>f2</bpmn:incoming></bpmn:endEvent>
  </bpmn:process>
</bpmn:definitions>
`
}
