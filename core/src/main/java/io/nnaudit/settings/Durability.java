package io.nnaudit.settings;

import io.nnaudit.ack.AckTicket;

/** When the writer forces written records to stable storage ({@code nnaudit.durability}). */
public enum Durability {
  /** Write each batch to the OS; never fsync. Survives a NameNode crash, not a machine crash. */
  NONE,
  /** fsync at most every {@code nnaudit.durability.interval.ms} or {@code .records}, whichever comes first. */
  INTERVAL,
  /** fsync after every batch. */
  BATCH,
  /**
   * fsync after every batch, and no operation is acknowledged before its own record is fsynced: inside an RPC
   * the response is postponed until then (see {@link AckTicket}); outside one, {@code logAuditEvent} waits.
   * One fsync serves a whole batch (group commit).
   */
  SYNC
}
