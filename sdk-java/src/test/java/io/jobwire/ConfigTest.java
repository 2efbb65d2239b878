package io.jobwire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jobwire.internal.ClientConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigTest {
  static ClientConfig resolve(ClientConfig.Input in, Map<String, String> env) throws ConfigurationException {
    return ClientConfig.resolve(in, env);
  }

  static ClientConfig env(Map<String, String> env) throws ConfigurationException {
    return resolve(new ClientConfig.Input(), env);
  }

  @Test
  void defaults() throws Exception {
    ClientConfig c = env(Map.of());
    assertEquals(List.of("127.0.0.1:26500"), c.addresses());
    assertTrue(c.insecure()); // loopback: plaintext
    assertNull(c.oauth());
    assertEquals(Duration.ofSeconds(45), c.keepAlive());
    assertEquals(8192, c.streamWindowBytes());
    assertEquals(Duration.ofSeconds(30), c.commandTimeout());
  }

  @Test
  void addressPrecedenceAndParsing() throws Exception {
    assertEquals(List.of("a:1"), env(Map.of("ZEEBE_GRPC_ADDRESS", "a:1", "ZEEBE_ADDRESS", "b:2", "CAMUNDA_GRPC_ADDRESS", "c:3")).addresses());
    assertEquals(List.of("b:2"), env(Map.of("ZEEBE_ADDRESS", "b:2", "CAMUNDA_GRPC_ADDRESS", "c:3")).addresses());
    assertEquals(List.of("c:3"), env(Map.of("ZEEBE_ADDRESS", "  ", "CAMUNDA_GRPC_ADDRESS", "c:3")).addresses());
    assertEquals(List.of("gw.example.com:26500", "h2:1", "dns:///svc:26500"), env(Map.of("ZEEBE_ADDRESS", "grpcs://gw.example.com/, h2:1 ,dns:///svc")).addresses());
    ClientConfig.Input in = new ClientConfig.Input();
    in.addresses = List.of("x:9");
    assertEquals(List.of("x:9"), resolve(in, Map.of("ZEEBE_ADDRESS", "b:2")).addresses());
    assertThrows(ConfigurationException.class, () -> env(Map.of("ZEEBE_ADDRESS", " , ")));
  }

  @Test
  void transportSecurity() throws Exception {
    assertFalse(env(Map.of("ZEEBE_ADDRESS", "gw.example.com:443")).insecure(), "non-loopback defaults to TLS");
    assertTrue(env(Map.of("ZEEBE_ADDRESS", "grpc://gw.example.com:26500")).insecure(), "grpc:// is plaintext");
    assertFalse(env(Map.of("ZEEBE_ADDRESS", "https://127.0.0.1:26500")).insecure(), "https:// is TLS");
    for (String t : List.of("true", "1", "YES", "on")) assertTrue(env(Map.of("ZEEBE_ADDRESS", "gw:1", "ZEEBE_INSECURE_CONNECTION", t)).insecure(), t);
    for (String f : List.of("false", "0", "No", "OFF")) assertFalse(env(Map.of("ZEEBE_INSECURE_CONNECTION", f)).insecure(), f);
    assertTrue(env(Map.of("ZEEBE_ADDRESS", "gw:1", "CAMUNDA_INSECURE_CONNECTION", "true")).insecure());
    ConfigurationException e = assertThrows(ConfigurationException.class, () -> env(Map.of("ZEEBE_INSECURE_CONNECTION", "maybe")));
    assertEquals("jobwire: ZEEBE_INSECURE_CONNECTION=\"maybe\": want true or false", e.getMessage());
  }

  @Test
  void caCertificateImpliesTls(@TempDir Path dir) throws Exception {
    Path ca = Files.writeString(dir.resolve("ca.pem"), "-----BEGIN CERTIFICATE-----\n");
    ClientConfig c = env(Map.of("ZEEBE_CA_CERTIFICATE_PATH", ca.toString()));
    assertFalse(c.insecure());
    assertEquals(ca, c.caCertificatePath());
    assertThrows(ConfigurationException.class, () -> env(Map.of("ZEEBE_CA_CERTIFICATE_PATH", dir.resolve("missing.pem").toString())));
  }

  @Test
  void clientCertificateFromEnvironmentImpliesTls(@TempDir Path dir) throws Exception {
    Path cert = Files.writeString(dir.resolve("c.pem"), "cert");
    Path key = Files.writeString(dir.resolve("k.pem"), "key");
    ClientConfig c = env(Map.of("ZEEBE_ADDRESS", "127.0.0.1:1", "ZEEBE_CLIENT_CERTIFICATE_PATH", cert.toString(),
        "CAMUNDA_CLIENT_PRIVATE_KEY_PATH", key.toString()));
    assertFalse(c.insecure(), "a client certificate implies TLS, even on loopback");
    assertEquals(cert, c.clientCertificatePath());
    assertEquals(key, c.clientKeyPath());
    ClientConfig.Input in = new ClientConfig.Input();
    in.clientCertificatePath = key;
    in.clientKeyPath = cert;
    c = resolve(in, Map.of("ZEEBE_CLIENT_CERTIFICATE_PATH", cert.toString(), "ZEEBE_CLIENT_PRIVATE_KEY_PATH", key.toString()));
    assertEquals(key, c.clientCertificatePath(), "the builder wins over the environment");
    ConfigurationException e = assertThrows(ConfigurationException.class, () -> env(Map.of("ZEEBE_CLIENT_CERTIFICATE_PATH", cert.toString())));
    assertTrue(e.getMessage().contains("ZEEBE_CLIENT_PRIVATE_KEY_PATH"), e.getMessage());
    e = assertThrows(ConfigurationException.class, () -> env(Map.of("ZEEBE_CLIENT_CERTIFICATE_PATH", cert.toString(),
        "ZEEBE_CLIENT_PRIVATE_KEY_PATH", key.toString(), "ZEEBE_INSECURE_CONNECTION", "true")));
    assertTrue(e.getMessage().contains("plaintext"), e.getMessage());
  }

  @Test
  void oauthFromEnvironment() throws Exception {
    ClientConfig c = env(Map.of("ZEEBE_CLIENT_ID", "id", "ZEEBE_CLIENT_SECRET", "s", "CAMUNDA_OAUTH_URL", "http://127.0.0.1:1/token",
        "ZEEBE_TOKEN_AUDIENCE", "aud", "CAMUNDA_TOKEN_SCOPE", "sc"));
    assertEquals(new ClientConfig.OAuth("id", "s", "http://127.0.0.1:1/token", "aud", "sc"), c.oauth());
    ConfigurationException e = assertThrows(ConfigurationException.class, () -> env(Map.of("ZEEBE_CLIENT_ID", "id")));
    assertEquals("jobwire: OAuth needs ZEEBE_CLIENT_ID, ZEEBE_CLIENT_SECRET and ZEEBE_AUTHORIZATION_SERVER_URL", e.getMessage());
  }

  @Test
  void keepAlive() throws Exception {
    assertEquals(Duration.ofMillis(60000), env(Map.of("ZEEBE_KEEP_ALIVE", "60000")).keepAlive());
    assertEquals(Duration.ofMillis(30000), env(Map.of("CAMUNDA_KEEP_ALIVE", "30000")).keepAlive());
    ConfigurationException e = assertThrows(ConfigurationException.class, () -> env(Map.of("ZEEBE_KEEP_ALIVE", "10s")));
    assertEquals("jobwire: ZEEBE_KEEP_ALIVE=\"10s\": want milliseconds", e.getMessage());
  }

  @Test
  void builderValidatesWorkerOptionsAtOpen() throws Exception {
    try (JobwireClient c = JobwireClient.builder().environment(Map.of()).address("127.0.0.1:1").build()) {
      assertThrows(ConfigurationException.class, () -> c.newWorker().handler(j -> null).open(), "jobType missing");
      assertThrows(ConfigurationException.class, () -> c.newWorker().jobType("t").open(), "handler missing");
      assertThrows(ConfigurationException.class, () -> c.newWorker().jobType("t").handler(j -> null).maxJobsActive(0).open());
      assertThrows(ConfigurationException.class, () -> c.newWorker().jobType("t").handler(j -> null).concurrency(0).open());
      assertThrows(ConfigurationException.class, () -> c.newWorker().jobType("t").handler(j -> null).jobTimeout(Duration.ZERO).open());
      assertThrows(ConfigurationException.class, () -> c.newWorker().jobType("t").handler(j -> null).pollInterval(Duration.ofMillis(-1)).open());
    }
  }

  @Test
  void mutualTlsNeedsBothFilesAndTls(@TempDir Path dir) throws Exception {
    Path cert = Files.writeString(dir.resolve("c.pem"), "x");
    Path key = Files.writeString(dir.resolve("k.pem"), "x");
    ClientConfig.Input in = new ClientConfig.Input();
    in.addresses = List.of("gw.example.com:443");
    in.clientCertificatePath = cert;
    assertThrows(ConfigurationException.class, () -> resolve(in, Map.of()), "key missing");
    in.clientKeyPath = dir.resolve("missing.pem");
    assertThrows(ConfigurationException.class, () -> resolve(in, Map.of()), "key unreadable");
    in.clientKeyPath = key;
    assertEquals(cert, resolve(in, Map.of()).clientCertificatePath());
    in.insecure = true;
    assertThrows(ConfigurationException.class, () -> resolve(in, Map.of()), "plaintext with a client certificate");
  }

  @Test
  void channelCustomizerSeesEveryConnection() throws Exception {
    java.util.concurrent.atomic.AtomicInteger built = new java.util.concurrent.atomic.AtomicInteger();
    try (JobwireClient c = JobwireClient.builder().environment(Map.of()).address("127.0.0.1:1,127.0.0.1:2")
        .channelCustomizer(b -> built.incrementAndGet()).build()) {
      assertEquals(2, built.get(), "one command channel per address");
      JobWorker w = c.newWorker().jobType("t").handler(j -> null).open();
      assertEquals(4, built.get(), "plus one long-call connection per address");
      w.close(Duration.ofMillis(100));
    }
  }

  @Test
  void noWorkerAfterTheClientClosed() throws Exception {
    JobwireClient c = JobwireClient.builder().environment(Map.of()).address("127.0.0.1:1").build();
    c.close(Duration.ofSeconds(1));
    ConfigurationException e = assertThrows(ConfigurationException.class, () -> c.newWorker().jobType("t").handler(j -> null).open());
    assertEquals("jobwire: the client is closed", e.getMessage());
  }
}
