/**
 * The five commands that follow the resend rule (docs/worker-semantics.md, "Client commands: which are
 * resent"): EvaluateDecision, ModifyProcessInstance, MigrateProcessInstance, DeleteResource and
 * BroadcastSignal. Their typed requests and results (plain interfaces of the SDK, never the
 * generated protocol types), the wire requests built from them, and the resend loop.
 */
import { status as Status } from '@grpc/grpc-js'
import { JobwireError, RequestCancelledError, toJobwireError } from './errors.js'
import { key, type Key, type VariablesInput } from './inputs.js'
import { parseLossless, variablesToJson, type JsonValue } from './json.js'
import type { CallOptions, Transport } from './transport.js'
import { Backoff, sleep } from './worker/backoff.js'

// ---------------------------------------------------------------------------
// Evaluate a decision

/** What {@link Client.evaluateDecision} evaluates: a decision by id (its latest version) or by key. */
export interface EvaluateDecisionRequest {
  /** Decision id from the DMN file; the latest deployed version is evaluated. Or use `decisionKey`. */
  decisionId?: string
  /** Key of one deployed decision version (takes precedence over `decisionId`). */
  decisionKey?: Key
  /** Variables the decision reads: an object or a JSON object string (int64 kept exact). */
  variables?: VariablesInput
  /** Tenant of the decision. */
  tenantId?: string
}

/** One input of a decision table, as evaluated. */
export interface EvaluatedInput {
  /** Id of the input in the DMN file. */
  inputId: string
  /** Label of the input. */
  inputName: string
  /** The input's value, parsed losslessly. */
  inputValue: JsonValue
  /** The input's value as raw JSON text. */
  inputValueJson: string
}

/** One output of a matched rule. */
export interface EvaluatedOutput {
  /** Id of the output in the DMN file. */
  outputId: string
  /** Name of the output. */
  outputName: string
  /** The output's value, parsed losslessly. */
  outputValue: JsonValue
  /** The output's value as raw JSON text. */
  outputValueJson: string
}

/** A rule of a decision table that matched. */
export interface MatchedRule {
  /** Id of the rule in the DMN file. */
  ruleId: string
  /** Position of the rule in its table, from 1. */
  ruleIndex: number
  /** The outputs the rule produced. */
  evaluatedOutputs: EvaluatedOutput[]
}

/** One decision evaluated on the way (the decision itself and each decision it requires). */
export interface EvaluatedDecision {
  /** Key of the decision version (decimal string). */
  decisionKey: string
  /** Decision id from the DMN file. */
  decisionId: string
  /** Decision name. */
  decisionName: string
  /** Decision version. */
  decisionVersion: number
  /** `DECISION_TABLE`, `LITERAL_EXPRESSION`, ... */
  decisionType: string
  /** The decision's output, parsed losslessly. */
  decisionOutput: JsonValue
  /** The decision's output as raw JSON text. */
  decisionOutputJson: string
  /** The rules that matched (decision tables only). */
  matchedRules: MatchedRule[]
  /** The inputs as evaluated (decision tables only). */
  evaluatedInputs: EvaluatedInput[]
  /** Tenant of the decision. */
  tenantId: string
  /** Key of this decision's evaluation instance. */
  decisionEvaluationInstanceKey: string
}

/**
 * Result of {@link Client.evaluateDecision}. A decision that fails to evaluate (e.g. no rule of a
 * UNIQUE table, or two, match) is a result too: `failedDecisionId` and `failureMessage` are set.
 */
export interface DecisionEvaluation {
  /** Key of the evaluated decision version (decimal string). */
  decisionKey: string
  /** Id of the evaluated decision. */
  decisionId: string
  /** Name of the evaluated decision. */
  decisionName: string
  /** Version of the evaluated decision. */
  decisionVersion: number
  /** Id of the decision requirements graph (the DMN file's definitions). */
  decisionRequirementsId: string
  /** Key of the decision requirements graph (decimal string). */
  decisionRequirementsKey: string
  /** The decision's output, parsed losslessly (`null` when the evaluation failed). */
  decisionOutput: JsonValue
  /** The decision's output as raw JSON text, exactly as the gateway sent it. */
  decisionOutputJson: string
  /** Every decision evaluated, in evaluation order (required decisions first). */
  evaluatedDecisions: EvaluatedDecision[]
  /** Id of the decision whose evaluation failed; empty on success. */
  failedDecisionId: string
  /** Why the evaluation failed; empty on success. */
  failureMessage: string
  /** Tenant of the decision. */
  tenantId: string
  /** Key of the decision instance (decimal string). */
  decisionInstanceKey: string
  /** Key of the evaluation (decimal string). */
  decisionEvaluationKey: string
}

// ---------------------------------------------------------------------------
// Modify a process instance

/** Variables set as local variables of one scope of an activated element. */
export interface ScopedVariables {
  /** Id of the element whose instance gets the variables as local variables; absent or empty: the process instance. */
  scopeId?: string
  /** The variables: an object or a JSON object string. */
  variables: VariablesInput
}

/** An element to activate in a process instance. */
export interface ActivateElement {
  /** Id of the BPMN element to activate. */
  elementId: string
  /** The flow scope instance to activate it in; absent: the one instance of the element's flow scope. */
  ancestorElementInstanceKey?: Key
  /** Variables to set, per scope. */
  variables?: ScopedVariables[]
}

/** What {@link Client.modifyProcessInstance} does to one process instance, all in one step. */
export interface ModifyProcessInstanceRequest {
  /** The process instance to modify. */
  processInstanceKey: Key
  /** Elements to activate. */
  activate?: ActivateElement[]
  /** Element instances to terminate, by key. */
  terminate?: Key[]
}

// ---------------------------------------------------------------------------
// Migrate a process instance

/** Moves the instances of one element to an element of the target definition. */
export interface MappingInstruction {
  /** Element id in the instance's current process definition. */
  sourceElementId: string
  /** Element id in the target process definition. */
  targetElementId: string
}

/** What {@link Client.migrateProcessInstance} moves where. */
export interface MigrateProcessInstanceRequest {
  /** The process instance to migrate. */
  processInstanceKey: Key
  /** Key of the process definition to move it to. */
  targetProcessDefinitionKey: Key
  /** Element mappings from the current definition to the target one. */
  mappings: MappingInstruction[]
}

// ---------------------------------------------------------------------------
// Broadcast a signal

/** What {@link Client.broadcastSignal} sends. */
export interface BroadcastSignalRequest {
  /** The signal name, matched against signal start and catch events. */
  signalName: string
  /** Variables the triggered events receive: an object or a JSON object string. */
  variables?: VariablesInput
  /** Tenant. */
  tenantId?: string
}

// ---------------------------------------------------------------------------
// The resend rule

/** The commands that follow the resend rule. @internal */
export type ResentCommand = 'EvaluateDecision' | 'ModifyProcessInstance' | 'MigrateProcessInstance' | 'DeleteResource' | 'BroadcastSignal'

/** Attempts of one command at most, the first one included (same in every SDK). @internal */
export const MAX_COMMAND_ATTEMPTS = 5

/**
 * Whether `command`, failed with status `code`, is sent again (docs/worker-semantics.md, "Client
 * commands: which are resent"): only after a status that proves it was not applied. An evaluation
 * changes no state: resent after UNAVAILABLE or RESOURCE_EXHAUSTED. The four others change state:
 * resent only after RESOURCE_EXHAUSTED (the broker refused it before writing it); after UNAVAILABLE,
 * DEADLINE_EXCEEDED or ABORTED the first attempt may have been applied. A client-side error (no code)
 * is never resent. @internal
 */
export function resentAfter(command: ResentCommand, code: number | undefined): boolean {
  if (code === undefined) return false
  switch (command) {
    case 'EvaluateDecision':
      return code === Status.UNAVAILABLE || code === Status.RESOURCE_EXHAUSTED
    case 'ModifyProcessInstance':
      return code === Status.RESOURCE_EXHAUSTED
    case 'MigrateProcessInstance':
      return code === Status.RESOURCE_EXHAUSTED
    case 'DeleteResource':
      return code === Status.RESOURCE_EXHAUSTED
    case 'BroadcastSignal':
      return code === Status.RESOURCE_EXHAUSTED
  }
}

/**
 * Sends one of the five commands: resent after the statuses `resentAfter` allows, with the shared
 * backoff (50 ms, ×1.6, ±10 %), at most MAX_COMMAND_ATTEMPTS attempts and never past the call's
 * deadline (`timeoutMs`, default the client's commandTimeoutMs, counted from the first attempt).
 * Rejects with the typed error of the last status. @internal
 */
export async function sendCommand<Res>(transport: Transport, command: ResentCommand, req: object, options: CallOptions = {}, backoff = new Backoff(Math.random, transport.config.backoff)): Promise<Res> {
  const deadline = Date.now() + (options.timeoutMs ?? transport.config.commandTimeoutMs)
  for (let attempt = 1; ; attempt++) {
    let err: JobwireError
    try {
      return await transport.unary<Res>(command, req, { signal: options.signal, timeoutMs: Math.max(1, deadline - Date.now()) })
    } catch (e) {
      err = toJobwireError(e, command)
    }
    if (attempt >= MAX_COMMAND_ATTEMPTS || !resentAfter(command, err.code)) throw err
    const delay = backoff.next()
    if (Date.now() + delay >= deadline) throw err
    transport.config.logger.debug(`${command} failed (${err.codeName}); attempt ${attempt + 1} of ${MAX_COMMAND_ATTEMPTS} in ${delay} ms`)
    await sleep(delay, options.signal)
    if (options.signal?.aborted) throw new RequestCancelledError(`${command}: aborted`, Status.CANCELLED, '', { cause: err })
  }
}

// ---------------------------------------------------------------------------
// Wire requests and results

type Wire = Record<string, any>

/** The EvaluateDecision request. @internal */
export function evaluateDecisionWire(req: EvaluateDecisionRequest): object {
  return {
    decisionKey: req.decisionKey === undefined ? '0' : key(req.decisionKey, 'decisionKey'),
    decisionId: req.decisionId ?? '',
    variables: variablesToJson(req.variables, 'evaluateDecision'),
    tenantId: req.tenantId ?? '',
  }
}

/** The ModifyProcessInstance request. @internal */
export function modifyProcessInstanceWire(req: ModifyProcessInstanceRequest): object {
  return {
    processInstanceKey: key(req.processInstanceKey, 'processInstanceKey'),
    activateInstructions: (req.activate ?? []).map((a) => ({
      elementId: a.elementId,
      ancestorElementInstanceKey: a.ancestorElementInstanceKey === undefined ? '0' : key(a.ancestorElementInstanceKey, 'ancestorElementInstanceKey'),
      variableInstructions: (a.variables ?? []).map((v) => ({ scopeId: v.scopeId ?? '', variables: variablesToJson(v.variables, 'modifyProcessInstance') })),
    })),
    terminateInstructions: (req.terminate ?? []).map((k) => ({ elementInstanceKey: key(k, 'terminate') })),
  }
}

/** The MigrateProcessInstance request. @internal */
export function migrateProcessInstanceWire(req: MigrateProcessInstanceRequest): object {
  return {
    processInstanceKey: key(req.processInstanceKey, 'processInstanceKey'),
    migrationPlan: {
      targetProcessDefinitionKey: key(req.targetProcessDefinitionKey, 'targetProcessDefinitionKey'),
      mappingInstructions: (req.mappings ?? []).map((m) => ({ sourceElementId: m.sourceElementId, targetElementId: m.targetElementId })),
    },
  }
}

/** The BroadcastSignal request. @internal */
export function broadcastSignalWire(req: BroadcastSignalRequest): object {
  return { signalName: req.signalName, variables: variablesToJson(req.variables, 'broadcastSignal'), tenantId: req.tenantId ?? '' }
}

/** JSON text from the gateway, parsed losslessly; empty text is null. */
function json(text: string | undefined, what: string): JsonValue {
  if (!text) return null
  try {
    return parseLossless(text)
  } catch (e) {
    throw new JobwireError(`EvaluateDecision: the gateway sent ${what} that is not JSON: ${(e as Error).message}`, undefined, '', { cause: e })
  }
}

function toEvaluatedDecision(d: Wire): EvaluatedDecision {
  return {
    decisionKey: String(d.decisionKey ?? '0'),
    decisionId: d.decisionId ?? '',
    decisionName: d.decisionName ?? '',
    decisionVersion: d.decisionVersion ?? 0,
    decisionType: d.decisionType ?? '',
    decisionOutput: json(d.decisionOutput, 'a decision output'),
    decisionOutputJson: d.decisionOutput ?? '',
    matchedRules: (d.matchedRules ?? []).map((r: Wire) => ({
      ruleId: r.ruleId ?? '',
      ruleIndex: r.ruleIndex ?? 0,
      evaluatedOutputs: (r.evaluatedOutputs ?? []).map((o: Wire) => ({
        outputId: o.outputId ?? '',
        outputName: o.outputName ?? '',
        outputValue: json(o.outputValue, 'an output value'),
        outputValueJson: o.outputValue ?? '',
      })),
    })),
    evaluatedInputs: (d.evaluatedInputs ?? []).map((i: Wire) => ({
      inputId: i.inputId ?? '',
      inputName: i.inputName ?? '',
      inputValue: json(i.inputValue, 'an input value'),
      inputValueJson: i.inputValue ?? '',
    })),
    tenantId: d.tenantId ?? '',
    decisionEvaluationInstanceKey: d.decisionEvaluationInstanceKey ?? '',
  }
}

/** The EvaluateDecision answer as a DecisionEvaluation. @internal */
export function toDecisionEvaluation(r: Wire): DecisionEvaluation {
  return {
    decisionKey: String(r.decisionKey ?? '0'),
    decisionId: r.decisionId ?? '',
    decisionName: r.decisionName ?? '',
    decisionVersion: r.decisionVersion ?? 0,
    decisionRequirementsId: r.decisionRequirementsId ?? '',
    decisionRequirementsKey: String(r.decisionRequirementsKey ?? '0'),
    decisionOutput: json(r.decisionOutput, 'a decision output'),
    decisionOutputJson: r.decisionOutput ?? '',
    evaluatedDecisions: (r.evaluatedDecisions ?? []).map(toEvaluatedDecision),
    failedDecisionId: r.failedDecisionId ?? '',
    failureMessage: r.failureMessage ?? '',
    tenantId: r.tenantId ?? '',
    decisionInstanceKey: String(r.decisionInstanceKey ?? '0'),
    decisionEvaluationKey: String(r.decisionEvaluationKey ?? '0'),
  }
}
