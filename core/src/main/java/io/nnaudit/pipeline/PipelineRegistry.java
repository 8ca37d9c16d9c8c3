package io.nnaudit.pipeline;

import java.io.File;
import java.util.HashMap;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.nnaudit.settings.NnauditSettings;

/**
 * One pipeline per audit file per JVM, so that repeated {@code initialize} calls (MiniDFSCluster formats with
 * a throw-away FSNamesystem, an HA test runs two NameNodes in one JVM) never leak a writer thread or a file
 * handle, and never have two writers appending to, or rotating, one file.
 *
 * <p>Loggers hold a {@link Slot}, not a pipeline. An {@code initialize} with the same settings joins the
 * running pipeline. One with different settings for the same file replaces it without losing an event:
 * (1) the replacement is prepared and published in the slot, so new events queue
 * there; (2) the old pipeline closes, writing everything it had accepted (one whose writer died, and whose
 * handlers write their own records, ends those writes and closes its file, unless a handler holds the file past
 * the close's timeout), and loggers whose offer it refuses
 * follow the slot to the replacement; (3) only then does the replacement open the file and start writing.
 * If the new sink cannot be opened, the replacement writes to the old settings' sink instead and
 * {@code initialize} fails with the sink's message, so the slot never keeps a closed pipeline; if that fails
 * too, the replacement refuses every event (answered with errors) rather than queue what nobody writes. An
 * old writer that could not finish in time is abandoned and waited for once more before the replacement
 * opens the file; a writer stuck in a system call past both waits may still hold its old file handle, but
 * once that call returns it writes nothing more: an abandoned writer fails what it holds and what is queued
 * ({@link BatchCommitter#commit}). Synchronized:
 * it runs at start-up only.
 */
public final class PipelineRegistry {
  /*
   * Implementation notes. What blocks: acquire and closeAll hold the class's monitor while an old pipeline
   * closes (up to its shutdown timeout) and a new one opens its file; only initialize and embedders call them,
   * never a handler, which reads its slot without a lock. Nothing drops here: a pipeline that is replaced
   * writes what it accepted, and loggers whose events it refuses follow the slot.
   */
  private static final Logger LOG = LoggerFactory.getLogger(PipelineRegistry.class);
  /** One slot per audit file. Guarded by the class's monitor (every method is static synchronized). */
  private static final Map<File, Slot> SLOTS = new HashMap<>();

  private PipelineRegistry() {
  }

  public static synchronized Slot acquire(NnauditSettings settings) {
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
    AuditPipeline next = AuditPipeline.prepare(settings); // a bad sink class failed in fromConf: nothing changed
    slot.current = next;
    old.close(old.settings().shutdownTimeoutMs()); // closes the file before the replacement opens it
    try {
      next.open(next.openSink(settings));
    } catch (RuntimeException e) {
      LOG.error("nnaudit: could not open the audit sink with the new settings ({}); writing with the previous "
          + "settings instead", settings, e);
      try {
        next.open(next.openSink(old.settings()));
      } catch (RuntimeException again) {
        e.addSuppressed(again);
        next.failUnopened("the audit sink could not be opened: " + again.getMessage());
      }
      throw e;
    }
    return slot;
  }

  /** Closes every pipeline of this JVM; for tests and embedders that stop NameNodes without exiting. */
  public static synchronized void closeAll(long timeoutMs) {
    for (Slot s : SLOTS.values()) {
      s.current.close(timeoutMs);
    }
  }

  /** The pipeline currently serving one audit file. */
  public static final class Slot {
    /**
     * Written under the registry's monitor (a replacement is published before the old pipeline closes); read
     * by handlers without it.
     */
    volatile AuditPipeline current;

    Slot(AuditPipeline current) {
      this.current = current;
    }

    /** The pipeline that handlers write to now. */
    public AuditPipeline current() {
      return current;
    }
  }
}
