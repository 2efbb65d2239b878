package io.jobwire.internal;

import io.jobwire.ConfigurationException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Client settings after builder values, environment and defaults (in this order), with the
 * same variables, precedence and error texts as every jobwire SDK (docs/configuration.md).
 */
public record ClientConfig(
    List<String> addresses,
    boolean insecure,
    Path caCertificatePath,
    OAuth oauth,
    Duration keepAlive,
    int streamWindowBytes,
    Duration commandTimeout,
    Path clientCertificatePath,
    Path clientKeyPath,
    java.util.function.Consumer<io.grpc.ManagedChannelBuilder<?>> channelCustomizer,
    TransportBackoff backoff) {

  /** The settings without a transport back-off: the default one (50 ms → 5 s, ×1.6). */
  public ClientConfig(List<String> addresses, boolean insecure, Path caCertificatePath, OAuth oauth, Duration keepAlive, int streamWindowBytes,
      Duration commandTimeout, Path clientCertificatePath, Path clientKeyPath,
      java.util.function.Consumer<io.grpc.ManagedChannelBuilder<?>> channelCustomizer) {
    this(addresses, insecure, caCertificatePath, oauth, keepAlive, streamWindowBytes, commandTimeout, clientCertificatePath, clientKeyPath,
        channelCustomizer, TransportBackoff.DEFAULT);
  }

  /**
   * The transport back-off bounds (polls, stream reopens, outcome and command resends).
   *
   * @param initial the first wait
   * @param max the longest wait
   * @param multiplier growth per failure
   */
  public record TransportBackoff(Duration initial, Duration max, double multiplier) {
    /** 50 ms → 5 s, ×1.6 (every jobwire SDK's). */
    public static final TransportBackoff DEFAULT = new TransportBackoff(Duration.ofMillis(50), Duration.ofSeconds(5), 1.6);

    /**
     * @throws ConfigurationException unless initial > 0, max ≥ initial and multiplier ≥ 1
     */
    void validate() throws ConfigurationException {
      if (initial == null || initial.isNegative() || initial.isZero()) throw new ConfigurationException("jobwire: backoff initial must be positive, got " + initial);
      if (max == null || max.compareTo(initial) < 0) throw new ConfigurationException("jobwire: backoff max must be >= initial, got " + max);
      if (!(multiplier >= 1) || Double.isInfinite(multiplier)) throw new ConfigurationException("jobwire: backoff multiplier must be >= 1, got " + multiplier);
    }
  }

  /** OAuth client-credentials settings. */
  public record OAuth(String clientId, String clientSecret, String authorizationServerUrl, String audience, String scope) {}

  /** Values set on the builder; null means "not set". */
  public static final class Input {
    public List<String> addresses;
    public Boolean insecure;
    public Path caCertificatePath;
    public OAuth oauth;
    public Duration keepAlive;
    public Integer streamWindowBytes;
    public Duration commandTimeout;
    public Path clientCertificatePath;
    public Path clientKeyPath;
    public java.util.function.Consumer<io.grpc.ManagedChannelBuilder<?>> channelCustomizer;
    public TransportBackoff backoff;
  }

  public static final int DEFAULT_STREAM_WINDOW = 8192;
  private static final Pattern SCHEME = Pattern.compile("^(grpcs?|https?)://", Pattern.CASE_INSENSITIVE);
  private static final Pattern DNS = Pattern.compile("^dns:///?", Pattern.CASE_INSENSITIVE);
  private static final Pattern PORT = Pattern.compile(":\\d+$");

  static String env(Map<String, String> env, String... names) {
    for (String n : names) {
      String v = env.get(n);
      if (v != null && !v.trim().isEmpty()) return v.trim();
    }
    return null;
  }

  /** Boolean env values: true/false, 1/0, yes/no, on/off (any case); else an error. */
  static Boolean parseBool(String name, String v) throws ConfigurationException {
    if (v == null) return null;
    String l = v.toLowerCase(Locale.ROOT);
    if (l.matches("1|true|yes|on")) return true;
    if (l.matches("0|false|no|off")) return false;
    throw new ConfigurationException("jobwire: " + name + "=\"" + v + "\": want true or false");
  }

  /** Strips a scheme, adds the default port, splits a comma-separated list; keeps dns:/// targets. */
  public static List<String> parseAddresses(List<String> raw) throws ConfigurationException {
    List<String> out = new ArrayList<>();
    for (String r : raw) {
      for (String a : r.split(",")) {
        a = a.trim();
        if (a.isEmpty()) continue;
        boolean dns = DNS.matcher(a).find();
        a = SCHEME.matcher(a).replaceFirst("");
        a = DNS.matcher(a).replaceFirst("");
        a = a.replaceAll("/+$", "");
        if (a.isEmpty()) continue;
        if (!PORT.matcher(a).find() || (a.startsWith("[") && a.endsWith("]"))) a = a + ":26500";
        out.add(dns ? "dns:///" + a : a);
      }
    }
    if (out.isEmpty()) throw new ConfigurationException("jobwire: no gateway address given");
    return List.copyOf(out);
  }

  static boolean isLoopback(String address) {
    String host = address.replaceFirst("^dns:///", "").replaceFirst(":\\d+$", "").replaceAll("^\\[|\\]$", "");
    return host.equals("localhost") || host.equals("::1") || host.startsWith("127.");
  }

  /**
   * Merges builder values over the environment over the defaults.
   *
   * @param in builder values
   * @param e the environment
   * @return the resolved settings
   * @throws ConfigurationException on invalid values
   */
  public static ClientConfig resolve(Input in, Map<String, String> e) throws ConfigurationException {
    String envAddr = env(e, "ZEEBE_GRPC_ADDRESS", "ZEEBE_ADDRESS", "CAMUNDA_GRPC_ADDRESS");
    List<String> rawAddr = in.addresses != null && !in.addresses.isEmpty() ? in.addresses : List.of(envAddr != null ? envAddr : "127.0.0.1:26500");
    List<String> addresses = parseAddresses(rawAddr);
    String first = rawAddr.get(0).split(",")[0].trim().toLowerCase(Locale.ROOT);
    Boolean schemeInsecure = first.startsWith("grpcs://") || first.startsWith("https://") ? Boolean.FALSE
        : first.startsWith("grpc://") || first.startsWith("http://") ? Boolean.TRUE : null;
    Path ca = in.caCertificatePath;
    if (ca == null) {
      String v = env(e, "ZEEBE_CA_CERTIFICATE_PATH", "CAMUNDA_CA_CERTIFICATE_PATH");
      if (v != null) ca = Path.of(v);
    }
    if (ca != null && !Files.isReadable(ca)) {
      throw new ConfigurationException("jobwire: CA certificate " + ca + " is not a readable file");
    }
    // mutual TLS: builder values win over the environment; both or neither
    Path clientCert = in.clientCertificatePath;
    Path clientKey = in.clientKeyPath;
    if (clientCert == null && clientKey == null) {
      String c = env(e, "ZEEBE_CLIENT_CERTIFICATE_PATH", "CAMUNDA_CLIENT_CERTIFICATE_PATH");
      String k = env(e, "ZEEBE_CLIENT_PRIVATE_KEY_PATH", "CAMUNDA_CLIENT_PRIVATE_KEY_PATH");
      if (c != null) clientCert = Path.of(c);
      if (k != null) clientKey = Path.of(k);
    }
    Boolean insecure = in.insecure;
    if (insecure == null && (in.caCertificatePath != null || in.clientCertificatePath != null)) insecure = false;
    if (insecure == null) insecure = schemeInsecure;
    if (insecure == null) insecure = parseBool("ZEEBE_INSECURE_CONNECTION", env(e, "ZEEBE_INSECURE_CONNECTION", "CAMUNDA_INSECURE_CONNECTION"));
    if (insecure == null && (ca != null || clientCert != null)) insecure = false;
    if (insecure == null) insecure = addresses.stream().allMatch(ClientConfig::isLoopback);

    OAuth oauth = in.oauth;
    if (oauth == null) {
      String id = env(e, "ZEEBE_CLIENT_ID", "CAMUNDA_CLIENT_ID");
      String secret = env(e, "ZEEBE_CLIENT_SECRET", "CAMUNDA_CLIENT_SECRET");
      String url = env(e, "ZEEBE_AUTHORIZATION_SERVER_URL", "CAMUNDA_OAUTH_URL", "CAMUNDA_AUTHORIZATION_SERVER_URL");
      if (id != null || secret != null) {
        if (id == null || secret == null || url == null) {
          throw new ConfigurationException("jobwire: OAuth needs ZEEBE_CLIENT_ID, ZEEBE_CLIENT_SECRET and ZEEBE_AUTHORIZATION_SERVER_URL");
        }
        oauth = new OAuth(id, secret, url, env(e, "ZEEBE_TOKEN_AUDIENCE", "CAMUNDA_TOKEN_AUDIENCE"), env(e, "ZEEBE_TOKEN_SCOPE", "CAMUNDA_TOKEN_SCOPE"));
      }
    } else if (isBlank(oauth.clientId()) || isBlank(oauth.clientSecret()) || isBlank(oauth.authorizationServerUrl())) {
      throw new ConfigurationException("jobwire: OAuth needs a client id, a client secret and an authorization server URL");
    }
    Duration keepAlive = in.keepAlive;
    if (keepAlive == null) {
      String k = env(e, "ZEEBE_KEEP_ALIVE", "CAMUNDA_KEEP_ALIVE");
      if (k != null) {
        long ms;
        try {
          ms = Long.parseLong(k);
        } catch (NumberFormatException x) {
          ms = -1;
        }
        if (ms <= 0) throw new ConfigurationException("jobwire: ZEEBE_KEEP_ALIVE=\"" + k + "\": want milliseconds");
        keepAlive = Duration.ofMillis(ms);
      } else {
        keepAlive = Duration.ofSeconds(45);
      }
    }
    if (keepAlive.isNegative() || keepAlive.isZero()) throw new ConfigurationException("jobwire: keepAlive must be positive, got " + keepAlive);
    int window = in.streamWindowBytes != null ? in.streamWindowBytes : DEFAULT_STREAM_WINDOW;
    if (window < 1024) throw new ConfigurationException("jobwire: streamWindowBytes must be >= 1024, got " + window);
    Duration cmd = in.commandTimeout != null ? in.commandTimeout : Duration.ofSeconds(30);
    if (cmd.isNegative() || cmd.isZero()) throw new ConfigurationException("jobwire: commandTimeout must be positive, got " + cmd);
    if ((clientCert == null) != (clientKey == null)) {
      throw new ConfigurationException("jobwire: mutual TLS needs both a client certificate chain and its private key"
          + " (ZEEBE_CLIENT_CERTIFICATE_PATH and ZEEBE_CLIENT_PRIVATE_KEY_PATH)");
    }
    for (Path p : new Path[] {clientCert, clientKey}) {
      if (p != null && !Files.isReadable(p)) throw new ConfigurationException("jobwire: " + p + " is not a readable file");
    }
    if (clientCert != null && insecure) {
      throw new ConfigurationException("jobwire: a client certificate needs TLS, but the connection is plaintext");
    }
    TransportBackoff backoff = in.backoff != null ? in.backoff : TransportBackoff.DEFAULT;
    backoff.validate();
    return new ClientConfig(addresses, insecure, ca, oauth, keepAlive, window, cmd, clientCert, clientKey, in.channelCustomizer, backoff);
  }

  private static boolean isBlank(String s) {
    return s == null || s.trim().isEmpty();
  }
}
