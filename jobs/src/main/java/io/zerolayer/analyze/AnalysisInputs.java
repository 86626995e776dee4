package io.zerolayer.analyze;

import io.zerolayer.operators.documents.DocumentAttributes;
import io.zerolayer.operators.documents.DocumentFormat;
import io.zerolayer.schemas.Sha256;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.DigestInputStream;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * The files a batch analysis reads: files named on the command line (whatever their type: an
 * unsupported one gets an error row) and, in named folders, every file of a type analyze reads,
 * recursively, in path order. Each is hashed here, so {@code --resume} can tell which are done
 * before any is read by the job.
 */
public final class AnalysisInputs {
    /** One input file: where it is, how the rows name it, its content hash and units. */
    public record InputFile(Path file, String path, String sha256, int units) {}

    private final List<InputFile> files;
    private final int skipped;

    private AnalysisInputs(List<InputFile> files, int skipped) {
        this.files = List.copyOf(files);
        this.skipped = skipped;
    }

    /**
     * @param baseDir rows name files relative to it when they are under it
     * @throws IllegalArgumentException when a named path does not exist
     */
    public static AnalysisInputs scan(List<Path> paths, Path baseDir) throws IOException {
        Set<Path> found = new TreeSet<>();
        int skipped = 0;
        for (Path p : paths) {
            if (Files.isDirectory(p)) {
                try (Stream<Path> walk = Files.walk(p)) {
                    for (Path f : walk.filter(Files::isRegularFile).toList()) {
                        if (DocumentFormat.of(f.getFileName().toString()).isPresent()) {
                            found.add(f.toAbsolutePath().normalize());
                        } else {
                            skipped++;
                        }
                    }
                }
            } else if (Files.isRegularFile(p)) {
                found.add(p.toAbsolutePath().normalize());
            } else {
                throw new IllegalArgumentException("No such file or folder: " + p);
            }
        }
        List<InputFile> files = new ArrayList<>();
        for (Path f : found) {
            files.add(hash(f, DocumentAttributes.displayPath(f, baseDir)));
        }
        return new AnalysisInputs(files, skipped);
    }

    private static InputFile hash(Path file, String display) throws IOException {
        MessageDigest sha = Sha256.digest();
        boolean jsonl =
                DocumentFormat.of(file.getFileName().toString()).orElse(null)
                        == DocumentFormat.JSONL;
        int lines = 0;
        try (InputStream in = new DigestInputStream(Files.newInputStream(file), sha)) {
            byte[] buf = new byte[1 << 16];
            boolean blank = true;
            for (int n; (n = in.read(buf)) > 0; ) {
                if (jsonl) {
                    for (int i = 0; i < n; i++) {
                        if (buf[i] == '\n') {
                            lines += blank ? 0 : 1;
                            blank = true;
                        } else if (!Character.isWhitespace(buf[i])) {
                            blank = false;
                        }
                    }
                }
            }
            lines += jsonl && !blank ? 1 : 0;
        }
        return new InputFile(
                file, display, HexFormat.of().formatHex(sha.digest()), jsonl ? lines : 1);
    }

    public List<InputFile> files() {
        return files;
    }

    /** Files in named folders that analyze does not read (by extension). */
    public int skipped() {
        return skipped;
    }

    /** Documents and JSON lines in all the files. */
    public int units() {
        return files.stream().mapToInt(InputFile::units).sum();
    }
}
