import { Client } from '../src/index'
import { Engine, oneTaskProcess } from './support/engine'
it('debug', async () => {
  const e = await Engine.start()
  try {
    const c = new Client({ address: e.address })
    await c.deployResource({ name: 'p.bpmn', content: oneTaskProcess('p', 'bp') })
    let done = 0
    const w = c.createWorker({ jobType: 'bp', maxJobsActive: 2, handler: async () => { await new Promise((r) => setTimeout(r, 300)); done++ } })
    while (w.state !== 'streaming') await new Promise((r) => setTimeout(r, 20))
    for (let i = 0; i < 40; i++) { const t = Date.now(); await c.createProcessInstance({ bpmnProcessId: 'p', variables: { pad: 'x'.repeat(4000) } }, { timeoutMs: 3000 }); if (Date.now() - t > 200) console.log('slow create', i, Date.now() - t) }
    console.log('created all; done', done)
    await c.close({ timeoutMs: 100 })
  } finally { await e.stop() }
})
