package io.nnaudit.seal;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A start's seal: picks up the chain where the live file's digest left it, or, for a file without seals, where
 * the newest rotated file with a digest did, and writes the one seal that says what the start found (see
 * {@link Sealer#resume}). Used once, by the thread that opens the sink, before the sealing thread starts.
 */
final class StartSeal {
  private static final Logger LOG = LoggerFactory.getLogger(Sealer.class);

  private final Sealer sealer;
  private final SealChain chain;
  private final DigestWriter digest;
  private final SealKey key;

  StartSeal(Sealer sealer, SealChain chain, DigestWriter digest, SealKey key) {
    this.sealer = sealer;
    this.chain = chain;
    this.digest = digest;
    this.key = key;
  }

  /** See {@link Sealer#resume}; the digest is open. */
  void resume(Path auditPath, long size, Seal newestBackupSeal, int newestBackupIndex, boolean rotationFinished)
      throws IOException {
    Seal last;
    try {
      last = DigestFile.lastCompleteSeal(digest.path());
    } catch (IllegalArgumentException e) {
      LOG.error("nnaudit: the last line of the digest of {} is not a seal ({}); the digest is kept as evidence, "
          + "and the file as found is recorded in a new chain (verify reports the trail as changed)", auditPath,
          e.getMessage());
      chain.newChain();
      digest.endLastLine();
      sealer.sealFound(auditPath, 0, size);
      return;
    }
    if (last != null && last.keyId.equals(key.keyId()) && !last.signatureValid(key)) {
      LOG.error("nnaudit: the last seal of the digest of {} does not match its signature (it was changed); the "
          + "digest is kept as evidence, and the file as found is recorded in a new chain (verify reports the "
          + "trail as changed)", auditPath);
      chain.newChain();
      sealer.sealFound(auditPath, 0, size);
      return;
    }
    if (last != null) {
      resumeAfter(last, auditPath, size);
      return;
    }
    if (newestBackupSeal != null) {
      // the rotated files after that one (none, unless sealing was off meanwhile) keep their numbers: verify
      // takes them for files written unsealed, which this signed seal vouches for
      chain.continueAfter(newestBackupSeal, newestBackupSeal.file + newestBackupIndex);
    } else {
      chain.newChain();
    }
    chain.restartAt(0);
    if (size > 0) {
      sealer.hashFromFile(auditPath, size);
      LOG.info("nnaudit: {} has no seals; sealing its {} records as they are (verify reports them as sealed "
          + "late)", auditPath, chain.unsealedRecords());
    }
    // a file the chain already had (it follows a rotated file's last seal) but without a seal: even empty, it is
    // not the rotation's own new file, which the rotation's OPEN seal would have begun (verify says so)
    chain.owe(size > 0 || newestBackupSeal != null && !rotationFinished ? Seal.Kind.ADOPT : Seal.Kind.OPEN);
    sealer.sealOwed();
  }

  /** The live file has seals, the last of them {@code last}: RESUME, RECOVER or FOUND. */
  private void resumeAfter(Seal last, Path auditPath, long size) throws IOException {
    chain.continueAfter(last, last.file);
    if (!holds(auditPath, size, last)) {
      LOG.error("nnaudit: {} does not hold the bytes its digest's last seal covers (it was changed or cut while "
          + "the NameNode was down, or lost bytes in a power cut with durability none); the digest is kept as "
          + "evidence, the file as found is recorded (verify reports the trail as changed)", auditPath);
      sealer.sealFound(auditPath, 0, size);
      return;
    }
    chain.restartAt(last.to);
    if (size == last.to) {
      chain.owe(Seal.Kind.RESUME);
      sealer.sealOwed();
      return;
    }
    if (last.kind == Seal.Kind.CLOSE) {
      LOG.error("nnaudit: {} holds {} bytes after its close seal: nothing writes there after a close; the bytes "
          + "are recorded as found (verify reports them as inserted)", auditPath, size - last.to);
      sealer.sealFound(auditPath, last.to, size);
      return;
    }
    long allowed = crashTailEnd(auditPath, last, size);
    sealer.hashFromFile(auditPath, allowed);
    LOG.warn("nnaudit: {} holds {} records ({} bytes) after its last seal (the NameNode was killed?); sealing "
        + "them now as recovered", auditPath, chain.unsealedRecords(), allowed - last.to);
    chain.owe(Seal.Kind.RECOVER);
    if (allowed >= size) {
      sealer.sealOwed();
      return;
    }
    LOG.error("nnaudit: {} holds {} bytes after its last seal beyond what a killed run can leave unsealed "
        + "({} records, then {} bytes); they are recorded as found (verify reports them as inserted)",
        auditPath, size - allowed, last.tailRecords, last.tailBytes);
    try {
      // the RECOVER allows no tail: a kill before the FOUND seal must not let the next start recover more
      sealer.sealNow(Seal.Kind.RECOVER, false);
    } catch (IOException e) { // fail-open or not: what is left is owed, all of it as found
      chain.owe(Seal.Kind.FOUND);
      sealer.hashFromFile(auditPath, size);
      return;
    }
    sealer.sealFound(auditPath, allowed, size);
  }

  /**
   * Where the tail a killed run may have left after {@code last} ends in the file: after at most
   * {@code last.tailRecords} records, then at most {@code last.tailBytes} bytes more, at a record's end (or the
   * file's end).
   */
  private static long crashTailEnd(Path file, Seal last, long size) throws IOException {
    if (last.tailRecords == Seal.UNBOUNDED) {
      return size;
    }
    try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      return CrashTail.end(in, last, size);
    }
  }

  /** Whether the file holds the range {@code last} covers, as it was sealed. */
  private static boolean holds(Path file, long size, Seal last) throws IOException {
    if (size < last.to) {
      return false;
    }
    SegmentDigest d = new SegmentDigest();
    try (FileChannel in = FileChannel.open(file, StandardOpenOption.READ, LinkOption.NOFOLLOW_LINKS)) {
      if (d.update(in, last.from, last.to) < last.to) {
        return false;
      }
    }
    return d.records() == last.records && Seal.hex(d.peekSha256()).equals(last.sha256);
  }
}
