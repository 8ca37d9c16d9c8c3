package io.nnaudit;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.file.Path;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import io.nnaudit.config.NnauditConfigKeys;

/** A bad nnaudit setting stops the NameNode from starting, with our message. */
class MiniClusterBadConfigTest {
  @TempDir
  Path dir;

  private static String messageChain(Throwable t) {
    StringBuilder sb = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      sb.append(c.getMessage()).append('\n');
    }
    return sb.toString();
  }

  private String startFailure(Configuration conf) {
    Throwable t = assertThrows(Throwable.class, () -> MiniClusterSupport.start(conf).shutdown());
    boolean ours = false;
    for (Throwable c = t; c != null; c = c.getCause()) {
      ours |= c instanceof IllegalArgumentException && String.valueOf(c.getMessage()).startsWith("nnaudit: ");
    }
    assertTrue(ours, "the start-up failure is caused by nnaudit's own IllegalArgumentException: " + messageChain(t));
    return messageChain(t);
  }

  @Test
  void badPolicyFailsStartUpNamingKeyValueAndAllowed() {
    File ours = dir.resolve("nnaudit.log").toFile();
    Configuration conf = MiniClusterSupport.conf(dir.toFile(), ours, QueuedAuditLogger.class.getName());
    conf.set(NnauditConfigKeys.QUEUE_FULL_POLICY_KEY, "WAIT");
    String m = startFailure(conf);
    assertTrue(m.contains("nnaudit: invalid value for nnaudit.queue.full.policy: 'WAIT'. Allowed: one of BLOCK, "
        + "DROP."), m);
  }

  @Test
  void unwritableAuditFileFailsStartUp() throws Exception {
    File blocker = dir.resolve("plain-file").toFile();
    assertTrue(blocker.createNewFile());
    File ours = new File(blocker, "nnaudit.log");
    Configuration conf = MiniClusterSupport.conf(dir.toFile(), ours, "default," + QueuedAuditLogger.class.getName());
    String m = startFailure(conf);
    assertTrue(m.contains("nnaudit: invalid value for nnaudit.file.path: '" + ours.getPath() + "'"), m);
  }
}
