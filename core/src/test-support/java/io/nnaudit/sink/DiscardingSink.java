package io.nnaudit.sink;

import java.nio.ByteBuffer;

/** A sink that takes every chunk and keeps nothing: the base of test sinks that only differ in how they open. */
public abstract class DiscardingSink implements AuditSink {
  @Override
  public void write(ByteBuffer chunk) {
    chunk.position(chunk.limit());
  }

  @Override
  public void force() {
  }

  @Override
  public void close() {
  }
}
