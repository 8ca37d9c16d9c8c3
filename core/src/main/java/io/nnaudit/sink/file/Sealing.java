package io.nnaudit.sink.file;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.util.Set;

import io.nnaudit.sink.RecordEnds;
import io.nnaudit.sink.SinkContext;

/**
 * What the file sink tells the sealing of its file: each write, each switch to a new file, each rotation, and
 * the close. {@link #disabled} when {@code nnaudit.seal.enabled} is off: it does nothing, writes no digest and
 * reports -1 (null for the hash) in the metrics; otherwise {@link DigestSealing}. {@link #start} and
 * {@link #abandon} run on the thread that builds the sink; the other calls that change it, on the sink's writing
 * thread; the metric getters, on any thread (JMX, metrics2), and read only volatiles.
 */
interface Sealing {
  /** Sealing as {@code context} says: {@link DigestSealing} for a sealed file, else {@link #disabled}. */
  static Sealing forSink(SinkContext context, Path path, FileAttribute<Set<PosixFilePermission>> mode,
      ChannelFactory channels) {
    return context.sealing() == null ? disabled()
        : new DigestSealing(context.sealing(), context.durable(), context.failClosed(), path,
            context.rotation().datedNames(), mode, channels);
  }

  /** No sealing: every call does nothing. */
  static Sealing disabled() {
    return Disabled.INSTANCE;
  }

  /** Whether digests travel with their files through a rotation (and one left by a kill is put back). */
  boolean digestsFollowFiles();

  /**
   * At start-up, once the live file ({@code size} bytes) is open: picks up the chain of seals and starts
   * sealing. {@code rotationFinished}: this start finished an interrupted rotation.
   */
  void start(long size, boolean rotationFinished) throws IOException;

  /** The start failed: lets go of what {@link #start} opened. */
  void abandon();

  /** Before a write: throws when the write may not happen (a seal owed, or failing under fail-closed). */
  void checkBeforeWrite() throws IOException;

  /**
   * After a write: the bytes of {@code chunk} from {@code start} to its position are in the file, its records
   * ending where {@code ends} says (offsets from {@code start}; null when not known).
   */
  void written(ByteBuffer chunk, int start, RecordEnds ends);

  /** Seals everything written so far. */
  void flush() throws IOException;

  /**
   * The last seal of the file about to be rotated, which keeps {@code keptFiles} files (0: it deletes none);
   * throws whatever the failure policy, and then the rotation does not happen.
   */
  void sealForRotation(int keptFiles) throws IOException;

  /** The live file was moved away by something else: its last seal, and its digest set aside. */
  void movedAway() throws IOException;

  /** The sink switched to a new file at the path, {@code size} bytes long: its first seal. */
  void startFile(long size);

  /** The sink reopened the same file, now {@code size} bytes; it wrote {@code owned} of them (-1: all). */
  void reopened(long size, long owned) throws IOException;

  /** Seals what is not yet sealed, then stops sealing. */
  void close() throws IOException;

  /** Seals written since start-up, or -1 when the file is not sealed. */
  long sealsWritten();

  /** Seals that could not be written since start-up, or -1 when the file is not sealed. */
  long sealFailures();

  /** When the latest seal was written (ms since the epoch; 0 before the first), or -1 when not sealed. */
  long lastSealMillis();

  /** The hash of the latest seal (hex), or null when the file is not sealed. */
  String latestSealHash();

  /** No sealing. Stateless. */
  final class Disabled implements Sealing {
    static final Disabled INSTANCE = new Disabled();

    private Disabled() {
    }

    @Override
    public boolean digestsFollowFiles() {
      return false;
    }

    @Override
    public void start(long size, boolean rotationFinished) {
    }

    @Override
    public void abandon() {
    }

    @Override
    public void checkBeforeWrite() {
    }

    @Override
    public void written(ByteBuffer chunk, int start, RecordEnds ends) {
    }

    @Override
    public void flush() {
    }

    @Override
    public void sealForRotation(int keptFiles) {
    }

    @Override
    public void movedAway() {
    }

    @Override
    public void startFile(long size) {
    }

    @Override
    public void reopened(long size, long owned) {
    }

    @Override
    public void close() {
    }

    @Override
    public long sealsWritten() {
      return -1;
    }

    @Override
    public long sealFailures() {
      return -1;
    }

    @Override
    public long lastSealMillis() {
      return -1;
    }

    @Override
    public String latestSealHash() {
      return null;
    }
  }
}
