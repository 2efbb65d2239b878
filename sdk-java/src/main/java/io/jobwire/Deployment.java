package io.jobwire;

import java.util.List;

/**
 * Result of {@link JobwireClient#deployResource}.
 *
 * @param key the deployment key
 * @param processes the processes deployed (decisions and forms are not listed)
 * @param tenantId the tenant
 */
public record Deployment(long key, List<Process> processes, String tenantId) {
  /**
   * One deployed process.
   *
   * @param bpmnProcessId the BPMN process id
   * @param version its version
   * @param processDefinitionKey its definition key
   * @param resourceName the resource it came from
   */
  public record Process(String bpmnProcessId, int version, long processDefinitionKey, String resourceName) {}
}
