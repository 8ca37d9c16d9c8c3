package io.nnaudit.sink.file;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.util.Set;

/**
 * How {@link RollingFileSink} opens the channels it writes to: {@code FileChannel::open} in production; a test
 * wraps the channel to see its fsyncs and closes.
 */
public interface ChannelFactory {
  FileChannel open(Path path, Set<? extends OpenOption> options, FileAttribute<?>... attrs) throws IOException;
}
