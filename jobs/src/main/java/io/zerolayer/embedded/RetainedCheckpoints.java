package io.zerolayer.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.RecoveryClaimMode;

/**
 * The streaming job's checkpoints in a data folder ({@code <folder>/checkpoints/<job id>/chk-<n>}),
 * kept when the process stops or is killed, so the next start resumes from the latest: the Kafka
 * offsets, the requests queued or in flight in the executor, and the open transactions of the sinks
 * are all in it, and a request is answered exactly once across the restart.
 */
public final class RetainedCheckpoints {
    /** A checkpoint is complete once its metadata file is written. */
    static final String METADATA = "_metadata";

    private final Path folder;

    public RetainedCheckpoints(Path dataFolder) {
        this.folder = dataFolder.resolve("checkpoints");
    }

    public Path folder() {
        return folder;
    }

    /**
     * Sets {@code conf} to write checkpoints here and keep them on cancellation, and to resume from
     * the latest one if there is one (claimed: Flink deletes it once a newer one completes).
     *
     * @return the checkpoint the job resumes from, if any
     */
    public Optional<Path> configure(Configuration conf) {
        try {
            Files.createDirectories(folder);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot create " + folder, e);
        }
        conf.set(CheckpointingOptions.CHECKPOINT_STORAGE, "filesystem");
        conf.set(CheckpointingOptions.CHECKPOINTS_DIRECTORY, folder.toUri().toString());
        conf.set(
                CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION,
                ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        Optional<Path> latest = latest();
        latest.ifPresent(
                chk -> {
                    conf.set(StateRecoveryOptions.SAVEPOINT_PATH, chk.toUri().toString());
                    conf.set(StateRecoveryOptions.RESTORE_MODE, RecoveryClaimMode.CLAIM);
                });
        removeEmptyRuns(latest.orElse(null));
        return latest;
    }

    /** The most recent complete checkpoint of any earlier run, if any. */
    public Optional<Path> latest() {
        if (!Files.isDirectory(folder)) {
            return Optional.empty();
        }
        try (Stream<Path> metadata = Files.find(folder, 3, (p, a) -> isMetadata(p))) {
            return metadata.max(
                            Comparator.comparing(RetainedCheckpoints::modified)
                                    .thenComparing(RetainedCheckpoints::number))
                    .map(Path::getParent);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read the checkpoints in " + folder, e);
        }
    }

    private static boolean isMetadata(Path p) {
        Path chk = p.getParent();
        return p.getFileName().toString().equals(METADATA)
                && chk != null
                && chk.getFileName().toString().startsWith("chk-");
    }

    private static long modified(Path p) {
        try {
            return Files.getLastModifiedTime(p).toMillis();
        } catch (IOException e) {
            return Long.MIN_VALUE;
        }
    }

    private static long number(Path metadata) {
        try {
            return Long.parseLong(metadata.getParent().getFileName().toString().substring(4));
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /**
     * Deletes the folders of earlier runs that hold no complete checkpoint (all but {@code
     * keep}'s).
     */
    private void removeEmptyRuns(Path keep) {
        try (Stream<Path> runs = Files.list(folder)) {
            List<Path> stale =
                    runs.filter(Files::isDirectory)
                            .filter(run -> keep == null || !keep.startsWith(run))
                            .filter(run -> !holdsCheckpoint(run))
                            .toList();
            for (Path run : stale) {
                try (Stream<Path> files = Files.walk(run)) {
                    files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot tidy " + folder, e);
        }
    }

    private static boolean holdsCheckpoint(Path run) {
        try (Stream<Path> metadata = Files.find(run, 2, (p, a) -> isMetadata(p))) {
            return metadata.findAny().isPresent();
        } catch (IOException e) {
            return true;
        }
    }
}
