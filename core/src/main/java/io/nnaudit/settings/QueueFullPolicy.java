package io.nnaudit.settings;

/** What a handler thread does when the audit queue is full. */
public enum QueueFullPolicy {
  /** Wait for the writer to make room. Nothing is lost; the handler (and so the RPC) is delayed. */
  BLOCK,
  /** Never wait. The event is counted as dropped and reported in the NameNode log and in the audit file. */
  DROP
}
