package io.nnaudit.shaded.net.jpountz.util;

/**
 * In the packaged jar, lz4-java's loader of its native library ({@code net.jpountz.util.Native}, relocated here)
 * is this class instead: the jar bundles no native library (kafka/pom.xml leaves lz4-java's out, and relocated
 * they could not bind anyway), and this loader says so at once. lz4-java's own does not remember a failure: each
 * time Kafka asks for the fastest lz4 and xxhash factories, once per batch it compresses, it would list
 * {@code java.io.tmpdir} for stale copies of its library, search {@code java.library.path}, look for the library
 * in the jar and fail again: disk work on the shipper's thread for every batch (about 45 µs of wall time per
 * batch against 20 µs with this class, measured on this project's build machine with some 2000 files in /tmp).
 * What remains is lz4-java's own fallback, a failed load of its JNI classes, in CPU only. Outside the packaged jar
 * (the module's own tests) this class is not used: lz4-java keeps its own loader there.
 *
 * <p>Only what lz4-java calls is here: {@link #isLoaded} ({@code LZ4Factory}, {@code XXHashFactory}) and
 * {@link #load} ({@code LZ4JNI}, {@code XXHashJNI}). Stateless; any thread.
 */
public final class Native {
  private Native() {
  }

  /** Never: no native library is bundled. */
  public static boolean isLoaded() {
    return false;
  }

  /** Refuses at once, as lz4-java's loader does where it finds no library; the caller falls back to Java. */
  public static void load() {
    throw new UnsupportedOperationException("nnaudit-kafka bundles no native lz4: the Java implementation is used");
  }
}
