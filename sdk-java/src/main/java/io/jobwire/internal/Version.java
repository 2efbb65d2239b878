package io.jobwire.internal;

/** The SDK version (sent as user agent, telemetry scope version). */
public final class Version {
  private Version() {}

  public static final String VERSION = "0.1.0";
}
