package io.nnaudit.pipeline;

/** What became of an event offered to a pipeline ({@link AuditPipeline#offer}, {@link AuditPipeline#afterClose}). */
public enum Offer {
  /** In the queue; the writer will write it. */
  ACCEPTED,
  /** Written on the calling thread (after the shutdown hook handed the sink over, before the last hook). */
  WRITTEN,
  /** Dropped by the DROP policy; counted. The operation may be acknowledged (DROP is lossy by choice). */
  DROPPED,
  /** Could not be queued or written; counted. The operation must not be acknowledged as audited. */
  REFUSED,
  /**
   * The pipeline was closed before the event entered; not counted: follow the slot, or
   * {@link AuditPipeline#afterClose}.
   */
  CLOSED
}
