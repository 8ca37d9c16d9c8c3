package io.nnaudit.sink.file;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
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

  @Override
  public FileChannel open(Path path, Set<? extends OpenOption> options, FileAttribute<?>... attrs)
      throws IOException {
    Recorded r = new Recorded(path, FileChannel.open(path, options, attrs));
    opened.add(r);
    return r;
  }

  /** A channel's fsyncs and close, as "force" and "close" in the order they happened. */
  final class Recorded extends FileChannel {
    final Path path;
    final List<String> events = new CopyOnWriteArrayList<>();
    private final FileChannel ch;

    Recorded(Path path, FileChannel ch) {
      this.path = path;
      this.ch = ch;
    }

    @Override
    public void force(boolean metaData) throws IOException {
      if (failForce) {
        events.add("failed force");
        throw new IOException("injected fsync failure");
      }
      ch.force(metaData);
      events.add("force");
    }

    @Override
    protected void implCloseChannel() throws IOException {
      ch.close();
      events.add("close");
    }

    @Override
    public int read(ByteBuffer dst) throws IOException {
      return ch.read(dst);
    }

    @Override
    public long read(ByteBuffer[] dsts, int offset, int length) throws IOException {
      return ch.read(dsts, offset, length);
    }

    @Override
    public int write(ByteBuffer src) throws IOException {
      int after = failWriteAfter;
      if (after >= 0) {
        failWriteAfter = -1;
        ByteBuffer part = src.duplicate();
        part.limit(Math.min(src.limit(), src.position() + after));
        int n = ch.write(part); // really in the file: the sink must take it out again
        src.position(src.position() + n);
        throw new IOException("injected: no space left on device after " + n + " bytes");
      }
      return ch.write(src);
    }

    @Override
    public long write(ByteBuffer[] srcs, int offset, int length) throws IOException {
      return ch.write(srcs, offset, length);
    }

    @Override
    public long position() throws IOException {
      return ch.position();
    }

    @Override
    public FileChannel position(long newPosition) throws IOException {
      ch.position(newPosition);
      return this;
    }

    @Override
    public long size() throws IOException {
      return ch.size();
    }

    @Override
    public FileChannel truncate(long size) throws IOException {
      ch.truncate(size);
      return this;
    }

    @Override
    public long transferTo(long position, long count, WritableByteChannel target) throws IOException {
      return ch.transferTo(position, count, target);
    }

    @Override
    public long transferFrom(ReadableByteChannel src, long position, long count) throws IOException {
      return ch.transferFrom(src, position, count);
    }

    @Override
    public int read(ByteBuffer dst, long position) throws IOException {
      return ch.read(dst, position);
    }

    @Override
    public int write(ByteBuffer src, long position) throws IOException {
      return ch.write(src, position);
    }

    @Override
    public MappedByteBuffer map(MapMode mode, long position, long size) throws IOException {
      return ch.map(mode, position, size);
    }

    @Override
    public FileLock lock(long position, long size, boolean shared) throws IOException {
      return ch.lock(position, size, shared);
    }

    @Override
    public FileLock tryLock(long position, long size, boolean shared) throws IOException {
      return ch.tryLock(position, size, shared);
    }
  }
}
