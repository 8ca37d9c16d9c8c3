package io.nnaudit.verify;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.Map;

import io.nnaudit.seal.Seal;
import io.nnaudit.seal.SealKey;
import io.nnaudit.trail.TrailNames;

/**
 * Naming files and digests of a trail that were renamed or swapped: a file is named by what it holds, its first
 * sealed range, which another digest of the trail may seal. Stateless apart from the trail and its keys; reads
 * the files again on each call.
 */
final class SwappedFiles {
  private final TrailFiles files;
  /** The keys seals may be signed with, by key id. */
  private final Map<String, SealKey> keys;

  SwappedFiles(TrailFiles files, Map<String, SealKey> keys) {
    this.files = files;
    this.keys = keys;
  }

  /**
   * The first seal of file {@code f} does not follow the file before it: were files renamed or swapped, or only
   * their digests? The file is named by what it holds: if its bytes are another digest's first sealed range, the
   * digests were swapped (the digest is named); if its seals are right for it but another file of the trail is
   * the one that follows {@code before}, the files were renamed or swapped (the file is named). Null otherwise.
   */
  Problem misplaced(FileChannel ch, long size, Seal first, Seal before, Path f, Path d) throws IOException {
    Seal own = DigestReader.firstSeal(files.at(d), true);
    if (own != null && !(own.to <= size && AuditBytes.matches(AuditBytes.digestOf(ch, own.from, own.to), own))) {
      int other = whoseFirstRange(ch, size, f);
      return other < 0 ? null : new Problem(Problem.Kind.FILES_OUT_OF_ORDER, d, -1, 1, "it holds the seals of "
          + "file " + own.file + " of the trail, but " + f.getFileName() + " holds what "
          + TrailNames.digest(files.file(other)).getFileName() + " seals: digests were renamed or swapped", -1);
    }
    for (int i : files.indices()) {
      if (files.isFileOf(i, f)) {
        continue;
      }
      Seal theirs = DigestReader.firstSeal(files.at(TrailNames.digest(files.file(i))), false);
      if (theirs != null && theirs.trail.equals(first.trail) && theirs.file == before.file + 1) {
        return new Problem(Problem.Kind.FILES_OUT_OF_ORDER, f, 0, 1, "it is file " + first.file + " of the trail, "
            + "but follows file " + before.file + ", and file " + theirs.file + " is " + files.name(i).getFileName()
            + ": files were renamed or swapped", -1);
      }
    }
    return null;
  }

  /**
   * The file's first sealed bytes differ: if they are the first sealed range of another file of the trail,
   * the files were swapped or renamed. Null otherwise.
   */
  Problem identify(FileChannel ch, long size, Path f) throws IOException {
    int other = whoseFirstRange(ch, size, f);
    return other < 0 ? null : new Problem(Problem.Kind.FILES_OUT_OF_ORDER, f, 0, 1, "it holds the records "
        + "sealed for " + files.name(other).getFileName() + " (file "
        + DigestReader.firstSeal(files.at(TrailNames.digest(files.file(other))), true).file
        + " of the trail): files were renamed or swapped", -1);
  }

  /**
   * The index of the other file of the trail whose first sealed range the first bytes of {@code f} (plain or
   * compressed) are, or -1.
   */
  private int whoseFirstRange(FileChannel ch, long size, Path f) throws IOException {
    for (int i : files.indices()) {
      if (files.isFileOf(i, f)) {
        continue;
      }
      Seal first = DigestReader.firstSeal(files.at(TrailNames.digest(files.file(i))), true);
      SealKey key = first == null ? null : keys.get(first.keyId);
      if (key != null && first.to <= size && first.signatureValid(key)
          && AuditBytes.matches(AuditBytes.digestOf(ch, 0, first.to), first)) {
        return i;
      }
    }
    return -1;
  }
}
