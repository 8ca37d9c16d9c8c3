package io.nnaudit.seal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.settings.NnauditSettings;
import io.nnaudit.sink.file.RollingFileSink;
import io.nnaudit.verify.Verification;

/**
 * The sealing key changed between two starts (a certificate renewed, an RSA key replaced by an EC key): the
 * chain goes on across the change, the seals before it signed with the old key and those after with the new.
 * verify with the new key's certificate alone names the seal it cannot check and says to give each key; with
 * both certificates the trail verifies; with a key that signed nothing of it, it does not.
 */
class SealKeyChangeTest {
  @TempDir
  Path dir;

  private int next;

  private void writeAndClose(File f, SealKeys.KeyFiles key, int records) throws Exception {
    Configuration c = new Configuration(false);
    c.set(NnauditConfigKeys.FILE_PATH_KEY, f.getPath());
    c.set(NnauditConfigKeys.FILE_MAX_SIZE_KEY, "2k");
    c.setInt(NnauditConfigKeys.SEAL_INTERVAL_RECORDS_KEY, 7);
    SealKeys.enable(c, key, dir);
    RollingFileSink sink = new RollingFileSink(NnauditSettings.fromConf(c).sinkContext());
    for (int i = 0; i < records; i++) {
      String r = String.format("record %06d %s%n", next++, "k".repeat(40));
      sink.write(ByteBuffer.wrap(r.getBytes(StandardCharsets.UTF_8)));
    }
    sink.close();
  }

  @Test
  void aTrailSealedWithTwoKeysVerifiesWithBothCertificates() throws Exception {
    SealKeys.KeyFiles old = SealKeys.rsa(dir.resolve("old"));
    SealKeys.KeyFiles renewed = SealKeys.ec(dir.resolve("new"));
    SealKeys.KeyFiles unrelated = SealKeys.ec(dir.resolve("unrelated"));
    File f = dir.resolve("audit.log").toFile();
    writeAndClose(f, old, 60);
    writeAndClose(f, renewed, 60); // the chain goes on from the last seal of the old key, signed with the new

    Verification.Run newOnly = Verification.withCert(renewed, f.getPath());
    assertEquals(1, newOnly.code, newOnly.output);
    assertTrue(newOnly.output.contains("not by the given key")
        && newOnly.output.contains("give each key's certificate"), newOnly.output);

    Verification.Run both = Verification.withCert(renewed, "--cert", old.certificate.toString(), f.getPath());
    assertEquals(0, both.code, both.output);
    assertTrue(both.output.startsWith("verified: "), both.output);
    assertTrue(both.output.contains(" 120 records, "), both.output);

    Verification.Run wrong = Verification.withCert(renewed, "--cert", unrelated.certificate.toString(),
        f.getPath());
    assertEquals(1, wrong.code, wrong.output);
    assertTrue(wrong.output.contains("not by any given key"), wrong.output);
  }
}
