package io.nnaudit;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The NameNodes a test starts ({@link MiniClusterSupport#start}), shut down after it, the last started first;
 * after each shutdown, the nnaudit pipeline that NameNode wrote to (if it had one) is closed, writing what it
 * had accepted. A test that checks the files once its NameNode has stopped still calls
 * {@code cluster.shutdown()} itself: the shutdown after the test is then a second one, which does nothing (a
 * stopped NameNode's stop returns at once), and so is the close of a closed pipeline. Use as
 * {@code @RegisterExtension final MiniClusterFixture nameNodes = new MiniClusterFixture();} and
 * {@code MiniDFSCluster cluster = nameNodes.start(conf);}; a test with a {@link LoggerFixture} starts its
 * NameNodes there, so that they stop before its sink and directory go.
 */
public final class MiniClusterFixture implements AfterEachCallback {
  private static final long PIPELINE_CLOSE_MS = 10_000;

  private final Closer started = new Closer();

  /** A NameNode with no DataNode, up; shut down after the test. */
  public MiniDFSCluster start(Configuration c) throws Exception {
    return start(c, 0);
  }

  /** A NameNode and {@code dataNodes} DataNodes, up; shut down after the test. */
  public MiniDFSCluster start(Configuration c, int dataNodes) throws Exception {
    MiniDFSCluster cluster = MiniClusterSupport.start(c, dataNodes);
    QueuedAuditLogger logger = MiniClusterSupport.nnauditLogger(cluster);
    started.add(() -> {
      try {
        cluster.shutdown();
      } finally {
        if (logger != null) {
          logger.pipeline().close(PIPELINE_CLOSE_MS);
        }
      }
    });
    return cluster;
  }

  /** Shuts down every NameNode started here, now; what is started later is shut down after the test. */
  public void shutdownAll() throws Exception {
    started.close();
  }

  @Override
  public void afterEach(ExtensionContext context) throws Exception {
    shutdownAll();
  }
}
