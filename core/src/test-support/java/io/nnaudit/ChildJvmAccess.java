package io.nnaudit;

import java.util.function.Predicate;

/** {@link ChildJvm} for tests in other packages. */
public final class ChildJvmAccess {
  private final ChildJvm child;

  public ChildJvmAccess(Predicate<String> keepClasspathEntry, Class<?> main, String... args) throws Exception {
    child = new ChildJvm(keepClasspathEntry, main, args);
  }

  public String awaitExit(long timeoutMs) throws InterruptedException {
    return child.awaitExit(timeoutMs);
  }
}
