package io.nnaudit.seal;

import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.UUID;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import io.nnaudit.TestFiles;

/**
 * The signing key of a test class: an EC P-256 key pair in a PKCS12 keystore and its certificate
 * ({@link SealKeys#ec}, made with keytool), made in a directory of its own before the class's first test and
 * deleted after its last. It is those files, so a test hands it wherever a {@link SealKeys.KeyFiles} goes;
 * {@link SealKeys#enable(org.apache.hadoop.conf.Configuration, SealKeys.KeyFiles)} puts the password's
 * credential provider beside it. Use on a static field:
 * {@code @RegisterExtension static final SealKeyFixture ec = new SealKeyFixture();}.
 */
public final class SealKeyFixture extends SealKeys.KeyFiles
    implements BeforeAllCallback, BeforeEachCallback, AfterAllCallback {
  /** The keystore, the certificate, and the credential providers put beside them. */
  private final Path dir;
  private boolean made;

  public SealKeyFixture() {
    this(Paths.get(System.getProperty("java.io.tmpdir"), "nnaudit-seal-key-" + UUID.randomUUID()));
  }

  private SealKeyFixture(Path dir) {
    super(SealKeys.pairFiles(dir, "ec"));
    this.dir = dir;
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    SealKeys.ec(dir);
    made = true;
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    if (!made) {
      throw new IllegalStateException("SealKeyFixture makes its key before all the tests of a class: "
          + "register it on a static field");
    }
  }

  @Override
  public void afterAll(ExtensionContext context) throws IOException {
    TestFiles.deleteTree(dir);
  }
}
