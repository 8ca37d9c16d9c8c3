package io.nnaudit.seal;

import static io.nnaudit.config.NnauditConfigKeys.SEAL_KEYSTORE_PASSWORD_KEY;
import static io.nnaudit.config.NnauditConfigKeys.SEAL_KEYSTORE_PATH_KEY;
import static io.nnaudit.config.NnauditConfigKeys.SEAL_KEYSTORE_TYPE_KEY;
import static io.nnaudit.config.NnauditConfigKeys.SEAL_KEY_ALIAS_KEY;
import static io.nnaudit.config.NnauditConfigKeys.SEAL_KEY_PASSWORD_KEY;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.security.GeneralSecurityException;
import java.security.Key;
import java.security.KeyStore;
import java.security.KeyStoreException;
import java.security.PrivateKey;
import java.security.UnrecoverableKeyException;
import java.security.cert.Certificate;
import java.util.Collections;
import javax.crypto.SecretKey;

import io.nnaudit.config.ConfigError;

/**
 * Loads the sealing key from a keystore, turning each way that can fail into the message of the key to
 * change: the keystore's path, type or password, the alias, the key's password. Stateless.
 */
final class KeystoreKeys {
  private KeystoreKeys() {
  }

  /**
   * The key under {@code alias} in the keystore at {@code path}, checked by signing and checking a test seal.
   * {@code keyPasswordSet}: whether {@code keyPassword} came from its own key (for the message when it is wrong).
   */
  static SealKey signingKey(String path, String type, char[] storePassword, String alias, char[] keyPassword,
      boolean keyPasswordSet) {
    KeyStore ks = load(path, type, storePassword);
    Key k;
    try {
      if (!ks.containsAlias(alias)) {
        throw ConfigError.invalid(SEAL_KEY_ALIAS_KEY, alias, "the alias of a key in " + path + ", which holds "
            + Collections.list(ks.aliases()));
      }
      k = ks.getKey(alias, keyPassword);
    } catch (UnrecoverableKeyException e) {
      String key = keyPasswordSet ? SEAL_KEY_PASSWORD_KEY : SEAL_KEYSTORE_PASSWORD_KEY;
      throw ConfigError.invalid(key, "(hidden)", "the password of the key '" + alias + "' in " + path
          + (keyPasswordSet ? "" : " (unset, so the keystore's password was tried; set " + SEAL_KEY_PASSWORD_KEY
          + " if the key has its own)") + ": " + e.getMessage(), e);
    } catch (GeneralSecurityException e) {
      throw ConfigError.invalid(SEAL_KEY_ALIAS_KEY, alias, "a key entry that " + path + " can give: " + e, e);
    }
    SealKey key;
    try {
      if (k instanceof PrivateKey) {
        Certificate cert = ks.getCertificate(alias);
        if (cert == null) {
          throw new GeneralSecurityException("the private key has no certificate");
        }
        key = SealKey.forSigning((PrivateKey) k, cert);
      } else if (k instanceof SecretKey) {
        key = SealKey.secret((SecretKey) k);
      } else {
        throw new GeneralSecurityException("the entry is not a key (a trusted certificate alone cannot sign)");
      }
      Seal test = Seal.unsigned("test", 0, 0, 0, Seal.Kind.OPEN, 0, 0, 0, 0, 0, new byte[32], 0, 0, Seal.GENESIS)
          .signedWith(key);
      if (!test.signatureValid(key)) {
        throw new GeneralSecurityException("a test seal signed with it does not verify");
      }
    } catch (GeneralSecurityException e) {
      throw ConfigError.invalid(SEAL_KEY_ALIAS_KEY, alias, "a private key (EC or RSA) with its certificate, or a "
          + "secret key for HmacSHA256, in " + path + " (" + e.getMessage() + ")", e);
    }
    return key;
  }

  /** Opens the keystore; each failure names the key that would mend it. */
  static KeyStore load(String path, String type, char[] password) {
    KeyStore ks;
    try {
      ks = KeyStore.getInstance(type);
    } catch (KeyStoreException e) {
      throw ConfigError.invalid(SEAL_KEYSTORE_TYPE_KEY, type, "a keystore type this Java knows: PKCS12, JKS or "
          + "JCEKS", e);
    }
    InputStream in;
    try {
      in = Files.newInputStream(Paths.get(path));
    } catch (IOException | RuntimeException e) { // not there, not readable, not a file: the path is wrong
      throw ConfigError.invalid(SEAL_KEYSTORE_PATH_KEY, path, "a " + type + " keystore the NameNode user can read ("
          + e + ")", e);
    }
    // Only what load says tells a wrong password from a file that is no keystore; the path, which an error
    // message may repeat, does not (a directory may well be named "passwords").
    try (InputStream keystore = in) {
      ks.load(keystore, password);
    } catch (IOException e) {
      if (e.getCause() instanceof UnrecoverableKeyException || String.valueOf(e.getMessage()).contains("password")) {
        throw ConfigError.invalid(SEAL_KEYSTORE_PASSWORD_KEY, "(hidden)", "the password of the keystore " + path
            + ": it does not open it (" + e.getMessage() + ")", e);
      }
      throw ConfigError.invalid(SEAL_KEYSTORE_PATH_KEY, path, "a " + type + " keystore the NameNode user can read ("
          + e + ")", e);
    } catch (GeneralSecurityException e) {
      throw ConfigError.invalid(SEAL_KEYSTORE_PATH_KEY, path, "a " + type + " keystore (" + e + ")", e);
    }
    return ks;
  }
}
