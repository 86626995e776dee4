package io.zerolayer.cli;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code zerolayer status}: is the pipeline warm? Reads the Prometheus endpoints and exits 0 when
 * the expected executor slots are ready (sessions loaded, precompile.yaml structures compiled), 3
 * when not yet, 1 when an endpoint cannot be read — so a rollout can wait for compiled graphs
 * rather than an open port.
 */
@Command(
        name = "status",
        mixinStandardHelpOptions = true,
        description =
                "Say whether the pipeline is warm (exit 0), not yet (3) or unreachable (1), from"
                        + " its Prometheus metrics.")
final class StatusCommand implements Callable<Integer> {
    @Option(
            names = "--metrics-url",
            defaultValue = "http://localhost:9249/metrics",
            description =
                    "Prometheus endpoint of a TaskManager; repeat for several. Default:"
                            + " ${DEFAULT-VALUE}.")
    List<URI> endpoints;

    @Option(
            names = "--expect-slots",
            defaultValue = "1",
            description = "Executor slots that must be ready. Default: ${DEFAULT-VALUE}.")
    int expectedSlots;

    @Override
    public Integer call() throws InterruptedException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        PipelineStatus total = PipelineStatus.parse("");
        for (URI endpoint : endpoints) {
            try {
                HttpResponse<String> response =
                        http.send(
                                HttpRequest.newBuilder(endpoint)
                                        .timeout(Duration.ofSeconds(10))
                                        .build(),
                                HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() != 200) {
                    System.err.println(endpoint + " answered HTTP " + response.statusCode());
                    return 1;
                }
                total = total.plus(PipelineStatus.parse(response.body()));
            } catch (java.io.IOException e) {
                System.err.println("Cannot read " + endpoint + ": " + e);
                return 1;
            }
        }
        System.out.println(total.describe(expectedSlots));
        return total.readySlots() >= expectedSlots ? 0 : 3;
    }
}
