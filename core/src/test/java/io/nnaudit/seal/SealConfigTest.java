package io.nnaudit.seal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.alias.CredentialProvider;
import org.apache.hadoop.security.alias.CredentialProviderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import io.nnaudit.MiniClusterSupport;
import io.nnaudit.QueuedAuditLogger;
import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.settings.NnauditSettings;
import io.nnaudit.sink.file.RollingFileSink;
import io.nnaudit.trail.TrailNames;
import io.nnaudit.verify.Verification;

/**
 * Each bad sealing setting stops start-up with one message that names the key, repeats the value (passwords
 * as '(hidden)', a password that is not there as '(unset)') and says what is allowed; the keys an operator may
 * choose (EC, RSA, HmacSHA256) seal and verify end to end.
 */
class SealConfigTest {
  @TempDir
  static Path keys;

  @RegisterExtension
  static final SealKeyFixture ec = new SealKeyFixture();

  @TempDir
  Path dir;

  /** Valid settings sealing with {@code key}, the keystore's password {@code password} in a credential provider. */
  private Configuration sealed(SealKeys.KeyFiles key, String password) throws Exception {
    Configuration c = new Configuration(false);
    c.set(NnauditConfigKeys.FILE_PATH_KEY, dir.resolve("audit.log").toString());
    return SealKeys.enable(c, key, dir, password);
  }

  private Configuration sealed(SealKeys.KeyFiles key) throws Exception {
    return sealed(key, SealKeys.PASSWORD);
  }

  /** The message of the start-up failure {@code c} causes. */
  private static String refused(Configuration c) {
    return assertThrows(IllegalArgumentException.class, () -> NnauditSettings.fromConf(c)).getMessage();
  }

  /** {@code m} is the one message of a refused value, for {@code key} and {@code value}, allowing {@code allowed}. */
  private static void assertNames(String m, String key, String value, String allowed) {
    String head = "nnaudit: invalid value for " + key + ": '" + value + "'. Allowed: ";
    assertTrue(m.startsWith(head), "expected a message starting with\n  " + head + "\nbut got\n  " + m);
    assertTrue(m.substring(head.length()).contains(allowed), "'" + allowed + "' in: " + m);
  }

  @Test
  void validSettingsSeal() throws Exception {
    assertNotNull(NnauditSettings.fromConf(sealed(ec)).sinkContext().sealing());
  }

  @Test
  void enabledWithoutAKeystore() throws Exception {
    Configuration c = sealed(ec);
    c.unset(NnauditConfigKeys.SEAL_KEYSTORE_PATH_KEY);
    assertNames(refused(c), NnauditConfigKeys.SEAL_KEYSTORE_PATH_KEY, "", "the path of the keystore holding the "
        + "sealing key, when nnaudit.seal.enabled is true");
  }

  @Test
  void enabledNeitherTrueNorFalse() throws Exception {
    Configuration c = sealed(ec);
    c.set(NnauditConfigKeys.SEAL_ENABLED_KEY, "yes");
    assertNames(refused(c), NnauditConfigKeys.SEAL_ENABLED_KEY, "yes", "true or false");
  }

  @Test
  void aKeystoreThatIsNotThere() throws Exception {
    Configuration c = sealed(ec);
    String missing = dir.resolve("no-such-seal.p12").toString();
    c.set(NnauditConfigKeys.SEAL_KEYSTORE_PATH_KEY, missing);
    assertNames(refused(c), NnauditConfigKeys.SEAL_KEYSTORE_PATH_KEY, missing, "a PKCS12 keystore the NameNode "
        + "user can read");
  }

  /** Which key to change is told by what failed, not by the words in the path. */
  @Test
  void aMissingKeystoreUnderADirectoryNamedForPasswords() throws Exception {
    Configuration c = sealed(ec);
    String missing = dir.resolve("passwords").resolve("seal.p12").toString();
    c.set(NnauditConfigKeys.SEAL_KEYSTORE_PATH_KEY, missing);
    assertNames(refused(c), NnauditConfigKeys.SEAL_KEYSTORE_PATH_KEY, missing, "a PKCS12 keystore the NameNode "
        + "user can read");
  }

  @Test
  void aFileThatIsNotAKeystore() throws Exception {
    Configuration c = sealed(ec);
    Path notKeystore = Files.write(dir.resolve("notes.txt"), "not a keystore\n".getBytes(StandardCharsets.UTF_8));
    c.set(NnauditConfigKeys.SEAL_KEYSTORE_PATH_KEY, notKeystore.toString());
    assertNames(refused(c), NnauditConfigKeys.SEAL_KEYSTORE_PATH_KEY, notKeystore.toString(), "a PKCS12 keystore");
  }

  @Test
  void anUnknownKeystoreType() throws Exception {
    Configuration c = sealed(ec);
    c.set(NnauditConfigKeys.SEAL_KEYSTORE_TYPE_KEY, "PKCS13");
    assertNames(refused(c), NnauditConfigKeys.SEAL_KEYSTORE_TYPE_KEY, "PKCS13", "PKCS12, JKS or JCEKS");
  }

  @Test
  void aWrongKeystorePasswordIsNamedButNotShown() throws Exception {
    String wrong = "not-the-seal-store-pw";
    String m = refused(sealed(ec, wrong));
    assertNames(m, NnauditConfigKeys.SEAL_KEYSTORE_PASSWORD_KEY, "(hidden)", "the password of the keystore "
        + ec.keystore);
    assertFalse(m.contains(wrong), m);
    assertFalse(m.contains(SealKeys.PASSWORD), m);
  }

  @Test
  void noPasswordWithoutACredentialProvider() throws Exception {
    Configuration c = sealed(ec);
    c.unset(CredentialProviderFactory.CREDENTIAL_PROVIDER_PATH);
    assertNames(refused(c), NnauditConfigKeys.SEAL_KEYSTORE_PASSWORD_KEY, "(unset)", "the password of "
        + ec.keystore + ", from a credential provider named by hadoop.security.credential.provider.path");
  }

  @Test
  void noPasswordInTheCredentialProvider() throws Exception {
    Configuration c = sealed(ec);
    Path creds = dir.resolve("other-creds.jceks");
    c.set(CredentialProviderFactory.CREDENTIAL_PROVIDER_PATH, "jceks://file" + creds.toAbsolutePath());
    CredentialProvider p = CredentialProviderFactory.getProviders(c).get(0);
    p.createCredentialEntry("some.other.password", "x".toCharArray());
    p.flush();
    assertNames(refused(c), NnauditConfigKeys.SEAL_KEYSTORE_PASSWORD_KEY, "(unset)", "from a credential provider");
  }

  @Test
  void aWrongAlias() throws Exception {
    Configuration c = sealed(ec);
    c.set(NnauditConfigKeys.SEAL_KEY_ALIAS_KEY, "audit-signer");
    assertNames(refused(c), NnauditConfigKeys.SEAL_KEY_ALIAS_KEY, "audit-signer", "the alias of a key in "
        + ec.keystore + ", which holds [" + SealKeys.ALIAS + "]");
  }

  @Test
  void aKeystoreWithOnlyATrustedCertificate() throws Exception {
    SealKeys.KeyFiles certOnly = SealKeys.certificateOnly(dir.resolve("trust"), ec);
    String m = refused(sealed(certOnly));
    assertNames(m, NnauditConfigKeys.SEAL_KEY_ALIAS_KEY, SealKeys.ALIAS, "a private key (EC or RSA) with its "
        + "certificate, or a secret key for HmacSHA256");
    assertTrue(m.contains("a trusted certificate alone cannot sign"), m);
  }

  @Test
  void aDsaKey() throws Exception {
    String m = refused(sealed(SealKeys.dsa(dir.resolve("dsa"))));
    assertNames(m, NnauditConfigKeys.SEAL_KEY_ALIAS_KEY, SealKeys.ALIAS, "a private key (EC or RSA) with its "
        + "certificate, or a secret key for HmacSHA256");
    assertTrue(m.contains("a DSA key cannot sign seals"), m);
  }

  @Test
  void badIntervals() throws Exception {
    for (String bad : new String[] {"0", "-1", "ten", "1.5", "1000000001"}) {
      Configuration c = sealed(ec);
      c.set(NnauditConfigKeys.SEAL_INTERVAL_RECORDS_KEY, bad);
      assertNames(refused(c), NnauditConfigKeys.SEAL_INTERVAL_RECORDS_KEY, bad, "an integer from 1 to 1000000000 "
          + "(records)");
    }
    for (String bad : new String[] {"0", "-100", "10s", "86400001"}) {
      Configuration c = sealed(ec);
      c.set(NnauditConfigKeys.SEAL_INTERVAL_MS_KEY, bad);
      assertNames(refused(c), NnauditConfigKeys.SEAL_INTERVAL_MS_KEY, bad, "an integer from 1 to 86400000 "
          + "(milliseconds)");
    }
  }

  /** As for every nnaudit key, a key set to nothing (a template's empty value) reads as its default. */
  @Test
  void emptyValuesReadAsTheirDefaults() throws Exception {
    Configuration c = sealed(ec);
    c.set(NnauditConfigKeys.SEAL_INTERVAL_RECORDS_KEY, "");
    c.set(NnauditConfigKeys.SEAL_INTERVAL_MS_KEY, " ");
    c.set(NnauditConfigKeys.SEAL_KEYSTORE_TYPE_KEY, "");
    c.set(NnauditConfigKeys.SEAL_KEY_ALIAS_KEY, "");
    SealSettings s = NnauditSettings.fromConf(c).sinkContext().sealing();
    assertEquals(NnauditConfigKeys.SEAL_INTERVAL_RECORDS_DEFAULT, s.intervalRecords());
    assertEquals(NnauditConfigKeys.SEAL_INTERVAL_MS_DEFAULT, s.intervalMs());
    Configuration off = sealed(ec);
    off.set(NnauditConfigKeys.SEAL_ENABLED_KEY, "");
    assertEquals(null, NnauditSettings.fromConf(off).sinkContext().sealing(), "nnaudit.seal.enabled defaults to false");
  }

  @Test
  void sealingALog4j2Sink() throws Exception {
    Configuration c = sealed(ec);
    c.set(NnauditConfigKeys.SINK_KEY, "log4j2");
    assertNames(refused(c), NnauditConfigKeys.SEAL_ENABLED_KEY, "true", "false while nnaudit.sink is not file");
  }

  /** The NameNode does not start, and the operator reads the same message in its failure. */
  @Test
  void aNameNodeWithAWrongKeystorePasswordDoesNotStart() throws Exception {
    Configuration c = MiniClusterSupport.conf(dir.toFile(), dir.resolve("nn-audit.log").toFile(),
        QueuedAuditLogger.class.getName());
    SealKeys.enable(c, ec, dir, "guessed-pw");
    Throwable t = assertThrows(Throwable.class, () -> MiniClusterSupport.start(c).shutdown());
    IllegalArgumentException ours = null;
    StringBuilder chain = new StringBuilder();
    for (Throwable x = t; x != null; x = x.getCause()) {
      chain.append(x).append('\n');
      if (x instanceof IllegalArgumentException && String.valueOf(x.getMessage()).startsWith("nnaudit: ")) {
        ours = (IllegalArgumentException) x;
      }
    }
    assertNotNull(ours, "the start-up failure is nnaudit's own message:\n" + chain);
    assertNames(ours.getMessage(), NnauditConfigKeys.SEAL_KEYSTORE_PASSWORD_KEY, "(hidden)", "the password of the "
        + "keystore " + ec.keystore);
    assertFalse(chain.toString().contains("guessed-pw"), chain.toString());
    assertFalse(Files.exists(dir.resolve("nn-audit.log.seals")), "nothing is sealed with a key that did not load");
  }

  @Test
  void rsaKeysSealAndVerify() throws Exception {
    SealKeys.KeyFiles rsa = SealKeys.rsa(keys.resolve("rsa"));
    File f = writeSealed(rsa);
    assertAllSealsUse(f, SealKey.RSA);
    Verification.Run ok = Verification.withCert(rsa, f.getPath());
    assertEquals(0, ok.code, ok.output);
    assertTrue(ok.output.startsWith("verified: 3 files, 120 records, from "), ok.output);
    Verification.Run wrongKey = Verification.withCert(ec, f.getPath());
    assertEquals(1, wrongKey.code, "seals signed by another key: " + wrongKey.output);
    assertTrue(wrongKey.output.startsWith("TAMPERED: "), wrongKey.output);
  }

  @Test
  void hmacKeysSealAndVerify() throws Exception {
    SealKeys.KeyFiles hmac = SealKeys.hmac(keys.resolve("hmac"));
    File f = writeSealed(hmac);
    assertAllSealsUse(f, SealKey.HMAC);
    Verification.Run ok = Verification.withPassword(SealKeys.PASSWORD, "--keystore", hmac.keystore.toString(),
        "--storetype", "JCEKS", f.getPath());
    assertEquals(0, ok.code, ok.output);
    assertTrue(ok.output.startsWith("verified: 3 files, 120 records, from "), ok.output);
    SealKeys.KeyFiles other = SealKeys.hmac(Files.createDirectories(keys.resolve("hmac-other")));
    Verification.Run wrongKey = Verification.withPassword(SealKeys.PASSWORD, "--keystore", other.keystore.toString(),
        "--storetype", "JCEKS", f.getPath());
    assertEquals(1, wrongKey.code, "seals made with another secret key: " + wrongKey.output);
  }

  /** 120 records through the file sink sealing with {@code key}, rotated twice (files of about 2 KB), closed. */
  private File writeSealed(SealKeys.KeyFiles key) throws Exception {
    File f = dir.resolve("sealed.log").toFile();
    Configuration c = sealed(key);
    c.set(NnauditConfigKeys.FILE_PATH_KEY, f.getPath());
    c.set(NnauditConfigKeys.FILE_MAX_SIZE_KEY, "2k");
    c.setInt(NnauditConfigKeys.SEAL_INTERVAL_RECORDS_KEY, 7);
    RollingFileSink sink = new RollingFileSink(NnauditSettings.fromConf(c).sinkContext());
    for (int chunk = 0; chunk < 24; chunk++) {
      StringBuilder b = new StringBuilder();
      for (int i = 0; i < 5; i++) {
        b.append(String.format("record %04d %s%n", chunk * 5 + i, "y".repeat(40)));
      }
      sink.write(ByteBuffer.wrap(b.toString().getBytes(StandardCharsets.UTF_8)));
    }
    sink.close();
    assertTrue(Files.exists(dir.resolve("sealed.log.2.seals")), "rotated twice");
    assertFalse(Files.exists(dir.resolve("sealed.log.3")), "rotated twice only");
    return f;
  }

  private static void assertAllSealsUse(File f, String algorithm) throws Exception {
    List<String> seals = Files.readAllLines(TrailNames.digest(f.toPath()));
    assertFalse(seals.isEmpty());
    for (String line : seals) {
      assertEquals(algorithm, Seal.parse(line).algorithm, line);
    }
  }
}
