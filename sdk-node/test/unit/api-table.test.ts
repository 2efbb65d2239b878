// The cross-language API table (docs/api.md) lists every public name of @jobwire/sdk in its
// Node column; this test keeps the two equal in both directions. It reads the built package
// (npm run build; scripts/test.sh builds first): the runtime keys of lib/cjs/index.js and the
// names its index.d.ts exports, types included.
import * as fs from 'node:fs'
import * as path from 'node:path'

const lib = path.resolve(__dirname, '..', '..', 'lib', 'cjs')

function apiMd(): string {
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const p = path.join(dir, 'docs', 'api.md')
    if (fs.existsSync(p)) return fs.readFileSync(p, 'utf8')
    if (path.dirname(dir) === dir) throw new Error('docs/api.md not found above the test directory')
  }
}

/** The backticked names of the column `col` of every table in docs/api.md. */
function column(md: string, col: string): string[] {
  const names: string[] = []
  let idx = -1
  for (const raw of md.split('\n')) {
    const line = raw.trim()
    if (!line.startsWith('|')) {
      idx = -1
      continue
    }
    const cells = line.replace(/^\||\|$/g, '').split('|').map((c) => c.trim())
    if (idx < 0) {
      idx = cells.indexOf(col)
      continue
    }
    const cell = cells[idx] ?? ''
    if (cell.startsWith('---')) continue
    for (const m of cell.matchAll(/`([^`]+)`/g)) names.push(m[1] ?? '')
  }
  return names
}

/** Every .d.ts text of the build, to find the declaration of a type-only export. */
function declarations(): string {
  const out: string[] = []
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory() && e.name !== 'generated') walk(path.join(d, e.name))
      else if (e.name.endsWith('.d.ts')) out.push(fs.readFileSync(path.join(d, e.name), 'utf8'))
    }
  }
  walk(lib)
  return out.join('\n')
}

/** The body of `interface X` / `class X` / `type X = {` in the declarations. */
function body(decls: string, name: string): string | undefined {
  const m = new RegExp(`^(?:export\\s+)?(?:declare\\s+)?(?:interface|class|type)\\s+${name}\\b(?:<[^>]*>)?[^{=;]*(?:=\\s*)?\\{`, 'm').exec(decls)
  if (!m) return undefined
  let depth = 1
  let i = m.index + m[0].length
  const start = i
  for (; i < decls.length && depth > 0; i++) {
    if (decls[i] === '{') depth++
    else if (decls[i] === '}') depth--
  }
  return decls.slice(start, i - 1)
}

/** Public members declared directly in a class or interface body (depth 1, not private/protected). */
function publicMembers(b: string): string[] {
  const names: string[] = []
  let depth = 0
  for (const line of b.split('\n')) {
    if (depth === 0) {
      const m = /^\s*(?!private\b|protected\b)(?:(?:readonly|static|get|set|async)\s+)*([A-Za-z_$][\w$]*)\??\s*[(<:;]/.exec(line)
      if (m?.[1] !== undefined && m[1] !== 'constructor') names.push(m[1])
    }
    for (const ch of line) depth += ch === '{' ? 1 : ch === '}' ? -1 : 0
  }
  return names
}

it('the Node column of docs/api.md lists exactly the exports of @jobwire/sdk', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const mod = require(path.join(lib, 'index.js')) as Record<string, unknown>
  const runtime = Object.keys(mod)
  const index = fs.readFileSync(path.join(lib, 'index.d.ts'), 'utf8')
  const typed = [...index.matchAll(/export (?:type )?\{([^}]*)\}/g)].flatMap((m) =>
    (m[1] ?? '')
      .split(',')
      .map((s) => s.trim().split(/\s+as\s+/).pop()!.trim())
      .filter(Boolean),
  )
  const exported = new Set([...runtime, ...typed])

  const decls = declarations()
  const listed = new Set<string>()
  const listedMembers = new Set<string>()
  const problems: string[] = []
  for (const n of column(apiMd(), 'Node')) {
    if (!/^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)?$/.test(n)) continue // AbortSignal etc. are not checked
    const [head, member] = n.split('.') as [string, string | undefined]
    if (head === 'AbortSignal') continue // the platform's, named for comparison
    listed.add(head)
    if (member === undefined) continue
    listedMembers.add(n)
    const value = mod[head]
    const b = body(decls, head)
    const proto = typeof value === 'function' ? (value as { prototype?: object }).prototype : undefined
    const onValue = typeof value === 'function' && (member in value || (proto !== undefined && member in proto))
    const inDecl = b !== undefined && new RegExp(`(^|\\s)(?:readonly\\s+|get\\s+)?${member}\\??\\s*[(<:;]`, 'm').test(b)
    if (!onValue && !inDecl) problems.push(`docs/api.md lists ${n}, but ${head} has no member ${member}`)
  }
  const missing = [...exported].filter((n) => !listed.has(n))
  const extra = [...listed].filter((n) => !exported.has(n))
  // Every public method and property of the classes and the Job interface is in the table.
  for (const cls of ['Client', 'Worker', 'Job']) {
    const b = body(decls, cls)
    if (b === undefined) problems.push(`no declaration of ${cls} in the build`)
    else for (const m of publicMembers(b)) if (!listedMembers.has(`${cls}.${m}`)) missing.push(`${cls}.${m}`)
  }
  expect({ missing: missing.sort(), extra: extra.sort(), problems }).toEqual({ missing: [], extra: [], problems: [] })
})
