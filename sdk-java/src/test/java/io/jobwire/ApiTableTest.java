package io.jobwire;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.IOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The cross-language API table (docs/api.md) lists every public class of {@code io.jobwire} (and of
 * its subpackages in {@link #SUBPACKAGES}, written {@code annotation.JobWorker}) in its Java column,
 * and every public method of the classes that are not records or annotations (their components and
 * elements are their fields); this test keeps the two equal in both directions. It reads the
 * compiled classes of the packages.
 */
class ApiTableTest {
  private static final Pattern TICK = Pattern.compile("`([^`]+)`");
  private static final Pattern NAME = Pattern.compile("[A-Za-z_]\\w*(\\.[A-Za-z_]\\w*)*");
  private static final Set<String> LANGUAGE = Set.of("long", "Object", "IllegalStateException");
  /** Subpackages whose classes the table lists with the subpackage's name first. */
  static final Set<String> SUBPACKAGES = Set.of("annotation");
  private static final Set<String> OBJECT_METHODS = Set.of("equals", "hashCode", "toString", "values", "valueOf");

  static List<String> column(String col) throws IOException {
    Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath();
    while (dir != null && !Files.isRegularFile(dir.resolve("docs/api.md"))) dir = dir.getParent();
    if (dir == null) throw new IllegalStateException("docs/api.md not found above " + System.getProperty("user.dir"));
    List<String> names = new ArrayList<>();
    int idx = -1;
    for (String raw : Files.readAllLines(dir.resolve("docs/api.md"))) {
      String line = raw.trim();
      if (!line.startsWith("|")) {
        idx = -1;
        continue;
      }
      String[] cells = line.replaceAll("^\\||\\|$", "").split("\\|", -1);
      if (idx < 0) {
        for (int i = 0; i < cells.length; i++) if (cells[i].trim().equals(col)) idx = i;
        continue;
      }
      if (idx >= cells.length || cells[idx].trim().startsWith("---")) continue;
      Matcher m = TICK.matcher(cells[idx]);
      while (m.find()) names.add(m.group(1));
    }
    if (names.isEmpty()) throw new IllegalStateException("no " + col + " column in docs/api.md");
    return names;
  }

  /** Public top-level classes of io.jobwire and its listed subpackages ("annotation.JobWorker"), from the compiled classes. */
  static Set<String> publicClasses() throws Exception {
    Path root = Path.of(JobwireClient.class.getProtectionDomain().getCodeSource().getLocation().toURI()).resolve("io/jobwire");
    Set<String> out = new TreeSet<>();
    List<String> prefixes = new ArrayList<>(List.of(""));
    for (String sub : SUBPACKAGES) prefixes.add(sub + ".");
    for (String prefix : prefixes) {
      Path classes = prefix.isEmpty() ? root : root.resolve(prefix.substring(0, prefix.length() - 1));
      try (Stream<Path> files = Files.list(classes)) {
        for (Path p : (Iterable<Path>) files::iterator) {
          String f = p.getFileName().toString();
          if (!f.endsWith(".class") || f.contains("$") || f.equals("package-info.class")) continue;
          String name = prefix + f.substring(0, f.length() - ".class".length());
          Class<?> c = Class.forName("io.jobwire." + name);
          if (Modifier.isPublic(c.getModifiers())) out.add(name);
        }
      }
    }
    return out;
  }

  static Class<?> nested(Class<?> c, String name) {
    for (Class<?> n : c.getClasses()) if (n.getSimpleName().equals(name)) return n;
    return null;
  }

  static boolean hasMember(Class<?> c, String name) {
    for (Method m : c.getMethods()) if (m.getName().equals(name)) return true;
    if (c.isEnum()) for (Object k : c.getEnumConstants()) if (((Enum<?>) k).name().equals(name)) return true;
    return false;
  }

  /** Public methods a class declares itself (records: none; their accessors are their fields). */
  static Set<String> ownMethods(Class<?> c) {
    Set<String> out = new TreeSet<>();
    if (c.isRecord() || c.isAnnotation()) return out;
    for (Method m : c.getDeclaredMethods()) {
      if (Modifier.isPublic(m.getModifiers()) && !m.isSynthetic() && !m.isBridge() && !OBJECT_METHODS.contains(m.getName())) out.add(m.getName());
    }
    return out;
  }

  @Test
  void javaColumnMatchesThePublicClassesAndMethods() throws Exception {
    Set<String> exported = publicClasses();
    Set<String> listed = new TreeSet<>();
    Set<String> listedMembers = new TreeSet<>();
    List<String> problems = new ArrayList<>();
    for (String tok : column("Java")) {
      if (!NAME.matcher(tok).matches() || LANGUAGE.contains(tok)) continue;
      String[] parts = tok.split("\\.");
      if (SUBPACKAGES.contains(parts[0]) && parts.length > 1) { // annotation.JobWorker: a class of a subpackage
        parts = java.util.Arrays.copyOfRange(parts, 1, parts.length);
        parts[0] = tok.substring(0, tok.indexOf('.')) + "." + parts[0];
      }
      listed.add(parts[0]);
      Class<?> c;
      try {
        c = Class.forName("io.jobwire." + parts[0]);
      } catch (ClassNotFoundException e) {
        continue; // reported as extra
      }
      for (int i = 1; i < parts.length; i++) {
        Class<?> n = nested(c, parts[i]);
        if (n != null) {
          c = n;
          continue;
        }
        if (i != parts.length - 1 || !hasMember(c, parts[i])) problems.add("docs/api.md lists " + tok + ", but " + c.getSimpleName() + " has no public " + parts[i]);
        else listedMembers.add(c.getName().substring("io.jobwire.".length()).replace('$', '.') + "." + parts[i]);
        break;
      }
    }
    Set<String> missing = new TreeSet<>(exported);
    missing.removeAll(listed);
    Set<String> extra = new TreeSet<>(listed);
    extra.removeAll(exported);
    List<Class<?>> all = new ArrayList<>();
    for (String n : exported) {
      Class<?> c = Class.forName("io.jobwire." + n);
      all.add(c);
      for (Class<?> k : c.getClasses()) if (k.getName().startsWith("io.jobwire.")) all.add(k);
    }
    for (Class<?> c : all) {
      String owner = c.getName().substring("io.jobwire.".length()).replace('$', '.');
      for (String m : ownMethods(c)) if (!listedMembers.contains(owner + "." + m)) missing.add(owner + "." + m);
    }
    assertFalse(exported.isEmpty());
    assertEquals("missing=[] extra=[] problems=[]", "missing=" + missing + " extra=" + extra + " problems=" + problems);
  }
}
