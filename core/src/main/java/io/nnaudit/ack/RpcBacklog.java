package io.nnaudit.ack;

import org.apache.hadoop.ipc.Server;

/** Whether the RPC server of the calling handler has calls waiting for a handler: more audited work to come. */
public final class RpcBacklog {
  private RpcBacklog() {
  }

  /**
   * True when the calling thread is an RPC server's handler and that server's call queue holds at least one
   * call; false outside an RPC (fsck, the NameNode's own threads).
   */
  public static boolean callsWaiting() {
    Server server = Server.get();
    return server != null && server.getCallQueueLen() > 0;
  }
}
