package io.nnaudit.bench;

import java.io.File;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.HdfsConfiguration;
import org.apache.hadoop.hdfs.MiniDFSCluster;

/**
 * A NameNode in a JVM of its own for {@code benchmarks/nn_compare.py}: MiniDFSCluster with no DataNodes, RPC
 * on 127.0.0.1, configured by an hdfs-site style file that selects the audit variant. Prints
 * {@code READY port=N} and serves until the process is terminated (SIGTERM runs the shutdown hooks, so
 * nnaudit drains as on a real NameNode). Arguments: baseDir siteXml.
 */
public final class BenchNameNodeMain {
  private BenchNameNodeMain() {
  }

  public static void main(String[] args) throws Exception {
    Configuration conf = new HdfsConfiguration();
    conf.addResource(new Path(new File(args[1]).getAbsolutePath()));
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, new File(args[0]).getAbsolutePath());
    conf.set(DFSConfigKeys.DFS_NAMENODE_HTTP_ADDRESS_KEY, "127.0.0.1:0");
    conf.setInt(DFSConfigKeys.DFS_NAMENODE_MIN_BLOCK_SIZE_KEY, 16); // NNThroughputBenchmark's block size
    MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf).numDataNodes(0).build();
    cluster.waitActive();
    System.out.println("READY port=" + cluster.getNameNodePort());
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE); // serve until the process is terminated
  }
}
