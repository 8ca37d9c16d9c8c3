package io.nnaudit.kafka.verify;

import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

import org.apache.kafka.clients.consumer.ConsumerConfig;

import io.nnaudit.seal.SealKey;
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
    List<String> argv = new ArrayList<>(Arrays.asList(args));
    if (!argv.isEmpty() && argv.get(0).equals("verify-stream")) {
      argv.remove(0);
    }
    String bootstrap = null;
    String topic = null;
    List<String> certs = new ArrayList<>();
    Set<String> sources = new LinkedHashSet<>();
    long fromMillis = -1;
    String consumerConfig = null;
    boolean acceptLate = false;
    long timeoutSeconds = 60;
    int window = 250_000;
    int maxPending = 64 << 20;
    try {
      for (int i = 0; i < argv.size(); i++) {
        String a = argv.get(i);
        if (a.equals("-h") || a.equals("--help")) {
          out.println(USAGE_TEXT);
          return 0;
        }
        if (a.equals("--accept-late")) {
          acceptLate = true;
          continue;
        }
        if (!a.startsWith("--") || i + 1 >= argv.size()) {
          return usage(err, a.startsWith("--") ? a + " needs a value" : "unexpected argument " + a);
        }
        String v = argv.get(++i);
        switch (a) {
          case "--bootstrap":
            bootstrap = v;
            break;
          case "--topic":
            topic = v;
            break;
          case "--cert":
            certs.add(v);
            break;
          case "--source":
            sources.add(v);
            break;
          case "--from":
            fromMillis = v.matches("[0-9]+") ? Long.parseLong(v) : Instant.parse(v).toEpochMilli();
            break;
          case "--consumer-config":
            consumerConfig = v;
            break;
          case "--timeout":
            timeoutSeconds = Long.parseLong(v);
            break;
          case "--window":
            window = Integer.parseInt(v);
            break;
          case "--max-pending-bytes":
            maxPending = Integer.parseInt(v);
            break;
          default:
            return usage(err, "unknown option " + a);
        }
      }
    } catch (NumberFormatException | java.time.format.DateTimeParseException e) {
      return usage(err, "a value does not parse: " + e.getMessage());
    }
    if (topic == null || certs.isEmpty() || timeoutSeconds <= 0 || window <= 0 || maxPending <= 0) {
      return usage(err, "give --topic and at least one --cert (and positive numbers)");
    }
    Properties config = new Properties();
    if (consumerConfig != null) {
      try (InputStream in = Files.newInputStream(Paths.get(consumerConfig))) {
        config.load(in);
      } catch (Exception e) {
        err.println("nnaudit verify-stream: cannot read --consumer-config " + consumerConfig + ": " + e);
        return VerifyCommand.USAGE;
      }
    }
    if (bootstrap != null) {
      config.setProperty(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    }
    if (config.getProperty(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG) == null) {
      return usage(err, "give --bootstrap (or bootstrap.servers in --consumer-config)");
    }
    Map<String, SealKey> keys = new HashMap<>();
    Map<String, Map<String, SealKey>> sourceKeys = new HashMap<>();
    try {
      for (String c : certs) {
        int eq = c.indexOf('=');
        boolean bound = eq > 0 && !Files.exists(Paths.get(c));
        SealKey k = VerifyCommand.certificateKey(Paths.get(bound ? c.substring(eq + 1) : c));
        (bound ? sourceKeys.computeIfAbsent(c.substring(0, eq), s -> new HashMap<>()) : keys).put(k.keyId(), k);
      }
    } catch (Exception e) {
      err.println("nnaudit verify-stream: cannot read the certificate: " + e.getMessage());
      return VerifyCommand.USAGE;
    }
    StreamCheck check = new StreamCheck(keys, sourceKeys, acceptLate, sources, maxPending, window);
    TopicReader reader = new TopicReader(config, topic, Duration.ofSeconds(timeoutSeconds));
    try {
      reader.read(fromMillis, r -> check.accept(StreamRecord.of(r)));
    } catch (Exception e) {
      err.println("nnaudit verify-stream: could not read the topic: " + e.getMessage());
      return VerifyCommand.USAGE;
    }
    return check.report(out, topic, reader);
  }

  private static int usage(PrintStream err, String why) {
    err.println("nnaudit verify-stream: " + why + "\n" + USAGE_TEXT);
    return VerifyCommand.USAGE;
  }
}
