package io.nnaudit;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Resets {@link GatedFileSink}'s static hooks before each test and, after it, opens every gate (so that no
 * writer stays stalled) and resets them again. Use as
 * {@code @RegisterExtension final GatedSinkReset gates = new GatedSinkReset();}.
 */
class GatedSinkReset implements BeforeEachCallback, AfterEachCallback {
  @Override
  public void beforeEach(ExtensionContext context) {
    GatedFileSink.reset();
  }

  @Override
  public void afterEach(ExtensionContext context) {
    GatedFileSink.openGates();
    GatedFileSink.reset();
  }
}
