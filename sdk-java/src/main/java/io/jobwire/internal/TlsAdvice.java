package io.jobwire.internal;

import java.util.Locale;

/**
 * Says what a TLS handshake failure means, for the worker's one warning: a certificate the client
 * does not trust (CA, host name) is a different fix from a gateway that requires a client
 * certificate (mutual TLS) the client did not present, or refuses the one it did.
 */
public final class TlsAdvice {
  private TlsAdvice() {}

  /** The TLS cause in an error's chain (an SSL or certificate exception), or null. */
  public static Throwable tlsCause(Throwable err) {
    for (Throwable t = err; t != null; t = t.getCause()) {
      if (t instanceof javax.net.ssl.SSLException || t instanceof java.security.cert.CertificateException) return t;
    }
    return null;
  }

  /**
   * The advice for a TLS failure {@code t}; {@code clientCertificate}: whether a client certificate
   * is configured.
   */
  public static String advice(Throwable t, boolean clientCertificate) {
    String m = String.valueOf(t.getMessage()).toLowerCase(Locale.ROOT);
    // an alert the gateway sent about our (missing) certificate
    boolean certAlert = m.contains("certificate_required") || m.contains("certificate required")
        || m.contains("bad_certificate") || m.contains("bad certificate") || m.contains("unknown_ca")
        || m.contains("certificate_unknown") || m.contains("certificate_expired") || m.contains("certificate_revoked");
    boolean handshakeAlert = m.contains("received fatal alert: handshake_failure") || m.contains("alert_handshake_failure");
    if (!clientCertificate && (certAlert || handshakeAlert)) {
      return "the gateway requires a client certificate (mutual TLS) and none is configured; set ZEEBE_CLIENT_CERTIFICATE_PATH and "
          + "ZEEBE_CLIENT_PRIVATE_KEY_PATH (or clientCertificatePath/clientPrivateKeyPath)";
    }
    if (clientCertificate && certAlert) {
      return "the gateway refused the client certificate (mutual TLS: not signed by a CA the gateway trusts, expired, or "
          + "not for client use); check ZEEBE_CLIENT_CERTIFICATE_PATH and ZEEBE_CLIENT_PRIVATE_KEY_PATH";
    }
    return "certificate not trusted or not valid for the address; check ZEEBE_CA_CERTIFICATE_PATH and the address";
  }
}
