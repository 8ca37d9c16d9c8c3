package io.nnaudit.verify;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

import io.nnaudit.trail.DatedNames;
import io.nnaudit.trail.TrailNames;

/**
 * How verify tells which names a trail's rotated files have, having no NameNode settings to read: numbered
 * ({@code file.1}), or dated by the pattern {@code --names} gives, or else by whichever of the patterns
 * {@code nnaudit.file.rotated.names=dated} and DailyRollingFileAppender's style write places the most of the
 * files there ({@link #DEFAULT_PATTERNS}). Dates are read in UTC: the zone changes no order between periods, and
 * within the hour a daylight-saving change repeats the sequence orders the files. Immutable.
 */
final class RotatedNaming {
  /** The patterns looked for when none is given: dated by day and by hour, and the same without a sequence. */
  static final List<String> DEFAULT_PATTERNS = Collections.unmodifiableList(Arrays.asList(DatedNames.DAILY_PATTERN,
      DatedNames.HOURLY_PATTERN, ".%d{yyyy-MM-dd}", ".%d{yyyy-MM-dd-HH}"));
  private static final ZoneId UTC = ZoneId.of("UTC");

  private final List<DatedNames> candidates;

  private RotatedNaming(List<DatedNames> candidates) {
    this.candidates = candidates;
  }

  /** The default patterns (each checked once, when first used). */
  static RotatedNaming detect() {
    return Defaults.NAMING;
  }

  /** Made on first use: checking a pattern formats and reads back a year of its periods. */
  private static final class Defaults {
    static final RotatedNaming NAMING;

    static {
      List<DatedNames> c = new ArrayList<>();
      for (String p : DEFAULT_PATTERNS) {
        c.add(of(p));
      }
      NAMING = new RotatedNaming(c);
    }
  }

  /** Only {@code pattern} (as {@code nnaudit.file.rotated.names} sets it); an IllegalArgumentException says why not. */
  static RotatedNaming given(String pattern) {
    return new RotatedNaming(Collections.singletonList(of(pattern)));
  }

  /** By hours when the pattern tells hours apart, else by days. */
  private static DatedNames of(String pattern) {
    try {
      return new DatedNames(pattern, true, UTC);
    } catch (IllegalArgumentException notHours) {
      return new DatedNames(pattern, false, UTC);
    }
  }

  /** The live file's name of a rotated file's (or its digest's) name, by the dated patterns; null if none. */
  String liveNameOf(String auditFileName) {
    String plain = TrailNames.uncompressed(auditFileName);
    for (DatedNames d : candidates) {
      String live = d.liveNameOf(plain);
      if (live != null) {
        return live;
      }
    }
    return null;
  }

  /** The pattern that places the most names beside {@code live} (files, .gz files, digests); null: numbered. */
  DatedNames of(Path live) throws IOException {
    String liveName = live.getFileName().toString();
    List<String> names = new ArrayList<>();
    try (DirectoryStream<Path> ds = Files.newDirectoryStream(live.toAbsolutePath().getParent())) {
      for (Path p : ds) {
        names.add(TrailNames.memberOf(p.getFileName().toString()));
      }
    }
    DatedNames best = null;
    int most = 0;
    for (DatedNames d : candidates) {
      int placed = 0;
      for (String n : names) {
        placed += d.place(liveName, n) != null ? 1 : 0;
      }
      if (placed > most) {
        most = placed;
        best = d;
      }
    }
    return best;
  }
}
