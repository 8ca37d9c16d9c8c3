package io.nnaudit.verify;

/** A count and its noun as verify's messages print them: {@code 1 record}, {@code 3 records}. Stateless. */
final class Plural {
  private Plural() {
  }

  static String of(long n, String noun) {
    return n + " " + noun + (n == 1 ? "" : "s");
  }
}
