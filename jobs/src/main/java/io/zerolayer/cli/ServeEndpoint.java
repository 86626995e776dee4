package io.zerolayer.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * Where a running {@code zerolayer serve} can be reached, written by it to the temporary folder
 * ({@code zerolayer-serve-<pid>.properties}, removed on exit) so that {@code zerolayer status}
 * finds its metrics endpoint and slot count without being told.
 *
 * @param metricsUrl the Prometheus endpoint it bound
 * @param slots its executor slots
 */
record ServeEndpoint(long pid, URI metricsUrl, int slots, String bootstrapServers) {
    private static final String PREFIX = "zerolayer-serve-";

    static Path folder() {
        return Path.of(System.getProperty("java.io.tmpdir"));
    }

    /** Writes this endpoint's file and returns it. */
    Path write(Path folder) {
        Properties p = new Properties();
        p.setProperty("pid", Long.toString(pid));
        p.setProperty("metrics-url", metricsUrl.toString());
        p.setProperty("slots", Integer.toString(slots));
        p.setProperty("bootstrap-servers", bootstrapServers);
        Path file = folder.resolve(PREFIX + pid + ".properties");
        try (var out = Files.newOutputStream(file)) {
            p.store(out, "zerolayer serve, read by zerolayer status");
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write " + file, e);
        }
        return file;
    }

    /** The most recently started serve in {@code folder} whose process is alive, if any. */
    static Optional<ServeEndpoint> findLive(Path folder) {
        try (Stream<Path> files = Files.list(folder)) {
            return files.filter(f -> f.getFileName().toString().startsWith(PREFIX))
                    .sorted(Comparator.comparing(ServeEndpoint::modified).reversed())
                    .map(ServeEndpoint::read)
                    .flatMap(Optional::stream)
                    .filter(
                            e ->
                                    ProcessHandle.of(e.pid())
                                            .map(ProcessHandle::isAlive)
                                            .orElse(false))
                    .findFirst();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static Optional<ServeEndpoint> read(Path file) {
        Properties p = new Properties();
        try (var in = Files.newInputStream(file)) {
            p.load(in);
            return Optional.of(
                    new ServeEndpoint(
                            Long.parseLong(p.getProperty("pid")),
                            URI.create(p.getProperty("metrics-url")),
                            Integer.parseInt(p.getProperty("slots")),
                            p.getProperty("bootstrap-servers")));
        } catch (IOException | RuntimeException unreadable) {
            return Optional.empty();
        }
    }

    private static long modified(Path file) {
        try {
            return Files.getLastModifiedTime(file).toMillis();
        } catch (IOException e) {
            return 0;
        }
    }
}
