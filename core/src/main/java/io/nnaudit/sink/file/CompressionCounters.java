package io.nnaudit.sink.file;

/**
 * What the compression of rotated files has done since start-up: files compressed, their bytes before and after,
 * and compressions that failed.
 *
 * <p>Design note. Written by the compressor's thread only, read from any thread (JMX, metrics2): volatile fields,
 * one writer, so an increment needs no lock. Nothing blocks or drops.
 */
final class CompressionCounters {
  private volatile long files;
  private volatile long bytesBefore;
  private volatile long bytesAfter;
  private volatile long failures;

  /** A file of {@code before} bytes now compressed to {@code after}. */
  void compressed(long before, long after) {
    bytesBefore += before;
    bytesAfter += after;
    files++;
  }

  void failed() {
    failures++;
  }

  long files() {
    return files;
  }

  long bytesBefore() {
    return bytesBefore;
  }

  long bytesAfter() {
    return bytesAfter;
  }

  long failures() {
    return failures;
  }
}
