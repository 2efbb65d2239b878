/**
 * Results of the client's commands: plain interfaces of the SDK (never the
 * generated protocol types), so the public API does not change with them.
 * int64 keys are decimal strings.
 */
import type { Variables } from './job.js'

/** A partition as seen by one broker. */
export interface Partition {
  /** Partition id, from 1. */
  partitionId: number
  /** LEADER, FOLLOWER or INACTIVE. */
  role: string
  /** HEALTHY, UNHEALTHY or DEAD. */
  health: string
}

/** A broker of the cluster. */
export interface Broker {
  /** Node id of the broker in the cluster. */
  nodeId: number
  /** Host name or address the broker advertises. */
  host: string
  /** Port the broker advertises. */
  port: number
  /** Broker version. */
  version: string
  /** The partitions this broker takes part in, with its role and health in each. */
  partitions: Partition[]
}

/** Result of {@link Client.topology}. */
export interface Topology {
  /** The brokers of the cluster. */
  brokers: Broker[]
  /** Number of brokers in the cluster. */
  clusterSize: number
  /** Number of partitions. */
  partitionsCount: number
  /** Number of copies of each partition. */
  replicationFactor: number
  /** Version of the gateway that answered. */
  gatewayVersion: string
}

/** A process deployed by {@link Client.deployResource}. */
export interface Process {
  /** The process id from the BPMN file. */
  bpmnProcessId: string
  /** Version the engine assigned to this deployment of the process. */
  version: number
  /** Key of the process definition (decimal string). */
  processDefinitionKey: string
  /** Name of the deployed resource that holds the process. */
  resourceName: string
  /** Tenant the process was deployed to. */
  tenantId: string
}

/** Result of {@link Client.deployResource}. */
export interface Deployment {
  /** Deployment key. */
  key: string
  /** Tenant the resources were deployed to. */
  tenantId: string
  /** The processes of the deployment (decisions and forms are not listed). */
  processes: Process[]
}

/** Result of {@link Client.createProcessInstance}. */
export interface ProcessInstance {
  /** Key of the process definition the instance runs (decimal string). */
  processDefinitionKey: string
  /** The process id from the BPMN file. */
  bpmnProcessId: string
  /** Version of the process definition the instance runs. */
  version: number
  /** Key of the new process instance (decimal string). */
  processInstanceKey: string
  /** Tenant of the instance. */
  tenantId: string
}

/** Result of {@link Client.createProcessInstanceWithResult}: the instance and its final variables. */
export interface ProcessInstanceResult extends ProcessInstance {
  /** Final variables (lossless). */
  variables: Variables
  /** Final variables, raw JSON. */
  variablesJson: string
}

// Conversions from the wire answers (loaded with longs and enums as strings).
type Wire = Record<string, any>

/** @internal */
export function toTopology(r: Wire): Topology {
  return {
    brokers: (r.brokers ?? []).map((b: Wire) => ({
      nodeId: b.nodeId,
      host: b.host,
      port: b.port,
      version: b.version,
      partitions: (b.partitions ?? []).map((p: Wire) => ({ partitionId: p.partitionId, role: String(p.role), health: String(p.health) })),
    })),
    clusterSize: r.clusterSize,
    partitionsCount: r.partitionsCount,
    replicationFactor: r.replicationFactor,
    gatewayVersion: r.gatewayVersion,
  }
}

/** @internal */
export function toDeployment(r: Wire): Deployment {
  const processes: Process[] = []
  for (const d of r.deployments ?? []) {
    const p = d.process
    if (p) processes.push({ bpmnProcessId: p.bpmnProcessId, version: p.version, processDefinitionKey: p.processDefinitionKey, resourceName: p.resourceName, tenantId: p.tenantId })
  }
  return { key: r.key, tenantId: r.tenantId, processes }
}

/** @internal */
export function toProcessInstance(r: Wire): ProcessInstance {
  return { processDefinitionKey: r.processDefinitionKey, bpmnProcessId: r.bpmnProcessId, version: r.version, processInstanceKey: r.processInstanceKey, tenantId: r.tenantId }
}
