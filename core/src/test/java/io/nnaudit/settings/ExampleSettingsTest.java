package io.nnaudit.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.RepoRoot;
import io.nnaudit.config.NnauditConfigKeys;

/** Every set-up {@code conf/hdfs-site.xml.example} shows is settings a NameNode starts with. */
class ExampleSettingsTest {
  /** A set-up: its number, and its text up to the next set-up or the end (block 1 is not commented out). */
  private static final Pattern BLOCK = Pattern.compile("<!-- (\\d+)\\.(.*?)(?=<!-- \\d+\\.|</configuration>)",
      Pattern.DOTALL);
  private static final Pattern PROPERTY =
      Pattern.compile("<property><name>([^<]+)</name><value>([^<]*)</value></property>");

  @TempDir
  Path dir;

  @Test
  void everyExampleBlockIsValidSettings() throws Exception {
    String example = new String(Files.readAllBytes(RepoRoot.resolve("conf/hdfs-site.xml.example")),
        StandardCharsets.UTF_8);
    Matcher b = BLOCK.matcher(example);
    int blocks = 0;
    while (b.find()) {
      Configuration c = new Configuration(false);
      Matcher p = PROPERTY.matcher(b.group(2));
      int properties = 0;
      while (p.find()) {
        c.set(p.group(1), p.group(2));
        properties++;
      }
      assertTrue(properties > 0, "block " + b.group(1) + " sets something");
      c.set(NnauditConfigKeys.FILE_PATH_KEY, dir.resolve("block-" + b.group(1)).resolve("audit.log").toString());
      NnauditSettings.fromConf(c); // throws, naming the key, on a bad value
      blocks++;
    }
    assertEquals(6, blocks, "the example's set-ups");
  }
}
