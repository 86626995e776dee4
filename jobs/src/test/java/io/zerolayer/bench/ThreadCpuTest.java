package io.zerolayer.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** Threads are grouped by the names ZeroLayer, Flink, Kafka and HotSpot give them. */
class ThreadCpuTest {
    @Test
    void threadsOfARealRunFallIntoTheirGroups() {
        // names as a bench worker's job, broker and client had them
        assertThat(ThreadCpu.groupOf("zerolayer-inference-1")).isEqualTo(ThreadCpu.INFERENCE);
        assertThat(ThreadCpu.groupOf("zerolayer-client-replies-zerolayer.replies.e9109c97"))
                .isEqualTo(ThreadCpu.CLIENT);
        assertThat(
                        ThreadCpu.groupOf(
                                "warm graph executor -> (cost records' event time, kernel cost"
                                        + " records: Writer) (2/2)#0"))
                .isEqualTo("executor task thread");
        assertThat(
                        ThreadCpu.groupOf(
                                "kafka-producer-network-thread | producer-zerolayer-replies-1-0"))
                .isEqualTo("Kafka producers (sinks)");
        assertThat(ThreadCpu.groupOf("data-plane-kafka-request-handler-6")).isEqualTo("broker");
        assertThat(ThreadCpu.groupOf("TxnMarkerSenderThread-1")).isEqualTo("broker");
        assertThat(ThreadCpu.groupOf("AsyncOperations-thread-1"))
                .isEqualTo("checkpoints (async part)");
        assertThat(ThreadCpu.groupOf("flink-pekko.actor.default-dispatcher-5"))
                .isEqualTo("Flink JobManager, RPC and metrics");
        assertThat(ThreadCpu.groupOf("C1 CompilerThre")).isEqualTo("JIT");
        assertThat(ThreadCpu.groupOf("something new")).isEqualTo("other threads");
    }

    @Test
    void timeIsSplitByGroupAndEndedThreadsAreWhatTheProcessUsedBeyondTheLiving() {
        ThreadCpu.Snapshot before =
                new ThreadCpu.Snapshot(
                        Map.of(
                                1L, new ThreadCpu.Used("zerolayer-inference-0", 1_000_000),
                                2L, new ThreadCpu.Used("data-plane-kafka-request-handler-0", 0),
                                3L, new ThreadCpu.Used("short-lived", 5_000_000)),
                        6_000_000);
        ThreadCpu.Snapshot after =
                new ThreadCpu.Snapshot(
                        Map.of(
                                1L, new ThreadCpu.Used("zerolayer-inference-0", 21_000_000),
                                2L,
                                        new ThreadCpu.Used(
                                                "data-plane-kafka-request-handler-0", 2_000_000),
                                4L, new ThreadCpu.Used("zerolayer-inference-1", 3_000_000)),
                        36_000_000);
        Map<String, Double> ms = ThreadCpu.millisByGroup(before, after);
        assertThat(ms).containsEntry(ThreadCpu.INFERENCE, 23.0).containsEntry("broker", 2.0);
        // 30 ms in all, 25 ms on threads alive at the end
        assertThat(ms).containsEntry(ThreadCpu.EXITED, 5.0);
        assertThat(ms.keySet()).doesNotContain("GC", "other threads");
    }

    @Test
    void aSnapshotOfThisProcessSeesItsOwnThreads() {
        ThreadCpu.Snapshot now = ThreadCpu.take();
        assertThat(now.threads().values()).extracting(ThreadCpu.Used::name).contains("main");
        assertThat(now.processNanos()).isPositive();
    }
}
