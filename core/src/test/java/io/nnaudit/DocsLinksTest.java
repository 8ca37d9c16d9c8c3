package io.nnaudit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every relative link of the documentation leads somewhere: the file it names exists (relative to the page that
 * links), and the heading its {@code #anchor} names exists in that file, as GitHub makes anchors from headings.
 * The pages: README.md, docs/*.md, benchmarks/RESULTS.md and every benchmarks/experiments/NAME/NOTES.md. Links
 * to http(s) and mailto are not followed. Also keeps the README short enough to read through.
 */
class DocsLinksTest {
  private static final int README_MAX_LINES = 300;
  private static final int DOCS_MIN_PAGES = 5;

  /** {@code [text](target)} and {@code ![alt](target)}, with an optional title after the target. */
  private static final Pattern LINK = Pattern.compile("\\[[^\\]]*\\]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\s*\\)");
  private static final Pattern HEADING = Pattern.compile("^ {0,3}(#{1,6})\\s+(.*?)(?:\\s+#+)?\\s*$");
  private static final Pattern FENCE = Pattern.compile("^ {0,3}(```|~~~)");
  private static final Pattern CODE_SPAN = Pattern.compile("`+[^`]*`+");
  /** What GitHub drops from a heading's text to make its anchor: all but letters, marks, digits, _ , space, -. */
  private static final Pattern NOT_IN_SLUG = Pattern.compile("[^\\p{L}\\p{M}\\p{N}\\p{Pc} \\-]");

  private final Path root = RepoRoot.get();
  private final Map<Path, Set<String>> anchorsByFile = new HashMap<>();

  @Test
  void everyRelativeLinkAndAnchorExists() throws IOException {
    List<String> broken = new ArrayList<>();
    int links = 0;
    for (Path page : pages()) {
      List<String> lines = Files.readAllLines(page, StandardCharsets.UTF_8);
      boolean inFence = false;
      for (int i = 0; i < lines.size(); i++) {
        String line = lines.get(i);
        if (FENCE.matcher(line).find()) {
          inFence = !inFence;
          continue;
        }
        if (inFence) {
          continue;
        }
        Matcher m = LINK.matcher(CODE_SPAN.matcher(line).replaceAll(""));
        while (m.find()) {
          String target = m.group(1);
          if (target.matches("(?i)(https?|mailto):.*")) {
            continue;
          }
          links++;
          String problem = check(page, target);
          if (problem != null) {
            broken.add(root.relativize(page) + ":" + (i + 1) + ": " + target + ": " + problem);
          }
        }
      }
    }
    assertTrue(links > 0, "no relative link found: is the repository root " + root + "?");
    assertEquals(new ArrayList<String>(), broken, "broken links");
  }

  @Test
  void theReadmeStaysShortAndThePagesAreInDocs() throws IOException {
    int lines = Files.readAllLines(root.resolve("README.md"), StandardCharsets.UTF_8).size();
    assertTrue(lines <= README_MAX_LINES, "README.md has " + lines + " lines, more than " + README_MAX_LINES);
    assertTrue(mdFiles(root.resolve("docs")).size() >= DOCS_MIN_PAGES,
        "docs/ has fewer than " + DOCS_MIN_PAGES + " pages: " + mdFiles(root.resolve("docs")));
  }

  @Test
  void theReadmeKeepsTheHeadingThatCiNames() throws IOException {
    // .ci/run runs 'the test command given in README.md ("Run the tests")'.
    assertTrue(anchors(root.resolve("README.md")).contains("run-the-tests"),
        "README.md has no heading \"Run the tests\", which .ci/run and dev-support/bin/test name");
  }

  @Test
  void slugsAreGitHubs() {
    assertEquals("5-group-commit-durabilitysync-at-64-threads",
        slug("5. Group commit: durability=sync at 64 threads"));
    assertEquals("sealed-audit-files-evidence-that-nobody-changed-the-trail",
        slug("Sealed audit files: evidence that nobody changed the trail"));
    assertEquals("the-writers-drain-capacity-against-the-disk", slug("The writer's drain capacity against the disk"));
    assertEquals("a-minimal-hdfs-sitexml", slug("A minimal `hdfs-site.xml`"));
    assertEquals("see-the-page", slug("See [the page](other.md#x)"));
    assertEquals("snake_case--twice", slug("snake_case  twice"));
  }

  @Test
  void duplicateHeadingsAreNumberedAsGitHubNumbersThem(@TempDir Path dir) throws IOException {
    Path md = dir.resolve("page.md");
    Files.write(md, String.join("\n", "# Metrics", "## Metrics", "```", "## Metrics", "```", "### Metrics",
        "## Metrics-1 ##", "## Other").getBytes(StandardCharsets.UTF_8));
    assertEquals(new ArrayList<>(List.of("metrics", "metrics-1", "metrics-2", "metrics-1-1", "other")),
        new ArrayList<>(anchors(md)));
  }

  /** Why the target is broken, or null when it is not. */
  private String check(Path page, String target) {
    int hash = target.indexOf('#');
    String file = hash < 0 ? target : target.substring(0, hash);
    String anchor = hash < 0 ? null : target.substring(hash + 1);
    if (file.startsWith("/")) {
      return "not relative";
    }
    Path to = file.isEmpty() ? page : page.getParent().resolve(file.replace("%20", " ")).normalize();
    if (!to.startsWith(root)) {
      return "outside the repository";
    }
    if (!Files.exists(to)) {
      return "no such file " + root.relativize(to);
    }
    if (anchor == null) {
      return null;
    }
    if (!to.getFileName().toString().endsWith(".md")) {
      return "an anchor into a file that is not markdown";
    }
    Set<String> anchors = anchors(to);
    return anchors.contains(anchor) ? null : "no heading with the anchor #" + anchor + " in " + root.relativize(to);
  }

  /** The anchors of a page's headings, numbered -1, -2, ... after the first where two headings give the same. */
  private Set<String> anchors(Path md) {
    return anchorsByFile.computeIfAbsent(md, p -> {
      Set<String> anchors = new LinkedHashSet<>();
      Map<String, Integer> seen = new HashMap<>();
      boolean inFence = false;
      List<String> lines;
      try {
        lines = Files.readAllLines(p, StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      for (String line : lines) {
        if (FENCE.matcher(line).find()) {
          inFence = !inFence;
          continue;
        }
        Matcher h = HEADING.matcher(line);
        if (inFence || !h.matches()) {
          continue;
        }
        // as github-slugger numbers them: the first "a", then "a-1", "a-2", skipping any anchor already taken
        String base = slug(h.group(2));
        String anchor = base;
        while (seen.containsKey(anchor)) {
          int n = seen.merge(base, 1, Integer::sum);
          anchor = base + "-" + n;
        }
        seen.put(anchor, 0);
        anchors.add(anchor);
      }
      return anchors;
    });
  }

  /** GitHub's anchor for a heading: its text as shown (links by their text), lower case, punctuation dropped. */
  static String slug(String heading) {
    String text = heading.replaceAll("!?\\[([^\\]]*)\\]\\([^)]*\\)", "$1").replaceAll("<[^>]+>", "");
    return NOT_IN_SLUG.matcher(text.trim().toLowerCase(Locale.ROOT)).replaceAll("").replace(' ', '-');
  }

  private List<Path> pages() throws IOException {
    List<Path> pages = new ArrayList<>();
    pages.add(root.resolve("README.md"));
    pages.addAll(mdFiles(root.resolve("docs")));
    pages.add(root.resolve("benchmarks/RESULTS.md"));
    try (DirectoryStream<Path> experiments = Files.newDirectoryStream(root.resolve("benchmarks/experiments"))) {
      Set<Path> notes = new TreeSet<>();
      for (Path e : experiments) {
        if (Files.isRegularFile(e.resolve("NOTES.md"))) {
          notes.add(e.resolve("NOTES.md"));
        }
      }
      pages.addAll(notes);
    }
    for (Path p : pages) {
      assertTrue(Files.isRegularFile(p), "missing page " + p);
    }
    return pages;
  }

  private static List<Path> mdFiles(Path dir) throws IOException {
    Set<Path> files = new TreeSet<>();
    try (DirectoryStream<Path> s = Files.newDirectoryStream(dir, "*.md")) {
      for (Path p : s) {
        files.add(p);
      }
    }
    return new ArrayList<>(files);
  }
}
