package io.nnaudit.verify;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.Map;

import io.nnaudit.seal.Seal;
import io.nnaudit.seal.SealKey;

/**
 * A seal's signature and its place in the chain: signed by a given key, of the trail most files name, chained to
 * the seal before it (in its file, or the last of the file before), numbering its file after the one before, its
 * range following the one before. Where a file's first seal does not follow the file before, it names what was
 * done: files missing, files or digests renamed or swapped ({@link SwappedFiles}), a file of another trail.
 * Stateless apart from the keys; the chain it is given is its caller's.
 */
final class SealCheck {
  /** The keys seals may be signed with, by key id (several after a change of key). */
  private final Map<String, SealKey> keys;
  private final SwappedFiles swapped;

  SealCheck(Map<String, SealKey> keys, SwappedFiles swapped) {
    this.keys = keys;
    this.swapped = swapped;
  }

  /**
   * Signature and place in the chain of {@code s}, the next seal of file {@code f} (digest {@code d}, at line
   * {@code digestLine}) after {@code prevInFile} (null for the file's first); {@code olderName} is the name of
   * the file before {@code f}. Clears the chain's {@link ChainSoFar#skipped} once the signature holds. Null when
   * both are right.
   */
  Problem check(ChainSoFar chain, Seal prevInFile, Seal s, Path f, Path d, int digestLine,
      Path olderName, FileChannel ch, long size) throws IOException {
    SealKey key = keys.get(s.keyId);
    if (key == null || !s.algorithm.equals(key.algorithm())) {
      return new Problem(Problem.Kind.BAD_SIGNATURE, d, -1, digestLine, "seal " + s.number + " is signed by key "
          + s.keyId + " (" + s.algorithm + "), " + (keys.size() == 1 ? "not by the given key " + keys.keySet()
          + " (if the sealing key was changed, give each key's certificate)" : "not by any given key "
          + keys.keySet()), -1);
    }
    if (!s.signatureValid(key)) {
      return new Problem(Problem.Kind.BAD_SIGNATURE, d, -1, digestLine, "seal " + s.number + " does not match its "
          + "signature: the seal was changed after it was signed", -1);
    }
    Seal before = chain.last;
    boolean firstOfFile = prevInFile == null;
    if (chain.skipped) { // files written while sealing was off come between: the seal numbers them past those
      chain.skipped = false;
      before = null;
    }
    if (chain.trail != null && !s.trail.equals(chain.trail)) {
      return new Problem(Problem.Kind.FOREIGN_FILE, f, 0, 1, "its seals belong to trail " + s.trail + ", most of "
          + "the files' to trail " + chain.trail, -1);
    }
    if (before != null && !s.prev.equals(before.hash())) {
      return notFollowing(s, before, firstOfFile, f, d, digestLine, olderName, ch, size);
    }
    if (!firstOfFile) {
      if (!s.trail.equals(prevInFile.trail) || s.file != prevInFile.file || s.from != prevInFile.to) {
        return new Problem(Problem.Kind.SEAL_ALTERED, d, -1, digestLine, "seal " + s.number + " does not continue "
            + "the file's seals (file " + s.file + " bytes " + s.from + "-, after file " + prevInFile.file
            + " bytes -" + prevInFile.to + ")", -1);
      }
    } else if (s.from != 0) {
      return new Problem(Problem.Kind.SEAL_ALTERED, d, -1, digestLine, "the file's first seal starts at byte "
          + s.from, -1);
    }
    return null;
  }

  /** {@code s} does not chain to {@code before}, the last seal that verified: what was done. */
  private Problem notFollowing(Seal s, Seal before, boolean firstOfFile, Path f, Path d, int digestLine,
      Path olderName, FileChannel ch, long size) throws IOException {
    if (!firstOfFile) {
      return new Problem(Problem.Kind.SEAL_ALTERED, d, -1, digestLine, "seal " + s.number + " does not follow "
          + "seal " + before.number + " before it: a seal between them was removed, or one was replaced", -1);
    }
    if (!s.trail.equals(before.trail)) {
      return new Problem(Problem.Kind.FOREIGN_FILE, f, 0, 1, "its seals belong to trail " + s.trail + ", the files "
          + "before it to trail " + before.trail, -1);
    }
    Problem misplaced = swapped.misplaced(ch, size, s, before, f, d);
    if (misplaced != null) {
      return misplaced;
    }
    if (s.file > before.file + 1) {
      return new Problem(Problem.Kind.FILE_MISSING, olderName, -1, -1, (s.file - before.file - 1) + " file(s) of "
          + "the trail are missing before " + f.getFileName() + " (file " + s.file + " of the trail; the file "
          + "before it here is file " + before.file + ")", -1);
    }
    if (s.file <= before.file) {
      return new Problem(Problem.Kind.FILES_OUT_OF_ORDER, f, -1, -1, "it is file " + s.file + " of the trail, but "
          + "comes after file " + before.file, -1);
    }
    return new Problem(Problem.Kind.SEAL_ALTERED, d, -1, digestLine, "its first seal does not follow the last "
        + "seal of the file before it", -1);
  }
}
