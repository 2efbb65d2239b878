package io.jobwire;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jobwire.testing.TestEngine;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Key;
import java.security.KeyStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS with a custom CA against {@code jobwire-engine dev --tls-cert --tls-key}: certificates are
 * made with the JDK's keytool (a throw-away CA, a server certificate for 127.0.0.1 / localhost,
 * an unrelated CA). The right CA connects; the wrong CA never does.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TlsIntegrationTest {
  static void keytool(Path dir, String... args) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) throw new IllegalStateException("keytool " + cmd + " failed: " + out);
  }

  static void ca(Path dir, String name) throws Exception {
    keytool(dir, "-genkeypair", "-alias", "ca", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=" + name, "-ext", "bc:c",
        "-validity", "2", "-keystore", name + ".p12", "-storepass", "changeit", "-storetype", "PKCS12");
    keytool(dir, "-exportcert", "-alias", "ca", "-keystore", name + ".p12", "-storepass", "changeit", "-rfc", "-file", name + ".pem");
  }

  @Test
  void customCaConnectsAndAnUnrelatedCaNeverDoes(@TempDir Path dir) throws Exception {
    ca(dir, "ca");
    ca(dir, "other-ca");
    keytool(dir, "-genkeypair", "-alias", "server", "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=localhost", "-validity", "2",
        "-keystore", "server.p12", "-storepass", "changeit", "-storetype", "PKCS12");
    keytool(dir, "-certreq", "-alias", "server", "-keystore", "server.p12", "-storepass", "changeit", "-file", "server.csr");
    keytool(dir, "-gencert", "-alias", "ca", "-keystore", "ca.p12", "-storepass", "changeit", "-infile", "server.csr", "-outfile", "server.pem",
        "-rfc", "-ext", "SAN=IP:127.0.0.1,DNS:localhost", "-ext", "EKU=serverAuth", "-validity", "2");
    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(dir.resolve("server.p12"))) {
      ks.load(in, "changeit".toCharArray());
    }
    Key key = ks.getKey("server", "changeit".toCharArray());
    Files.writeString(dir.resolve("server.key"), "-----BEGIN PRIVATE KEY-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(key.getEncoded()) + "\n-----END PRIVATE KEY-----\n");

    try (TestEngine engine = TestEngine.start("--tls-cert", dir.resolve("server.pem").toString(), "--tls-key", dir.resolve("server.key").toString())) {
      // the right CA (TLS is implied by the CA certificate; the environment is ignored)
      try (JobwireClient ok = JobwireClient.builder().environment(Map.of()).address(engine.address())
          .caCertificatePath(dir.resolve("ca.pem")).build()) {
        assertFalse(ok.isInsecure());
        assertTrue(ok.topology().get(20, TimeUnit.SECONDS).partitionsCount() >= 1);
      }
      // the same through the environment, as the conformance driver does
      try (JobwireClient env = JobwireClient.builder().environment(Map.of("ZEEBE_ADDRESS", engine.address(), "ZEEBE_INSECURE_CONNECTION", "false",
          "ZEEBE_CA_CERTIFICATE_PATH", dir.resolve("ca.pem").toString())).build()) {
        assertTrue(env.topology().get(20, TimeUnit.SECONDS).partitionsCount() >= 1);
      }
      // an unrelated CA: commands fail, a worker backs off and never receives a job
      try (JobwireClient bad = JobwireClient.builder().environment(Map.of()).address(engine.address())
          .caCertificatePath(dir.resolve("other-ca.pem")).commandTimeout(Duration.ofSeconds(2)).build()) {
        ExecutionException e = assertThrows(ExecutionException.class, () -> bad.topology().get(20, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof JobwireException, String.valueOf(e.getCause()));
        List<WorkerState> states = new CopyOnWriteArrayList<>();
        JobWorker w = bad.newWorker().jobType("tls").stateListener(states::add).handler(job -> null).open();
        EngineIntegrationTest.waitFor(() -> states.contains(WorkerState.BACKOFF), 10_000);
        w.close(Duration.ofSeconds(1));
      }
    }
  }

  /** A key pair signed by {@code caName} (its .p12), written as name.pem / name.key. */
  static void signed(Path dir, String caName, String name, String eku) throws Exception {
    keytool(dir, "-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=localhost", "-validity", "2",
        "-keystore", name + ".p12", "-storepass", "changeit", "-storetype", "PKCS12");
    keytool(dir, "-certreq", "-alias", name, "-keystore", name + ".p12", "-storepass", "changeit", "-file", name + ".csr");
    keytool(dir, "-gencert", "-alias", "ca", "-keystore", caName + ".p12", "-storepass", "changeit", "-infile", name + ".csr", "-outfile",
        name + ".pem", "-rfc", "-ext", "SAN=IP:127.0.0.1,DNS:localhost", "-ext", "EKU=" + eku, "-validity", "2");
    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(dir.resolve(name + ".p12"))) {
      ks.load(in, "changeit".toCharArray());
    }
    Key key = ks.getKey(name, "changeit".toCharArray());
    Files.writeString(dir.resolve(name + ".key"), "-----BEGIN PRIVATE KEY-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(key.getEncoded()) + "\n-----END PRIVATE KEY-----\n");
  }

  /**
   * Mutual TLS refused: without a client certificate the worker's TLS warning names the missing
   * client certificate and its settings (not the CA, which is fine); with one from an unrelated CA
   * it says the gateway refused it. Real handshakes with the engine; the warning is read from the
   * SDK's log (slf4j-simple writes to the current System.err).
   */
  @Test
  void mutualTlsFailuresNameTheClientCertificate(@TempDir Path dir) throws Exception {
    ca(dir, "ca");
    ca(dir, "client-ca");
    ca(dir, "other-ca");
    signed(dir, "ca", "server", "serverAuth");
    signed(dir, "other-ca", "stranger", "clientAuth");
    try (TestEngine engine = TestEngine.start("--tls-cert", dir.resolve("server.pem").toString(), "--tls-key", dir.resolve("server.key").toString(),
        "--tls-client-ca", dir.resolve("client-ca.pem").toString())) {
      String none = tlsWarning(JobwireClient.builder().environment(Map.of()).address(engine.address())
          .caCertificatePath(dir.resolve("ca.pem")).build(), "mtls-none");
      assertTrue(none.contains("requires a client certificate") && none.contains("ZEEBE_CLIENT_CERTIFICATE_PATH"), none);
      assertFalse(none.contains("ZEEBE_CA_CERTIFICATE_PATH"), none);
      String stranger = tlsWarning(JobwireClient.builder().environment(Map.of()).address(engine.address())
          .caCertificatePath(dir.resolve("ca.pem")).clientCertificatePath(dir.resolve("stranger.pem"))
          .clientPrivateKeyPath(dir.resolve("stranger.key")).build(), "mtls-stranger");
      assertTrue(stranger.contains("refused the client certificate"), stranger);
    }
    // a server certificate the client does not trust keeps the CA advice
    assertTrue(io.jobwire.internal.TlsAdvice.advice(new javax.net.ssl.SSLHandshakeException(
        "PKIX path building failed: unable to find valid certification path"), false).contains("ZEEBE_CA_CERTIFICATE_PATH"));
  }

  /** Runs a worker of {@code client} until it backs off and returns its TLS warning line. */
  static String tlsWarning(JobwireClient client, String jobType) throws Exception {
    java.io.ByteArrayOutputStream buf = new java.io.ByteArrayOutputStream();
    java.io.PrintStream old = System.err;
    java.io.PrintStream tee = new java.io.PrintStream(new java.io.OutputStream() {
      @Override
      public synchronized void write(int b) {
        buf.write(b);
        old.write(b);
      }

      @Override
      public synchronized void write(byte[] b, int off, int len) {
        buf.write(b, off, len);
        old.write(b, off, len);
      }
    }, true);
    System.setErr(tee);
    try (client) {
      List<WorkerState> states = new CopyOnWriteArrayList<>();
      JobWorker w = client.newWorker().jobType(jobType).stateListener(states::add).handler(job -> null).open();
      EngineIntegrationTest.waitFor(() -> states.contains(WorkerState.BACKOFF) && buf.toString(StandardCharsets.UTF_8).contains("TLS handshake"), 15_000);
      w.close(Duration.ofSeconds(1));
    } finally {
      System.setErr(old);
    }
    return buf.toString(StandardCharsets.UTF_8).lines().filter(l -> l.contains("TLS handshake")).findFirst().orElse("");
  }

  static String chain(Throwable e) {
    StringBuilder b = new StringBuilder();
    for (Throwable t = e; t != null; t = t.getCause()) b.append(" <- ").append(t);
    return b.toString();
  }
}
