'use strict'
// start(): a `jobwire-engine dev` on 127.0.0.1 for tests and local runs.
const { spawn } = require('node:child_process')
const readline = require('node:readline')
const { enginePath } = require('./find.js')

/**
 * Starts `jobwire-engine dev --port <port> --no-ui --exit-on-stdin-close` and
 * resolves once it listens. port 0 (default): a free port. dataDir: default a
 * fresh temporary folder removed on exit. args: more `dev` flags.
 * The engine exits when its stdin closes, so it stops with this process.
 */
function start({ port = 0, dataDir, args = [], timeoutMs = 30000 } = {}) {
  const argv = ['dev', '--port', String(port), '--no-ui', '--exit-on-stdin-close']
  if (dataDir) argv.push('--data-dir', dataDir)
  argv.push(...args)
  const child = spawn(enginePath(), argv, { stdio: ['pipe', 'pipe', 'inherit'], windowsHide: true })
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal)))
  const close = async ({ timeoutMs: wait = 10000 } = {}) => {
    if (child.exitCode === null && child.signalCode === null) {
      child.stdin.end()
      const timer = setTimeout(() => child.kill('SIGKILL'), wait)
      try {
        return await exited
      } finally {
        clearTimeout(timer)
      }
    }
    return child.exitCode ?? child.signalCode
  }
  return new Promise((resolve, reject) => {
    const banner = []
    const lines = readline.createInterface({ input: child.stdout })
    const fail = (why) => {
      clearTimeout(timer)
      lines.close()
      child.kill('SIGKILL')
      reject(new Error(`jobwire-engine did not start: ${why}${banner.length ? ` (${banner.join(' | ')})` : ''}`))
    }
    const timer = setTimeout(() => fail(`no listening line after ${timeoutMs} ms`), timeoutMs)
    const onError = (err) => fail(err.message)
    const onExit = (code, signal) => fail(`exit ${code ?? signal}`)
    child.once('error', onError)
    child.once('exit', onExit)
    lines.on('line', (line) => {
      banner.push(line)
      const m = / listening on (\S+)/.exec(line)
      if (!m) return
      clearTimeout(timer)
      child.removeListener('error', onError)
      child.removeListener('exit', onExit)
      lines.removeAllListeners('line') // keep reading stdout so the pipe never fills
      const address = m[1]
      resolve({ address, port: Number(address.slice(address.lastIndexOf(':') + 1)), process: child, banner, close })
    })
  })
}

module.exports = { start, enginePath }
