package io.nnaudit.pipeline;

/**
 * What {@code Hadoop:service=NameNode,name=NnauditSeal} shows in the NameNode's {@code /jmx}: the latest seal of
 * a sealed audit file, read when asked (see {@link SealAnchor}).
 */
public interface SealAnchorMBean {
  /** The audit file whose trail this is. */
  String getAuditFile();

  /** SHA-256 of the latest seal's line (hex), empty before the first: the hash for {@code verify --anchor}. */
  String getLatestSealHash();

  /** The latest seal's time as its line writes it ({@code time=}, UTC), empty before the first. */
  String getLatestSealTime();

  /** The latest seal's time in ms since the epoch, 0 before the first. */
  long getLatestSealMillis();

  /** Milliseconds since the latest seal was written, at this read; -1 before the first. */
  long getMillisSinceLastSeal();

  /** Seals written since start-up. */
  long getSealsWritten();

  /** Seals that could not be signed or written since start-up. */
  long getSealFailures();
}
