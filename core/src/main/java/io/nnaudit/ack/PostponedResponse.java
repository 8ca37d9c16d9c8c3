package io.nnaudit.ack;

import java.io.IOException;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.hadoop.ipc.ExternalCall;
import org.apache.hadoop.ipc.Server;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An RPC whose response waits for its audit record (see {@link AckTicket}). Sending the response is the
 * completing thread's work: serializing it and, when the connection's queue is empty, writing it to the
 * socket. The handler's own {@code sendResponse} and ours each count the call down once; whichever is last
 * sends.
 */
final class PostponedResponse extends AckTicket {
  private static final Logger LOG = LoggerFactory.getLogger(PostponedResponse.class);

  /** The handler's call, set by the handler that made the ticket; the completing thread sends its response. */
  private final Server.Call call;
  /**
   * Set by the first completion (CAS), whichever thread completes; guards the call's count, which must go down
   * exactly once.
   */
  private final AtomicBoolean completed = new AtomicBoolean();

  PostponedResponse(Server.Call call) {
    this.call = call;
  }

  @Override
  protected boolean complete(int how, IOException error) {
    if (!completed.compareAndSet(false, true)) {
      return false;
    }
    try {
      if (how == ABORTED) {
        abort(error);
      } else {
        call.sendResponse();
      }
    } catch (Throwable t) {
      // The client may be gone; a response that cannot be sent must not stop the thread that sends it.
      LOG.debug("nnaudit: sending a postponed RPC response failed", t);
    }
    return true;
  }

  /**
   * Answers the call with an application error, as if the operation had thrown {@code error}: the client sees
   * an IOException and its connection stays up for its other calls. A WebHDFS call (an {@link ExternalCall})
   * gets the error through {@code abortResponse}, which for it only ends the call. The call's own
   * postponed-response count is left at one, so the handler's later {@code sendResponse} sends nothing.
   */
  private void abort(IOException error) throws IOException {
    if (call instanceof ExternalCall) {
      call.abortResponse(error);
    } else {
      call.setDeferredError(error);
    }
  }

  @Override
  public boolean mustWait() {
    return false;
  }

  @Override
  public int await(long maxWaitMs) {
    throw new IllegalStateException("a postponed response is not waited for");
  }
}
