package io.jobwire.internal;

import com.fasterxml.jackson.databind.JsonNode;
import io.jobwire.UnauthenticatedException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.StringJoiner;
import java.util.function.LongSupplier;

/**
 * OAuth client-credentials token provider: one cached token, refreshed before it expires
 * (at 80 % of its lifetime, at most 30 s early), one fetch at a time.
 */
public final class OAuthTokenProvider {
  private final ClientConfig.OAuth cfg;
  private final HttpClient http;
  private final LongSupplier clock;
  private String token;
  private long expiresAt;

  public OAuthTokenProvider(ClientConfig.OAuth cfg, LongSupplier clock) {
    this.cfg = cfg;
    this.clock = clock;
    this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
  }

  /** @return a valid bearer token (cached while fresh); blocks while fetching */
  public synchronized String getToken() {
    if (token != null && clock.getAsLong() < expiresAt) return token;
    fetch();
    return token;
  }

  /** Forgets the cached token (after UNAUTHENTICATED) when it is the stale one (or always for null). */
  public synchronized void invalidate(String stale) {
    if (stale == null || stale.equals(token)) token = null;
  }

  private void fetch() {
    Map<String, String> form = new LinkedHashMap<>();
    form.put("grant_type", "client_credentials");
    form.put("client_id", cfg.clientId());
    form.put("client_secret", cfg.clientSecret());
    if (cfg.audience() != null) form.put("audience", cfg.audience());
    if (cfg.scope() != null) form.put("scope", cfg.scope());
    StringJoiner body = new StringJoiner("&");
    form.forEach((k, v) -> body.add(URLEncoder.encode(k, StandardCharsets.UTF_8) + "=" + URLEncoder.encode(v, StandardCharsets.UTF_8)));
    HttpRequest req =
        HttpRequest.newBuilder(URI.create(cfg.authorizationServerUrl()))
            .timeout(Duration.ofSeconds(15))
            .header("content-type", "application/x-www-form-urlencoded")
            .header("accept", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body.toString()))
            .build();
    HttpResponse<String> res;
    try {
      res = http.send(req, HttpResponse.BodyHandlers.ofString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UnauthenticatedException("oauth: token request interrupted", null, "", e);
    } catch (Exception e) {
      throw new UnauthenticatedException("oauth: token request failed: " + e, null, "", e);
    }
    String text = res.body() == null ? "" : res.body();
    if (res.statusCode() / 100 != 2) {
      throw new UnauthenticatedException("oauth: token endpoint answered " + res.statusCode() + ": " + cut(text), null, "", null);
    }
    JsonNode json;
    try {
      json = Json.MAPPER.readTree(text);
    } catch (Exception e) {
      throw new UnauthenticatedException("oauth: token endpoint answered non-JSON: " + cut(text), null, "", e);
    }
    JsonNode at = json == null ? null : json.get("access_token");
    if (at == null || !at.isTextual()) throw new UnauthenticatedException("oauth: token response has no access_token", null, "", null);
    long lifetimeMs = 300_000;
    JsonNode exp = json.get("expires_in");
    if (exp != null && exp.canConvertToLong() && exp.asLong() > 0) lifetimeMs = exp.asLong() * 1000;
    else if (exp != null && exp.isTextual()) {
      try {
        lifetimeMs = Long.parseLong(exp.asText()) * 1000;
      } catch (NumberFormatException ignored) {
        // keep the default
      }
    }
    long early = Math.min(30_000, (long) (lifetimeMs * 0.2));
    token = at.asText();
    expiresAt = clock.getAsLong() + lifetimeMs - early;
  }

  private static String cut(String s) {
    return s.length() > 200 ? s.substring(0, 200) : s;
  }
}
