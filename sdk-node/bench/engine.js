// Shared by the benchmarks: a throwaway `jobwire-engine dev` on a free 127.0.0.1 port and a
// one-task process. Env: JOBWIRE_ENGINE_BIN picks the engine binary, JOBWIRE_ENGINE_ARGS adds
// flags to it (space-separated, e.g. "--push-order new").
'use strict'
const { spawn } = require('node:child_process')
const path = require('node:path')
const fs = require('node:fs')
const os = require('node:os')

const ENGINE = process.env.JOBWIRE_ENGINE_BIN ?? path.resolve(__dirname, '..', '..', 'engine-reference', 'bin', 'jobwire-engine')

/** Starts the engine (fsync off unless asked) and resolves to { address, stop }. */
function startEngine({ prefix = 'jobwire-bench-', fsync = false } = {}) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
  const args = ['dev', '--port', '0', '--data-dir', dir, '--exit-on-stdin-close']
  if (!fsync) args.push('--no-fsync')
  args.push(...(process.env.JOBWIRE_ENGINE_ARGS ?? '').split(/\s+/).filter(Boolean))
  const p = spawn(ENGINE, args, { stdio: ['pipe', 'pipe', 'inherit'] })
  return new Promise((resolve, reject) => {
    let out = ''
    p.stdout.on('data', (d) => {
      out += d
      const m = /listening on (127\.0\.0\.1:\d+)/.exec(out)
      if (m) resolve({ address: m[1], stop: () => { p.kill('SIGKILL'); fs.rmSync(dir, { recursive: true, force: true }) } })
    })
    p.on('exit', (c) => reject(new Error(`engine exited ${c}: ${out}`)))
  })
}

/** A start → service task (job type `type`) → end process with id `id`. */
const bpmn = (id, type) => `<?xml version="1.0" encoding="UTF-8"?>
<bpmn:definitions xmlns:bpmn="http://www.omg.org/spec/BPMN/20100524/MODEL" xmlns:zeebe="http://camunda.org/schema/zeebe/1.0" id="d" targetNamespace="x">
  <bpmn:process id="${id}" isExecutable="true">
    <bpmn:startEvent id="s"><bpmn:outgoing>f1</bpmn:outgoing></bpmn:startEvent>
    <bpmn:sequenceFlow id="f1" sourceRef="s" targetRef="t" />
    <bpmn:serviceTask id="t"><bpmn:extensionElements><zeebe:taskDefinition type="${type}" /></bpmn:extensionElements><bpmn:incoming>f1</bpmn:incoming><bpmn:outgoing>f2</bpmn:outgoing></bpmn:serviceTask>
    <bpmn:sequenceFlow id="f2" sourceRef="t" targetRef="e" />
    <bpmn:endEvent id="e"><bpmn:incoming>f2</bpmn:incoming></bpmn:endEvent>
  </bpmn:process>
</bpmn:definitions>`

module.exports = { startEngine, bpmn }
