package io.nnaudit.sink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.function.Function;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.sink.file.RollingFileSink;

/**
 * nnaudit.sink resolved and checked when the settings are read: short names, class names, and every refusal
 * naming the key, the value and what is allowed.
 */
class SinkFactoryTest {
  @TempDir
  Path dir;

  /** A sink without the constructor nnaudit calls. */
  public static final class NoContextSink extends DiscardingSink {
    public NoContextSink() {
    }
  }

  /** A sink whose constructor fails with something other than a refusal of a setting. */
  public static final class ExplodingSink extends DiscardingSink {
    public ExplodingSink(SinkContext context) {
      throw new IllegalStateException("boom");
    }
  }

  private static String refusal(String value) {
    return assertThrows(IllegalArgumentException.class, () -> SinkFactory.forSetting(value)).getMessage();
  }

  private static void assertNamesKeyValueAndAllowed(String m, String value) {
    assertTrue(m.startsWith("nnaudit: invalid value for " + NnauditConfigKeys.SINK_KEY + ": '" + value + "'. "
        + "Allowed: file, log4j2, or the name of a class implementing io.nnaudit.sink.AuditSink with a public "
        + "constructor taking io.nnaudit.sink.SinkContext"), m);
  }

  @Test
  void shortNamesAndClassNamesOpenTheSameSinks() throws Exception {
    SinkContext context = SinkFixtures.context(dir.resolve("audit.log"), "1m", 2, "none");
    assertEquals(SinkFactory.forSetting("file"), SinkFactory.forSetting("FILE"));
    assertEquals(SinkFactory.forSetting("file"), SinkFactory.forSetting(RollingFileSink.class.getName()));
    assertEquals(SinkFactory.forSetting("log4j2"), SinkFactory.forSetting(Log4j2Sink.class.getName()));
    assertNotEquals(SinkFactory.forSetting("file"), SinkFactory.forSetting("log4j2"));
    try (AuditSink sink = SinkFactory.forSetting("file").open(context)) {
      assertInstanceOf(RollingFileSink.class, sink);
    }
  }

  @Test
  void aBadValueIsRefusedBeforeAnythingOpens() {
    assertNamesKeyValueAndAllowed(refusal("com.example.Missing"), "com.example.Missing");
    assertNamesKeyValueAndAllowed(refusal("java.lang.String"), "java.lang.String");
    assertNamesKeyValueAndAllowed(refusal(NoContextSink.class.getName()), NoContextSink.class.getName());
  }

  @Test
  void aConstructorThatFailsIsNamedWithItsCause() {
    SinkContext context = SinkFixtures.context(dir.resolve("audit.log"), "1m", 2, "none");
    SinkFactory f = SinkFactory.forSetting(ExplodingSink.class.getName());
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> f.open(context));
    assertNamesKeyValueAndAllowed(e.getMessage(), ExplodingSink.class.getName());
    assertTrue(e.getMessage().contains("its constructor failed: java.lang.IllegalStateException: boom"),
        e.getMessage());
    assertInstanceOf(IllegalStateException.class, e.getCause());
  }

  @Test
  void aSinkOfAnEmbeddersFunctionIsEqualOnlyToItsOwnFunction() {
    SinkContext context = SinkFixtures.context(dir.resolve("audit.log"), "1m", 2, "none");
    NoContextSink made = new NoContextSink();
    Function<SinkContext, AuditSink> opener = c -> made;
    SinkFactory f = SinkFactory.of("in-memory", opener);
    assertSame(made, f.open(context));
    assertEquals(f, SinkFactory.of("the same function", opener));
    assertNotEquals(f, SinkFactory.of("in-memory", c -> made));
    assertNotEquals(f, SinkFactory.forSetting("file"));
    assertEquals("in-memory", f.toString());
  }
}
