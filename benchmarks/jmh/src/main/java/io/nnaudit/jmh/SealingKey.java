package io.nnaudit.jmh;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.alias.CredentialProvider;
import org.apache.hadoop.security.alias.CredentialProviderFactory;

import io.nnaudit.trail.TrailNames;
import io.nnaudit.verify.VerifyCommand;

/**
 * A sealing key made as the README tells operators to make one, for the benchmarks that seal: the running JDK's
 * keytool writes an EC P-256 key pair (alias {@code nnaudit-seal}) into a PKCS12 keystore and exports its
 * certificate; the keystore's password goes into a JCEKS Hadoop credential provider, named by
 * {@code hadoop.security.credential.provider.path}, under {@code nnaudit.seal.keystore.password}.
 * {@link #enable} turns sealing on with that key and leaves the intervals at their defaults (a seal every
 * 10000 records or 10 s, at rotation and at close). {@link #verify} checks a sealed file with
 * {@code nnaudit verify --cert}.
 */
final class SealingKey {
  static final String ALIAS = "nnaudit-seal";
  private static final String PASSWORD = "nnaudit-jmh-seal";

  final Path keystore;
  final Path certificate;
  private final String provider;

  private SealingKey(Path keystore, Path certificate, String provider) {
    this.keystore = keystore;
    this.certificate = certificate;
    this.provider = provider;
  }

  /** A new key pair, certificate and credential provider in {@code dir} (emptied of an earlier one first). */
  static SealingKey create(Path dir) throws Exception {
    Files.createDirectories(dir);
    Path ks = dir.resolve("seal.p12");
    Path crt = dir.resolve("seal.crt");
    Path creds = dir.resolve("seal-creds.jceks");
    for (Path p : new Path[] {ks, crt, creds, dir.resolve(".seal-creds.jceks.crc")}) {
      Files.deleteIfExists(p);
    }
    keytool("-genkeypair", "-alias", ALIAS, "-keyalg", "EC", "-groupname", "secp256r1", "-dname",
        "CN=nnaudit jmh seal", "-validity", "30", "-keystore", ks.toString(), "-storetype", "PKCS12",
        "-storepass", PASSWORD);
    keytool("-exportcert", "-rfc", "-alias", ALIAS, "-keystore", ks.toString(), "-storetype", "PKCS12",
        "-storepass", PASSWORD, "-file", crt.toString());
    String provider = "jceks://file" + creds.toAbsolutePath();
    Configuration conf = new Configuration(false);
    conf.set(CredentialProviderFactory.CREDENTIAL_PROVIDER_PATH, provider);
    CredentialProvider p = CredentialProviderFactory.getProviders(conf).get(0);
    p.createCredentialEntry("nnaudit.seal.keystore.password", PASSWORD.toCharArray());
    p.flush();
    return new SealingKey(ks, crt, provider);
  }

  /** Sets the nnaudit.seal.* keys that seal with this key; the intervals keep their defaults. */
  void enable(Configuration conf) {
    conf.setBoolean("nnaudit.seal.enabled", true);
    conf.set("nnaudit.seal.keystore.path", keystore.toString());
    conf.set("nnaudit.seal.keystore.type", "PKCS12");
    conf.set(CredentialProviderFactory.CREDENTIAL_PROVIDER_PATH, provider);
  }

  /**
   * {@code nnaudit verify --cert} over {@code auditFile}: 0 every record sealed and unchanged, 1 changed, 2
   * records after the last seal, 3 a usage or read error. Its output goes to {@code out}.
   */
  int verify(Path auditFile, StringBuilder out) {
    ByteArrayOutputStream buf = new ByteArrayOutputStream();
    PrintStream ps = new PrintStream(buf, true);
    int exit = VerifyCommand.run(new String[] {"verify", "--cert", certificate.toString(), auditFile.toString()},
        ps, ps, null);
    out.append(new String(buf.toByteArray(), StandardCharsets.UTF_8).trim());
    return exit;
  }

  /** The seals in the digest beside {@code auditFile} (one per line), or 0 when it has none. */
  static long sealsIn(Path auditFile) throws IOException {
    Path digest = TrailNames.digest(auditFile);
    if (!Files.exists(digest)) {
      return 0;
    }
    try (Stream<String> lines = Files.lines(digest, StandardCharsets.UTF_8)) {
      return lines.count();
    }
  }

  /** Deletes {@code auditFile}'s digest, so that a new file starts a new chain rather than resuming an old one. */
  static void deleteDigest(Path auditFile) throws IOException {
    Files.deleteIfExists(TrailNames.digest(auditFile));
  }

  private static void keytool(String... args) throws Exception {
    List<String> cmd = new ArrayList<>();
    cmd.add(new File(System.getProperty("java.home"), "bin/keytool").getPath());
    cmd.addAll(Arrays.asList(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    byte[] out = p.getInputStream().readAllBytes();
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException("keytool " + String.join(" ", args) + " failed: "
          + new String(out, StandardCharsets.UTF_8));
    }
  }
}
