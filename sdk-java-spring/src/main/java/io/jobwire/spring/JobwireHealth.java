package io.jobwire.spring;

import io.jobwire.JobWorker;
import io.jobwire.WorkerState;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The workers' report shared by the health indicator and the endpoint: per worker its name, job
 * type, state and held jobs, and the aggregate status: {@code UP} when every worker is idle,
 * polling or streaming (no workers: UP), {@code DOWN} when one is in back-off (the gateway is
 * unreachable or refusing), else {@code OUT_OF_SERVICE} when one is closing or closed.
 */
final class JobwireHealth {
  private JobwireHealth() {}

  static String status(List<JobWorker> workers) {
    boolean down = false;
    boolean out = false;
    for (JobWorker w : workers) {
      WorkerState s = w.state();
      if (s == WorkerState.BACKOFF) down = true;
      else if (s == WorkerState.CLOSING || s == WorkerState.CLOSED) out = true;
    }
    return down ? "DOWN" : out ? "OUT_OF_SERVICE" : "UP";
  }

  static List<Map<String, Object>> workers(List<JobWorker> workers) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (JobWorker w : workers) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("name", w.workerName());
      m.put("type", w.jobType());
      m.put("state", w.state().wireName());
      m.put("heldJobs", w.heldJobs());
      out.add(m);
    }
    return out;
  }
}
