/**
 * Inputs shared by the client's commands: int64 keys and variables arguments.
 * @internal
 */

/** An int64 key: a decimal string (as the SDK returns them), a bigint, or a safe number. */
export type Key = string | bigint | number

/** Variables argument: an object or a JSON object string. */
export type VariablesInput = Record<string, unknown> | string

/** A key as the decimal string sent on the wire; throws a TypeError (nothing sent) for anything else. @internal */
export function key(k: Key, what: string): string {
  const s = typeof k === 'string' ? k.trim() : typeof k === 'bigint' ? k.toString() : Number.isSafeInteger(k) ? String(k) : ''
  if (!/^-?\d+$/.test(s)) throw new TypeError(`jobwire: ${what} must be an integer key, got ${String(k)}`)
  return s
}
