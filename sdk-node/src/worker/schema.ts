import { InvalidInputError, type InputIssue } from '../errors.js'

/**
 * The Standard Schema contract (version 1, standardschema.dev): the interface zod (≥ 3.24),
 * valibot, arktype and other schema libraries implement. jobwire declares the types here and
 * depends on no schema library: pass any schema that implements it as
 * {@link WorkerOptions.variables} or {@link WorkerOptions.customHeaders}.
 */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  /** The Standard Schema properties. */
  readonly '~standard': StandardSchemaV1.Props<Input, Output>
}

// eslint-disable-next-line @typescript-eslint/no-namespace
export declare namespace StandardSchemaV1 {
  /** The properties under `~standard`. */
  export interface Props<Input = unknown, Output = Input> {
    /** Version of the contract: 1. */
    readonly version: 1
    /** The library implementing it ("zod", "valibot", ...). */
    readonly vendor: string
    /** Validates a value: the output value, or the issues found (sync or async). */
    readonly validate: (value: unknown) => Result<Output> | Promise<Result<Output>>
    /** Input and output types, for inference only. */
    readonly types?: Types<Input, Output> | undefined
  }
  /** What `validate` returns. */
  export type Result<Output> = SuccessResult<Output> | FailureResult
  /** A valid value. */
  export interface SuccessResult<Output> {
    /** The validated (possibly transformed) value. */
    readonly value: Output
    /** Absent on success. */
    readonly issues?: undefined
  }
  /** An invalid value. */
  export interface FailureResult {
    /** The problems found. */
    readonly issues: ReadonlyArray<Issue>
  }
  /** One problem. */
  export interface Issue {
    /** What is wrong. */
    readonly message: string
    /** Where: keys from the root, plain or as segments. */
    readonly path?: ReadonlyArray<PropertyKey | PathSegment> | undefined
  }
  /** A path segment given as an object. */
  export interface PathSegment {
    /** The key. */
    readonly key: PropertyKey
  }
  /** The schema's types. */
  export interface Types<Input = unknown, Output = Input> {
    /** Input type. */
    readonly input: Input
    /** Output type. */
    readonly output: Output
  }
  /** The input type of a schema. */
  export type InferInput<S extends StandardSchemaV1> = NonNullable<S['~standard']['types']>['input']
  /** The output type of a schema. */
  export type InferOutput<S extends StandardSchemaV1> = NonNullable<S['~standard']['types']>['output']
}

/** Whether `s` looks like a Standard Schema (has a `~standard.validate` function). @internal */
export function isStandardSchema(s: unknown): s is StandardSchemaV1 {
  const std = s !== null && (typeof s === 'object' || typeof s === 'function') ? (s as { '~standard'?: { validate?: unknown } })['~standard'] : undefined
  return typeof std === 'object' && std !== null && typeof std.validate === 'function'
}

/** `order.amount`, `items[2].sku`: the issue's path as one string. @internal */
export function issuePath(path: StandardSchemaV1.Issue['path']): string {
  let out = ''
  for (const seg of path ?? []) {
    const k = typeof seg === 'object' && seg !== null ? (seg as StandardSchemaV1.PathSegment).key : (seg as PropertyKey)
    if (typeof k === 'number') out += `[${k}]`
    else out += (out ? '.' : '') + String(k)
  }
  return out
}

/**
 * Validates `value` with a Standard Schema; resolves with the schema's output or rejects with an
 * {@link InvalidInputError} naming every field at fault (`prefix` is put before each path).
 * @internal
 */
export async function validateInput<T>(schema: StandardSchemaV1<unknown, T>, value: unknown, prefix = ''): Promise<T> {
  const result = await schema['~standard'].validate(value)
  if (result.issues) {
    const issues: InputIssue[] = result.issues.map((i) => {
      const p = issuePath(i.path)
      return { path: prefix && p ? `${prefix}.${p}` : prefix || p, message: String(i.message) }
    })
    throw new InvalidInputError(issues)
  }
  return result.value
}

function objectKeys(o: unknown): string[] | undefined {
  if (o === null || typeof o !== 'object' || Array.isArray(o)) return undefined
  return Object.keys(o)
}

/**
 * The variable names a schema reads, for fetchVariables: the top-level `properties` of its
 * Standard JSON Schema (`~standard.jsonSchema`) if it has one, else the keys of a zod-like
 * `.shape`, else of a valibot-like `.entries`; `undefined` (fetch all variables) when none of
 * these is there. @internal
 */
export function deriveFetchVariables(schema: unknown): string[] | undefined {
  if (schema === null || (typeof schema !== 'object' && typeof schema !== 'function')) return undefined
  const s = schema as { '~standard'?: { jsonSchema?: unknown }; shape?: unknown; entries?: unknown }
  const js = s['~standard']?.jsonSchema
  if (js !== undefined && js !== null) {
    try {
      let doc: unknown = js
      const input = (js as { input?: unknown }).input
      if (typeof input === 'function') doc = (input as (o: { target: string }) => unknown).call(js, { target: 'draft-2020-12' })
      const keys = objectKeys((doc as { properties?: unknown } | null)?.properties)
      if (keys) return keys
    } catch {
      /* a JSON Schema that cannot be produced: try the shapes below */
    }
  }
  try {
    const shape = objectKeys(s.shape)
    if (shape) return shape
    const entries = objectKeys(s.entries)
    if (entries) return entries
  } catch {
    /* a getter that throws: no derivation */
  }
  return undefined
}

/** The W3C trace context variable a job's span takes its parent from (Telemetry). @internal */
export const TRACEPARENT = 'traceparent'

/**
 * A derived fetchVariables list with `traceparent` added (once, at the end), so a typed worker
 * does not cut the job's trace; an empty or absent list (all variables) stays as it is. @internal
 */
export function withTraceparent(names: string[] | undefined): string[] | undefined {
  if (names === undefined || names.length === 0 || names.includes(TRACEPARENT)) return names
  return [...names, TRACEPARENT]
}

/**
 * Whether `traceparent` is taken out of the variables before `schema` validates them: the list
 * fetched names it and the schema's keys are known and do not (a strict schema would reject the
 * extra key). @internal
 */
export function stripsTraceparent(schema: unknown, fetchVariables: readonly string[]): boolean {
  if (!fetchVariables.includes(TRACEPARENT)) return false
  const keys = deriveFetchVariables(schema)
  return keys !== undefined && !keys.includes(TRACEPARENT)
}
