package io.nnaudit.seal;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.alias.CredentialProvider;
import org.apache.hadoop.security.alias.CredentialProviderFactory;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.verify.VerifyCommand;

/**
 * Sealing keys made the way docs/sealing.md tells operators to make them: with the JDK's keytool, the keystore's
 * password in a real Hadoop credential provider (a JCEKS file named by
 * {@code hadoop.security.credential.provider.path}). For tests and benchmarks.
 */
public final class SealKeys {
  public static final String PASSWORD = "seal-store-pw";
  public static final String ALIAS = "nnaudit-seal";

  /** A keystore and, for signing keys, the certificate an auditor gets. */
  public static class KeyFiles {
    public final Path keystore;
    final String type;
    /** The certificate (PEM), or null for a secret key. */
    public final Path certificate;

    KeyFiles(Path keystore, String type, Path certificate) {
      this.keystore = keystore;
      this.type = type;
      this.certificate = certificate;
    }

    KeyFiles(KeyFiles files) {
      this(files.keystore, files.type, files.certificate);
    }

    /** The key that checks seals made with this one (the certificate's public key, or the secret key). */
    public SealKey checkingKey() throws Exception {
      if (certificate != null) {
        return VerifyCommand.certificateKey(certificate);
      }
      return SealKey.secret((javax.crypto.SecretKey) load().getKey(ALIAS, PASSWORD.toCharArray()));
    }

    /** The key that makes seals, with its certificate, as the sink loads it: for a key pair only. */
    public SealKey signingKey() throws Exception {
      java.security.KeyStore ks = load();
      return SealKey.forSigning((java.security.PrivateKey) ks.getKey(ALIAS, PASSWORD.toCharArray()),
          ks.getCertificate(ALIAS));
    }

    private java.security.KeyStore load() throws Exception {
      java.security.KeyStore ks = java.security.KeyStore.getInstance(type);
      try (java.io.InputStream in = Files.newInputStream(keystore)) {
        ks.load(in, PASSWORD.toCharArray());
      }
      return ks;
    }
  }

  private SealKeys() {
  }

  /** An EC P-256 key pair (SHA256withECDSA) in a PKCS12 keystore, and its certificate. */
  public static KeyFiles ec(Path dir) throws Exception {
    return pair(dir, "ec", "-keyalg", "EC", "-groupname", "secp256r1");
  }

  /** An RSA 2048 key pair (SHA256withRSA). */
  public static KeyFiles rsa(Path dir) throws Exception {
    return pair(dir, "rsa", "-keyalg", "RSA", "-keysize", "2048");
  }

  /** A 256-bit secret key (HmacSHA256) in a JCEKS keystore. */
  public static KeyFiles hmac(Path dir) throws Exception {
    Files.createDirectories(dir);
    Path ks = dir.resolve("hmac-seal.jceks");
    keytool("-genseckey", "-alias", ALIAS, "-keyalg", "HmacSHA256", "-keysize", "256", "-keystore", ks.toString(),
        "-storetype", "JCEKS", "-storepass", PASSWORD, "-keypass", PASSWORD);
    return new KeyFiles(ks, "JCEKS", null);
  }

  /** A DSA key pair: keytool makes one, but a DSA key cannot sign seals. */
  public static KeyFiles dsa(Path dir) throws Exception {
    return pair(dir, "dsa", "-keyalg", "DSA", "-keysize", "2048");
  }

  /**
   * A keystore holding only the certificate of {@code signer} under the sealing alias (a trusted-certificate
   * entry, as a verifier's truststore has it): no key that can sign.
   */
  public static KeyFiles certificateOnly(Path dir, KeyFiles signer) throws Exception {
    Files.createDirectories(dir);
    Path ks = dir.resolve("cert-only-" + System.nanoTime() + ".p12");
    keytool("-importcert", "-noprompt", "-alias", ALIAS, "-file", signer.certificate.toString(), "-keystore",
        ks.toString(), "-storetype", "PKCS12", "-storepass", PASSWORD);
    return new KeyFiles(ks, "PKCS12", signer.certificate);
  }

  /** Where {@link #pair} puts the key pair {@code name} in {@code dir}: not made yet. */
  static KeyFiles pairFiles(Path dir, String name) {
    return new KeyFiles(dir.resolve(name + "-seal.p12"), "PKCS12", dir.resolve(name + "-audit.crt"));
  }

  private static KeyFiles pair(Path dir, String name, String... alg) throws Exception {
    Files.createDirectories(dir);
    KeyFiles made = pairFiles(dir, name);
    String ks = made.keystore.toString();
    List<String> args = new ArrayList<>(Arrays.asList("-genkeypair", "-alias", ALIAS));
    args.addAll(Arrays.asList(alg));
    args.addAll(Arrays.asList("-dname", "CN=nnaudit seal " + name, "-validity", "3650", "-keystore", ks,
        "-storetype", made.type, "-storepass", PASSWORD));
    keytool(args.toArray(new String[0]));
    keytool("-exportcert", "-rfc", "-alias", ALIAS, "-keystore", ks, "-storetype", made.type,
        "-storepass", PASSWORD, "-file", made.certificate.toString());
    return made;
  }

  /**
   * Sets the sealing keys on {@code conf} for {@code key}, with the keystore's password in a credential
   * provider file beside the keystore.
   */
  public static Configuration enable(Configuration conf, KeyFiles key) throws Exception {
    return enable(conf, key, key.keystore.getParent());
  }

  /**
   * Sets the sealing keys on {@code conf} for {@code key}, with the keystore's password in a credential
   * provider file under {@code dir}.
   */
  public static Configuration enable(Configuration conf, KeyFiles key, Path dir) throws Exception {
    return enable(conf, key, dir, PASSWORD);
  }

  /** As {@link #enable(Configuration, KeyFiles, Path)}, with {@code password} in the credential provider. */
  public static Configuration enable(Configuration conf, KeyFiles key, Path dir, String password) throws Exception {
    Path creds = dir.resolve("seal-creds-" + System.nanoTime() + ".jceks");
    String provider = "jceks://file" + creds.toAbsolutePath();
    conf.set(CredentialProviderFactory.CREDENTIAL_PROVIDER_PATH, provider);
    CredentialProvider p = CredentialProviderFactory.getProviders(conf).get(0);
    p.createCredentialEntry(NnauditConfigKeys.SEAL_KEYSTORE_PASSWORD_KEY, password.toCharArray());
    p.flush();
    conf.setBoolean(NnauditConfigKeys.SEAL_ENABLED_KEY, true);
    conf.set(NnauditConfigKeys.SEAL_KEYSTORE_PATH_KEY, key.keystore.toString());
    conf.set(NnauditConfigKeys.SEAL_KEYSTORE_TYPE_KEY, key.type);
    return conf;
  }

  /** Runs the JDK's keytool; throws with its output when it fails. */
  public static void keytool(String... args) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(new File(System.getProperty("java.home"), "bin/keytool").getPath());
    cmd.addAll(Arrays.asList(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    byte[] out = readAll(p.getInputStream());
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException("keytool " + String.join(" ", args) + " failed: " + new String(out));
    }
  }

  private static byte[] readAll(java.io.InputStream in) throws java.io.IOException {
    java.io.ByteArrayOutputStream b = new java.io.ByteArrayOutputStream();
    byte[] buf = new byte[4096];
    int n;
    while ((n = in.read(buf)) > 0) {
      b.write(buf, 0, n);
    }
    return b.toByteArray();
  }
}
