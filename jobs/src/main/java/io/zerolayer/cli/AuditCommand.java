package io.zerolayer.cli;

import io.zerolayer.operators.audit.AuditChainVerifier;
import io.zerolayer.operators.kafka.CommittedRecords;
import io.zerolayer.schemas.AuditEntry;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code zerolayer audit verify}: re-walks the tenants' audit chains. */
@Command(
        name = "audit",
        mixinStandardHelpOptions = true,
        description = "The level-3 tenants' audit chains (docs/audit.md).",
        subcommands = {AuditCommand.Verify.class})
final class AuditCommand implements Runnable {
    @Override
    public void run() {
        System.err.println("Usage: zerolayer audit verify --bootstrap-servers H:P [--tenant T]");
    }

    @Command(
            name = "verify",
            mixinStandardHelpOptions = true,
            description = {
                "Re-walk the audit chains on the audit topic: every entry's hash, its link to the"
                        + " one before, no entry missing or there twice, and every anchor against"
                        + " the chain.",
                "Exit 0 when every chain checked is intact; 1 naming the first broken or missing"
                        + " entry of each chain that is not, or when there is no chain to check;"
                        + " 2 when the topic cannot be read."
            })
    static final class Verify implements Callable<Integer> {
        @Option(
                names = "--bootstrap-servers",
                required = true,
                description = "Kafka to read the committed records of the audit topic from.")
        String bootstrapServers;

        @picocli.CommandLine.Mixin KafkaClientFile kafkaClient = new KafkaClientFile();

        @Option(names = "--tenant", description = "Verify this tenant's chain only.")
        String tenant;

        @Option(
                names = "--topic",
                defaultValue = "zerolayer.audit",
                description = "Audit topic. Default: ${DEFAULT-VALUE}.")
        String topic;

        @Option(
                names = "--timeout",
                defaultValue = "PT2M",
                description =
                        "How long reading the topic to its end may take (ISO-8601). Default:"
                                + " ${DEFAULT-VALUE}.")
        Duration timeout;

        @Spec CommandSpec spec;

        @Override
        public Integer call() {
            return verify(
                    kafkaClient.connection(bootstrapServers),
                    topic,
                    tenant,
                    timeout,
                    spec.commandLine().getOut());
        }
    }

    /**
     * Verifies the chains on {@code topic} ({@code tenant}'s only, unless null) and prints a line
     * per chain to {@code out}.
     *
     * @return 0 when all are intact, 1 when any is not or there is none
     * @throws IllegalArgumentException when the topic cannot be read to its end
     */
    static int verify(
            io.zerolayer.operators.kafka.KafkaConnection kafka,
            String topic,
            String tenant,
            Duration timeout,
            PrintWriter out) {
        AuditChainVerifier verifier = new AuditChainVerifier();
        long[] read = {0};
        boolean complete;
        try {
            complete =
                    CommittedRecords.forEach(
                            kafka,
                            topic,
                            AuditEntry.class,
                            timeout,
                            new CommittedRecords.Visitor<>() {
                                @Override
                                public void record(AuditEntry record, String at) {
                                    verifier.record(record, at);
                                    progress(++read[0]);
                                }

                                @Override
                                public void undecodable(String at, String why) {
                                    verifier.unreadable(at, why);
                                    progress(++read[0]);
                                }
                            });
        } catch (org.apache.kafka.common.errors.TimeoutException e) {
            throw new IllegalArgumentException(
                    "Cannot read " + topic + " on " + kafka + ": " + e.getMessage());
        }
        if (!complete) {
            throw new IllegalArgumentException(
                    "Read "
                            + read[0]
                            + " records of "
                            + topic
                            + " but not to its end within "
                            + timeout
                            + "; give more --timeout");
        }
        int broken = 0;
        for (String problem : verifier.unreadable()) {
            out.println("BROKEN: " + problem);
            broken++;
        }
        List<String> tenants = tenant == null ? verifier.tenants() : List.of(tenant);
        if (tenants.isEmpty()) {
            out.println("BROKEN: no audit chain on " + topic);
            out.flush();
            return 1;
        }
        for (String t : tenants) {
            AuditChainVerifier.Verdict v = verifier.verify(t);
            if (v.entries() == 0 && v.anchors() == 0) {
                out.printf("%s: BROKEN: no audit chain on %s%n", t, topic);
                broken++;
            } else if (v.intact()) {
                out.printf(
                        "%s: intact, %d entries, head %d %s, %d anchors%n",
                        t, v.entries(), v.head(), v.headHash(), v.anchors());
            } else {
                out.printf("%s: BROKEN after %d good entries: %s%n", t, v.head(), v.problem());
                broken++;
            }
        }
        out.flush();
        return broken == 0 ? 0 : 1;
    }

    /** A line on standard error every 100 000 records, for a long chain. */
    private static void progress(long read) {
        if (read % 100_000 == 0) {
            System.err.println("… " + read + " records read");
        }
    }
}
