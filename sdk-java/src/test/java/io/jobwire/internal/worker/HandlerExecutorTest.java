package io.jobwire.internal.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class HandlerExecutorTest {
  @Test
  void virtualThreadsWhenTheRuntimeHasThemElseDaemonPoolThreads() throws Exception {
    ExecutorService ex = WorkerImpl.handlerExecutor(2, "jobwire-handler-t");
    try {
      Thread t = ex.submit(Thread::currentThread).get(5, TimeUnit.SECONDS);
      boolean virtual = (Boolean) Thread.class.getMethod("isVirtual").invoke(t);
      assertEquals(Runtime.version().feature() >= 21, virtual, "java " + Runtime.version());
      assertTrue(t.isDaemon());
      assertTrue(t.getName().startsWith("jobwire-handler-t"), t.getName());
    } catch (NoSuchMethodException onJava17) {
      Thread t = ex.submit(Thread::currentThread).get(5, TimeUnit.SECONDS);
      assertTrue(t.isDaemon());
      assertTrue(t.getName().startsWith("jobwire-handler-t-"), t.getName());
    } finally {
      ex.shutdownNow();
    }
  }
}
