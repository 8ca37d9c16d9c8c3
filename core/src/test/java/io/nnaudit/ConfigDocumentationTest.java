package io.nnaudit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import io.nnaudit.config.NnauditConfigKeys;

/**
 * Keeps the three places a key lives in step, in the spirit of Hadoop's TestConfigurationFieldsBase: the
 * KEY/_DEFAULT constants, conf/nnaudit-default.xml, and the key table in docs/configuration.md.
 */
class ConfigDocumentationTest {

  /** key -> default, from the constants. */
  private static Map<String, String> fromClass() throws Exception {
    Map<String, String> m = new TreeMap<>();
    for (Field f : NnauditConfigKeys.class.getFields()) {
      if (Modifier.isStatic(f.getModifiers()) && f.getName().endsWith("_KEY")) {
        String key = (String) f.get(null);
        Field d = NnauditConfigKeys.class.getField(f.getName().replaceAll("_KEY$", "_DEFAULT"));
        m.put(key, String.valueOf(d.get(null)));
      }
    }
    return m;
  }

  /** key -> default, from the XML, as written (variables not expanded; empty values kept). */
  private static Map<String, String> fromXml() {
    return DocumentedKeys.defaults();
  }

  @Test
  void everyKeyConstantIsDocumentedInTheXmlWithItsDefault() throws Exception {
    assertEquals(fromClass(), fromXml());
  }

  @Test
  void theConfigurationPageListsEveryKeyWithItsDefault() throws Exception {
    String page = new String(Files.readAllBytes(RepoRoot.resolve("docs/configuration.md")), StandardCharsets.UTF_8);
    Matcher m = Pattern.compile("(?m)^\\| `(nnaudit\\.[^`]+)` \\| `([^`]*)` \\|").matcher(page);
    Map<String, String> table = new TreeMap<>();
    while (m.find()) {
      table.put(m.group(1), m.group(2));
    }
    assertEquals(fromXml(), table);
  }
}
