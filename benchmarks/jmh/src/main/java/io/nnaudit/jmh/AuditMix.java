package io.nnaudit.jmh;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;

import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.hdfs.server.namenode.HdfsAuditLogger;
import org.apache.hadoop.ipc.CallerContext;
import org.apache.hadoop.security.SaslRpcServer.AuthMethod;
import org.apache.hadoop.security.UserGroupInformation;

/**
 * A realistic mix of audit events, for what compression costs and saves: how well deflate does depends on how
 * much the lines repeat, so one event logged over and over (as {@link RealisticCreateEvent} is) would give a
 * ratio and a speed no NameNode sees. The events are logged through {@code HdfsAuditLogger.logAuditEvent}, as
 * FSNamesystem calls it, so that the lines are nnaudit's own stock-format records.
 *
 * <p>The mix is an assumption, not a measurement of one cluster: a Hive and Spark cluster, whose audit log is
 * dominated by reads (clients stat and open far more than they write), with the share of each command below.
 * <ul>
 * <li>Commands: getfileinfo 43%, open 22%, listStatus 14%, create 6%, mkdirs 3%, delete 4%, rename 4%,
 * setPermission 1%, setTimes 2%, contentSummary 1%, and 1% of all calls refused ({@code allowed=false}).
 * create, mkdirs, rename and setPermission carry the file's status (owner, group, permission), as FSNamesystem
 * passes it.</li>
 * <li>Callers: 40 service principals with a host part ({@code etl-svc/worker-17.example.com@EXAMPLE.COM}),
 * 400 people ({@code u01234@EXAMPLE.COM}) and 5 proxy users (hive impersonating a person), picked with a skew
 * (a few services make most calls, as on a real cluster), from 600 client hosts in 10.0.0.0/8.</li>
 * <li>Paths: Hive warehouse partitions and their parquet parts with random UUIDs, Spark and MapReduce staging
 * directories, /tmp/hive scratch, YARN's aggregated logs and home directories; tables and partitions skewed
 * towards a few hot ones. Names with UUIDs and numbers are what deflate cannot shrink.</li>
 * <li>Caller context: 55% of calls carry one (a Spark driver or executor, a Hive query id, a MapReduce task),
 * a third of those with a signature; the rest none.</li>
 * </ul>
 * The same seed makes the same sequence of events; an average line is about 330 bytes. Logged outside an RPC,
 * the lines say {@code proto=null} where a NameNode's say {@code proto=rpc}.
 */
final class AuditMix {
  /** {cmd, weight in per mille}. */
  private static final Object[][] COMMANDS = {{"getfileinfo", 430}, {"open", 220}, {"listStatus", 140},
      {"create", 60}, {"mkdirs", 30}, {"delete", 40}, {"rename", 40}, {"setPermission", 10}, {"setTimes", 20},
      {"contentSummary", 10}};
  private static final int USERS_SERVICE = 40;
  private static final int USERS_PEOPLE = 400;
  private static final int USERS_PROXY = 5;
  private static final int HOSTS = 600;
  private static final String[] DBS = {"sales", "marketing", "finance", "ops", "raw_events", "clickstream",
      "inventory", "hr", "risk", "ml_features", "sandbox", "audit"};
  private static final String[] SERVICES = {"etl-svc", "spark", "hive", "oozie", "airflow", "ingest", "mapred",
      "hbase", "druid", "presto"};

  private final Random random;
  private final List<UserGroupInformation> ugis = new ArrayList<>();
  private final List<String> userNames = new ArrayList<>();
  private final InetAddress[] hosts = new InetAddress[HOSTS];
  private final int[] commandCdf;
  private final String[] commandNames;
  private final long day = 1_763_769_600_000L; // 2025-11-22 UTC, in ms; partition dates go back from it
  /** yyyy-MM-dd of {@link #day} and the 400 days before it. */
  private final String[] dates = new String[401];

  AuditMix(long seed) {
    random = new Random(seed);
    org.apache.hadoop.conf.Configuration conf = new org.apache.hadoop.conf.Configuration(false);
    conf.set("hadoop.security.auth_to_local", "RULE:[2:$1](.*)\nRULE:[1:$1](.*)\nDEFAULT");
    UserGroupInformation.setConfiguration(conf);
    for (int i = 0; i < USERS_SERVICE; i++) {
      String name = SERVICES[i % SERVICES.length] + "/worker-" + (i * 7 % 97) + ".example.com@EXAMPLE.COM";
      ugis.add(UserGroupInformation.createRemoteUser(name, AuthMethod.KERBEROS));
    }
    for (int i = 0; i < USERS_PEOPLE; i++) {
      ugis.add(UserGroupInformation.createRemoteUser(String.format(Locale.ROOT, "u%05d@EXAMPLE.COM",
          10_000 + i * 37), AuthMethod.KERBEROS));
    }
    UserGroupInformation hive = UserGroupInformation.createRemoteUser("hive/hs2-1.example.com@EXAMPLE.COM",
        AuthMethod.KERBEROS);
    for (int i = 0; i < USERS_PROXY; i++) {
      ugis.add(UserGroupInformation.createProxyUser(String.format(Locale.ROOT, "u%05d", 20_000 + i), hive));
    }
    for (UserGroupInformation u : ugis) {
      userNames.add(u.toString());
    }
    for (int i = 0; i < HOSTS; i++) {
      try {
        hosts[i] = InetAddress.getByAddress(new byte[] {10, (byte) (i / 250 + 1), (byte) (i % 250 + 1),
            (byte) (17 + i % 200)});
      } catch (UnknownHostException e) {
        throw new AssertionError(e);
      }
    }
    java.text.SimpleDateFormat f = new java.text.SimpleDateFormat("yyyy-MM-dd", Locale.ROOT);
    f.setTimeZone(java.util.TimeZone.getTimeZone("UTC"));
    for (int i = 0; i < dates.length; i++) {
      dates[i] = f.format(new java.util.Date(day - i * 86_400_000L));
    }
    commandNames = new String[COMMANDS.length];
    commandCdf = new int[COMMANDS.length];
    int sum = 0;
    for (int i = 0; i < COMMANDS.length; i++) {
      commandNames[i] = (String) COMMANDS[i][0];
      sum += (Integer) COMMANDS[i][1];
      commandCdf[i] = sum;
    }
    if (sum != 1000) {
      throw new AssertionError("the mix's weights add up to " + sum + " per mille");
    }
  }

  /** One event, ready to log; build them ahead of a timed section. Immutable. */
  static final class Event {
    final boolean allowed;
    final String userName;
    final UserGroupInformation ugi;
    final InetAddress addr;
    final String cmd;
    final String src;
    final String dst;
    final FileStatus stat;
    final CallerContext context;

    Event(boolean allowed, String userName, UserGroupInformation ugi, InetAddress addr, String cmd, String src,
        String dst, FileStatus stat, CallerContext context) {
      this.allowed = allowed;
      this.userName = userName;
      this.ugi = ugi;
      this.addr = addr;
      this.cmd = cmd;
      this.src = src;
      this.dst = dst;
      this.stat = stat;
      this.context = context;
    }

    void logTo(HdfsAuditLogger logger) {
      logger.logAuditEvent(allowed, userName, addr, cmd, src, dst, stat, context, ugi, null);
    }
  }

  /** The next event of the mix. */
  Event next() {
    int c = random.nextInt(1000);
    int k = 0;
    while (c >= commandCdf[k]) {
      k++;
    }
    String cmd = commandNames[k];
    int u = skewed(ugis.size());
    String src = path(cmd);
    String dst = null;
    FileStatus stat = null;
    switch (cmd) {
      case "rename":
        dst = src.endsWith(".tmp") ? src.substring(0, src.length() - 4) : src.replace("/_temporary/0", "");
        if (dst.equals(src)) {
          dst = src.substring(0, src.lastIndexOf('/') + 1) + "renamed-" + uuid().substring(0, 8);
        }
        stat = status(dst, false, u);
        break;
      case "create":
        stat = status(src, false, u);
        break;
      case "mkdirs":
      case "setPermission":
        stat = status(src, true, u);
        break;
      default:
        break;
    }
    boolean allowed = random.nextInt(100) != 0;
    if (!allowed) {
      stat = null; // refused: FSNamesystem has no status to pass
    }
    return new Event(allowed, userNames.get(u), ugis.get(u), hosts[skewed(HOSTS)], cmd, src, dst, stat,
        context());
  }

  /** An index in [0, n), small ones much more often: a few services and tables make most of the calls. */
  private int skewed(int n) {
    double x = random.nextDouble();
    return Math.min(n - 1, (int) (n * x * x * x));
  }

  private String uuid() {
    return new java.util.UUID(random.nextLong(), random.nextLong()).toString();
  }

  private String date(int daysBack) {
    return dates[daysBack];
  }

  private String path(String cmd) {
    int kind = random.nextInt(100);
    String db = DBS[skewed(DBS.length)];
    String table = db.substring(0, Math.min(3, db.length())) + "_t" + skewed(60);
    String partition = "/warehouse/tablespace/managed/hive/" + db + ".db/" + table + "/dt=" + date(skewed(400));
    boolean dir = cmd.equals("listStatus") || cmd.equals("mkdirs") || cmd.equals("contentSummary");
    if (kind < 55) {
      if (dir) {
        return partition;
      }
      String part = String.format(Locale.ROOT, "/part-%05d-%s.c000.snappy.parquet", random.nextInt(400), uuid());
      return cmd.equals("create") || cmd.equals("rename")
          ? partition + "/_temporary/0/_temporary/attempt_" + random.nextInt(1_000_000) + part : partition + part;
    }
    String user = String.format(Locale.ROOT, "u%05d", 10_000 + skewed(USERS_PEOPLE) * 37);
    String app = String.format(Locale.ROOT, "application_1763%09d_%04d", random.nextInt(1_000_000_000),
        random.nextInt(10_000));
    if (kind < 70) {
      String staging = "/user/" + user + "/.sparkStaging/" + app;
      return dir ? staging : staging + (random.nextBoolean() ? "/__spark_conf__.zip" : "/" + uuid() + ".jar");
    }
    if (kind < 82) {
      String scratch = "/tmp/hive/" + user + "/" + uuid();
      return dir ? scratch : scratch + "/hive_" + date(0) + "_" + random.nextInt(100_000) + "/-ext-10000/000000_0"
          + (cmd.equals("rename") ? ".tmp" : "");
    }
    if (kind < 92) {
      String logs = "/app-logs/" + user + "/logs-tfile/" + app;
      return dir ? logs : logs + "/worker-" + random.nextInt(400) + ".example.com_8041";
    }
    String home = "/user/" + user + "/" + (random.nextBoolean() ? "notebooks" : "data/export_" + random.nextInt(50));
    return dir ? home : home + "/" + uuid().substring(0, 8) + (random.nextBoolean() ? ".csv" : ".ipynb");
  }

  private FileStatus status(String p, boolean dir, int user) {
    String owner = userNames.get(user).split("[/@ ]", 2)[0];
    return new FileStatus(0, dir, dir ? 0 : 3, dir ? 0 : 128L << 20, day, day,
        new FsPermission(dir ? (short) 0755 : (short) 0644), owner, "hadoop", new Path(p));
  }

  private CallerContext context() {
    int c = random.nextInt(100);
    if (c >= 55) {
      return null;
    }
    String app = String.format(Locale.ROOT, "application_1763%09d_%04d", random.nextInt(1_000_000_000),
        random.nextInt(10_000));
    String ctx;
    if (c < 25) {
      ctx = "SPARK_DRIVER_" + app + "_JobId_" + random.nextInt(200) + "_StageId_" + random.nextInt(50);
    } else if (c < 40) {
      ctx = "SPARK_TASK_" + app + "_1_JId_" + random.nextInt(200) + "_SId_" + random.nextInt(50) + "_0_TId_"
          + random.nextInt(100_000) + "_0";
    } else if (c < 50) {
      ctx = "HIVE_QUERY_ID:hive_" + date(0).replace("-", "") + random.nextInt(1_000_000) + "_" + uuid();
    } else {
      ctx = "mr_attempt_1763" + random.nextInt(1_000_000_000) + "_" + random.nextInt(10_000) + "_m_"
          + random.nextInt(100_000) + "_0";
    }
    CallerContext.Builder b = new CallerContext.Builder(ctx);
    if (random.nextInt(3) == 0) {
      b.setSignature(("sig-" + random.nextInt(100_000)).getBytes(StandardCharsets.UTF_8));
    }
    return b.build();
  }
}
