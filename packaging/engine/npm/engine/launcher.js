#!/usr/bin/env node
// Runs the jobwire-engine executable of this platform's package
// (@jobwire/engine-<platform>-<arch>) with the given arguments; forwards
// signals to it and exits with its exit code.
'use strict'
const { spawn } = require('node:child_process')
const os = require('node:os')
const { enginePath } = require('../lib/find.js') // packed as bin/jobwire-engine.js (tools/release/engine-npm.sh)

let bin
try {
  bin = enginePath()
} catch (err) {
  console.error(err.message)
  process.exit(1)
}
const child = spawn(bin, process.argv.slice(2), { stdio: 'inherit', windowsHide: true })
const forwarded = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGBREAK'].filter((s) => s in os.constants.signals)
for (const sig of forwarded) {
  process.on(sig, () => {
    try {
      child.kill(sig)
    } catch {
      // the child is gone already
    }
  })
}
child.on('error', (err) => {
  console.error(`jobwire-engine: cannot run ${bin}: ${err.message}`)
  process.exit(1)
})
child.on('exit', (code, signal) => {
  if (signal) {
    // die of the same signal, as a shell would report it
    for (const sig of forwarded) process.removeAllListeners(sig)
    process.kill(process.pid, signal)
    return
  }
  process.exit(code ?? 1)
})
