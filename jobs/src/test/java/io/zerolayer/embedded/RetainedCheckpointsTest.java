package io.zerolayer.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ExternalizedCheckpointRetention;
import org.apache.flink.configuration.StateRecoveryOptions;
import org.apache.flink.core.execution.RecoveryClaimMode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RetainedCheckpointsTest {

    private static Path checkpoint(Path data, String run, int n, long modifiedMillis)
            throws Exception {
        Path chk = data.resolve("checkpoints").resolve(run).resolve("chk-" + n);
        Files.createDirectories(chk);
        Path metadata = Files.writeString(chk.resolve("_metadata"), "m");
        Files.setLastModifiedTime(metadata, FileTime.fromMillis(modifiedMillis));
        return chk;
    }

    @Test
    void aFreshFolderStartsAfreshAndKeepsItsCheckpointsOnCancellation(@TempDir Path data) {
        Configuration conf = new Configuration();
        assertThat(new RetainedCheckpoints(data).configure(conf)).isEmpty();
        assertThat(conf.get(CheckpointingOptions.CHECKPOINTS_DIRECTORY))
                .isEqualTo(data.resolve("checkpoints").toUri().toString());
        assertThat(conf.get(CheckpointingOptions.EXTERNALIZED_CHECKPOINT_RETENTION))
                .isEqualTo(ExternalizedCheckpointRetention.RETAIN_ON_CANCELLATION);
        assertThat(conf.getOptional(StateRecoveryOptions.SAVEPOINT_PATH)).isEmpty();
    }

    @Test
    void theJobResumesFromTheNewestCompleteCheckpointOfAnyEarlierRun(@TempDir Path data)
            throws Exception {
        checkpoint(data, "run-a", 40, 1_000);
        Path newest = checkpoint(data, "run-b", 3, 5_000);
        checkpoint(data, "run-b", 2, 4_000);
        // begun but never completed: no metadata
        Files.createDirectories(data.resolve("checkpoints/run-b/chk-4"));
        Files.createDirectories(data.resolve("checkpoints/run-c/shared"));

        Configuration conf = new Configuration();
        assertThat(new RetainedCheckpoints(data).configure(conf)).contains(newest);
        assertThat(conf.get(StateRecoveryOptions.SAVEPOINT_PATH))
                .isEqualTo(newest.toUri().toString());
        assertThat(conf.get(StateRecoveryOptions.RESTORE_MODE)).isEqualTo(RecoveryClaimMode.CLAIM);
        // a run that left no complete checkpoint is tidied away; the others stay
        assertThat(data.resolve("checkpoints/run-c")).doesNotExist();
        assertThat(data.resolve("checkpoints/run-a/chk-40")).exists();
    }
}
