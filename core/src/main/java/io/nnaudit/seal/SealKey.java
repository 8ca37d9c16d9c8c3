package io.nnaudit.seal;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.MessageDigest;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.Certificate;
import java.util.Arrays;
import javax.crypto.Mac;
import javax.crypto.SecretKey;

/**
 * The key that signs seals, or that checks them. A private key signs and its public key (from the
 * certificate) checks: {@code SHA256withECDSA} for EC keys, {@code SHA256withRSA} for RSA keys, so whoever
 * checks cannot sign. A secret key does both ({@code HmacSHA256}): whoever checks could also forge, which is
 * why it is the weaker choice.
 *
 * <p>One form per signature. An ECDSA signature (r, s) is also valid as (r, n - s), and DER can write the same
 * numbers in more than one way, so anyone could change a seal's signature bytes without the key and keep it
 * valid, and with them the seal's hash, which the next seal's {@code prev} and an anchor name. So this class
 * writes every ECDSA signature in one form, the low {@code s} (at most n / 2) in the shortest DER, and, for
 * seals of version 2 on, accepts no other ({@link EcdsaForm}). An RSA (PKCS #1 v1.5) or HMAC signature has one
 * form already.
 *
 * <p>Thread-safe: each call makes its own {@link Signature} or {@link Mac}.
 */
public final class SealKey {
  public static final String ECDSA = "SHA256withECDSA";
  public static final String RSA = "SHA256withRSA";
  public static final String HMAC = "HmacSHA256";

  private final String algorithm;
  private final String keyId;
  /** Signs: a PrivateKey or a SecretKey; null for a key that only checks. */
  private final Key signing;
  /** Checks: a PublicKey or the SecretKey. */
  private final Key checking;

  private SealKey(String algorithm, String keyId, Key signing, Key checking) {
    this.algorithm = algorithm;
    this.keyId = keyId;
    this.signing = signing;
    this.checking = checking;
  }

  /** Signs with {@code key}; {@code certificate} holds its public key (for the key id). */
  public static SealKey forSigning(PrivateKey key, Certificate certificate) throws GeneralSecurityException {
    PublicKey pub = certificate.getPublicKey();
    if (!pub.getAlgorithm().equals(key.getAlgorithm())) {
      throw new GeneralSecurityException("the certificate's key is " + pub.getAlgorithm() + ", the private key "
          + key.getAlgorithm());
    }
    return new SealKey(signatureAlgorithm(key), publicKeyId(pub), key, pub);
  }

  /** Checks seals with the public key of {@code certificate}. */
  public static SealKey forChecking(Certificate certificate) throws GeneralSecurityException {
    PublicKey pub = certificate.getPublicKey();
    return new SealKey(signatureAlgorithm(pub), publicKeyId(pub), null, pub);
  }

  /** Signs and checks with a secret key (HmacSHA256). */
  public static SealKey secret(SecretKey key) throws GeneralSecurityException {
    byte[] raw = key.getEncoded();
    if (raw == null || raw.length < 16) {
      throw new GeneralSecurityException("the secret key has " + (raw == null ? "no" : raw.length)
          + " bytes; HmacSHA256 wants at least 16 (32 is usual)");
    }
    byte[] tagged = concat("nnaudit-seal-hmac-key:".getBytes(StandardCharsets.UTF_8), raw);
    return new SealKey(HMAC, Seal.hex(Arrays.copyOf(Seal.sha256(tagged), 16)), key, key);
  }

  private static String signatureAlgorithm(Key key) throws GeneralSecurityException {
    switch (key.getAlgorithm()) {
      case "EC":
        return ECDSA;
      case "RSA":
        return RSA;
      default:
        throw new GeneralSecurityException("a " + key.getAlgorithm() + " key cannot sign seals: use an EC (P-256) "
            + "or RSA key, or a secret key for HmacSHA256");
    }
  }

  /** The first 16 bytes of the SHA-256 of the encoded public key (its SubjectPublicKeyInfo), hex. */
  private static String publicKeyId(PublicKey pub) {
    return Seal.hex(Arrays.copyOf(Seal.sha256(pub.getEncoded()), 16));
  }

  public String algorithm() {
    return algorithm;
  }

  /** What a seal names its key by: derived from the public key, or from the secret key (not revealing it). */
  public String keyId() {
    return keyId;
  }

  byte[] sign(byte[] text) throws GeneralSecurityException {
    if (signing == null) {
      throw new GeneralSecurityException("this key only checks seals");
    }
    if (signing instanceof SecretKey) {
      return mac(text);
    }
    Signature s = Signature.getInstance(algorithm);
    s.initSign((PrivateKey) signing);
    s.update(text);
    byte[] sig = s.sign();
    return ECDSA.equals(algorithm) ? EcdsaForm.canonical(sig, EcdsaForm.order(checking)) : sig;
  }

  /**
   * Whether {@code signature} is this key's over {@code text}; with {@code oneForm}, an ECDSA signature must
   * also be in the one form {@link #sign} writes.
   */
  boolean verify(byte[] text, byte[] signature, boolean oneForm) throws GeneralSecurityException {
    if (checking instanceof SecretKey) {
      return MessageDigest.isEqual(mac(text), signature);
    }
    if (oneForm && ECDSA.equals(algorithm)
        && !Arrays.equals(signature, EcdsaForm.canonical(signature, EcdsaForm.order(checking)))) {
      return false;
    }
    Signature s = Signature.getInstance(algorithm);
    s.initVerify((PublicKey) checking);
    s.update(text);
    return s.verify(signature);
  }

  private byte[] mac(byte[] text) throws GeneralSecurityException {
    Mac m = Mac.getInstance(HMAC);
    m.init(checking);
    return m.doFinal(text);
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] c = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, c, a.length, b.length);
    return c;
  }
}
