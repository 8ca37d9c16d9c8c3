package io.nnaudit.kafka;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.nio.charset.StandardCharsets;
import java.util.Random;

import org.junit.jupiter.api.Test;

/** The per-record headers' numbers are written as {@code Long.toString} would write them. */
class ShipHeadersTest {
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
