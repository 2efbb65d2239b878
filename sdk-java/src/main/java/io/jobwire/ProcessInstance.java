package io.jobwire;

/**
 * A created process instance.
 *
 * @param processDefinitionKey the definition key
 * @param bpmnProcessId the BPMN process id
 * @param version the definition version
 * @param processInstanceKey the instance key
 * @param variables the instance's variables as JSON object text (only from
 *     {@link JobwireClient#createProcessInstanceWithResult}; else empty)
 */
public record ProcessInstance(long processDefinitionKey, String bpmnProcessId, int version, long processInstanceKey, String variables) {}
