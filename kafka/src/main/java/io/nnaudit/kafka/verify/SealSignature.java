package io.nnaudit.kafka.verify;

import java.util.Map;

import io.nnaudit.seal.Seal;
import io.nnaudit.seal.SealKey;

/** Whether a seal is signed by one of the given keys, as {@code nnaudit verify} checks it. Stateless. */
final class SealSignature {
  private SealSignature() {
  }

  /** Null when {@code s} is signed by one of {@code keys} (by key id), else what is wrong. */
  static String problem(Seal s, Map<String, SealKey> keys) {
    SealKey key = keys.get(s.keyId);
    if (key == null || !s.algorithm.equals(key.algorithm())) {
      return "bad signature: seal " + s.number + " is signed by key " + s.keyId + " (" + s.algorithm + "), not by "
          + (keys.size() == 1 ? "the given key " : "any given key ") + keys.keySet();
    }
    if (!s.signatureValid(key)) {
      return "bad signature: seal " + s.number + " does not match its signature: the seal was changed after it was "
          + "signed";
    }
    return null;
  }
}
