package io.nnaudit;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.alias.CredentialProviderFactory;

import io.nnaudit.config.NnauditConfigKeys;
import io.nnaudit.settings.NnauditSettings;
import io.nnaudit.sink.file.RollingFileSink;

/**
 * Run in a separate JVM by {@link SealedRotationCrashTest}: the file sink, sealing, with files of 1 KB, writing
 * numbered records ({@code record N}) two at a time as fast as it can, so that it rotates every few writes,
 * until it is killed. Arguments: auditFile keystore credentialProviderPath durability. Prints {@code READY}.
 */
public final class SealedSinkWriterMain {
  private SealedSinkWriterMain() {
  }

  public static void main(String[] args) throws Exception {
    RollingFileSink sink = new RollingFileSink(NnauditSettings.fromConf(conf(args)).sinkContext());
    System.out.println("READY");
    System.out.flush();
    for (long n = 0;; n += 2) {
      String two = String.format("record %09d%nrecord %09d%n", n, n + 1);
      sink.write(ByteBuffer.wrap(two.getBytes(StandardCharsets.UTF_8)));
    }
  }

  /** The settings of the writer given {@code args}, for it and for a sink started after it on the same files. */
  public static Configuration conf(String... args) {
    Configuration c = new Configuration(false);
    c.set(NnauditConfigKeys.FILE_PATH_KEY, args[0]);
    c.set(NnauditConfigKeys.FILE_MAX_SIZE_KEY, "1k");
    c.setInt(NnauditConfigKeys.FILE_MAX_BACKUPS_KEY, 5);
    c.setInt(NnauditConfigKeys.SEAL_INTERVAL_RECORDS_KEY, 7);
    c.setBoolean(NnauditConfigKeys.SEAL_ENABLED_KEY, true);
    c.set(NnauditConfigKeys.SEAL_KEYSTORE_PATH_KEY, args[1]);
    c.set(CredentialProviderFactory.CREDENTIAL_PROVIDER_PATH, args[2]);
    c.set(NnauditConfigKeys.DURABILITY_KEY, args[3]);
    return c;
  }
}
