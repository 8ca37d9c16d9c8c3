package io.nnaudit.kafka.verify;

import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

import org.apache.kafka.clients.consumer.ConsumerConfig;

import io.nnaudit.seal.SealKey;
import io.nnaudit.verify.ArgumentReader;
import io.nnaudit.verify.VerifyCommand;

/**
 * {@code nnaudit verify-stream}: checks the audit stream in a Kafka topic against the seals made at the source,
 * without the hosts: per source, duplicates dropped (a copy that differs is a change), the records contiguous,
 * every seal signed, chained and hashing as it says over the records it covers, and what follows the last seal
 * reported as unsealed. Exit codes as {@code nnaudit verify}'s: 0 verified, 1 changed, 2 nothing changed but
 * records are not verified (an unsealed tail, an announced gap, records sealed late, records that could not be
 * hashed, no seal), 3 usage, or the topic could not be read.
 */
public final class VerifyStreamCommand {
  private static final String USAGE_TEXT = "usage: nnaudit verify-stream --bootstrap HOST:PORT[,HOST:PORT]... "
      + "--topic TOPIC --cert [NS/NN=]CERT...\n"
      + "         [--source NS/NN]... [--from TIME] [--consumer-config FILE] [--accept-late] [--timeout SECONDS]\n"
      + "         [--window RECORDS] [--max-pending-bytes BYTES]\n"
      + "  Reads every partition of TOPIC from its beginning (or from TIME) to the end offsets taken at the start,\n"
      + "  and checks each source's records against its seals.\n"
      + "  --cert: the certificate of a key that signs seals (PEM or DER); give one for each NameNode's key.\n"
      + "    --cert NS/NN=CERT binds a key to a source: its seals must be signed by it.\n"
      + "  --source: check only this source (the record key, <nameservice>/<namenode>); may be repeated.\n"
      + "  --from: start at the first record at or after TIME (2026-11-23T19:48:35Z, or ms since 1970); the\n"
      + "    sources then start mid-chain.\n"
      + "  --consumer-config: a properties file for the consumer (security.protocol, ssl.*, sasl.*).\n"
      + "  --accept-late: records sealed by a later start than the run that wrote them count as verified.\n"
      + "  --timeout: give up when no record came for this long before the end offsets (default 60).\n"
      + "  --window: the records per source remembered to compare a copy with (default 250000, 24 bytes each).\n"
      + "  --max-pending-bytes: the bytes per source held while they wait for their seal (default 67108864).\n"
      + "Exit: 0 verified, 1 tampered, 2 records not verified (unsealed, gaps, sealed late; nothing changed),\n"
      + "  3 usage error, or the topic could not be read.";

  private VerifyStreamCommand() {
  }

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err));
  }

  /** Runs verify-stream; returns the exit code. */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    Options o = new Options();
    ArgumentReader arguments = new ArgumentReader("verify-stream", USAGE_TEXT)
        .flag("--accept-late", () -> o.acceptLate = true)
        .option("--bootstrap", v -> o.bootstrap = v)
        .option("--topic", v -> o.topic = v)
        .option("--cert", o.certs::add)
        .option("--source", o.sources::add)
        .option("--from", v -> o.fromMillis = v.matches("[0-9]+") ? Long.parseLong(v) : Instant.parse(v).toEpochMilli())
        .option("--consumer-config", v -> o.consumerConfig = v)
        .option("--timeout", v -> o.timeoutSeconds = Long.parseLong(v))
        .option("--window", v -> o.window = Integer.parseInt(v))
        .option("--max-pending-bytes", v -> o.maxPending = Integer.parseInt(v));
    try {
      int read = arguments.read(args, out, err);
      if (read != ArgumentReader.READ) {
        return read;
      }
    } catch (NumberFormatException | DateTimeParseException e) {
      return arguments.usage(err, "a value does not parse: " + e.getMessage());
    }
    if (o.topic == null || o.certs.isEmpty() || o.timeoutSeconds <= 0 || o.window <= 0 || o.maxPending <= 0) {
      return arguments.usage(err, "give --topic and at least one --cert (and positive numbers)");
    }
    Properties config = new Properties();
    if (o.consumerConfig != null) {
      try (InputStream in = Files.newInputStream(Paths.get(o.consumerConfig))) {
        config.load(in);
      } catch (Exception e) {
        err.println("nnaudit verify-stream: cannot read --consumer-config " + o.consumerConfig + ": " + e);
        return VerifyCommand.USAGE;
      }
    }
    if (o.bootstrap != null) {
      config.setProperty(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, o.bootstrap);
    }
    if (config.getProperty(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG) == null) {
      return arguments.usage(err, "give --bootstrap (or bootstrap.servers in --consumer-config)");
    }
    Map<String, SealKey> keys = new HashMap<>();
    Map<String, Map<String, SealKey>> sourceKeys = new HashMap<>();
    try {
      for (String c : o.certs) {
        int eq = c.indexOf('=');
        boolean bound = eq > 0 && !Files.exists(Paths.get(c));
        SealKey k = VerifyCommand.certificateKey(Paths.get(bound ? c.substring(eq + 1) : c));
        (bound ? sourceKeys.computeIfAbsent(c.substring(0, eq), s -> new HashMap<>()) : keys).put(k.keyId(), k);
      }
    } catch (Exception e) {
      err.println("nnaudit verify-stream: cannot read the certificate: " + e.getMessage());
      return VerifyCommand.USAGE;
    }
    TopicReader reader = new TopicReader(config, o.topic, Duration.ofSeconds(o.timeoutSeconds));
    StreamCheck check = new StreamCheck(keys, sourceKeys, o.acceptLate, o.sources, o.maxPending, o.window);
    try {
      reader.read(o.fromMillis, r -> StreamRecord.read(r).forEach(check::accept));
    } catch (Exception e) {
      err.println("nnaudit verify-stream: could not read the topic: " + e.getMessage());
      return VerifyCommand.USAGE;
    }
    return check.report(out, o.topic, reader);
  }

  /** What the command line gave. */
  private static final class Options {
    String bootstrap;
    String topic;
    final List<String> certs = new ArrayList<>();
    final Set<String> sources = new LinkedHashSet<>();
    long fromMillis = -1;
    String consumerConfig;
    boolean acceptLate;
    long timeoutSeconds = 60;
    int window = 250_000;
    int maxPending = 64 << 20;
  }
}
