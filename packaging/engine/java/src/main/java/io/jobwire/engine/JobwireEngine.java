package io.jobwire.engine;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A running jobwire reference engine ({@code jobwire-engine dev}) on 127.0.0.1, for
 * tests and local development. Close it to stop the engine; the engine also stops when
 * this JVM exits (it runs with {@code --exit-on-stdin-close}).
 *
 * <pre>{@code
 * try (JobwireEngine engine = JobwireEngine.start()) {
 *   JobwireClient client = JobwireClient.builder().address(engine.address()).insecure(true).build();
 *   ...
 * }
 * }</pre>
 *
 * <p>The binary is found by {@link EngineBinary#find()}: the system property
 * {@code jobwire.engine} or the environment variable {@code JOBWIRE_ENGINE} (a path),
 * else the {@code io.jobwire:jobwire-engine} jar with this platform's classifier on the
 * classpath.
 */
public final class JobwireEngine implements AutoCloseable {
  private static final Pattern LISTENING = Pattern.compile("listening on (127\\.0\\.0\\.1:(\\d+))");
  private static final int TAIL_LINES = 40;

  private final Process process;
  private final String address;
  private final int port;
  private boolean closed;

  private JobwireEngine(Process process, String address, int port) {
    this.process = process;
    this.address = address;
    this.port = port;
  }

  /**
   * Starts an engine on a free port with a fresh data folder (removed when it stops).
   *
   * @return the running engine
   * @throws IOException when no binary is found or the engine does not come up
   */
  public static JobwireEngine start() throws IOException {
    return builder().start();
  }

  /**
   * Options for {@link Builder#start()}.
   *
   * @return a builder with the defaults: port 0 (a free port), a temporary data folder,
   *     the binary from {@link EngineBinary#find()}, 30 s to come up
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Where clients connect.
   *
   * @return {@code "127.0.0.1:PORT"}
   */
  public String address() {
    return address;
  }

  /**
   * The port the engine listens on.
   *
   * @return the port
   */
  public int port() {
    return port;
  }

  /**
   * Whether the engine process is running.
   *
   * @return true until it stops
   */
  public boolean isAlive() {
    return process.isAlive();
  }

  /**
   * Stops the engine: closes its stdin (it exits), and kills it if it has not stopped
   * within 10 seconds. Safe to call more than once.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    stop(process, Duration.ofSeconds(10));
  }

  private static void stop(Process p, Duration grace) {
    try {
      p.getOutputStream().close();
    } catch (IOException ignored) {
      // already gone
    }
    try {
      if (!p.waitFor(grace.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroy();
        if (!p.waitFor(5, TimeUnit.SECONDS)) {
          p.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
        }
      }
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  /** Options for starting an engine. */
  public static final class Builder {
    private int port;
    private Path dataDir;
    private Path binary;
    private Duration startTimeout = Duration.ofSeconds(30);
    private final List<String> extraArgs = new ArrayList<>();

    private Builder() {}

    /**
     * The gRPC port; 0 (the default) picks a free one.
     *
     * @param port 0..65535
     * @return this builder
     */
    public Builder port(int port) {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("port must be 0..65535, got " + port);
      }
      this.port = port;
      return this;
    }

    /**
     * Keep the engine's data in this folder (it survives a restart); by default the engine
     * uses a fresh temporary folder and removes it when it stops.
     *
     * @param dataDir the data folder
     * @return this builder
     */
    public Builder dataDir(Path dataDir) {
      this.dataDir = dataDir;
      return this;
    }

    /**
     * Run this binary instead of finding one ({@link EngineBinary#find()}).
     *
     * @param binary path of a jobwire-engine binary
     * @return this builder
     */
    public Builder binary(Path binary) {
      this.binary = binary;
      return this;
    }

    /**
     * How long to wait for the engine to report that it listens (default 30 s).
     *
     * @param timeout the wait
     * @return this builder
     */
    public Builder startTimeout(Duration timeout) {
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("startTimeout must be positive");
      }
      this.startTimeout = timeout;
      return this;
    }

    /**
     * More {@code jobwire-engine dev} flags, e.g. {@code "--no-fsync"}.
     *
     * @param args the flags
     * @return this builder
     */
    public Builder args(String... args) {
      extraArgs.addAll(List.of(args));
      return this;
    }

    /**
     * Starts the engine and waits until it listens.
     *
     * @return the running engine
     * @throws IOException when no binary is found, or the engine exits or stays silent
     *     for longer than the start timeout (the message holds its last output)
     */
    public JobwireEngine start() throws IOException {
      Path bin = binary != null ? binary : EngineBinary.find();
      List<String> cmd = new ArrayList<>(List.of(bin.toString(), "dev", "--port", Integer.toString(port),
          "--no-ui", "--exit-on-stdin-close"));
      if (dataDir != null) {
        cmd.add("--data-dir");
        cmd.add(dataDir.toString());
      }
      cmd.addAll(extraArgs);
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
      CompletableFuture<Matcher> ready = new CompletableFuture<>();
      ArrayDeque<String> tail = new ArrayDeque<>();
      Thread reader = new Thread(() -> drain(p, ready, tail), "jobwire-engine-output-" + p.pid());
      reader.setDaemon(true);
      reader.start();
      try {
        Matcher m = ready.get(startTimeout.toMillis(), TimeUnit.MILLISECONDS);
        return new JobwireEngine(p, m.group(1), Integer.parseInt(m.group(2)));
      } catch (TimeoutException e) {
        stop(p, Duration.ofSeconds(2));
        throw new IOException("jobwire-engine: " + bin + " did not report listening within " + startTimeout
            + output(tail));
      } catch (ExecutionException e) {
        stop(p, Duration.ofSeconds(2));
        throw new IOException("jobwire-engine: " + bin + " exited before listening" + exit(p) + output(tail));
      } catch (InterruptedException e) {
        stop(p, Duration.ofSeconds(2));
        Thread.currentThread().interrupt();
        throw new IOException("jobwire-engine: interrupted while starting", e);
      }
    }

    private static void drain(Process p, CompletableFuture<Matcher> ready, ArrayDeque<String> tail) {
      try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
        String line;
        while ((line = r.readLine()) != null) {
          if (!ready.isDone()) {
            Matcher m = LISTENING.matcher(line);
            if (m.find()) {
              ready.complete(m);
              continue;
            }
            synchronized (tail) {
              tail.addLast(line);
              if (tail.size() > TAIL_LINES) {
                tail.removeFirst();
              }
            }
          }
          // after start, the output is read and dropped so the engine never blocks on a full pipe
        }
      } catch (IOException ignored) {
        // the process ended
      }
      ready.completeExceptionally(new IOException("output ended"));
    }

    private static String exit(Process p) {
      try {
        return p.waitFor(2, TimeUnit.SECONDS) ? " (exit status " + p.exitValue() + ")" : "";
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return "";
      }
    }

    private static String output(ArrayDeque<String> tail) {
      synchronized (tail) {
        return tail.isEmpty() ? "" : "; its output:\n" + String.join("\n", tail);
      }
    }
  }
}
