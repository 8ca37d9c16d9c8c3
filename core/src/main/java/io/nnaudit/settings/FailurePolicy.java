package io.nnaudit.settings;

/** What the writer does when the sink cannot write or fsync a batch ({@code nnaudit.failure.policy}). */
public enum FailurePolicy {
  /**
   * Keep the batch and retry it until the sink works again. The queue fills, and under BLOCK the handlers
   * wait: the NameNode stops acknowledging operations until audit works, like auditd's
   * {@code disk_full_action=suspend}. Nothing is lost.
   */
  FAIL_CLOSED,
  /**
   * Drop the batch: its events are counted as dropped and reported in the NameNode log and, once writing
   * works again, by a drop record in the audit file. The NameNode goes on.
   */
  FAIL_OPEN
}
