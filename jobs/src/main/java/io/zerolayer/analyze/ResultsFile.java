package io.zerolayer.analyze;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.zerolayer.operators.documents.DocumentAttributes;
import java.io.BufferedWriter;
import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A JSON-lines output file, one row a line, each flushed as it is written, so a run that stops half
 * way leaves every finished row behind for {@code --resume}.
 */
final class ResultsFile implements Closeable {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Row statuses a resumed run does not redo: the answer would be the same. */
    static final Set<String> FINAL_STATUSES = Set.of("OK", "REJECTED");

    private final BufferedWriter out;

    private ResultsFile(BufferedWriter out) {
        this.out = out;
    }

    /** A new file, or an emptied one. */
    static ResultsFile create(Path file) throws IOException {
        createParent(file);
        return new ResultsFile(Files.newBufferedWriter(file, StandardCharsets.UTF_8));
    }

    /** The file's existing lines kept, new rows appended. */
    static ResultsFile append(Path file) throws IOException {
        createParent(file);
        return new ResultsFile(
                Files.newBufferedWriter(
                        file,
                        StandardCharsets.UTF_8,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND));
    }

    private static void createParent(Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
    }

    void write(String jsonLine) throws IOException {
        out.write(jsonLine);
        out.write('\n');
        out.flush();
    }

    @Override
    public void close() throws IOException {
        out.close();
    }

    /**
     * For {@code --resume}: the unit keys of the rows of {@code file} that are final, after
     * rewriting the file to hold only those rows. Error and failure rows are dropped (their inputs
     * run again), and so are rows of an input whose content changed since ({@code current}: path →
     * SHA-256 of the inputs now). A missing file has none. A line that is not a row fails with its
     * line number.
     */
    static Set<String> keepFinalRows(Path file, java.util.Map<String, String> current)
            throws IOException {
        Set<String> done = new HashSet<>();
        if (!Files.exists(file)) {
            return done;
        }
        List<String> kept = new ArrayList<>();
        int n = 0;
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            n++;
            if (line.isBlank()) {
                continue;
            }
            JsonNode row;
            try {
                row = JSON.readTree(line);
            } catch (IOException e) {
                throw new IllegalArgumentException(
                        file
                                + ":"
                                + n
                                + " is not a result row, so --resume cannot use "
                                + file
                                + ": "
                                + e.getMessage());
            }
            String path = row.path("path").asText();
            String sha = row.path("sha256").asText();
            boolean stale = current.containsKey(path) && !current.get(path).equals(sha);
            if (FINAL_STATUSES.contains(row.path("status").asText())
                    && row.path("sha256").isTextual()
                    && !stale) {
                done.add(
                        DocumentAttributes.unitKey(
                                row.path("path").asText(),
                                row.path("sha256").asText(),
                                row.path("line").asInt(0)));
                kept.add(line);
            }
        }
        Path tmp = file.resolveSibling(file.getFileName() + ".resume-tmp");
        Files.write(tmp, kept, StandardCharsets.UTF_8);
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        return done;
    }
}
