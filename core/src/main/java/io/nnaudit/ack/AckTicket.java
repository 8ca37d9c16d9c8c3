package io.nnaudit.ack;

import java.io.IOException;

/**
 * How an audited operation is kept from being acknowledged before its record is written (or, under
 * {@code nnaudit.durability=sync}, fsynced): one ticket per event, completed exactly once by whoever settles
 * the record's fate.
 *
 * <p>Design note. Two kinds, in the root package, chosen on the handler thread by
 * {@code io.nnaudit.ack.AckTickets#forCurrentThread}:
 * <ul>
 * <li>{@code PostponedResponse}: inside an RPC (and WebHDFS, whose calls run as RPC server calls), the
 * response is postponed ({@code Server.Call.postponeResponse}) and the handler returns at once to serve other
 * calls; the writer sends the response after the write or fsync that covers the record, or aborts it with an
 * error when the record cannot be written (as FSEditLogAsync aborts a call whose edit could not be synced).
 * No handler thread sleeps on the disk, and one write acknowledges a whole batch (group commit).</li>
 * <li>{@code WaitingCaller}: a caller outside an RPC (fsck's servlet, an embedder) parks in {@link #await}
 * until the ticket completes, in bounded slices and for at most {@code nnaudit.handler.max.wait.ms}.</li>
 * </ul>
 * Completion is idempotent: the first of {@link #done}, {@link #release} and {@link #abort} wins, the others
 * do nothing; none of them throws. Completed by the thread that writes the record (the writer thread, or a
 * handler leading a write), by a handler writing directly after the shutdown hook, by a dying writer thread
 * (aborting what it held or left queued), or by the handler itself when its event never entered the queue.
 * Completing sends the RPC response: serializing it (and any SASL wrapping) runs on the completing thread,
 * inside the pipeline's write lock when handlers lead.
 */
public abstract class AckTicket {
  /*
   * Implementation notes. This class holds no state: each kind keeps its own, written once by the first
   * completing thread (a CAS) and read by the waiter or the RPC layer; see PostponedResponse and WaitingCaller.
   * The methods are public only so that the root package, which queues and writes events, can call them;
   * this package must not depend on it.
   * What blocks: only WaitingCaller.await, bounded; completing never waits for the caller, but sending a
   * postponed response serializes it, and may write it to the socket, on the completing thread.
   */

  /** Not yet settled. */
  public static final int PENDING = 0;
  /** The record is written (or fsynced under sync). */
  public static final int DONE = 1;
  /** Acknowledged without its record, by a policy that allows it (DROP, fail-open); the loss is counted. */
  public static final int RELEASED = 2;
  /** Not acknowledged: the record could not be written; an RPC gets an error response. */
  public static final int ABORTED = 3;

  protected AckTicket() {
  }

  /** The record is where the policy needs it: acknowledge the operation. Returns whether this call settled it. */
  public final boolean done() {
    return complete(DONE, null);
  }

  /**
   * Acknowledge without a record (DROP, fail-open); the caller has counted the loss. Returns whether this call
   * settled it.
   */
  public final boolean release() {
    return complete(RELEASED, null);
  }

  /**
   * The record could not be written: the operation must not be acknowledged as audited. Returns whether this
   * call settled it (false: it was settled before, and this one did nothing).
   */
  public final boolean abort(String why) {
    return complete(ABORTED, new IOException("nnaudit: the audit record of this operation could not be written (" + why
        + "); the operation may have taken effect"));
  }

  /** Settles the ticket if it is pending; returns whether this call did (the first completion wins). */
  protected abstract boolean complete(int how, IOException error);

  /** Whether the caller must wait in {@link #await}: false for a postponed RPC response. */
  public abstract boolean mustWait();

  /**
   * A caller outside an RPC: waits until the ticket completes or {@code maxWaitMs} pass; returns the final
   * state, or {@link #PENDING} on time-out.
   */
  public abstract int await(long maxWaitMs);
}
