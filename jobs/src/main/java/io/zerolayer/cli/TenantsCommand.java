package io.zerolayer.cli;

import io.zerolayer.jobs.KafkaOptions;
import io.zerolayer.jobs.TenancyOptions;
import io.zerolayer.operators.kafka.KafkaConnection;
import io.zerolayer.operators.tenants.TenantRegistry;
import io.zerolayer.operators.tenants.TenantsSync;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import org.apache.flink.configuration.Configuration;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.errors.SecurityDisabledException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code zerolayer tenants sync}: the cluster's principals and ACLs from the tenant registry. */
@Command(
        name = "tenants",
        mixinStandardHelpOptions = true,
        description = "The tenants on the Kafka cluster (docs/tenants.md).",
        subcommands = {TenantsCommand.Sync.class})
final class TenantsCommand implements Runnable {
    @Override
    public void run() {
        System.err.println(
                "Usage: zerolayer tenants sync --bootstrap-servers H:P --tenants-file F"
                        + " [--command-config admin.properties]");
    }

    @Command(
            name = "sync",
            mixinStandardHelpOptions = true,
            description = {
                "Make the Kafka cluster's SCRAM users, ACLs and tenants' reply topics what the"
                        + " tenant registry says: a user per tenant, for the job and for billing;"
                        + " each tenant writes requests and reads only its own reply topics; only"
                        + " the job writes replies, costs, graphs, audit and dead letters; only"
                        + " billing reads the costs and the audit chain. Running it again changes"
                        + " nothing. Prints each change.",
                "A new user's password is written once, to --credentials-dir as"
                        + " <principal>.properties (owner-only), ready for --command-config or a"
                        + " client's settings. Exit 0 when done, 1 when the cluster refused."
            })
    static final class Sync implements Callable<Integer> {
        @Option(
                names = "--bootstrap-servers",
                required = true,
                description = "The Kafka cluster, reached as a super user (--command-config).")
        String bootstrapServers;

        @Mixin KafkaClientFile adminClient = new KafkaClientFile();

        @Option(
                names = "--tenants-file",
                description = "The tenant registry. Default: zerolayer.tenants.file.")
        Path tenantsFile;

        @Option(
                names = "--credentials-dir",
                defaultValue = "kafka-credentials",
                description =
                        "Where the client settings of new users go, one file each. Default:"
                                + " ${DEFAULT-VALUE}.")
        Path credentialsDir;

        @Option(
                names = "--security-protocol",
                description =
                        "security.protocol written into new users' client settings. Default: the"
                                + " admin connection's when it uses SASL, else SASL_SSL.")
        String securityProtocol;

        @Option(
                names = "--new-password",
                paramLabel = "PRINCIPAL",
                description = "Give this principal a new password (repeatable).")
        List<String> newPasswords = List.of();

        @Option(
                names = "--reply-partitions",
                defaultValue = "1",
                description = "Partitions of each tenant's reply topic. Default: ${DEFAULT-VALUE}.")
        int replyPartitions;

        @Option(names = "--dry-run", description = "Print what would change; change nothing.")
        boolean dryRun;

        @Mixin PipelineSettings settings;

        @Spec CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            Configuration conf = settings.load();
            Path file =
                    PipelineSettings.tenantsFile(tenantsFile, conf)
                            .orElseThrow(
                                    () ->
                                            new IllegalArgumentException(
                                                    "Give --tenants-file or set "
                                                            + TenancyOptions.TENANTS_FILE.key()));
            TenantRegistry registry = TenantRegistry.load(file);
            KafkaConnection kafka = adminClient.connection(bootstrapServers);
            PrintWriter out = spec.commandLine().getOut();
            return sync(
                    kafka,
                    registry,
                    KafkaOptions.tenancyTopics(conf),
                    replyPartitions,
                    new LinkedHashSet<>(newPasswords),
                    dryRun,
                    credentialsDir,
                    securityProtocol,
                    out);
        }
    }

    /** Syncs and prints; writes new users' client settings under {@code credentialsDir}. */
    static int sync(
            KafkaConnection kafka,
            TenantRegistry registry,
            io.zerolayer.operators.tenants.KafkaTenancy.JobTopics topics,
            int replyPartitions,
            Set<String> newPasswords,
            boolean dryRun,
            Path credentialsDir,
            String securityProtocol,
            PrintWriter out)
            throws Exception {
        TenantsSync.Result result;
        try (Admin admin = Admin.create(kafka.properties())) {
            result =
                    new TenantsSync(admin, topics, replyPartitions)
                            .sync(registry, newPasswords, dryRun);
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof SecurityDisabledException) {
                out.println(
                        kafka
                                + " has no authorizer: ACLs cannot be set. Run the broker with"
                                + " authorizer.class.name and allow.everyone.if.no.acl.found=false"
                                + " (docs/tenants.md).");
                out.flush();
                return 1;
            }
            out.println("The cluster refused: " + e.getCause());
            out.flush();
            return 1;
        }
        // new users sign in as the admin does when it uses SASL, else over TLS
        String adminProtocol = kafka.clientProperties().getOrDefault("security.protocol", "");
        String protocol =
                securityProtocol != null
                        ? securityProtocol
                        : adminProtocol.startsWith("SASL_") ? adminProtocol : "SASL_SSL";
        for (Map.Entry<String, String> user : result.passwords().entrySet()) {
            Path written =
                    io.zerolayer.operators.kafka.ClientSettingsFile.write(
                            credentialsDir, user.getKey(), user.getValue(), protocol);
            out.println("  client settings of " + user.getKey() + ": " + written);
        }
        result.changes().forEach(c -> out.println((dryRun ? "would have " : "") + c));
        out.println(
                result.changes().isEmpty()
                        ? "In sync: "
                                + registry.tenantIds().size()
                                + " tenant(s), nothing to change"
                        : (dryRun ? "Dry run: " : "Done: ")
                                + result.changes().size()
                                + " change(s) for "
                                + registry.tenantIds().size()
                                + " tenant(s)");
        out.flush();
        return 0;
    }
}
