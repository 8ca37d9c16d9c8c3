package io.nnaudit.kafka;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.charset.StandardCharsets;
import java.util.Random;

import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

/**
 * The per-record headers' numbers are written as {@code Long.toString} would write them; the compact header is
 * written as docs/kafka.md describes it and read back field by field, and what is not its shape is not read.
 */
class ShipHeadersTest {
  @Test
  void theCompactHeaderHoldsEveryFieldButTheSourceInOrder() {
    ShipHeaders.Fixed fixed = new ShipHeaders.Fixed("ns1/nn1", 1764200000000L, "json", true);
    RecordHeaders h = ShipHeaders.of(ShipHeaders.RECORD, fixed, 41, 3, 123456, -1);
    assertEquals(1, h.toArray().length, "one header");
    assertEquals("record 3 123456 41 1764200000000 json", text(h.lastHeader(ShipHeaders.COMPACT).value()));
    RecordHeaders cut = ShipHeaders.of(ShipHeaders.RECORD_CUT, fixed, 0, 0, 0, 2_000_000);
    String[] f = ShipHeaders.compactFields(cut.lastHeader(ShipHeaders.COMPACT).value());
    assertArrayEquals(new String[] {"record-cut", "0", "0", "0", "1764200000000", "json", "2000000"}, f);
    assertEquals("file-end", ShipHeaders.compactFields(ShipHeaders.of(ShipHeaders.FILE_END, fixed, 7, 1, 9, -1)
        .lastHeader(ShipHeaders.COMPACT).value())[ShipHeaders.C_TYPE]);
    java.util.Random r = new java.util.Random(11);
    for (int i = 0; i < 20_000; i++) { // written digit by digit, as Long.toString writes them
      long seq = r.nextLong() >>> r.nextInt(64);
      long file = r.nextInt(1 << 23);
      long offset = r.nextLong() >>> (24 + r.nextInt(40));
      long length = r.nextBoolean() ? -1 : r.nextInt(Integer.MAX_VALUE);
      String type = length < 0 ? ShipHeaders.RECORD : ShipHeaders.RECORD_CUT;
      assertEquals(type + " " + file + " " + offset + " " + seq + " 1764200000000 json"
          + (length < 0 ? "" : " " + length),
          text(ShipHeaders.of(type, fixed, seq, file, offset, length).lastHeader(ShipHeaders.COMPACT).value()));
    }
  }

  @Test
  void theNamedHeadersAreTheSevenAndALengthOnACutRecord() {
    ShipHeaders.Fixed fixed = new ShipHeaders.Fixed("ns1/nn1", 1764200000000L, "hdfs", false);
    RecordHeaders h = ShipHeaders.of(ShipHeaders.RECORD_CUT, fixed, 41, 3, 123456, 9000);
    StringBuilder all = new StringBuilder();
    for (Header x : h) {
      all.append(x.key()).append('=').append(text(x.value())).append(' ');
    }
    assertEquals("nnaudit.type=record-cut nnaudit.source=ns1/nn1 nnaudit.epoch=1764200000000 nnaudit.seq=41 "
        + "nnaudit.file=3 nnaudit.offset=123456 nnaudit.format=hdfs nnaudit.length=9000 ", all.toString());
    assertNull(h.lastHeader(ShipHeaders.COMPACT));
  }

  @Test
  void onlyTheCompactShapeIsRead() {
    for (String bad : new String[] {"", "record 0 0 0 1", "record 0 0 0 1 hdfs 5", "record-cut 0 0 0 1 hdfs 5 6",
        "record 0 0  0 1 hdfs", " record 0 0 0 1 hdfs", "record 0 0 0 1 hdfs "}) {
      assertNull(ShipHeaders.compactFields(bad.getBytes(StandardCharsets.UTF_8)), "'" + bad + "'");
    }
    assertNull(ShipHeaders.compactFields(new byte[] {'r', ' ', '0', ' ', '0', ' ', '0', ' ', '1', ' ', (byte) 0xc3}));
    assertNull(ShipHeaders.compactFields(null));
    assertEquals(6, ShipHeaders.compactFields("gap 0 0 0 1 hdfs".getBytes(StandardCharsets.UTF_8)).length);
  }

  private static String text(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }

  @Test
  void decimalIsLongToStringInUtf8() {
    long[] edges = {0, 1, 9, 10, 99, 100, 999_999_999, 1_000_000_000, Integer.MAX_VALUE,
        (long) Integer.MAX_VALUE + 1, Long.MAX_VALUE, -1, Long.MIN_VALUE};
    for (long n : edges) {
      assertDecimal(n);
    }
    Random r = new Random(7);
    for (int i = 0; i < 100_000; i++) {
      assertDecimal(r.nextLong() >>> r.nextInt(64));
    }
  }

  private static void assertDecimal(long n) {
    assertArrayEquals(Long.toString(n).getBytes(StandardCharsets.UTF_8), ShipHeaders.decimal(n), "n=" + n);
  }
}
