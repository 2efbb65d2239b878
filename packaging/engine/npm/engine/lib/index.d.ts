import type { ChildProcess } from 'node:child_process'

export interface StartOptions {
  /** gateway port on 127.0.0.1; 0 (default) picks a free port */
  port?: number
  /** data folder; default a fresh temporary folder removed on exit */
  dataDir?: string
  /** more `jobwire-engine dev` flags */
  args?: string[]
  /** how long to wait for the engine to listen (default 30000) */
  timeoutMs?: number
}

export interface Engine {
  /** "127.0.0.1:PORT", for the SDK's `address` option */
  address: string
  port: number
  process: ChildProcess
  /** the engine's first output lines, up to the listening line */
  banner: string[]
  /** stops the engine (closes its stdin; kills it after timeoutMs); resolves to its exit code */
  close(options?: { timeoutMs?: number }): Promise<number | string | null>
}

/** Starts `jobwire-engine dev` (no live view) and resolves once it listens. */
export function start(options?: StartOptions): Promise<Engine>
/** The path of this platform's jobwire-engine executable. */
export function enginePath(): string
