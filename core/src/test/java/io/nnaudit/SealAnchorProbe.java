package io.nnaudit;

import java.io.IOException;
import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.nnaudit.seal.Seal;
import io.nnaudit.trail.TrailNames;

/**
 * Reads seal hashes off a NameNode's {@code /jmx} while the trail grows and places each in the trail: which seal
 * it names, and how far that seal is behind the newest seal in the digests at the moment of reading. One
 * request answers for every attribute asked for (e.g. the live anchor bean and the metrics2 tag), so that
 * they are compared at the same moment. One thread.
 */
public final class SealAnchorProbe {
  /** Where a hash was read: a bean's name in /jmx and its attribute. */
  public static final class Channel {
    public final String label;
    final String bean;
    final String attribute;

    public Channel(String label, String bean, String attribute) {
      this.label = label;
      this.bean = bean;
      this.attribute = attribute;
    }
  }

  /** One read of one channel. */
  public static final class Read {
    public final Channel channel;
    final String hash;
    /** The seal the hash names, or null when no digest holds it. */
    public final Seal seal;
    /** The newest seal in the digests just before the request, and just after the answer. */
    public final Seal newestBefore;
    public final Seal newestAfter;
    public final long readAtMillis;

    Read(Channel channel, String hash, Seal seal, Seal newestBefore, Seal newestAfter, long readAtMillis) {
      this.channel = channel;
      this.hash = hash;
      this.seal = seal;
      this.newestBefore = newestBefore;
      this.newestAfter = newestAfter;
      this.readAtMillis = readAtMillis;
    }

    /** Seals between the one read and the newest before the request (0 when it is that one, or newer). */
    public long lagSeals() {
      return Math.max(0, newestBefore.number - seal.number);
    }

    /** How much older the seal read is than the newest before the request, in ms (0 when it is that one). */
    public long lagMillis() {
      return Math.max(0, newestBefore.timeMillis - seal.timeMillis);
    }

    @Override
    public String toString() {
      return channel.label + ": " + (seal == null ? "unknown hash " + hash : "seal " + seal.number + " (file "
          + seal.file + ")") + ", newest " + newestBefore.number + " before the read and " + newestAfter.number
          + " after";
    }
  }

  private final Path audit;
  private final URL url;
  private final List<Channel> channels;
  /** Every seal seen in the digests, by hash. */
  private final Map<String, Seal> known = new HashMap<>();
  /** The newest seal seen so far. */
  private Seal highest;
  /** Seals parsed, by line, so that a line is hashed once. */
  private final Map<String, Seal> parsed = new HashMap<>();

  /** {@code jmx} is the NameNode's /jmx address; {@code query} an ObjectName pattern covering the channels' beans. */
  public SealAnchorProbe(Path audit, String jmx, String query, List<Channel> channels) throws IOException {
    this.audit = audit;
    this.url = new URL(jmx + "?qry=" + query);
    this.channels = channels;
  }

  /** Reads every channel once, with the newest seal looked up just before and just after. */
  public List<Read> read() throws IOException {
    Seal before = newest();
    long at = System.currentTimeMillis();
    Map<String, String> hashes = fetch();
    Seal after = newest();
    List<Read> reads = new ArrayList<>();
    for (Channel c : channels) {
      String h = hashes.get(c.label);
      if (h == null || h.isEmpty()) {
        throw new AssertionError(c.label + ": no " + c.attribute + " in " + c.bean + ": " + hashes);
      }
      reads.add(new Read(c, h, lookup(h), before, after, at));
    }
    return reads;
  }

  /** The value of each channel's attribute, by the channel's label. */
  private Map<String, String> fetch() throws IOException {
    HttpURLConnection conn = (HttpURLConnection) url.openConnection();
    JsonNode beans;
    try (InputStream in = conn.getInputStream()) {
      beans = new ObjectMapper().readTree(in).get("beans");
    }
    Map<String, String> values = new LinkedHashMap<>();
    for (JsonNode b : beans) {
      String name = b.get("name").asText();
      for (Channel c : channels) {
        if (name.endsWith("name=" + c.bean) && b.has(c.attribute)) {
          values.put(c.label, b.get(c.attribute).asText());
        }
      }
    }
    return values;
  }

  /**
   * The newest seal the digests hold now: the highest seen in the live digest, a digest being rotated
   * ({@code .rotating-T}) and the three newest rotated ones, read in the order a rotation moves them (live,
   * rotating, .1, .2, .3) so that none moves past the look unseen, or in any earlier look (seals only come).
   */
  public Seal newest() throws IOException {
    Seal newest = newer(highest, seals(TrailNames.digest(audit)));
    try (DirectoryStream<Path> rotating = Files.newDirectoryStream(audit.getParent(),
        audit.getFileName() + ".rotating-*" + TrailNames.DIGEST_SUFFIX)) {
      for (Path d : rotating) {
        newest = newer(newest, seals(d));
      }
    }
    for (int i = 1; i <= 3; i++) {
      newest = newer(newest, seals(TrailNames.digest(audit.resolveSibling(audit.getFileName() + "." + i))));
    }
    if (newest == null) {
      throw new AssertionError("no seal in the digests of " + audit);
    }
    highest = newest;
    return newest;
  }

  private static Seal newer(Seal newest, List<Seal> seals) {
    for (Seal s : seals) {
      if (newest == null || s.number > newest.number) {
        newest = s;
      }
    }
    return newest;
  }

  /** The seal with this hash, from the digests read so far or, failing that, from every digest now. */
  public Seal lookup(String hash) throws IOException {
    Seal s = known.get(hash);
    if (s == null) {
      readAll();
      s = known.get(hash);
    }
    return s;
  }

  /** Reads every digest of the trail now. */
  public void readAll() throws IOException {
    try (DirectoryStream<Path> all = Files.newDirectoryStream(audit.getParent(),
        audit.getFileName() + "*" + TrailNames.DIGEST_SUFFIX)) {
      for (Path d : all) {
        seals(d);
      }
    }
  }

  /** The files beside the audit file, and the seals of each digest, for a failure's message. */
  public String describe() {
    StringBuilder b = new StringBuilder();
    try (DirectoryStream<Path> all = Files.newDirectoryStream(audit.getParent())) {
      for (Path d : all) {
        b.append(d.getFileName()).append(' ').append(Files.size(d));
        if (d.toString().endsWith(TrailNames.DIGEST_SUFFIX)) {
          for (Seal s : seals(d)) {
            b.append(" [").append(s.number).append(' ').append(s.kind).append(" file ").append(s.file).append(']');
          }
        }
        b.append('\n');
      }
    } catch (IOException e) {
      b.append(e);
    }
    return b.toString();
  }

  /** The seals seen so far that were written at {@code millis}. */
  public List<Seal> sealsWrittenAt(long millis) {
    List<Seal> out = new ArrayList<>();
    for (Seal s : known.values()) {
      if (s.timeMillis == millis) {
        out.add(s);
      }
    }
    return out;
  }

  /** The complete seal lines of a digest (none when it is not there now), remembered by hash. */
  private List<Seal> seals(Path digest) throws IOException {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(digest);
    } catch (NoSuchFileException renamedOrNotYet) {
      return new ArrayList<>();
    }
    List<Seal> out = new ArrayList<>();
    int start = 0;
    for (int i = 0; i < bytes.length; i++) {
      if (bytes[i] == '\n') {
        String line = new String(bytes, start, i - start, StandardCharsets.UTF_8);
        start = i + 1;
        Seal s = parsed.get(line);
        if (s == null) {
          s = Seal.parse(line);
          parsed.put(line, s);
          known.put(s.hash(), s);
        }
        out.add(s);
      }
    }
    return out;
  }
}
