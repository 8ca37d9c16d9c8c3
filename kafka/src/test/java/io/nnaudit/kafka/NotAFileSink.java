package io.nnaudit.kafka;

import io.nnaudit.sink.DiscardingSink;
import io.nnaudit.sink.SinkContext;

/** A sink other than the audit file, which shipping cannot read from. */
public final class NotAFileSink extends DiscardingSink {
  public NotAFileSink(SinkContext context) {
  }
}
