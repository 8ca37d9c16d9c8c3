package io.nnaudit.kafka;

import java.io.File;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.nnaudit.throttle.IntervalGate;

/**
 * The shipper's warnings about sending and reading, at most one a minute, each with the send errors counted
 * since start-up: an outage fails every send, and the log says so once a minute, not once a send. Used by the
 * shipper's thread only (every caller runs on it). Logs as {@link KafkaShipper}, the shipper's one logger name.
 */
final class ShipWarnings {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaShipper.class);
  private static final long INTERVAL_MS = 60_000;

  private final File file;
  private final String topic;
  private final Acknowledgements acks;
  private final IntervalGate gate = new IntervalGate(INTERVAL_MS);

  ShipWarnings(File file, String topic, Acknowledgements acks) {
    this.file = file;
    this.topic = topic;
    this.acks = acks;
  }

  void warn(String what, Throwable cause) {
    if (gate.tryOpen(System.currentTimeMillis())) {
      LOG.warn("nnaudit: shipping {} to Kafka topic {}: {} ({}); {} send errors since start-up, the records wait in "
          + "the file (logged at most once a minute)", file, topic, what, String.valueOf(cause), acks.sendErrors());
    }
  }
}
