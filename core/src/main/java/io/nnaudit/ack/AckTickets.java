package io.nnaudit.ack;

import org.apache.hadoop.ipc.Server;

/** Chooses the kind of {@link AckTicket} for the calling thread. */
public final class AckTickets {
  private AckTickets() {
  }

  /** A ticket for the calling thread: a postponed response inside an RPC, else a waiting caller. */
  public static AckTicket forCurrentThread() {
    Server.Call call = Server.getCurCall().get();
    if (call != null) {
      call.postponeResponse();
      return new PostponedResponse(call);
    }
    return new WaitingCaller(Thread.currentThread());
  }
}
