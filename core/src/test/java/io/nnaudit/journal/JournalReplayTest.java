package io.nnaudit.journal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import java.util.zip.CRC32;

import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.event.AuditEvent;
import io.nnaudit.settings.NnauditSettings;
import io.nnaudit.sink.file.RollingFileSink;

/**
 * What a start does with the journal the last run left, on real files: the file sink of a journaled pipeline is
 * opened, records are journaled and written (or not) as the writer would, the sink is abandoned as a killed
 * process abandons it, and a new sink on the same file is opened. The audit file must then hold each record the
 * journal took exactly once, in order, whatever the last write had reached.
 */
class JournalReplayTest {
  @TempDir
  Path dir;

  private final ArrayBlockingQueue<AuditEvent> queue = new ArrayBlockingQueue<>(100_000);

  @Test
  void recordsOnlyInTheJournalAreWrittenByTheNextStart() throws Exception {
    Path file = dir.resolve("audit.log");
    RollingFileSink first = sink(file, "256k");
    List<String> lines = journal(first.journal(), "a", 5);
    // killed: nothing written
    RollingFileSink second = sink(file, "256k");
    assertEquals(lines, read(file));
    RollingFileSink third = sink(file, "256k");
    assertEquals(lines, read(file), "a second start writes nothing again");
    assertNotNull(second.journal());
    assertNotNull(third.journal());
  }

  @Test
  void aWriteThatWasMadeButNotMarkedIsNotWrittenAgain() throws Exception {
    Path file = dir.resolve("audit.log");
    RollingFileSink first = sink(file, "256k");
    RecordJournal j = first.journal();
    List<String> lines = journal(j, "a", 4);
    byte[] chunk = bytes(lines);
    j.cover(lastEnd);
    j.beforeAppend(key(file), Files.size(file), chunk.length);
    append(file, chunk, chunk.length); // the write(2) returned; the process died before the mark moved
    sink(file, "256k");
    assertEquals(lines, read(file));
  }

  @Test
  void aWriteCutShortIsTakenOutAndWrittenAgainWhole() throws Exception {
    Path file = dir.resolve("audit.log");
    Files.write(file, "earlier record\n".getBytes(StandardCharsets.UTF_8));
    RollingFileSink first = sink(file, "256k");
    RecordJournal j = first.journal();
    List<String> lines = journal(j, "a", 6);
    byte[] chunk = bytes(lines);
    j.cover(lastEnd);
    j.beforeAppend(key(file), Files.size(file), chunk.length);
    append(file, chunk, chunk.length / 2 + 3); // killed in the middle of the write(2)
    sink(file, "256k");
    List<String> expected = new ArrayList<>();
    expected.add("earlier record");
    expected.addAll(lines);
    assertEquals(expected, read(file));
  }

  @Test
  void aWriteNeverMadeIsMadeByTheNextStart() throws Exception {
    Path file = dir.resolve("audit.log");
    RollingFileSink first = sink(file, "256k");
    RecordJournal j = first.journal();
    List<String> lines = journal(j, "a", 3);
    j.cover(lastEnd);
    j.beforeAppend(key(file), Files.size(file), bytes(lines).length); // died before the write(2)
    sink(file, "256k");
    assertEquals(lines, read(file));
  }

  @Test
  void writtenRecordsAreNotReplayedAndTheRingWrapsAcrossRestarts() throws Exception {
    Path file = dir.resolve("audit.log");
    List<String> all = new ArrayList<>();
    // Each run journals 600 records of ~130 bytes (more than the 256 KiB ring holds in all, so it wraps), writes
    // all but the last 50 through the sink as the writer does, and is killed.
    for (int run = 0; run < 4; run++) {
      RollingFileSink s = sink(file, "256k");
      RecordJournal j = s.journal();
      for (int batch = 0; batch < 12; batch++) {
        List<String> lines = journal(j, "run" + run + "-b" + batch, 50);
        all.addAll(lines);
        if (batch < 11) {
          j.cover(lastEnd);
          s.write(ByteBuffer.wrap(bytes(lines)));
          j.cover(0);
        }
      }
      assertEquals(all.size() - 50, read(file).size());
    }
    sink(file, "256k");
    assertEquals(all, read(file));
  }

  @Test
  void aDamagedFrameEndsTheReplay() throws Exception {
    Path file = dir.resolve("audit.log");
    RollingFileSink first = sink(file, "256k");
    List<String> lines = journal(first.journal(), "a", 3);
    Path journalFile = dir.resolve(".audit.log.journal");
    int second = JournalFile.HEADER_BYTES + (int) JournalFile.FIRST_POSITION
        + RecordJournal.frameBytes(lines.get(0).length() + 1);
    int secondPayload = second + RecordJournal.FRAME_HEADER + 2;
    try (FileChannel ch = FileChannel.open(journalFile, StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.wrap(new byte[] {'#'}), secondPayload);
    }
    sink(file, "256k");
    assertEquals(lines.subList(0, 1), read(file), "the first record, and nothing from the damaged one on");
  }

  @Test
  void aFrameWhosePositionWasEditedEndsTheReplay() throws Exception {
    Path file = dir.resolve("audit.log");
    RollingFileSink first = sink(file, "256k");
    List<String> lines = journal(first.journal(), "a", 3);
    int second = JournalFile.HEADER_BYTES + (int) JournalFile.FIRST_POSITION
        + RecordJournal.frameBytes(lines.get(0).length() + 1);
    try (FileChannel ch = FileChannel.open(dir.resolve(".audit.log.journal"), StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.wrap(new byte[] {(byte) 0x80}), second + 7);
    }
    sink(file, "256k");
    assertEquals(lines.subList(0, 1), read(file));
  }

  @Test
  void aJournalWhoseReplayWasCutByDamageIsSetAsideAndNotReadAgain() throws Exception {
    Path file = dir.resolve("audit.log");
    List<String> lines = journal(sink(file, "256k").journal(), "a", 3);
    int second = JournalFile.HEADER_BYTES + (int) JournalFile.FIRST_POSITION
        + RecordJournal.frameBytes(lines.get(0).length() + 1);
    try (FileChannel ch = FileChannel.open(dir.resolve(".audit.log.journal"), StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.wrap(new byte[] {'#'}), second + RecordJournal.FRAME_HEADER);
    }
    RollingFileSink s = sink(file, "256k");
    assertSetAside(".audit.log.journal");
    List<String> more = journal(s.journal(), "b", 2);
    sink(file, "256k");
    List<String> expected = new ArrayList<>(lines.subList(0, 1));
    expected.addAll(more);
    assertEquals(expected, read(file), "a new journal goes on; the damaged one is kept aside as it was");
  }

  @Test
  void marksNoWriterMakesAreIgnored() throws Exception {
    Path file = dir.resolve("audit.log");
    List<String> lines = journal(sink(file, "256k").journal(), "a", 4);
    for (long forged : new long[] {256 * 1024 - 4, 1L << 40, 17}) {
      JournalFile f = JournalFile.openExisting(dir.resolve(".audit.log.journal"));
      f.writeMark(JournalFile.FIRST_POSITION, 0, null, 0, 0); // what the last run left, in one slot
      f.writeMark(forged, 0, null, 0, 0); // a valid CRC and the newest seq, in the other
      JournalMark m = f.latestMark();
      assertEquals(JournalFile.FIRST_POSITION, m.written, "the other slot's mark, not " + forged);
    }
    sink(file, "256k");
    assertEquals(lines, read(file));
  }

  @Test
  void theJournalFollowsItsDirectoryThroughASymlink() throws Exception {
    Path real = Files.createDirectory(dir.resolve("real"));
    Path link = Files.createSymbolicLink(dir.resolve("link"), real);
    List<String> lines = journal(sink(link.resolve("audit.log"), "256k").journal(), "a", 3);
    sink(real.resolve("audit.log"), "256k");
    assertEquals(lines, read(real.resolve("audit.log")));
  }

  @Test
  void aJournalWithNothingInItWritesNothing() throws Exception {
    Path file = dir.resolve("audit.log");
    sink(file, "256k");
    sink(file, "256k");
    assertEquals(0, Files.size(file));
  }

  @Test
  void oneDamagedMarkLeavesTheOther() throws Exception {
    Path file = dir.resolve("audit.log");
    List<String> lines = journal(sink(file, "256k").journal(), "a", 4);
    try (FileChannel ch = FileChannel.open(dir.resolve(".audit.log.journal"), StandardOpenOption.WRITE)) {
      ch.write(ByteBuffer.wrap(new byte[] {(byte) 0xff, (byte) 0xff}), JournalFile.MARK_A + 8);
    }
    sink(file, "256k");
    assertEquals(lines, read(file));
  }

  @Test
  void theJournalOfAnotherAuditFileIsSetAside() throws Exception {
    Path a = dir.resolve("a.log");
    Path b = dir.resolve("b.log");
    journal(sink(a, "256k").journal(), "a", 5);
    sink(b, "256k");
    Files.copy(dir.resolve(".a.log.journal"), dir.resolve(".b.log.journal"),
        java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    sink(b, "256k");
    assertEquals(0, Files.size(b), "none of a's records in b");
    assertSetAside(".b.log.journal");
    sink(a, "256k");
    assertEquals(5, read(a).size(), "a's journal is still a's");
  }

  @Test
  void aStartUnderAnotherPolicyWritesWhatTheJournalHoldsAndRemovesIt() throws Exception {
    Path file = dir.resolve("audit.log");
    List<String> lines = journal(sink(file, "256k").journal(), "a", 6);
    Configuration c = new Configuration(false);
    c.set(NnauditConfigKeys.FILE_PATH_KEY, file.toString());
    RollingFileSink plain = new RollingFileSink(NnauditSettings.fromConf(c).sinkContext());
    assertEquals(lines, read(file));
    assertFalse(Files.exists(dir.resolve(".audit.log.journal")), "the journal is removed");
    assertEquals(null, plain.journal());
    new RollingFileSink(NnauditSettings.fromConf(c).sinkContext());
    assertEquals(lines, read(file));
  }

  @Test
  void aFileThatIsNotAJournalIsSetAside() throws Exception {
    Path file = dir.resolve("audit.log");
    Path journalFile = dir.resolve(".audit.log.journal");
    Files.write(journalFile, new byte[8192]);
    RollingFileSink s = sink(file, "256k");
    assertSetAside(".audit.log.journal");
    List<String> lines = journal(s.journal(), "a", 2);
    sink(file, "256k");
    assertEquals(lines, read(file), "a new journal was made and works");
  }

  @Test
  void aJournalOfAnotherSizeIsReplayedThenResized() throws Exception {
    Path file = dir.resolve("audit.log");
    RollingFileSink first = sink(file, "256k");
    List<String> lines = journal(first.journal(), "a", 7);
    RollingFileSink second = sink(file, "512k");
    assertEquals(lines, read(file));
    assertEquals(JournalFile.HEADER_BYTES + 512 * 1024, Files.size(dir.resolve(".audit.log.journal")));
    List<String> more = journal(second.journal(), "b", 3);
    sink(file, "512k");
    List<String> expected = new ArrayList<>(lines);
    expected.addAll(more);
    assertEquals(expected, read(file), "positions go on across the new file");
  }

  @Test
  void aRecordFindsNoRoomOnceTheWriterIsARingBehind() throws Exception {
    Path file = dir.resolve("audit.log");
    RecordJournal j = sink(file, "256k").journal();
    int taken = 0;
    while (append(j, "record that fills the ring " + taken)) {
      taken++;
    }
    assertTrue(taken > 256 * 1024 / 80 && taken < 256 * 1024 / 40, "taken " + taken);
    j.cover(lastEnd);
    j.afterAppend(); // the writer caught up
    assertTrue(append(j, "room again"));
    assertFalse(queue.isEmpty());
  }

  private long lastEnd;

  /** The journal {@code name} was set aside under its name with {@code .bad-<millis>} added. */
  private void assertSetAside(String name) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      List<String> names = files.map(p -> p.getFileName().toString()).collect(Collectors.toList());
      assertTrue(names.stream().anyMatch(n -> n.startsWith(name + ".bad-")), names.toString());
    }
  }

  /** Journals {@code n} records {@code <prefix>-<i>}, returning their lines; {@link #lastEnd} is the last end. */
  private List<String> journal(RecordJournal j, String prefix, int n) {
    List<String> lines = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      String line = prefix + "-" + i + "\tcmd=create\tsrc=/some/path/of/a/typical/length/for/an/audit/record/"
          + prefix + "/" + i;
      assertTrue(append(j, line), "journaled " + line);
      lines.add(line);
    }
    return lines;
  }

  private boolean append(RecordJournal j, String line) {
    byte[] b = (line + "\n").getBytes(StandardCharsets.UTF_8);
    CRC32 crc = new CRC32();
    crc.update(b, 0, b.length);
    AuditEvent e = new AuditEvent(0, true, "u", null, "create", line, null, false, null, null, null, null, null,
        null);
    boolean ok = j.append(e, b, (int) crc.getValue(), queue);
    if (ok) {
      lastEnd = e.journalEnd();
    }
    return ok;
  }

  private static RollingFileSink sink(Path file, String journalSize) {
    Configuration c = new Configuration(false);
    c.set(NnauditConfigKeys.FILE_PATH_KEY, file.toString());
    c.set(NnauditConfigKeys.ACK_POLICY_KEY, "journal");
    c.set(NnauditConfigKeys.JOURNAL_SIZE_KEY, journalSize);
    return new RollingFileSink(NnauditSettings.fromConf(c).sinkContext());
  }

  private static Object key(Path file) throws IOException {
    return Files.readAttributes(file, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS).fileKey();
  }

  private static byte[] bytes(List<String> lines) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (String l : lines) {
      byte[] b = (l + "\n").getBytes(StandardCharsets.UTF_8);
      out.write(b, 0, b.length);
    }
    return out.toByteArray();
  }

  private static void append(Path file, byte[] bytes, int n) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
      ByteBuffer b = ByteBuffer.wrap(bytes, 0, n);
      while (b.hasRemaining()) {
        ch.write(b);
      }
    }
  }

  private static List<String> read(Path file) throws IOException {
    return Files.readAllLines(file, StandardCharsets.UTF_8);
  }
}
