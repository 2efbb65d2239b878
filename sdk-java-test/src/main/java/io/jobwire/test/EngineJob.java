package io.jobwire.test;

import java.time.Instant;

/**
 * A job as the engine sees it ({@link JobwireTestEngine#jobs(String)}).
 *
 * @param key the job key
 * @param type the job type
 * @param state "ACTIVATABLE" or "ACTIVATED"
 * @param retries retries left
 * @param worker the worker that holds it ("" when activatable)
 * @param deadline its activation deadline (engine time), null when not activated
 * @param processInstanceKey its process instance
 * @param elementInstanceKey its task's element instance
 */
public record EngineJob(long key, String type, String state, int retries, String worker, Instant deadline, long processInstanceKey,
    long elementInstanceKey) {}
