package io.jobwire.arch;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import io.jobwire.JobWorkerBuilder;
import io.jobwire.JobwireClient;
import io.jobwire.JobwireException;
import io.jobwire.WorkerDefinition;
import io.jobwire.WorkerScanner;
import org.junit.jupiter.api.Test;

/**
 * No import cycle between the source files of the SDK: every top-level class (with its nested and
 * anonymous classes, i.e. one source file) is a slice, and no slice may depend on itself through
 * others. A part calls back a part that depends on it only through an interface (e.g. the job calls
 * {@code OutcomeSender}, the poller calls {@code Poller.StreamView}), which breaks the cycle.
 */
class DependencyCycleTest {
  static {
    // the importer warns about lambdas javac dropped as dead code (e.g. behind a constant false)
    System.setProperty("org.slf4j.simpleLogger.log.com.tngtech.archunit", "error");
  }

  private static final JavaClasses SDK = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .importPackages("io.jobwire");

  /** One slice per source file of the given package (and below); generated code is left out. */
  static SliceAssignment sourceFiles(String pkg) {
    return new SliceAssignment() {
      @Override
      public SliceIdentifier getIdentifierOf(JavaClass c) {
        if (!c.getPackageName().startsWith(pkg)) return SliceIdentifier.ignore();
        if (c.getPackageName().startsWith("io.jobwire.internal.gateway") || c.getPackageName().startsWith("io.jobwire.stream")) {
          return SliceIdentifier.ignore(); // generated from the protos
        }
        String name = c.getName();
        int nested = name.indexOf('$');
        return SliceIdentifier.of(nested < 0 ? name : name.substring(0, nested));
      }

      @Override
      public String getDescription() {
        return "source files of " + pkg;
      }
    };
  }

  /** The internals (the worker's parts, transport, config, JSON): no cycle between two source files at all. */
  @Test
  void noCycleBetweenInternalSourceFiles() {
    slices().assignedFrom(sourceFiles("io.jobwire.internal")).should().beFreeOfCycles().check(SDK);
  }

  /**
   * The whole SDK, public API included: no cycle between source files, except in the public
   * API (to be untied with the API step, not here): {@code JobwireException} maps status codes to its
   * own subclasses, {@code JobwireClient} creates the {@code JobWorkerBuilder} that registers its
   * worker with the client, and {@code JobwireClient.openWorkers} scans declarative workers
   * ({@code WorkerScanner}) whose {@code WorkerDefinition.builder(client)} takes the client.
   */
  @Test
  void noCycleBetweenSourceFilesOfTheSdk() {
    slices().assignedFrom(sourceFiles("io.jobwire")).should().beFreeOfCycles()
        .ignoreDependency(JavaClass.Predicates.equivalentTo(JobwireException.class), JavaClass.Predicates.assignableTo(JobwireException.class))
        .ignoreDependency(JavaClass.Predicates.equivalentTo(JobwireClient.class), JavaClass.Predicates.equivalentTo(JobWorkerBuilder.class))
        .ignoreDependency(JavaClass.Predicates.equivalentTo(JobwireClient.class), JavaClass.Predicates.equivalentTo(WorkerScanner.class))
        .ignoreDependency(JavaClass.Predicates.equivalentTo(JobwireClient.class), JavaClass.Predicates.equivalentTo(WorkerDefinition.class))
        .check(SDK);
  }

  /** The parts of the worker (ledger, poller, streamer, executor, outcome sender, extender, ...). */
  @Test
  void noCycleBetweenTheWorkerParts() {
    slices().assignedFrom(sourceFiles("io.jobwire.internal.worker")).should().beFreeOfCycles().check(SDK);
  }
}
