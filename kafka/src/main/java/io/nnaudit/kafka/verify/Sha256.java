package io.nnaudit.kafka.verify;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/** A SHA-256 digest: every Java has one. */
final class Sha256 {
  private Sha256() {
  }

  static MessageDigest digest() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java has SHA-256", e);
    }
  }
}
