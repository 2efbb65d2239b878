// Preloaded into the Node driver by tools/soak/soak.py (NODE_OPTIONS=--require): what the process's
// memory is made of, every 5 s, as JSON lines in $SOAK_NODE_RUNTIME_FILE. It only reads counters
// (process.memoryUsage, v8 heap spaces); it triggers no GC and changes no heap setting.
'use strict'
const fs = require('node:fs')
const path = require('node:path')
const v8 = require('node:v8')

const file = process.env.SOAK_NODE_RUNTIME_FILE
// only the driver itself (npm, started by the driver's run script for a build, also sees NODE_OPTIONS)
if (file && process.argv[1] && path.basename(process.argv[1]) === 'driver.js') {
  const kb = (n) => Math.round(n / 1024)
  const sample = () => {
    const m = process.memoryUsage()
    const s = {}
    for (const x of v8.getHeapSpaceStatistics()) s[x.space_name] = x
    const line = {
      t: Date.now(), rss: kb(m.rss), heapTotal: kb(m.heapTotal), heapUsed: kb(m.heapUsed),
      external: kb(m.external), arrayBuffers: kb(m.arrayBuffers),
      oldUsed: kb(s.old_space ? s.old_space.space_used_size : 0),
      codeUsed: kb((s.code_space ? s.code_space.space_used_size : 0) + (s.code_large_object_space ? s.code_large_object_space.space_used_size : 0)),
    }
    try { fs.appendFileSync(file, JSON.stringify(line) + '\n') } catch { /* the soak's work dir is gone: stop quietly */ }
  }
  setInterval(sample, 5000).unref()
  sample()
}
