package io.nnaudit.kafka;

import static io.nnaudit.TarballCommand.run;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.TarballCommand.Result;

/**
 * The auditor's procedure from the operator tarball, with nothing but a JDK: {@code bin/nnaudit verify-stream}
 * against a real broker holding what two sealing NameNodes shipped (exit 0, each source's last verified seal),
 * then {@code bin/nnaudit verify --anchor} of that seal on each host's files (exit 0); and verify-stream on a copy
 * of the topic with a record deleted (exit 1, naming the source).
 */
class VerifyStreamScriptIT {
  @TempDir
  Path dir;

  @Test
  void theAuditorsProcedureRunsFromTheTarball() throws Exception {
    File tarball = new File(System.getProperty("nnaudit.tarball"));
    assertTrue(tarball.isFile(), "the operator tarball: " + tarball);
    Path install = dir.resolve("install");
    Files.createDirectories(install);
    assertEquals(0, run(install, "tar", "-xzf", tarball.getPath(), "--strip-components=1").exit);
    String script = install.resolve("bin/nnaudit").toString();
    assertTrue(Files.isRegularFile(install.resolve("lib/cli/slf4j-api-1.7.36.jar")), "the command line's slf4j");

    try (SealedStream stream = SealedStream.make(dir.resolve("stream"))) {
      Path consumer = dir.resolve("consumer.properties"); // as an operator gives security settings
      Files.write(consumer, ("bootstrap.servers=" + stream.broker.bootstrapServers() + "\n")
          .getBytes(StandardCharsets.UTF_8));
      String[] certs = {"--cert", stream.key1.certificate.toString(), "--cert", stream.key2.certificate.toString()};
      Result ok = run(install, concat(new String[] {script, "verify-stream", "--consumer-config", consumer.toString(),
          "--topic", SealedStream.TOPIC}, certs));
      assertEquals(0, ok.exit, ok.output);
      assertTrue(ok.output.startsWith("verified: "), "no log lines before the report: " + ok.output);
      assertFalse(ok.output.contains("SLF4J"), "slf4j finds its binding in lib/cli: " + ok.output);
      assertTrue(ok.output.contains("sources: 2 verified, 0 with records not verified, 0 tampered"), ok.output);

      Result host1 = run(install, script, "verify", "--cert", stream.key1.certificate.toString(), "--anchor",
          anchor(ok.output, SealedStream.SOURCE1), stream.audits1.getPath());
      assertEquals(0, host1.exit, host1.output);
      Result host2 = run(install, script, "verify", "--cert", stream.key2.certificate.toString(), "--anchor",
          anchor(ok.output, stream.source2), stream.audits2.getPath());
      assertEquals(0, host2.exit, host2.output);

      TopicCopy.copy(stream.broker, SealedStream.TOPIC, "deleted", SealedStream.PARTITIONS, stream.size, all -> {
        int seen = 0;
        for (int i = 0; i < all.size(); i++) {
          if (all.get(i).is(stream.source2, ShipHeaders.RECORD) && ++seen == 100) {
            all.remove(i);
            break;
          }
        }
        return all;
      });
      Result bad = run(install, concat(new String[] {script, "verify-stream", "--bootstrap",
          stream.broker.bootstrapServers(), "--topic", "deleted"}, certs));
      assertEquals(1, bad.exit, bad.output);
      assertTrue(bad.output.contains("TAMPERED: " + stream.source2 + " file "), bad.output);
    }
  }

  private static String anchor(String output, String source) {
    Matcher m = Pattern.compile("verified: " + Pattern.quote(source) + ": .*\\n  last verified seal: ([0-9a-f]{64})")
        .matcher(output);
    assertTrue(m.find(), output);
    return m.group(1);
  }

  private static String[] concat(String[] a, String[] b) {
    String[] out = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }
}
