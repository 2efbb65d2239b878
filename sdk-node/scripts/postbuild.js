// After `tsc` twice: mark lib/cjs and lib/esm with their module type and give
// the ESM build a protoPath based on import.meta.url (CommonJS uses __dirname).
'use strict'
const fs = require('node:fs')
const path = require('node:path')
const lib = path.join(__dirname, '..', 'lib')
fs.writeFileSync(path.join(lib, 'cjs', 'package.json'), JSON.stringify({ type: 'commonjs' }) + '\n')
fs.writeFileSync(path.join(lib, 'esm', 'package.json'), JSON.stringify({ type: 'module' }) + '\n')
fs.writeFileSync(
  path.join(lib, 'esm', 'protoPath.js'),
  `import * as fs from 'node:fs'
import * as path from 'node:path'
import { fileURLToPath } from 'node:url'
const here = path.dirname(fileURLToPath(import.meta.url))
/** Location of a .proto shipped in the package (gateway.proto, stream.proto). */
export function protoPath(file = 'gateway.proto') {
  const candidates = [path.join(here, '..', 'proto', file), path.join(here, '..', '..', 'proto', file)]
  for (const c of candidates) if (fs.existsSync(c)) return c
  throw new Error('jobwire: ' + file + ' not found (looked in ' + candidates.join(', ') + ')')
}
`,
)
