package io.jobwire.engine;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Starts the engine built by `make engine` (JOBWIRE_ENGINE, set by the POM). */
class JobwireEngineTest {
  @TempDir Path tmp;

  @BeforeAll
  static void engineIsBuilt() throws IOException {
    String env = System.getenv(EngineBinary.ENV);
    assertTrue(env != null && Files.isExecutable(Path.of(env)),
        "JOBWIRE_ENGINE must name the engine built by `make engine`, got " + env);
    assertTrue(EngineBinary.find().equals(Path.of(env)));
  }

  @Test
  void startsOnAFreePortAndStopsOnClose() throws IOException {
    JobwireEngine e = JobwireEngine.start();
    try {
      assertTrue(e.address().matches("127\\.0\\.0\\.1:\\d+"), e.address());
      assertTrue(e.address().endsWith(":" + e.port()));
      assertTrue(e.port() > 0);
      assertTrue(connects(e.port()), "engine does not accept connections");
    } finally {
      e.close();
    }
    assertFalse(e.isAlive());
    assertFalse(connects(e.port()), "engine still listens after close");
    e.close(); // idempotent
  }

  @Test
  void twoEnginesRunSideBySide() throws IOException {
    try (JobwireEngine a = JobwireEngine.start(); JobwireEngine b = JobwireEngine.start()) {
      assertTrue(a.port() != b.port());
      assertTrue(connects(a.port()) && connects(b.port()));
    }
  }

  @Test
  void keepsItsDataInDataDir() throws IOException {
    Path data = tmp.resolve("data");
    try (JobwireEngine e = JobwireEngine.builder().dataDir(data).args("--no-fsync").start()) {
      assertTrue(connects(e.port()));
    }
    try (var s = Files.list(data)) {
      assertTrue(s.findAny().isPresent(), "nothing written to " + data);
    }
  }

  @Test
  void anEngineThatExitsEarlyReportsItsOutput() throws IOException {
    Path fake = script("echo 'flag provided but not defined: -port' >&2\nexit 2\n");
    IOException e = assertThrows(IOException.class, () -> JobwireEngine.builder().binary(fake).start());
    assertTrue(e.getMessage().contains("exited before listening"), e.getMessage());
    assertTrue(e.getMessage().contains("flag provided but not defined"), e.getMessage());
    assertTrue(e.getMessage().contains("exit status 2"), e.getMessage());
  }

  @Test
  void aSilentEngineTimesOutAndIsStopped() throws IOException {
    Path pidFile = tmp.resolve("pid");
    Path fake = script("echo $$ > " + pidFile + "\necho starting\nexec sleep 60\n");
    long t0 = System.nanoTime();
    IOException e = assertThrows(IOException.class,
        () -> JobwireEngine.builder().binary(fake).startTimeout(Duration.ofMillis(700)).start());
    assertTrue(e.getMessage().contains("did not report listening"), e.getMessage());
    assertTrue(e.getMessage().contains("starting"), e.getMessage());
    assertTrue(System.nanoTime() - t0 < 10_000_000_000L);
    long pid = Long.parseLong(Files.readString(pidFile).trim());
    assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "fake engine still running");
  }

  @Test
  void rejectsBadOptions() {
    assertThrows(IllegalArgumentException.class, () -> JobwireEngine.builder().port(70000));
    assertThrows(IllegalArgumentException.class, () -> JobwireEngine.builder().startTimeout(Duration.ZERO));
  }

  private Path script(String body) throws IOException {
    Path p = Files.createTempFile(tmp, "fake-engine", ".sh");
    Files.writeString(p, "#!/bin/sh\n" + body);
    assertTrue(p.toFile().setExecutable(true));
    return p;
  }

  private static boolean connects(int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}
