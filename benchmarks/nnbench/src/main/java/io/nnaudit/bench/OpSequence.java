package io.nnaudit.bench;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.HdfsConstants;
import org.apache.hadoop.hdfs.server.namenode.NNThroughputBenchmark;

/**
 * Hadoop's unmodified NNThroughputBenchmark (remote mode, {@code -fs hdfs://...}) run op after op under one
 * base directory, as both {@code dev-support/bin/nnbench} and the client of {@code benchmarks/nn_compare.py}
 * run it. Files are made once and reused: open, fileStatus and delete run {@code -useExisting} on the files
 * that create, open or fileStatus left (renamed back to {@code BASE/create}); an op that finds none (rename,
 * or anything after delete) gets a fresh, unmeasured create first. Every run keeps its results
 * ({@code -keepResults}), which leaves the NameNode in safe mode after a saveNamespace; the next op that
 * reuses files leaves it.
 *
 * <p>Call {@link #prepare} and then {@link #run} for each op; the figures of the last run are in the
 * {@link BenchmarkLogCapture}.
 */
final class OpSequence {
  private final FileSystem fs;
  private final BenchmarkLogCapture capture;
  private final Configuration conf;
  private final String uri;
  private final int threads;
  private final int files;
  private final String base;
  /** The op directory under base holding {@code files} untouched files, if any. */
  private String intact;

  OpSequence(FileSystem fs, BenchmarkLogCapture capture, Configuration conf, String uri, int threads, int files,
      String base) {
    this.fs = fs;
    this.capture = capture;
    this.conf = conf;
    this.uri = uri;
    this.threads = threads;
    this.files = files;
    this.base = base;
  }

  /** Whether {@code op} works on existing files (all but create and mkdirs). */
  static boolean usesExisting(String op) {
    return !op.equals("create") && !op.equals("mkdirs");
  }

  /** Makes the files {@code op} works on, unmeasured: renames the intact ones back, or creates them. */
  void prepare(String op) throws Exception {
    if (!usesExisting(op)) {
      return;
    }
    if (intact != null) {
      // -keepResults leaves the NameNode in safe mode (after a saveNamespace): leave it to rename.
      ((DistributedFileSystem) fs).setSafeMode(HdfsConstants.SafeModeAction.SAFEMODE_LEAVE);
      if (!intact.equals("create") && !fs.rename(new Path(base, intact), new Path(base, "create"))) {
        throw new IOException("could not rename " + base + "/" + intact + " to " + base + "/create");
      }
    } else {
      runBenchmark("create", false);
    }
  }

  /** Runs {@code op}, measured by NNThroughputBenchmark itself; call {@link #prepare} first. */
  void run(String op) throws Exception {
    runBenchmark(op, usesExisting(op));
    intact = op.equals("create") || op.equals("open") || op.equals("fileStatus") ? op : null;
  }

  private void runBenchmark(String op, boolean existing) throws Exception {
    boolean dirs = op.equals("mkdirs"); // the one op that counts directories, not files
    List<String> args = new ArrayList<>(Arrays.asList("-fs", uri, "-op", op, "-threads", String.valueOf(threads),
        dirs ? "-dirs" : "-files", String.valueOf(files), dirs ? "-dirsPerDir" : "-filesPerDir", "1000",
        "-baseDirName", base, "-keepResults"));
    if (op.equals("create")) {
      args.add("-close");
    }
    if (existing) {
      args.add("-useExisting");
    }
    Configuration c = new Configuration(conf);
    c.setInt(DFSConfigKeys.DFS_BLOCK_SIZE_KEY, 16);
    capture.clear();
    NNThroughputBenchmark.runBenchmark(c, args.toArray(new String[0]));
  }
}
