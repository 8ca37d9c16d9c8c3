package io.nnaudit.kafka;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends the seals of the audit file being read, from its digest ({@code <file>.seals}), each once the record that
 * ends where its range ends is sent (one of an empty range first), so that the chain of seals leaves the host
 * with the records. The digest is read after the file at each pass, through a channel that follows it through
 * rotation's renames ({@link DigestFollower}); the sink's sealing thread writes a seal a moment after the bytes
 * it covers, so a seal may come a pass later (a poll interval later, when the shipper has caught up with the
 * writer), after later records, and a file's seals are all there once it is
 * rotated (rotation waits for its last seal). A seal's acknowledgement moves nothing: a rewind or a restart
 * sends every seal of the file it resumes in again (duplicates share an identity). A seal refused by the broker
 * as such is given up with a gap record. Per read: an fstat of the digest; without sealing, nothing.
 *
 * <p>Design note. Used by the shipper's thread only (it is called from {@link TrailReader} and at a rewind, both
 * on that thread); it blocks that thread on the disk and, through {@link OrderedSender}, in {@code send}. Nothing
 * here is read by another thread. Logs as {@link KafkaShipper}, the shipper's one logger name.
 */
final class SealForwarder {
  private static final Logger LOG = LoggerFactory.getLogger(KafkaShipper.class);
  /** The digest of the file being read was not looked for since the file was opened. */
  private static final int LOOK_NEVER = 0;
  /** It was not there while the file was live: looked for again while new records come. */
  private static final int LOOK_LIVE = 1;
  /** It was not there once the file was no longer written: it will not come. */
  private static final int LOOK_DONE = 2;

  private final File file;
  private final SpoolDirectory dir;
  /** Whether this NameNode seals its audit files: a live file's digest may come after the file. */
  private final boolean sealing;
  private final OrderedSender sender;
  private final Acknowledgements acks;
  private final GapLedger gaps;
  /** The seals of the file being read, from its digest (none when the file is not sealed). */
  private final DigestFollower seals;
  /** Seals of the file being read that end before this byte were shipped before it was opened. */
  private long sealsFrom;
  /** How far the digest of the file being read was looked for while it was not found: {@link #follow}. */
  private int digestLook = LOOK_NEVER;
  /** The owner of the file being read: only a digest of the same owner is one to wait for. */
  private int readUid = SpoolFile.ANYONE;
  /** Where a seal the broker refused as such ends ({@link ShipPosition#global}): given up when it comes again. */
  private long refusedSealAt = -1;

  SealForwarder(File file, SpoolDirectory dir, boolean sealing, OrderedSender sender, Acknowledgements acks,
      GapLedger gaps, StopSignal stop) {
    this.seals = new DigestFollower(stop);
    this.file = file;
    this.dir = dir;
    this.sealing = sealing;
    this.sender = sender;
    this.acks = acks;
    this.gaps = gaps;
  }

  /**
   * A file of the user {@code uid} was opened: every seal of it is sent again. The sealing thread writes a seal a
   * moment after its bytes, so one ending before the position read from may never have been sent (duplicates are
   * dropped by identity).
   */
  void fileOpened(int uid) {
    seals.close();
    readUid = uid;
    sealsFrom = 0;
    digestLook = LOOK_NEVER;
  }

  void close() {
    seals.close();
  }

  /** At a rewind: the seal the broker refused as such ends at {@code sealAt} (-1: none was). */
  void refused(long sealAt) {
    if (sealAt >= 0) {
      refusedSealAt = sealAt;
    }
  }

  /**
   * Whether a seal may wait to be sent: one held that ends by {@code upTo}, digest lines not yet looked at, or,
   * for a sealed live file whose digest was not there when looked for, a digest at its name now (a file opened
   * between its rotation and its first seal; a stop looks for it at each pass, see {@link #follow}). A file there
   * that is not one the shipper would read (another user's, a link, a FIFO) is no digest still to come: were it,
   * a stop would wait its whole time for a seal that cannot be sent.
   */
  boolean waiting(long upTo) throws IOException {
    if (seals.waiting(upTo)) {
      return true;
    }
    return sealing && !seals.isOpen() && (digestLook == LOOK_NEVER
        || digestLook == LOOK_LIVE && dir.liveDigestReadable(readUid));
  }

  /**
   * Reads the seals written to the digest of the file being read (at {@code read}) since the last look, opening
   * the digest first if it is not open and may have come. Called after the file was read; a seal written since
   * is read at the next pass. Returns false when rotations kept renaming the files (nothing is sent then, so
   * that no seal is passed over).
   *
   * <p>The digest is looked for when the file is opened, then, while it is not found, each time the live file
   * has new records ({@code newBytes}, which a stop sets at each pass) and a digest it may read is at its name
   * (the first seal of a new file is written just after the file; not while this NameNode does not seal), and
   * once the file is no longer written; then no more. A sealed live file whose digest is not found costs an
   * lstat per read.
   */
  boolean follow(ShipPosition read, boolean finished, boolean newBytes) throws IOException {
    if (!seals.isOpen() && digestLook != LOOK_DONE && (digestLook == LOOK_NEVER || finished
        || newBytes && sealing && dir.liveDigestReadable(readUid))) {
      SpoolDirectory.DigestLookup d = dir.openDigest(read.fileKey);
      if (!d.settled) {
        return false;
      }
      if (d.channel != null) {
        String fileKey = read.fileKey;
        String digestKey = d.key;
        seals.open(d.channel, sealsFrom, () -> dir.reopenDigest(fileKey, digestKey));
      } else {
        digestLook = finished ? LOOK_DONE : LOOK_LIVE;
      }
    }
    seals.fill();
    return true;
  }

  /**
   * Sends the seals that end at or before {@code read}, in the order of the digest. Returns how many, or -1 when
   * the first was refused (it is tried again from the same place).
   */
  int send(ShipPosition read) throws IOException {
    int sent = 0;
    DigestFollower.PendingSeal s;
    while ((s = seals.peek()) != null && s.to <= read.offset) {
      long at = ShipPosition.global(read.fileSeq, s.to);
      if (at == refusedSealAt) { // refused by the broker as such: sending it again would refuse it again
        refusedSealAt = -1;
        seals.remove();
        gaps.note("the seal ending at byte " + s.to + " of file " + read.fileSeq + " was refused by the broker; it "
            + "is not shipped: " + new String(s.line, StandardCharsets.UTF_8), read);
        return sent + 1; // dealt with: its gap record goes next
      }
      if (!sender.sendSeal(sender.headers(ShipHeaders.SEAL, read.fileSeq, s.to), s.line, read, at)) {
        return sent > 0 ? sent : -1;
      }
      seals.remove();
      sent++;
      if (acks.isBroken()) {
        break;
      }
    }
    return sent;
  }

  /**
   * Where the first seal held ends in the file being read (it may end before the position read, if not sent
   * yet), or {@code Long.MAX_VALUE} when none is held: lines sent together in one record end there at most.
   */
  long nextSealEnd() throws IOException {
    DigestFollower.PendingSeal s = seals.peek();
    return s == null ? Long.MAX_VALUE : s.to;
  }

  /** The file {@code read} is in ended there: seals held cover bytes past its end, and are not shipped. */
  void dropPastEnd(ShipPosition read) {
    if (seals.held() > 0) { // each seal ends where a record does: these end past the file's end
      LOG.warn("nnaudit: shipping {}: {} seals of the audit file {} cover bytes past its end ({} bytes); they are not "
          + "shipped (nnaudit verify reports the file as cut short)", file, seals.held(), read.fileSeq, read.offset);
      seals.close();
    }
  }
}
