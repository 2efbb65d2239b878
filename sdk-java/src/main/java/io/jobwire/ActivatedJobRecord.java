package io.jobwire;

/**
 * A job returned by {@link JobwireClient#activateJobs} (a plain value; send its outcome with the
 * client's completeJob / failJob / throwError).
 *
 * @param key job key
 * @param type job type
 * @param processInstanceKey process instance key
 * @param bpmnProcessId BPMN process id
 * @param elementId element id
 * @param retries retries left
 * @param deadline activation deadline, epoch ms
 * @param variables variables as JSON object text
 * @param customHeaders custom headers as JSON object text
 */
public record ActivatedJobRecord(long key, String type, long processInstanceKey, String bpmnProcessId, String elementId, int retries, long deadline,
    String variables, String customHeaders) {}
