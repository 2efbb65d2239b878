package io.jobwire.test;

/**
 * An open incident ({@link JobwireTestEngine#awaitIncident(long)}).
 *
 * @param key the incident key (for {@link io.jobwire.JobwireClient#resolveIncident(long)})
 * @param type e.g. JOB_NO_RETRIES, UNHANDLED_ERROR_EVENT, CONDITION_ERROR, EXTRACT_VALUE_ERROR
 * @param message what went wrong
 * @param processInstanceKey its process instance
 * @param elementInstanceKey the element instance it is about
 * @param jobKey the job it is about, 0 when none
 */
public record Incident(String type, String message, long key, long processInstanceKey, long elementInstanceKey, long jobKey) {}
