package io.nnaudit.verify;

import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.security.Key;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.util.ArrayList;
import java.util.List;
import javax.crypto.SecretKey;

import io.nnaudit.seal.SealKey;
import io.nnaudit.trail.TrailNames;

/**
 * {@code nnaudit verify}: checks sealed audit trails on any host, with the jar alone (no NameNode, no
 * cluster, nothing of Hadoop).
 *
 * <pre>
 * nnaudit verify --cert audit.crt [--cert old.crt]... [--anchor SEAL_HASH] [--accept-late] [--names PATTERN] PATH...
 * nnaudit verify --keystore seal.jceks [--storetype JCEKS] [--alias nnaudit-seal] PATH...   (HmacSHA256)
 * </pre>
 * PATH is a directory (every trail in it: each audit file with a digest beside it; every other file there that
 * looks like an audit file or a digest is reported as not verified) or an audit file. A compressed rotated file
 * ({@code file.N.gz}) is read as what it decompresses to, and named when it holds a change. Prints, per trail,
 * {@code verified: N files, M records, from T1 to T2}, or the first change found with its file, byte offset,
 * line and kind, and any unsealed records and records sealed late. Exits 0 when every record was sealed by the
 * run that wrote it, 1 when a trail was changed, 2 when nothing was changed but records are unsealed, were
 * sealed late (by a later start: a killed run's tail, an adopted file; {@code --accept-late} accepts these,
 * still listing them), or nothing at all was verified, 3 on a usage or read error. No stack trace: every
 * failure is one line. {@code --cert} is
 * given once for each key that signed seals of the trail (the sealing key was changed). The HMAC
 * keystore's password is read from the environment variable {@code NNAUDIT_KEYSTORE_PASSWORD}.
 */
public final class VerifyCommand {
  public static final int USAGE = 3;
  static final String PASSWORD_ENV = "NNAUDIT_KEYSTORE_PASSWORD";
  private static final String USAGE_TEXT = "usage: nnaudit verify --cert CERT [--cert CERT]... [--anchor SEAL_HASH] "
      + "[--accept-late] [--names PATTERN] PATH...\n"
      + "       nnaudit verify --keystore KEYSTORE [--storetype PKCS12|JKS|JCEKS] [--alias ALIAS] PATH...\n"
      + "  PATH: a directory holding audit files (rotated ones plain or .gz) and their .seals digests, or an audit\n"
      + "    file.\n"
      + "  --cert: the X.509 certificate (PEM or DER) of the key that signs the seals; after a change of key, give\n"
      + "    the old and the new certificate.\n"
      + "  --keystore: for HmacSHA256 seals, the keystore with the secret key; its password is read from "
      + PASSWORD_ENV + ".\n"
      + "  --anchor: a seal hash recorded off the host (LatestSealHash of the NameNode's NnauditSeal bean in /jmx):\n"
      + "    the trail must hold it.\n"
      + "  --accept-late: records sealed by a later start than the run that wrote them (a killed run's tail, a file\n"
      + "    adopted when sealing was turned on) count as verified; they are still listed.\n"
      + "  --names: the nnaudit.file.rotated.names pattern of dated rotated files (e.g. .%d{yyyy-MM-dd}-%i); without\n"
      + "    it, numbered files and the patterns dated, .%d{yyyy-MM-dd} and .%d{yyyy-MM-dd-HH} are recognised.\n"
      + "Exit: 0 verified (every record sealed by the run that wrote it), 1 tampered, 2 unsealed records, records\n"
      + "  sealed late or nothing verified (nothing changed), 3 usage or read error.";

  private VerifyCommand() {
  }

  public static void main(String[] args) {
    System.exit(run(args, System.out, System.err, System.getenv(PASSWORD_ENV)));
  }

  /** Runs verify; returns the exit code. */
  public static int run(String[] args, PrintStream out, PrintStream err, String hmacPassword) {
    Options o = new Options();
    ArgumentReader arguments = new ArgumentReader("verify", USAGE_TEXT)
        .flag("--accept-late", () -> o.acceptLate = true)
        .option("--cert", o.certs::add)
        .option("--keystore", v -> o.keystore = v)
        .option("--storetype", v -> o.storetype = v)
        .option("--alias", v -> o.alias = v)
        .option("--anchor", v -> o.anchor = v)
        .option("--names", v -> o.names = v)
        .operands(a -> o.paths.add(Paths.get(a)));
    int read = arguments.read(args, out, err);
    if (read != ArgumentReader.READ) {
      return read;
    }
    if (o.paths.isEmpty() || o.certs.isEmpty() == (o.keystore == null)) {
      return arguments.usage(err, "give one of --cert or --keystore, and at least one PATH");
    }
    List<SealKey> keys = new ArrayList<>();
    try {
      for (String cert : o.certs) {
        keys.add(certificateKey(Paths.get(cert)));
      }
      if (o.keystore != null) {
        keys.add(secretKey(Paths.get(o.keystore), o.storetype, o.alias, hmacPassword));
      }
    } catch (Exception e) {
      err.println("nnaudit verify: cannot read the key: " + e.getMessage());
      return USAGE;
    }
    TrailVerifier verifier;
    try {
      verifier = new TrailVerifier(keys, o.anchor, o.acceptLate, o.names);
    } catch (IllegalArgumentException e) {
      err.println("nnaudit verify: --names " + o.names + " is not a pattern of rotated names: " + e.getMessage());
      return USAGE;
    }
    int tampered = 0;
    int unsealed = 0;
    int verified = 0;
    int notVerified = 0; // files in a directory that no trail accounts for
    try {
      for (Path p : o.paths) {
        List<Path> trails;
        if (Files.isDirectory(p)) {
          trails = verifier.trailsOf(p);
          List<VerifyReport> reports = new ArrayList<>();
          for (Path t : trails) {
            reports.add(verifier.verify(t));
          }
          List<Path> strays = DirectoryAccount.strays(p, reports);
          if (trails.isEmpty() && strays.isEmpty()) {
            err.println("nnaudit verify: no sealed audit file in " + p + " (no *" + TrailNames.DIGEST_SUFFIX
                + " file)");
            return USAGE;
          }
          for (VerifyReport r : reports) {
            int code = print(r, out);
            tampered += code == VerifyReport.TAMPERED ? 1 : 0;
            unsealed += code == VerifyReport.UNSEALED ? 1 : 0;
            verified += code == VerifyReport.VERIFIED ? 1 : 0;
          }
          for (Path stray : strays) {
            out.println("NOT VERIFIED: " + stray + ": " + Problem.Kind.UNACCOUNTED.text + ": it looks like an audit "
                + "file or a digest, but verify read it for no trail here");
          }
          notVerified += strays.size();
          continue;
        } else if (Files.exists(p)) {
          trails = java.util.Collections.singletonList(p.toAbsolutePath());
        } else {
          err.println("nnaudit verify: " + p + " does not exist");
          return USAGE;
        }
        for (Path t : trails) {
          int code = print(verifier.verify(t), out);
          tampered += code == VerifyReport.TAMPERED ? 1 : 0;
          unsealed += code == VerifyReport.UNSEALED ? 1 : 0;
          verified += code == VerifyReport.VERIFIED ? 1 : 0;
        }
      }
    } catch (Exception | OutOfMemoryError | StackOverflowError e) {
      err.println("nnaudit verify: could not read the trail: " + e);
      return USAGE;
    }
    if (verified + unsealed + tampered > 1 || notVerified > 0) {
      out.println("trails: " + verified + " verified, " + unsealed + " with unsealed records or records sealed "
          + "late, " + tampered + " tampered" + (notVerified > 0 ? "; " + Plural.of(notVerified, "file")
          + " not verified" : ""));
    }
    return tampered > 0 ? VerifyReport.TAMPERED : unsealed + notVerified > 0 ? VerifyReport.UNSEALED
        : VerifyReport.VERIFIED;
  }

  /** What the command line gave. */
  private static final class Options {
    final List<String> certs = new ArrayList<>();
    String keystore;
    String storetype = "PKCS12";
    String alias = "nnaudit-seal";
    String anchor;
    boolean acceptLate;
    String names;
    final List<Path> paths = new ArrayList<>();
  }

  /** Prints what verify found in one trail; returns its exit code. */
  private static int print(VerifyReport r, PrintStream out) {
    for (String line : r.lines()) {
      out.println(line);
    }
    return r.exitCode();
  }

  /** The public key of an X.509 certificate file, PEM or DER. */
  public static SealKey certificateKey(Path file) throws Exception {
    try (InputStream in = Files.newInputStream(file)) {
      Certificate c = CertificateFactory.getInstance("X.509").generateCertificate(in);
      return SealKey.forChecking(c);
    }
  }

  private static SealKey secretKey(Path file, String type, String alias, String password) throws Exception {
    if (password == null) {
      throw new IllegalArgumentException("set " + PASSWORD_ENV + " to the keystore's password");
    }
    KeyStore ks = KeyStore.getInstance(type);
    try (InputStream in = Files.newInputStream(file)) {
      ks.load(in, password.toCharArray());
    }
    Key k = ks.getKey(alias, password.toCharArray());
    if (!(k instanceof SecretKey)) {
      throw new IllegalArgumentException("the entry '" + alias + "' of " + file + " is not a secret key; for "
          + "signed seals give the certificate with --cert");
    }
    return SealKey.secret((SecretKey) k);
  }
}
