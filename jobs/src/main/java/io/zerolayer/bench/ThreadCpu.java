package io.zerolayer.bench;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * CPU time of this process's threads, grouped by what they do. A worker runs its broker, job and
 * client in one process, so this splits a request's CPU into the inference threads' work and what
 * the job, the broker and the client spend besides.
 *
 * <p>Java threads are read from the JVM's thread bean, by their full names (Flink names a task's
 * thread after its operator chain, Kafka a producer's after its client id). The JVM's own threads
 * (GC, JIT), which that bean does not list, are read from Linux's {@code /proc/self/task}. Time of
 * threads that ended between two snapshots is only in the process's total: {@link #EXITED}.
 */
final class ThreadCpu {
    /** Linux reports thread times in USER_HZ ticks, 100 a second on every architecture's ABI. */
    private static final long NANOS_PER_TICK = 10_000_000L;

    static final String INFERENCE = "inference threads";
    static final String CLIENT = "bench client";
    static final String EXITED = "threads that ended";
    private static final String OTHER = "other threads";

    /**
     * Groups in report order: the first whose pattern matches a thread's full name takes it. The
     * names are those ZeroLayer, Flink 2.2, Kafka 4 and HotSpot give their threads.
     */
    private static final List<Map.Entry<String, Pattern>> GROUPS =
            List.of(
                    group(INFERENCE, "zerolayer-inference-.*"),
                    group(CLIENT, "zerolayer-client.*|.*\\| zerolayer-client.*"),
                    group("executor task thread", "warm graph executor.*"),
                    group("classifier task thread", "decode \\+ classify.*"),
                    group("cost summary", "cost summary.*|cost records' event time.*"),
                    group("reply sink and sources", "replies → .*|Source: .*"),
                    group("Kafka producers (sinks)", "kafka-producer-network-thread.*"),
                    group("Kafka fetchers (sources)", "Source Data Fetcher.*"),
                    group("checkpoints (async part)", "AsyncOperations.*"),
                    group("timers", "Time Trigger for .*"),
                    group(
                            "Flink JobManager, RPC and metrics",
                            "flink-pekko.*|flink-rpc.*|jobmanager-.*|flink-scheduler.*|"
                                    + "flink-metrics.*|Checkpoint Timer|SourceCoordinator.*|"
                                    + "metrics-meter-tick.*|resourcemanager.*|taskmanager.*|"
                                    + "Flink-.*|mini-cluster-io.*"),
                    group(
                            "broker",
                            "data-plane-kafka.*|kafka-request-handler.*|broker-.*|"
                                    + "controller-.*|kafka-\\d+-.*|quorum-controller.*|raft-.*|"
                                    + "executor-.*|ExpirationReaper.*|group-coordinator.*|"
                                    + "TxnMarkerSenderThread.*|AddPartitionsToTxnSender.*|"
                                    + "transaction-log-manager.*|share-.*|kafka-scheduler.*|"
                                    + "kafka-log-cleaner.*|LogDirFailureHandler|"
                                    + "ReplicaFetcher.*|PersisterStateManager.*|"
                                    + "persister-state.*|kafka-admin-client.*"),
                    group("GC", "GC Thread.*|G1 .*"),
                    group("JIT", "C1 CompilerThre.*|C2 CompilerThre.*"));

    /** JVM threads the thread bean does not list, by the (15-character) names Linux keeps. */
    private static final Pattern JVM_OWN =
            Pattern.compile(
                    "GC Thread.*|G1 .*|C1 CompilerThre|C2 CompilerThre|VM Thread|VM Periodic Tas|"
                            + "Service Thread|Monitor Deflati|Sweeper thread");

    private static final ThreadMXBean BEAN = ManagementFactory.getThreadMXBean();

    private static Map.Entry<String, Pattern> group(String name, String regex) {
        return Map.entry(name, Pattern.compile(regex));
    }

    /**
     * Each live thread's name and CPU nanoseconds, by thread (Java threads by their id, the JVM's
     * own by their Linux id, negated so the two never meet), and the whole process's.
     */
    record Snapshot(Map<Long, Used> threads, long processNanos) {}

    record Used(String name, long nanos) {}

    private ThreadCpu() {}

    /** The times now. */
    static Snapshot take() {
        Map<Long, Used> threads = new HashMap<>();
        if (BEAN.isThreadCpuTimeSupported()) {
            for (ThreadInfo info : BEAN.getThreadInfo(BEAN.getAllThreadIds())) {
                if (info != null) {
                    long nanos = BEAN.getThreadCpuTime(info.getThreadId());
                    if (nanos >= 0) {
                        threads.put(info.getThreadId(), new Used(info.getThreadName(), nanos));
                    }
                }
            }
        }
        try (Stream<Path> dirs = Files.list(Path.of("/proc/self/task"))) {
            for (Path dir : (Iterable<Path>) dirs::iterator) {
                try {
                    String stat = Files.readString(dir.resolve("stat"));
                    String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                    if (JVM_OWN.matcher(name).matches()) {
                        threads.put(
                                -Long.parseLong(dir.getFileName().toString()),
                                new Used(name, ticks(stat) * NANOS_PER_TICK));
                    }
                } catch (IOException | RuntimeException ended) {
                    // it ended while we listed: its time is in the process's
                }
            }
        } catch (IOException | RuntimeException noProc) {
            // not Linux: the JVM's own threads are in "threads that ended"
        }
        return new Snapshot(threads, ProcessStats.cpuNanos());
    }

    /** utime + stime: fields 14 and 15 of a stat line, counted after the ")" ending the name. */
    private static long ticks(String stat) {
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]);
    }

    /**
     * CPU milliseconds each group used between two snapshots, in report order, groups that used
     * none left out; {@link #EXITED} holds the time of threads that ended between them.
     */
    static Map<String, Double> millisByGroup(Snapshot before, Snapshot after) {
        Map<String, Long> nanos = new LinkedHashMap<>();
        GROUPS.forEach(g -> nanos.put(g.getKey(), 0L));
        nanos.put(OTHER, 0L);
        long seen = 0;
        for (var e : after.threads().entrySet()) {
            Used was = before.threads().get(e.getKey());
            long used = e.getValue().nanos() - (was == null ? 0 : was.nanos());
            nanos.merge(groupOf(e.getValue().name()), used, Long::sum);
            seen += used;
        }
        nanos.put(EXITED, Math.max(0, after.processNanos() - before.processNanos() - seen));
        Map<String, Double> millis = new LinkedHashMap<>();
        nanos.forEach(
                (group, n) -> {
                    if (n > 0) {
                        millis.put(group, n / 1e6);
                    }
                });
        return millis;
    }

    /** The group of a thread, by its name. */
    static String groupOf(String name) {
        for (var g : GROUPS) {
            if (g.getValue().matcher(name).matches()) {
                return g.getKey();
            }
        }
        return OTHER;
    }

    /**
     * CPU milliseconds by thread name between two snapshots, busiest first: to name groups. A
     * worker prints it for each phase when started with {@code -Dzerolayer.bench.thread-names=true}
     * ({@code --worker-jvm-options}).
     */
    static Map<String, Double> millisByName(Snapshot before, Snapshot after) {
        Map<String, Double> byName = new HashMap<>();
        after.threads()
                .forEach(
                        (id, t) -> {
                            Used was = before.threads().get(id);
                            byName.merge(
                                    t.name(),
                                    (t.nanos() - (was == null ? 0 : was.nanos())) / 1e6,
                                    Double::sum);
                        });
        Map<String, Double> sorted = new LinkedHashMap<>();
        byName.entrySet().stream()
                .filter(e -> e.getValue() > 0)
                .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                .forEach(e -> sorted.put(e.getKey(), e.getValue()));
        return sorted;
    }
}
