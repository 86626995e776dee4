package io.zerolayer.operators.flink.batch;

import io.zerolayer.operators.documents.DocumentFile;
import java.io.IOException;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.file.src.FileSourceSplit;
import org.apache.flink.connector.file.src.reader.BulkFormat;
import org.apache.flink.connector.file.src.util.SingletonResultIterator;
import org.apache.flink.core.fs.FSDataInputStream;
import org.apache.flink.core.fs.FileSystem;

/**
 * A {@link BulkFormat} that reads each file whole, as one {@link DocumentFile}: files are never
 * split. A file larger than {@code maxBytes}, or one that cannot be opened, comes out with {@link
 * DocumentFile#unreadable} set rather than failing the source.
 */
public final class WholeFileFormat implements BulkFormat<DocumentFile, FileSourceSplit> {
    private static final long serialVersionUID = 1L;

    private final long maxBytes;

    public WholeFileFormat(long maxBytes) {
        this.maxBytes = maxBytes;
    }

    @Override
    public Reader<DocumentFile> createReader(Configuration config, FileSourceSplit split) {
        return new Reader<>() {
            private boolean done;

            @Override
            public RecordIterator<DocumentFile> readBatch() {
                if (done) {
                    return null;
                }
                done = true;
                SingletonResultIterator<DocumentFile> it = new SingletonResultIterator<>();
                it.set(read(split), 1, 1);
                return it;
            }

            @Override
            public void close() {}
        };
    }

    private DocumentFile read(FileSourceSplit split) {
        String uri = split.path().toUri().toString();
        long size = split.fileSize();
        if (size > maxBytes) {
            return new DocumentFile(
                    uri,
                    null,
                    "file of "
                            + size
                            + " bytes is larger than zerolayer.analyze.max-file-size ("
                            + maxBytes
                            + " bytes)");
        }
        try {
            FileSystem fs = split.path().getFileSystem();
            try (FSDataInputStream in = fs.open(split.path())) {
                return new DocumentFile(uri, in.readAllBytes(), null);
            }
        } catch (IOException e) {
            return new DocumentFile(uri, null, "cannot read the file: " + e.getMessage());
        }
    }

    /** BATCH mode takes no checkpoints: a restarted reader reads its file again, whole. */
    @Override
    public Reader<DocumentFile> restoreReader(Configuration config, FileSourceSplit split) {
        return createReader(config, split);
    }

    @Override
    public boolean isSplittable() {
        return false;
    }

    @Override
    public TypeInformation<DocumentFile> getProducedType() {
        return TypeInformation.of(DocumentFile.class);
    }
}
