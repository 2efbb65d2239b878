package io.jobwire.engine;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Locale;

/**
 * Finds the engine binary: a path given to the builder, else the system property
 * {@value #PROPERTY}, else the environment variable {@value #ENV}, else the classifier
 * jar for this platform on the classpath (its binary is extracted once into a cache
 * folder under {@code java.io.tmpdir}, named by the binary's SHA-256, and made executable).
 */
public final class EngineBinary {
  /** System property holding the path of an engine binary. */
  public static final String PROPERTY = "jobwire.engine";
  /** Environment variable holding the path of an engine binary. */
  public static final String ENV = "JOBWIRE_ENGINE";

  private EngineBinary() {}

  /**
   * The classifier of the engine jar for an operating system and CPU as Java names them
   * ({@code os.name}, {@code os.arch}): os-maven-plugin's names, e.g. {@code linux-x86_64},
   * {@code osx-aarch_64}, {@code windows-x86_64}.
   *
   * @param osName a value of {@code os.name}
   * @param osArch a value of {@code os.arch}
   * @return the classifier
   * @throws IllegalStateException when no engine is built for that platform
   */
  public static String classifier(String osName, String osArch) {
    String n = osName.toLowerCase(Locale.ROOT);
    String os;
    if (n.startsWith("linux")) {
      os = "linux";
    } else if (n.startsWith("mac") || n.startsWith("darwin")) {
      os = "osx";
    } else if (n.startsWith("windows")) {
      os = "windows";
    } else {
      throw new IllegalStateException("jobwire-engine: no engine binary for operating system " + osName
          + "; set " + ENV + " to the path of a jobwire-engine binary");
    }
    String arch;
    switch (osArch.toLowerCase(Locale.ROOT)) {
      case "amd64", "x86_64", "x86-64", "x64" -> arch = "x86_64";
      case "aarch64", "arm64" -> arch = "aarch_64";
      default -> throw new IllegalStateException("jobwire-engine: no engine binary for CPU " + osArch
          + "; set " + ENV + " to the path of a jobwire-engine binary");
    }
    return os + "-" + arch;
  }

  /**
   * This platform's classifier.
   *
   * @return the classifier for the running JVM's {@code os.name} and {@code os.arch}
   */
  public static String currentClassifier() {
    return classifier(System.getProperty("os.name", ""), System.getProperty("os.arch", ""));
  }

  /**
   * The resource inside a classifier jar that holds the binary.
   *
   * @param classifier e.g. {@code linux-x86_64}
   * @return e.g. {@code io/jobwire/engine/linux-x86_64/jobwire-engine}
   */
  public static String resourceName(String classifier) {
    return "io/jobwire/engine/" + classifier + "/jobwire-engine" + (classifier.startsWith("windows-") ? ".exe" : "");
  }

  /**
   * Finds the engine binary for this platform (see the class comment for the order).
   *
   * @return the path of an executable engine binary
   * @throws IOException when none is found or it cannot be extracted
   */
  public static Path find() throws IOException {
    return find(System.getProperty(PROPERTY), System.getenv(ENV), currentClassifier(),
        EngineBinary.class.getClassLoader(), Paths.get(System.getProperty("java.io.tmpdir")));
  }

  static Path find(String property, String env, String classifier, ClassLoader loader, Path cacheRoot)
      throws IOException {
    if (property != null && !property.isBlank()) {
      return existing(Paths.get(property), "system property " + PROPERTY);
    }
    if (env != null && !env.isBlank()) {
      return existing(Paths.get(env), "environment variable " + ENV);
    }
    String res = resourceName(classifier);
    try (InputStream in = loader.getResourceAsStream(res)) {
      if (in == null) {
        throw new IOException("jobwire-engine: no engine binary found: add io.jobwire:jobwire-engine with classifier "
            + classifier + " to the classpath (resource " + res + "), or set the system property " + PROPERTY
            + " or the environment variable " + ENV + " to the path of a jobwire-engine binary");
      }
      return extract(in.readAllBytes(), res.substring(res.lastIndexOf('/') + 1), cacheRoot);
    }
  }

  private static Path existing(Path p, String from) throws IOException {
    if (!Files.isRegularFile(p)) {
      throw new IOException("jobwire-engine: " + from + " names " + p + ", which is not a file");
    }
    return p;
  }

  /** Writes the binary once per content into cacheRoot/jobwire-engine-SHA/name (atomic rename). */
  static Path extract(byte[] bin, String name, Path cacheRoot) throws IOException {
    String sha;
    try {
      sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bin));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
    Path dir = cacheRoot.resolve("jobwire-engine-" + sha.substring(0, 16));
    Path target = dir.resolve(name);
    if (Files.isRegularFile(target) && Files.size(target) == bin.length && Files.isExecutable(target)) {
      return target;
    }
    Files.createDirectories(dir);
    Path tmp = Files.createTempFile(dir, name, ".part");
    try {
      Files.write(tmp, bin);
      if (!tmp.toFile().setExecutable(true, false)) {
        throw new IOException("jobwire-engine: cannot make " + tmp + " executable");
      }
      try {
        Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
      }
    } finally {
      Files.deleteIfExists(tmp);
    }
    return target;
  }
}
