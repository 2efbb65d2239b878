import * as fs from 'node:fs'
import * as path from 'node:path'

// The ESM build replaces this file (scripts/postbuild.js) with one based on import.meta.url.
const here = __dirname

/** Location of a .proto shipped in the package (gateway.proto, stream.proto). @internal */
export function protoPath(file = 'gateway.proto'): string {
  const candidates = [path.join(here, '..', 'proto', file), path.join(here, '..', '..', 'proto', file)]
  for (const c of candidates) if (fs.existsSync(c)) return c
  throw new Error(`jobwire: ${file} not found (looked in ${candidates.join(', ')})`)
}
