package io.nnaudit.settings;

/** When an audited operation may be acknowledged to its client ({@code nnaudit.ack.policy}). */
public enum AckPolicy {
  /**
   * Once its record has been written to the sink (write(2) for the file): the RPC response is postponed until
   * then, as the NameNode's own async edit log postpones it until the edit is synced. A NameNode crash
   * (kill -9) then loses no acknowledged operation. Under {@code nnaudit.durability=sync} the response waits
   * for the fsync instead.
   */
  WRITE,
  /**
   * As soon as the event is in the queue: the fastest, and an explicit opt-out. A NameNode crash loses the
   * acknowledged operations whose records were still queued (at most the queue and one batch). Has no effect
   * under durability=sync, whose responses always wait for the fsync.
   */
  QUEUE,
  /**
   * As soon as its handler has copied the record into the crash journal, a ring in a file mapped shared beside
   * the audit file ({@code nnaudit.journal.size}): the record is then in the kernel's page cache, which a
   * NameNode crash (kill -9) cannot take, as after a write(2); the next start writes to the audit file what the
   * crash kept from being written. No handler waits for a write, so the cost is close to {@code queue}'s. A record
   * the journal cannot take (no room, a full queue, an audit file that refuses writes) waits for its write as
   * under {@code write}. Needs durability none, the file sink, no seals and Java 14 or later.
   */
  JOURNAL
}
