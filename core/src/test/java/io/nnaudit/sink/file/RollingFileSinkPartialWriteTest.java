package io.nnaudit.sink.file;

import static io.nnaudit.sink.SinkFixtures.context;
import static io.nnaudit.sink.SinkFixtures.write;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.sink.SinkFixtures.ManualClock;

/**
 * A write that fails part-way (a disk that fills in the middle of write(2)) leaves part of the chunk in the
 * file for real; the sink truncates it away before it throws, so the file never ends in half a record and the
 * retried or next chunk follows whole records.
 */
class RollingFileSinkPartialWriteTest {
  @TempDir
  Path dir;

  @Test
  void aWriteThatFailsPartWayIsTruncatedAway() throws Exception {
    RecordingChannels channels = new RecordingChannels();
    Path file = dir.resolve("audit.log");
    RollingFileSink sink = new RollingFileSink(context(file, "1m", 3, "none"), channels, new ManualClock());
    write(sink, "one\n");
    channels.failWriteAfter = 7;
    IOException e = assertThrows(IOException.class, () -> write(sink, "two two two\nthree\n"));
    assertEquals("injected: no space left on device after 7 bytes", e.getMessage());
    assertEquals("one\n", new String(Files.readAllBytes(file), StandardCharsets.UTF_8), "the 7 bytes are gone");
    write(sink, "two two two\nthree\n"); // the writer's retry of the same chunk
    write(sink, "four\n");
    sink.close();
    assertEquals("one\ntwo two two\nthree\nfour\n", new String(Files.readAllBytes(file), StandardCharsets.UTF_8));
  }
}
