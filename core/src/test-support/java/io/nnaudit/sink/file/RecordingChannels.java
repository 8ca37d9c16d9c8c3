package io.nnaudit.sink.file;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Opens real channels and wraps each in a {@link Recorded} that notes its fsyncs and its close, in order; an
 * fsync can be made to fail as a broken disk's would.
 */
final class RecordingChannels implements ChannelFactory {
  public final List<Recorded> opened = new CopyOnWriteArrayList<>();
  public volatile boolean failForce;
  /** When not negative: the next write puts only this many bytes in the file, then fails as a full disk does. */
  public volatile int failWriteAfter = -1;
  /** Writes that go through whole before {@link #failWriteAfter} takes effect. */
  public volatile int failWriteAfterWrites;

  @Override
  public FileChannel open(Path path, Set<? extends OpenOption> options, FileAttribute<?>... attrs)
      throws IOException {
    Recorded r = new Recorded(path, FileChannel.open(path, options, attrs));
    opened.add(r);
    return r;
  }

  /** A channel's fsyncs and close, as "force" and "close" in the order they happened. */
  final class Recorded extends ForwardingFileChannel {
    final Path path;
    final List<String> events = new CopyOnWriteArrayList<>();

    Recorded(Path path, FileChannel ch) {
      super(ch);
      this.path = path;
    }

    @Override
    public void force(boolean metaData) throws IOException {
      if (failForce) {
        events.add("failed force");
        throw new IOException("injected fsync failure");
      }
      delegate.force(metaData);
      events.add("force");
    }

    @Override
    protected void implCloseChannel() throws IOException {
      delegate.close();
      events.add("close");
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
      int after = failWriteAfter;
      if (after >= 0 && failWriteAfterWrites > 0) {
        failWriteAfterWrites--;
        return delegate.write(src);
      }
      if (after >= 0) {
        failWriteAfter = -1;
        ByteBuffer part = src.duplicate();
        part.limit(Math.min(src.limit(), src.position() + after));
        int n = delegate.write(part); // really in the file: the sink must take it out again
        src.position(src.position() + n);
        throw new IOException("injected: no space left on device after " + n + " bytes");
      }
      return delegate.write(src);
    }
  }
}
