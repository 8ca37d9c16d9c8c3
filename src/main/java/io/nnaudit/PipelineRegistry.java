package io.nnaudit;

import java.io.File;
import java.util.HashMap;
import java.util.Map;

/**
 * One pipeline per audit file per JVM, so that repeated {@code initialize} calls (MiniDFSCluster formats with
 * a throw-away FSNamesystem, an HA test runs two NameNodes in one JVM) never leak a writer thread or a file
 * handle, and never have two writers appending to, or rotating, one file.
 *
 * <p>Loggers hold a {@link Slot}, not a pipeline. An {@code initialize} with the same settings joins the
 * running pipeline; one with different settings for the same file starts a new pipeline, points the slot at
 * it and closes the old one, which first writes everything it had accepted. Loggers initialized earlier
 * follow the slot, so none of their events is lost to the swap. Synchronized: it runs at start-up only.
 */
final class PipelineRegistry {
  private static final Map<File, Slot> SLOTS = new HashMap<>();

  private PipelineRegistry() {
  }

  static synchronized Slot acquire(NnauditSettings settings) {
    Slot slot = SLOTS.get(settings.file());
    if (slot == null) {
      slot = new Slot(AuditPipeline.start(settings));
      SLOTS.put(settings.file(), slot);
      return slot;
    }
    AuditPipeline old = slot.current;
    if (old.isOpen() && old.settings().equals(settings)) {
      return slot;
    }
    if (old.isOpen()) {
      old.close(old.settings().shutdownTimeoutMs()); // closes the file before the new pipeline opens it
    }
    slot.current = AuditPipeline.start(settings);
    return slot;
  }

  /** Closes every pipeline of this JVM; for tests and embedders that stop NameNodes without exiting. */
  static synchronized void closeAll(long timeoutMs) {
    for (Slot s : SLOTS.values()) {
      s.current.close(timeoutMs);
    }
  }

  /** The pipeline currently serving one audit file. */
  static final class Slot {
    volatile AuditPipeline current;

    Slot(AuditPipeline current) {
      this.current = current;
    }
  }
}
