package dev.tally.adapters.iceberg;

import java.util.concurrent.atomic.AtomicInteger;
import org.apache.iceberg.hadoop.HadoopFileIO;
import org.apache.iceberg.io.OutputFile;

/** Hadoop's file IO, counting the output files it hands out and the files it deletes. */
public class CountingFileIO extends HadoopFileIO {

  private static final long serialVersionUID = 1L;

  private final AtomicInteger created = new AtomicInteger();
  private final AtomicInteger deleted = new AtomicInteger();

  /** For the catalog, which instantiates its file IO by class name. */
  public CountingFileIO() {}

  @Override
  public OutputFile newOutputFile(String path) {
    if (!path.contains("/metadata/")) {
      created.incrementAndGet();
    }
    return super.newOutputFile(path);
  }

  @Override
  public void deleteFile(String path) {
    if (!path.contains("/metadata/")) {
      deleted.incrementAndGet();
    }
    super.deleteFile(path);
  }

  /** Data and delete files handed out for writing so far (metadata files not counted). */
  int created() {
    return created.get();
  }

  /** Data and delete files deleted so far (metadata files not counted). */
  int deleted() {
    return deleted.get();
  }
}
