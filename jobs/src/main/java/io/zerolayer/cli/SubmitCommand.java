package io.zerolayer.cli;

import io.zerolayer.client.ZeroLayerClient;
import io.zerolayer.embedded.DemoTenant;
import io.zerolayer.operators.tenants.TenantRegistry;
import io.zerolayer.schemas.AnalysisResponse;
import io.zerolayer.schemas.ResponseStatus;
import io.zerolayer.schemas.auth.TenantCredentials;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code zerolayer submit}: sends prompt files to a running pipeline and prints the replies. */
@Command(
        name = "submit",
        mixinStandardHelpOptions = true,
        description =
                "Send prompt files as requests to a running pipeline and print their replies.")
final class SubmitCommand implements Callable<Integer> {
    @Option(
            names = "--bootstrap-servers",
            required = true,
            description = "Kafka bootstrap servers.")
    String bootstrapServers;

    @Option(
            names = "--requests-topic",
            defaultValue = "zerolayer.requests",
            description = "Default: ${DEFAULT-VALUE}.")
    String requestsTopic;

    @Option(
            names = "--reply-topic",
            description =
                    "Topic for replies (kafka_replyTopic); default: a fresh one for this client.")
    String replyTopic;

    @Option(
            names = "--tenant",
            defaultValue = DemoTenant.ID,
            description =
                    "Tenant id of the requests (billed to it). Default: ${DEFAULT-VALUE}, the"
                            + " tenant of demo, serve and cluster up.")
    String tenant;

    @Option(
            names = "--key-file",
            description =
                    "File holding the tenant's key as hex digits, to sign requests with."
                            + " Otherwise the key comes from ZEROLAYER_TENANT_KEY or"
                            + " --tenants-file.")
    Path keyFile;

    @Option(
            names = "--tenants-file",
            description =
                    "A tenants file (zerolayer.tenants.file) to take the tenant's first key from,"
                            + " e.g. the one serve and cluster up print.")
    Path tenantsFile;

    @Option(
            names = "--timeout",
            defaultValue = "PT60S",
            description = "How long to wait for each reply (ISO-8601). Default: ${DEFAULT-VALUE}.")
    Duration timeout;

    @Option(
            names = "--json",
            description =
                    "Send JSON requests (content-type: application/json) and get JSON replies.")
    boolean json;

    @Parameters(
            arity = "1..*",
            paramLabel = "FILE",
            description = "Prompt files, or folders of *.prompt files.")
    List<Path> files;

    /** The key to sign with, from the first of --key-file, the environment, --tenants-file. */
    private TenantCredentials credentials() throws java.io.IOException {
        if (keyFile != null) {
            return TenantCredentials.of(tenant, java.nio.file.Files.readString(keyFile));
        }
        String fromEnvironment = System.getenv(KEY_VARIABLE);
        if (fromEnvironment != null && !fromEnvironment.isBlank()) {
            return TenantCredentials.of(tenant, fromEnvironment);
        }
        if (tenantsFile != null) {
            return TenantRegistry.load(tenantsFile).credentials(tenant);
        }
        return null;
    }

    @picocli.CommandLine.Mixin KafkaClientFile kafkaClient = new KafkaClientFile();

    @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

    /** The environment variable holding the tenant's hex key. */
    static final String KEY_VARIABLE = "ZEROLAYER_TENANT_KEY";

    @Override
    public Integer call() throws Exception {
        ZeroLayerClient.Builder builder =
                ZeroLayerClient.builder()
                        .bootstrapServers(bootstrapServers)
                        .requestsTopic(requestsTopic)
                        .timeout(timeout)
                        .json(json)
                        .kafkaSettings(
                                io.zerolayer.operators.kafka.ClientSettingsFile.read(
                                        kafkaClient.file));
        if (replyTopic != null) {
            builder.replyTopic(replyTopic);
        }
        TenantCredentials credentials = credentials();
        if (credentials != null) {
            builder.credentials(credentials);
        } else {
            System.err.println(
                    "Requests go unsigned (no --key-file, ZEROLAYER_TENANT_KEY or"
                            + " --tenants-file): a job with zerolayer.auth.mode hmac, the default,"
                            + " dead-letters them.");
        }
        int failures = 0;
        java.io.PrintWriter out = spec.commandLine().getOut();
        try (ZeroLayerClient client = builder.build()) {
            List<Path> prompts = PromptFiles.expand(files);
            List<CompletableFuture<Void>> all = new ArrayList<>();
            int[] counts = new int[2];
            for (Path file : prompts) {
                long sent = System.nanoTime();
                String id =
                        PromptFiles.label(file)
                                + "-"
                                + UUID.randomUUID().toString().substring(0, 8);
                all.add(
                        client.submit(PromptFiles.request(file, id, tenant))
                                .handle(
                                        (AnalysisResponse r, Throwable e) -> {
                                            synchronized (counts) {
                                                if (e != null) {
                                                    counts[1]++;
                                                    out.println(
                                                            "[NO REPLY] "
                                                                    + PromptFiles.label(file)
                                                                    + ": "
                                                                    + e);
                                                } else {
                                                    if (r.getStatus() != ResponseStatus.OK) {
                                                        counts[1]++;
                                                    }
                                                    ResponsePrinter.print(
                                                            out,
                                                            PromptFiles.label(file),
                                                            r,
                                                            (System.nanoTime() - sent) / 1_000_000);
                                                }
                                            }
                                            return null;
                                        }));
            }
            CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).join();
            failures = counts[1];
            out.printf("%d requests, %d not OK%n", prompts.size(), failures);
            out.flush();
        }
        return failures == 0 ? 0 : 1;
    }
}
