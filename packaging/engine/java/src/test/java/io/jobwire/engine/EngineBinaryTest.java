package io.jobwire.engine;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EngineBinaryTest {
  @TempDir Path tmp;

  @Test
  void classifiersAreOsMavenPluginNames() {
    assertEquals("linux-x86_64", EngineBinary.classifier("Linux", "amd64"));
    assertEquals("linux-aarch_64", EngineBinary.classifier("Linux", "aarch64"));
    assertEquals("osx-x86_64", EngineBinary.classifier("Mac OS X", "x86_64"));
    assertEquals("osx-aarch_64", EngineBinary.classifier("Mac OS X", "aarch64"));
    assertEquals("windows-x86_64", EngineBinary.classifier("Windows 11", "amd64"));
    assertEquals("windows-aarch_64", EngineBinary.classifier("Windows Server 2022", "aarch64"));
    assertThrows(IllegalStateException.class, () -> EngineBinary.classifier("SunOS", "amd64"));
    IllegalStateException e = assertThrows(IllegalStateException.class, () -> EngineBinary.classifier("Linux", "s390x"));
    assertTrue(e.getMessage().contains("JOBWIRE_ENGINE"), e.getMessage());
  }

  @Test
  void resourceNames() {
    assertEquals("io/jobwire/engine/linux-x86_64/jobwire-engine", EngineBinary.resourceName("linux-x86_64"));
    assertEquals("io/jobwire/engine/windows-aarch_64/jobwire-engine.exe", EngineBinary.resourceName("windows-aarch_64"));
  }

  @Test
  void propertyComesBeforeEnvironmentAndClasspath() throws IOException {
    Path a = Files.writeString(tmp.resolve("a"), "a");
    Path b = Files.writeString(tmp.resolve("b"), "b");
    ClassLoader cl = loaderWith("linux-x86_64", "jar".getBytes(StandardCharsets.UTF_8));
    assertEquals(a, EngineBinary.find(a.toString(), b.toString(), "linux-x86_64", cl, tmp));
    assertEquals(b, EngineBinary.find(null, b.toString(), "linux-x86_64", cl, tmp));
    assertEquals(b, EngineBinary.find("  ", b.toString(), "linux-x86_64", cl, tmp));
  }

  @Test
  void aMissingPathIsAnError() {
    IOException e = assertThrows(IOException.class,
        () -> EngineBinary.find(null, tmp.resolve("nope").toString(), "linux-x86_64", getClass().getClassLoader(), tmp));
    assertTrue(e.getMessage().contains("JOBWIRE_ENGINE"), e.getMessage());
  }

  @Test
  void noClassifierJarSaysWhatToAdd() {
    IOException e = assertThrows(IOException.class,
        () -> EngineBinary.find(null, null, "osx-aarch_64", new URLClassLoader(new URL[0], null), tmp));
    assertTrue(e.getMessage().contains("classifier osx-aarch_64"), e.getMessage());
    assertTrue(e.getMessage().contains("JOBWIRE_ENGINE"), e.getMessage());
  }

  @Test
  void theClasspathBinaryIsExtractedOnceAndExecutable() throws IOException {
    byte[] bin = "#!/bin/sh\necho hi\n".getBytes(StandardCharsets.UTF_8);
    ClassLoader cl = loaderWith("linux-x86_64", bin);
    Path cache = tmp.resolve("cache");
    Path p = EngineBinary.find(null, null, "linux-x86_64", cl, cache);
    assertTrue(p.startsWith(cache), p.toString());
    assertEquals("jobwire-engine", p.getFileName().toString());
    assertArrayEquals(bin, Files.readAllBytes(p));
    assertTrue(Files.isExecutable(p));
    long mtime = Files.getLastModifiedTime(p).toMillis();
    assertEquals(p, EngineBinary.find(null, null, "linux-x86_64", cl, cache));
    assertEquals(mtime, Files.getLastModifiedTime(p).toMillis());
    try (var s = Files.list(p.getParent())) {
      assertEquals(1, s.count(), "no temp files left");
    }
    // another binary (another version) gets its own folder
    Path q = EngineBinary.find(null, null, "linux-x86_64", loaderWith("linux-x86_64", new byte[] {1, 2}), cache);
    assertTrue(!q.equals(p) && Files.isRegularFile(p));
  }

  @Test
  void windowsBinariesKeepTheirExe() throws IOException {
    Path p = EngineBinary.find(null, null, "windows-x86_64", loaderWith("windows-x86_64", new byte[] {7}), tmp);
    assertEquals("jobwire-engine.exe", p.getFileName().toString());
  }

  private ClassLoader loaderWith(String classifier, byte[] bin) throws IOException {
    Path root = Files.createTempDirectory(tmp, "cp");
    Path f = root.resolve(EngineBinary.resourceName(classifier));
    Files.createDirectories(f.getParent());
    Files.write(f, bin);
    return new URLClassLoader(new URL[] {root.toUri().toURL()}, null);
  }
}
