package io.nnaudit.kafka.verify;

import java.nio.file.Path;
import java.util.Collections;
import java.util.Map;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.seal.SealKey;
import io.nnaudit.seal.SealKeys;

/**
 * What the checks of streams made in memory share: one EC key for the class, which {@link SyntheticSource} signs
 * with ({@link #signer}) and a {@link StreamCheck} checks with ({@link #keys}).
 */
abstract class SignedStreamsTestBase {
  @TempDir
  static Path dir;
  static SealKey signer;
  static Map<String, SealKey> keys;

  @BeforeAll
  static void keys() throws Exception {
    SealKeys.KeyFiles k = SealKeys.ec(dir.resolve("keys"));
    signer = k.signingKey();
    keys = Collections.singletonMap(k.checkingKey().keyId(), k.checkingKey());
  }
}
