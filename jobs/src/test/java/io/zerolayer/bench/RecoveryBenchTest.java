package io.zerolayer.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RecoveryBenchTest {
    private static final long KILL = 1_000_000;

    /** {@code perSecond} replies a second from {@code from} to {@code to} ms after the kill. */
    private static void replies(List<RecoveryBench.Reply> out, long from, long to, int perSecond) {
        for (long t = from; t < to; t += 1000 / perSecond) {
            out.add(new RecoveryBench.Reply(KILL + t, KILL + t + 300));
        }
    }

    @Test
    void recoveryFiguresComeFromWhenRepliesWereFinished() {
        List<RecoveryBench.Reply> replies = new ArrayList<>();
        replies(replies, -20_000, -1_000, 10); // the last second was aborted by the kill
        replies(replies, 8_000, 12_000, 5); // restarted, still warming up
        replies(replies, 12_000, 30_000, 10);
        RecoveryBench.Result r =
                RecoveryBench.figures(
                        replies,
                        KILL - 20_000,
                        KILL,
                        KILL + 30_000,
                        1000,
                        1300,
                        500,
                        0,
                        Map.of("taskmanager-1", 1, "taskmanager-2", 1),
                        "taskmanager-1");

        // the rate before the kill ends two checkpoints before it, so the aborted second is
        // not counted as a slowdown
        assertThat(r.ratePerSecondBefore()).isEqualTo(10.0);
        assertThat(r.noticedMillis()).isEqualTo(1300);
        assertThat(r.firstReplyCompletedMillis()).isEqualTo(8_000);
        assertThat(r.firstReplyReceivedMillis()).isEqualTo(8_300);
        // 10 s windows need 90 replies (90 % of 100): from 8 s they finish 20 + 60, from 9.8 s
        // 11 + 78, from 10 s 10 + 80
        assertThat(r.fullThroughputMillis()).isEqualTo(10_000);
        assertThat(r.completedPerSecond()).hasSize(50);
        assertThat(r.completedPerSecond()[20 + 8]).isEqualTo(5);
        assertThat(r.completedPerSecond()[19]).isZero();
    }

    @Test
    void aRunThatNeverRecoversSaysSo() {
        List<RecoveryBench.Reply> replies = new ArrayList<>();
        replies(replies, -20_000, -2_000, 10);
        replies(replies, 10_000, 30_000, 2);
        RecoveryBench.Result r =
                RecoveryBench.figures(
                        replies,
                        KILL - 20_000,
                        KILL,
                        KILL + 30_000,
                        1000,
                        -1,
                        240,
                        0,
                        Map.of(),
                        "taskmanager-1");
        assertThat(r.firstReplyCompletedMillis()).isEqualTo(10_000);
        assertThat(r.fullThroughputMillis()).isEqualTo(-1);
        RecoveryBench.Options o =
                new RecoveryBench.Options(
                        null,
                        null,
                        null,
                        null,
                        null,
                        2,
                        2,
                        2,
                        200,
                        Duration.ofSeconds(20),
                        Duration.ofSeconds(20),
                        Duration.ofSeconds(30),
                        false,
                        42,
                        null);
        assertThat(RecoveryBench.markdown(r, o))
                .contains("| full throughput (90 % of 10.0 replies/s over 10 s) | not seen |")
                .contains("| JobManager notices the failure | not seen |")
                .contains("| first reply finished (executor) | 10.0 s |");
    }
}
