package io.zerolayer.cli;

import io.zerolayer.cluster.LocalCluster;
import io.zerolayer.jobs.PipelineOptions;
import java.io.PrintWriter;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.regex.Pattern;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code zerolayer config --for-cluster}: the settings a Flink cluster's {@code config.yaml} needs
 * to run ZeroLayer, each with what it does and why, from the same settings the job would run with.
 */
@Command(
        name = "config",
        mixinStandardHelpOptions = true,
        description = {
            "Print settings as config.yaml lines: with --for-cluster, what a Flink cluster's"
                    + " config.yaml needs to run ZeroLayer (Flink's own settings the job is tuned"
                    + " for, then the zerolayer.* ones), each with a comment saying what it does"
                    + " and why its value; without it, every zerolayer.* setting in force.",
            "Values come from the settings (--config-dir, -D), so -Dzerolayer.kafka"
                    + ".bootstrap-servers=kafka:9092 prints your brokers."
        })
final class ConfigCommand implements Callable<Integer> {
    @Option(
            names = "--for-cluster",
            description = "The block to merge into a Flink cluster's conf/config.yaml.")
    boolean forCluster;

    @Mixin PipelineSettings settings;

    @Spec CommandSpec spec;

    /** A setting of the cluster block: its key, the value without one set, and why. */
    record Setting(String key, String fallback, String why) {}

    /** Flink's own settings the job is tuned for; the job sets checkpointing itself. */
    static final List<Setting> FLINK =
            List.of(
                    new Setting(
                            "classloader.parent-first-patterns.additional",
                            LocalCluster.PARENT_FIRST_PATTERNS,
                            "the packages of lib/zerolayer-flink-lib.jar: ONNX Runtime and the"
                                    + " tokenizers load native code once per JVM, so every job"
                                    + " on a TaskManager must share the cluster's copy"),
                    new Setting(
                            "execution.buffer-timeout.interval",
                            "0 ms",
                            "a request crosses two network exchanges; records come at"
                                    + " inference's pace, so sending each at once costs less"
                                    + " than Flink's 100 ms default adds to every reply"),
                    new Setting(
                            "heartbeat.interval",
                            "1000",
                            "a killed TaskManager is noticed within a few seconds (Flink's"
                                    + " default: 10 s)"),
                    new Setting(
                            "heartbeat.timeout",
                            "15000",
                            "or after 15 s of silence (Flink's default: 50 s)"),
                    new Setting(
                            "restart-strategy.type",
                            "exponential-delay",
                            "restarts back off rather than retry at a fixed rate"),
                    new Setting(
                            "restart-strategy.exponential-delay.initial-backoff",
                            "500 ms",
                            "the first restart follows a lost TaskManager at once"),
                    new Setting(
                            "restart-strategy.exponential-delay.max-backoff",
                            "30 s",
                            "a job failing over and over retries at least twice a minute"),
                    new Setting(
                            "restart-strategy.exponential-delay.reset-backoff-threshold",
                            "5 min",
                            "a job that ran this long without failing starts again from the"
                                    + " initial backoff (Flink's default waits an hour)"),
                    new Setting(
                            "execution.checkpointing.dir",
                            null,
                            "a folder every JobManager and TaskManager reaches (S3, HDFS, NFS):"
                                    + " without one, checkpoints live in the JobManager's memory"
                                    + " and are lost with it"),
                    new Setting(
                            "execution.checkpointing.savepoint-dir",
                            null,
                            "where flink stop writes a savepoint when not given --savepointPath;"
                                    + " the same kind of folder"),
                    new Setting(
                            "taskmanager.load-balance.mode",
                            "SLOTS",
                            "a job's slots spread over the TaskManagers: a lost TaskManager"
                                    + " takes part of the capacity, not all of it"),
                    new Setting(
                            "metrics.reporters",
                            "prom",
                            "a Prometheus endpoint on every JobManager and TaskManager (copy"
                                    + " opt/flink-metrics-prometheus-*.jar to"
                                    + " plugins/metrics-prometheus/); zerolayer status, the"
                                    + " dashboard and the alerts read it"),
                    new Setting(
                            "metrics.reporter.prom.factory.class",
                            "org.apache.flink.metrics.prometheus.PrometheusReporterFactory",
                            "Flink's Prometheus reporter"),
                    new Setting(
                            "metrics.reporter.prom.port",
                            "9249-9259",
                            "the first free port of the range, one per process on a host"));

    /** The zerolayer.* settings every cluster names, set or not. */
    static final List<Setting> ZEROLAYER =
            List.of(
                    new Setting(
                            "zerolayer.kafka.bootstrap-servers",
                            null,
                            "your Kafka brokers, as the job's clients reach them"),
                    new Setting(
                            "zerolayer.kafka.client-settings-file",
                            null,
                            "the job's Kafka login (SASL/SCRAM, TLS), as zerolayer tenants sync"
                                    + " wrote it for zerolayer-job; on every JobManager and"
                                    + " TaskManager"),
                    new Setting(
                            "zerolayer.auth.mode",
                            "hmac",
                            "every request carries its tenant's signature; none only where every"
                                    + " writer of the requests topic is trusted"),
                    new Setting(
                            "zerolayer.tenants.file",
                            null,
                            "the tenant registry requests are verified against (required with"
                                    + " hmac); on every JobManager and TaskManager"),
                    new Setting(
                            "zerolayer.checkpoint-interval",
                            null,
                            "the bill, graph descriptors and dead letters (and exactly-once"
                                    + " replies) commit with each checkpoint"));

    @Override
    public Integer call() {
        Configuration conf = settings.load();
        PrintWriter out = spec.commandLine().getOut();
        if (forCluster) {
            printForCluster(conf, out);
        } else {
            new TreeMap<>(conf.toMap())
                    .forEach(
                            (k, v) -> {
                                if (k.startsWith("zerolayer.")) {
                                    out.println(k + ": " + yaml(v));
                                }
                            });
        }
        out.flush();
        return 0;
    }

    static void printForCluster(Configuration conf, PrintWriter out) {
        Map<String, String> set = conf.toMap();
        out.println(
                "# ZeroLayer on a Flink cluster: merge into conf/config.yaml of every JobManager");
        out.println("# and TaskManager, then restart them (docs/cluster.md). Printed by");
        out.println("# `zerolayer config --for-cluster`.");
        out.println();
        out.println("# ---- Flink ----");
        for (Setting s : FLINK) {
            print(s, set.getOrDefault(s.key(), s.fallback()), out);
        }
        out.println();
        out.println("# ---- ZeroLayer ----");
        for (Setting s : ZEROLAYER) {
            String fallback = s.fallback() != null ? s.fallback() : defaultOf(s.key());
            print(s, set.getOrDefault(s.key(), fallback), out);
        }
        Set<String> printed =
                ZEROLAYER.stream().map(Setting::key).collect(java.util.stream.Collectors.toSet());
        // what the settings change from the job's defaults, each with its option's description
        for (ConfigOption<?> option : PipelineOptions.all()) {
            String value = set.get(option.key());
            if (value != null && !printed.contains(option.key()) && !isDefault(option, value)) {
                print(new Setting(option.key(), null, firstSentence(option)), value, out);
            }
        }
    }

    /** Whether {@code value} reads as the option's default. */
    private static boolean isDefault(ConfigOption<?> option, String value) {
        Configuration one = new Configuration();
        one.setString(option.key(), value);
        return option.hasDefaultValue()
                && java.util.Objects.equals(one.get(option), option.defaultValue());
    }

    private static String defaultString(ConfigOption<?> option) {
        Object d = option.defaultValue();
        if (d instanceof java.time.Duration duration) {
            return org.apache.flink.util.TimeUtils.formatWithHighestUnit(duration);
        }
        if (d instanceof List<?> list) {
            return String.join(";", list.stream().map(String::valueOf).toList());
        }
        return String.valueOf(d);
    }

    private static String defaultOf(String key) {
        return PipelineOptions.all().stream()
                .filter(o -> o.key().equals(key) && o.hasDefaultValue())
                .map(ConfigCommand::defaultString)
                .findFirst()
                .orElse(null);
    }

    private static String firstSentence(ConfigOption<?> option) {
        String text =
                option.description().getBlocks().stream()
                        .map(Object::toString)
                        .reduce("", String::concat);
        int end = text.indexOf(". ");
        return end > 0 ? text.substring(0, end) : text.replaceAll("\\.$", "");
    }

    /** {@code # why} wrapped at 100 columns, then the line; commented out without a value. */
    private static void print(Setting s, String value, PrintWriter out) {
        StringBuilder line = new StringBuilder("#");
        for (String word : s.why().split(" ")) {
            if (line.length() + word.length() + 1 > 100) {
                out.println(line);
                line = new StringBuilder("#");
            }
            line.append(' ').append(word);
        }
        out.println(line);
        out.println(value == null ? "# " + s.key() + ": …" : s.key() + ": " + yaml(value));
    }

    /** What YAML reads back as written: no indicator first, no ': ' or ' #' inside. */
    private static final Pattern PLAIN = Pattern.compile("[A-Za-z0-9_./;(<=+-][^#:]*");

    /** {@code value} as a YAML scalar: plain where YAML reads it back as it is, else quoted. */
    static String yaml(String value) {
        return PLAIN.matcher(value).matches() && !value.endsWith(" ")
                ? value
                : "'" + value.replace("'", "''") + "'";
    }
}
