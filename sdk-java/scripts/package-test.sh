#!/usr/bin/env bash
# Packaging test: `mvn install` the SDK (jar + sources + javadoc), then build a throwaway Maven
# project that depends only on io.jobwire:jobwire-sdk from ~/.m2 and run a worker with it against
# `jobwire-engine dev` (127.0.0.1, a free port; always stopped). Fails loudly on any step.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT="$(cd "$HERE/.." && pwd)"
ENGINE="${JOBWIRE_ENGINE:-$ROOT/engine-reference/bin/jobwire-engine}"
[ -x "$ENGINE" ] || { echo "package-test: reference engine not found at $ENGINE (run \`make engine\`)" >&2; exit 1; }
mvn_() { mvn -B -q "$@"; }

(cd "$HERE" && mvn_ install -DskipTests)
M2="${HOME}/.m2/repository/io/jobwire/jobwire-sdk/0.1.0"
for f in jobwire-sdk-0.1.0.jar jobwire-sdk-0.1.0-sources.jar jobwire-sdk-0.1.0-javadoc.jar jobwire-sdk-0.1.0.pom; do
  [ -s "$M2/$f" ] || { echo "package-test: $M2/$f missing after mvn install" >&2; exit 1; }
done
# Apache-2.0: the POM declares it, the jar carries LICENSE and NOTICE
grep -q "<name>Apache-2.0</name>" "$M2/jobwire-sdk-0.1.0.pom" || { echo "package-test: the POM declares no Apache-2.0 licence" >&2; exit 1; }
for f in META-INF/LICENSE META-INF/NOTICE; do
  jar tf "$M2/jobwire-sdk-0.1.0.jar" | grep -x "$f" >/dev/null || { echo "package-test: $f missing from the jar" >&2; exit 1; }
done
WORK="$(mktemp -d "${TMPDIR:-/tmp}/jobwire-pkg.XXXXXX")"
ENGINE_PID=""
cleanup() {
  [ -n "$ENGINE_PID" ] && kill "$ENGINE_PID" 2>/dev/null && wait "$ENGINE_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

mkdir -p "$WORK/app/src/main/java/demo"
cat >"$WORK/app/pom.xml" <<'POM'
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 https://maven.apache.org/xsd/maven-4.0.0.xsd">
  <modelVersion>4.0.0</modelVersion>
  <groupId>demo</groupId>
  <artifactId>throwaway</artifactId>
  <version>1</version>
  <properties>
    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
    <maven.compiler.release>17</maven.compiler.release>
  </properties>
  <dependencies>
    <dependency>
      <groupId>io.jobwire</groupId>
      <artifactId>jobwire-sdk</artifactId>
      <version>0.1.0</version>
    </dependency>
  </dependencies>
  <build>
    <plugins>
      <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-compiler-plugin</artifactId><version>3.14.0</version></plugin>
      <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-resources-plugin</artifactId><version>3.3.1</version></plugin>
      <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-dependency-plugin</artifactId><version>3.8.1</version></plugin>
    </plugins>
  </build>
</project>
POM
cat >"$WORK/app/src/main/java/demo/Main.java" <<'JAVA'
package demo;

import io.jobwire.JobWorker;
import io.jobwire.JobwireClient;
import io.jobwire.ProcessInstance;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

public class Main {
  public static void main(String[] args) throws Exception {
    String bpmn = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><bpmn:definitions xmlns:bpmn=\"http://www.omg.org/spec/BPMN/20100524/MODEL\""
        + " xmlns:zeebe=\"http://camunda.org/schema/zeebe/1.0\" id=\"d\" targetNamespace=\"t\"><bpmn:process id=\"pkg\" isExecutable=\"true\">"
        + "<bpmn:startEvent id=\"s\"/><bpmn:sequenceFlow id=\"f1\" sourceRef=\"s\" targetRef=\"t1\"/><bpmn:serviceTask id=\"t1\"><bpmn:extensionElements>"
        + "<zeebe:taskDefinition type=\"pkg\"/></bpmn:extensionElements></bpmn:serviceTask><bpmn:sequenceFlow id=\"f2\" sourceRef=\"t1\" targetRef=\"e\"/>"
        + "<bpmn:endEvent id=\"e\"/></bpmn:process></bpmn:definitions>";
    AtomicInteger handled = new AtomicInteger();
    try (JobwireClient client = JobwireClient.fromEnvironment()) {
      client.deployResource("pkg.bpmn", bpmn.getBytes(StandardCharsets.UTF_8)).get();
      try (JobWorker w = client.newWorker().jobType("pkg").handler(job -> {
        handled.incrementAndGet();
        return Map.of("doubled", ((Number) job.variables().get("n")).longValue() * 2);
      }).open()) {
        for (int i = 0; i < 10; i++) {
          ProcessInstance pi = client.createProcessInstanceWithResult("pkg", Map.of("n", 4611686018427387000L + i), Duration.ofSeconds(20)).get();
          if (!pi.variables().contains("\"doubled\":" + ((4611686018427387000L + i) * 2))) throw new AssertionError("bad result " + pi.variables());
        }
      }
    }
    if (handled.get() != 10) throw new AssertionError("handled " + handled.get());
    System.out.println("package-test: throwaway project ran a worker: 10 instances completed");
  }
}
JAVA
"$ENGINE" dev --port 0 --data-dir "$WORK/data" --no-fsync --exit-on-stdin-close > "$WORK/engine.log" 2>&1 < <(sleep 600) &
ENGINE_PID=$!
for _ in $(seq 1 150); do
  ADDR="$(grep -o 'listening on 127\.0\.0\.1:[0-9]*' "$WORK/engine.log" | head -1 | sed 's/listening on //')" || true
  [ -n "${ADDR:-}" ] && break
  sleep 0.1
done
[ -n "${ADDR:-}" ] || { echo "package-test: engine did not start" >&2; cat "$WORK/engine.log" >&2; exit 1; }
cd "$WORK/app"
mvn_ compile dependency:build-classpath -Dmdep.outputFile=cp.txt
# a user gets only the runtime dependencies (no test libraries, no OpenTelemetry SDK, no logging backend)
if tr ':' '\n' < cp.txt | grep -E 'junit|opentelemetry-sdk|slf4j-simple|grpc-inprocess|protobuf-java-util' >&2; then
  echo "package-test: test-only artifacts leaked into the published POM" >&2; exit 1
fi
echo "package-test: runtime classpath of a user: $(tr ':' '\n' < cp.txt | sed 's#.*/##' | sort | tr '\n' ' ')"
ZEEBE_ADDRESS="$ADDR" java -cp "target/classes:$(cat cp.txt)" demo.Main
