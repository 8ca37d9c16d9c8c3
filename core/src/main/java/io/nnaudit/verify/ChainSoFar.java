package io.nnaudit.verify;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import io.nnaudit.seal.Seal;

/** What the walk along one trail's seal chain has seen so far. Not thread-safe: owned by its {@link ChainWalk}. */
final class ChainSoFar {
  /** The trail of the newest file: null when no digest had a seal. */
  final String trail;
  /** A seal hash the trail must hold (verify --anchor), or null. */
  private final String anchor;
  Seal first;
  Seal last;
  /** The index of the oldest sealed file here. */
  int firstIndex = -1;
  /** Files without a digest since the last sealed one, oldest first. */
  final List<Path> unsealed = new ArrayList<>();
  /** The next seal follows files written while sealing was off, which its signature vouches for. */
  boolean skipped;
  boolean anchorSeen;

  ChainSoFar(String trail, String anchor) {
    this.trail = trail;
    this.anchor = anchor;
  }

  /**
   * The walk so far, as a copy another walk of the same file can go on from without changing this one: the
   * second copy of a file that is there both plain and compressed is checked against the same seals.
   */
  ChainSoFar copy() {
    ChainSoFar c = new ChainSoFar(trail, anchor);
    c.first = first;
    c.last = last;
    c.firstIndex = firstIndex;
    c.unsealed.addAll(unsealed);
    c.skipped = skipped;
    c.anchorSeen = anchorSeen;
    return c;
  }

  /** {@code s} verified: it is now the last seal of the chain. */
  void add(Seal s) {
    if (first == null) {
      first = s;
    }
    last = s;
    if (anchor != null && anchor.equalsIgnoreCase(s.hash())) {
      anchorSeen = true;
    }
  }
}
