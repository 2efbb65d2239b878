import * as fs from 'node:fs'
import * as path from 'node:path'

// The ESM build replaces this file (scripts/postbuild.js) with one based on import.meta.url.
const here = __dirname

/** Location of the gateway.proto shipped in the package. @internal */
export function protoPath(): string {
  const candidates = [path.join(here, '..', 'proto', 'gateway.proto'), path.join(here, '..', '..', 'proto', 'gateway.proto')]
  for (const c of candidates) if (fs.existsSync(c)) return c
  throw new Error(`jobwire: gateway.proto not found (looked in ${candidates.join(', ')})`)
}
