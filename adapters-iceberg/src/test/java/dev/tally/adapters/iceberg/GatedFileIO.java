package dev.tally.adapters.iceberg;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;

/**
 * {@link CountingFileIO} whose data and delete files can be held at their close, as a slow object
 * store holds them (S3FileIO uploads a small file whole when it is closed): either every close
 * waits until a given number of files are closing at once, or every close fails. Metadata files are
 * never held. Set up by the test on the table's own IO ({@code (GatedFileIO) table.io()}).
 */
public final class GatedFileIO extends CountingFileIO {

  private static final long serialVersionUID = 1L;

  /** Files that must be closing at once, counted down by each close. */
  private record Gate(CountDownLatch closing, int files, Duration timeout) {}

  private transient volatile Gate gate;
  private transient volatile boolean failing;

  /** For the catalog, which instantiates its file IO by class name. */
  public GatedFileIO() {}

  /**
   * From now on each close of a data or delete file waits until {@code files} are closing at once,
   * and fails when they are not within {@code timeout}: a writer that closes its files one after
   * another never gets there.
   */
  void holdClosesUntil(int files, Duration timeout) {
    this.gate = new Gate(new CountDownLatch(files), files, timeout);
  }

  /** From now on each close of a data or delete file fails, naming the file. */
  void failCloses() {
    failing = true;
  }

  @Override
  public OutputFile newOutputFile(String path) {
    OutputFile file = super.newOutputFile(path);
    return path.contains("/metadata/") ? file : new Gated(file);
  }

  private void hold(String location) throws IOException {
    if (failing) {
      throw new IOException("close of " + location + " failed");
    }
    Gate held = gate;
    if (held == null) {
      return;
    }
    held.closing().countDown();
    try {
      if (!held.closing().await(held.timeout().toMillis(), TimeUnit.MILLISECONDS)) {
        throw new IOException(
            "only "
                + (held.files() - held.closing().getCount())
                + " of "
                + held.files()
                + " files were closing at once within "
                + held.timeout());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted at the close of " + location, e);
    }
  }

  private final class Gated implements OutputFile {
    private final OutputFile file;

    Gated(OutputFile file) {
      this.file = file;
    }

    @Override
    public PositionOutputStream create() {
      return new GatedStream(file.create(), file.location());
    }

    @Override
    public PositionOutputStream createOrOverwrite() {
      return new GatedStream(file.createOrOverwrite(), file.location());
    }

    @Override
    public String location() {
      return file.location();
    }

    @Override
    public InputFile toInputFile() {
      return file.toInputFile();
    }
  }

  private final class GatedStream extends PositionOutputStream {
    private final PositionOutputStream stream;
    private final String location;
    private boolean closed;

    GatedStream(PositionOutputStream stream, String location) {
      this.stream = stream;
      this.location = location;
    }

    @Override
    public long getPos() throws IOException {
      return stream.getPos();
    }

    @Override
    public void write(int b) throws IOException {
      stream.write(b);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      stream.write(b, off, len);
    }

    @Override
    public void flush() throws IOException {
      stream.flush();
    }

    @Override
    public void close() throws IOException {
      if (closed) {
        return;
      }
      closed = true;
      try {
        hold(location);
      } finally {
        stream.close();
      }
    }
  }
}
