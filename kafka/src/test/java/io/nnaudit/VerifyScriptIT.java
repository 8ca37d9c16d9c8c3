package io.nnaudit;

import static io.nnaudit.TarballCommand.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.TarballCommand.Result;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.seal.SealKeys;
import io.nnaudit.settings.NnauditSettings;
import io.nnaudit.sink.file.RollingFileSink;

/**
 * The operator's verify, as docs/sealing.md gives it: the tarball unpacked, {@code bin/nnaudit verify --cert CRT DIR}
 * run with nothing but a JDK (no Hadoop on its classpath), on a sealed trail and on the same trail with one
 * byte changed.
 */
class VerifyScriptIT {
  @TempDir
  Path dir;

  @Test
  void binNnauditVerifiesATrailAndFindsAChangedByte() throws Exception {
    File tarball = new File(System.getProperty("nnaudit.tarball"));
    assertTrue(tarball.isFile(), "the operator tarball: " + tarball);
    Path install = dir.resolve("install");
    Files.createDirectories(install);
    assertEquals(0, run(install, "tar", "-xzf", tarball.getPath(), "--strip-components=1").exit);
    Path script = install.resolve("bin/nnaudit");
    assertTrue(Files.isExecutable(script), "bin/nnaudit is executable");

    Path logs = dir.resolve("logs");
    SealKeys.KeyFiles key = SealKeys.ec(dir.resolve("keys"));
    Configuration c = new Configuration(false);
    c.set(NnauditConfigKeys.FILE_PATH_KEY, logs.resolve("hdfs-audit.log").toString());
    c.set(NnauditConfigKeys.FILE_MAX_SIZE_KEY, "4k");
    c.setInt(NnauditConfigKeys.SEAL_INTERVAL_RECORDS_KEY, 10);
    SealKeys.enable(c, key, dir);
    RollingFileSink sink = new RollingFileSink(NnauditSettings.fromConf(c).sinkContext());
    for (int i = 0; i < 200; i++) {
      sink.write(ByteBuffer.wrap(String.format("2026-11-23 10:00:00,000 INFO FSNamesystem.audit: allowed=true\t"
          + "ugi=hdfs\tip=/10.0.0.1\tcmd=mkdirs\tsrc=/d/%05d\tdst=null\tperm=hdfs:supergroup:rwxr-xr-x\tproto=rpc%n",
          i).getBytes(StandardCharsets.UTF_8)));
    }
    sink.close();

    Result ok = run(install, script.toString(), "verify", "--cert", key.certificate.toString(), logs.toString());
    assertEquals(0, ok.exit, ok.output);
    assertTrue(ok.output.startsWith("verified: "), ok.output);
    assertTrue(ok.output.contains(" 200 records, from "), ok.output);

    Path rotated = logs.resolve("hdfs-audit.log.1");
    byte[] b = Files.readAllBytes(rotated);
    b[b.length / 2] ^= 0x01;
    Files.write(rotated, b);
    Result bad = run(install, script.toString(), "verify", "--cert", key.certificate.toString(), logs.toString());
    assertEquals(1, bad.exit, bad.output);
    assertTrue(bad.output.startsWith("TAMPERED: " + rotated + " at byte "), bad.output);
    assertTrue(bad.output.contains("modified bytes"), bad.output);
  }
}
