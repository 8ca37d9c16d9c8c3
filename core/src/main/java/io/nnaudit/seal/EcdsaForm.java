package io.nnaudit.seal;

import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.SignatureException;
import java.security.interfaces.ECKey;
import java.util.Arrays;

/**
 * The one form of an ECDSA signature that seals use: {@code SEQUENCE { INTEGER r, INTEGER s }} in the shortest
 * DER, with {@code s} at most half the curve's order (the "low s" of BIP 62 and RFC 6979 practice). Both (r, s)
 * and (r, n - s) verify, so without one form anyone could change a signature without the key. Stateless.
 */
final class EcdsaForm {
  private EcdsaForm() {
  }

  /** The order n of the curve of an EC key. */
  static BigInteger order(Key key) throws GeneralSecurityException {
    if (!(key instanceof ECKey)) {
      throw new GeneralSecurityException("not an EC key: " + key.getAlgorithm());
    }
    return ((ECKey) key).getParams().getOrder();
  }

  /**
   * {@code der} (an ECDSA signature as Java writes or reads it) in the one form: the same r and the low s,
   * written in the shortest DER. Throws when {@code der} is not a DER sequence of two positive integers below n.
   */
  static byte[] canonical(byte[] der, BigInteger n) throws SignatureException {
    BigInteger[] rs = decode(der);
    BigInteger r = rs[0];
    BigInteger s = rs[1];
    if (r.signum() <= 0 || s.signum() <= 0 || r.compareTo(n) >= 0 || s.compareTo(n) >= 0) {
      throw new SignatureException("r or s is out of range");
    }
    if (s.compareTo(n.shiftRight(1)) > 0) {
      s = n.subtract(s);
    }
    return encode(r, s);
  }

  /** r and s of a DER sequence of two integers (leniently: the caller compares with {@link #encode}). */
  private static BigInteger[] decode(byte[] der) throws SignatureException {
    int[] at = {0};
    if (der.length < 2 || der[at[0]++] != 0x30) {
      throw new SignatureException("not a DER sequence");
    }
    int len = length(der, at);
    if (at[0] + len != der.length) {
      throw new SignatureException("the sequence's length is not the signature's");
    }
    BigInteger r = integer(der, at);
    BigInteger s = integer(der, at);
    if (at[0] != der.length) {
      throw new SignatureException("bytes after the two integers");
    }
    return new BigInteger[] {r, s};
  }

  private static BigInteger integer(byte[] der, int[] at) throws SignatureException {
    if (at[0] >= der.length || der[at[0]++] != 0x02) {
      throw new SignatureException("not a DER integer");
    }
    int len = length(der, at);
    if (len == 0 || at[0] + len > der.length) {
      throw new SignatureException("a DER integer's length is wrong");
    }
    BigInteger v = new BigInteger(Arrays.copyOfRange(der, at[0], at[0] + len));
    at[0] += len;
    return v;
  }

  private static int length(byte[] der, int[] at) throws SignatureException {
    if (at[0] >= der.length) {
      throw new SignatureException("the DER ends early");
    }
    int b = der[at[0]++] & 0xff;
    if (b < 0x80) {
      return b;
    }
    int n = b & 0x7f;
    if (n == 0 || n > 2 || at[0] + n > der.length) {
      throw new SignatureException("a DER length is wrong");
    }
    int len = 0;
    for (int i = 0; i < n; i++) {
      len = (len << 8) | (der[at[0]++] & 0xff);
    }
    return len;
  }

  /** The shortest DER of {@code SEQUENCE { INTEGER r, INTEGER s }}. */
  static byte[] encode(BigInteger r, BigInteger s) {
    byte[] rb = r.toByteArray(); // the shortest two's complement: a leading 0 only when the top bit is set
    byte[] sb = s.toByteArray();
    byte[] body = concat(concat(header(0x02, rb.length), rb), concat(header(0x02, sb.length), sb));
    return concat(header(0x30, body.length), body);
  }

  private static byte[] header(int tag, int len) {
    if (len < 0x80) {
      return new byte[] {(byte) tag, (byte) len};
    }
    if (len < 0x100) {
      return new byte[] {(byte) tag, (byte) 0x81, (byte) len};
    }
    return new byte[] {(byte) tag, (byte) 0x82, (byte) (len >> 8), (byte) len};
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] c = Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, c, a.length, b.length);
    return c;
  }
}
