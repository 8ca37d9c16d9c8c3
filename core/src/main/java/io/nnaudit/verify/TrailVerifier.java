package io.nnaudit.verify;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import io.nnaudit.seal.SealKey;
import io.nnaudit.trail.InterruptedRotation;

/**
 * Checks a trail (an audit file, its rotated files and their digests) against its seals, oldest file first,
 * seal by seal: each seal's signature, its place in the chain (the previous seal's hash, the file's number,
 * the byte range following the previous one) and the bytes of its range. It stops at the first change and
 * says what kind of change it is and where. Bytes after a file's last seal are reported as unsealed, not as a
 * change, unless the seal before them closed the file or they exceed what a killed run can leave. Records a later
 * start sealed (RECOVER, ADOPT) are listed as sealed late; a start's FOUND seal is a change.
 *
 * <p>The entry point: the trail's files are found by {@link TrailFiles} (an interrupted rotation read as
 * finished), walked by {@link ChainWalk}; {@link SealCheck} checks each seal's place, {@link ChangeClassifier}
 * names a change, {@link StartOfRun} reads a start's seal; a compressed rotated file is read as the bytes it
 * decompresses to ({@link MemberBytes}, {@link StrictGunzip}). Immutable: its keys, anchor and
 * {@code --accept-late}; each call walks one trail with objects of its own.
 */
public final class TrailVerifier {
  /** The keys seals may be signed with, by key id (several after a change of key). */
  private final Map<String, SealKey> keys;
  private final String anchor;
  /** Whether records sealed late are accepted (exit 0, still listed): verify --accept-late. */
  private final boolean acceptLate;
  /** How dated rotated names are recognised. */
  private final RotatedNaming naming;

  /** Checks signatures with {@code key}; {@code anchor}, when not null, is a seal hash the trail must hold. */
  public TrailVerifier(SealKey key, String anchor) {
    this(Collections.singletonList(key), anchor);
  }

  /** Checks signatures with whichever of {@code keys} a seal names (after a change of key, the old and new). */
  public TrailVerifier(List<SealKey> keys, String anchor) {
    this(keys, anchor, false);
  }

  /** As above; {@code acceptLate}: records sealed late count as verified (they are still listed). */
  public TrailVerifier(List<SealKey> keys, String anchor, boolean acceptLate) {
    this(keys, anchor, acceptLate, null);
  }

  /**
   * As above; {@code names}: the pattern of dated rotated names ({@code nnaudit.file.rotated.names}), or null to
   * recognise numbered names and the default dated patterns. An IllegalArgumentException says why a pattern is
   * not one.
   */
  public TrailVerifier(List<SealKey> keys, String anchor, boolean acceptLate, String names) {
    this.naming = names == null ? RotatedNaming.detect() : RotatedNaming.given(names);
    Map<String, SealKey> byId = new LinkedHashMap<>();
    for (SealKey k : keys) {
      byId.put(k.keyId(), k);
    }
    this.keys = Collections.unmodifiableMap(byId);
    this.anchor = anchor;
    this.acceptLate = acceptLate;
  }

  /** The trails in {@code dir}: the live path of every audit file that has a digest there, sorted. */
  public static List<Path> trailsIn(Path dir) throws IOException {
    return TrailFiles.trailsIn(dir);
  }

  /** As {@link #trailsIn(Path)}, with dated rotated names recognised as this verifier recognises them. */
  public List<Path> trailsOf(Path dir) throws IOException {
    return TrailFiles.trailsIn(dir, naming);
  }

  /** Checks the trail whose live file is {@code live}. */
  public VerifyReport verify(Path live) throws IOException {
    VerifyReport r = new VerifyReport(live, acceptLate);
    TrailFiles files = TrailFiles.of(live, naming);
    if (!files.renames().isEmpty()) {
      r.notes.add("a rotation is half done (under way, or the NameNode was killed while rotating): the files are "
          + "read as it leaves them, as the rotation, or the next start, finishes it: " + files.renames());
    }
    for (InterruptedRotation.Rename rename : files.renames()) {
      r.accounted.add(rename.from.toAbsolutePath()); // read under the name the rotation gives it
    }
    for (Path c : files.compressing()) {
      // Not read: the rotated file it is made from is, under its own name. But nothing seals it, so whatever it
      // holds is not verified, and a trail with one does not verify as a whole (exit 2, not 0): verify again once
      // the compression has finished, or after the next start, which deletes one a kill left.
      r.accounted.add(c);
      r.unsealed.add(new Problem(Problem.Kind.UNSEALED_FILE, c, -1, -1, "a rotated file being compressed, or left "
          + "by a kill while it was (the next start deletes it): not read, and so not verified; the file it is made "
          + "from is read under its own name", -1));
    }
    new ChainWalk(files, live, keys, anchor).walk(r);
    return r;
  }
}
