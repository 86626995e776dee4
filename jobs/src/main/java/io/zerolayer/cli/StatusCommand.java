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
    static final URI FALLBACK_ENDPOINT = URI.create("http://localhost:9249/metrics");

    @Option(
            names = "--metrics-url",
            description =
                    "Prometheus endpoint of a TaskManager; repeat for several. Default: the"
                            + " endpoint of the zerolayer serve running on this machine, else "
                            + "http://localhost:9249/metrics.")
    List<URI> endpoints;

    @Option(
            names = "--rest-url",
            description =
                    "The JobManager's REST address (the Web UI's, e.g. http://jobmanager:8081):"
                            + " read the Prometheus endpoint of every TaskManager it lists.")
    URI restUrl;

    @Option(
            names = "--expect-slots",
            description =
                    "Executor slots that must be ready. Default: the slots of the zerolayer"
                            + " serve found, else as many as the endpoints report.")
    Integer expectedSlots;

    @Override
    public Integer call() throws InterruptedException {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        if (restUrl != null && endpoints == null) {
            try {
                endpoints = new ClusterEndpoints(http, restUrl).discover();
            } catch (java.io.IOException e) {
                System.err.println("Cannot read the cluster at " + restUrl + ": " + e);
                return 1;
            }
            if (endpoints.isEmpty()) {
                System.err.println(
                        "No Prometheus endpoint answers on the TaskManagers of " + restUrl);
                return 1;
            }
            System.err.println("Reading " + endpoints);
        }
        java.util.Optional<ServeEndpoint> serve =
                endpoints == null
                        ? ServeEndpoint.findLive(ServeEndpoint.folder())
                        : java.util.Optional.empty();
        if (endpoints == null) {
            endpoints = List.of(serve.map(ServeEndpoint::metricsUrl).orElse(FALLBACK_ENDPOINT));
            serve.ifPresent(
                    s ->
                            System.err.println(
                                    "Reading zerolayer serve (pid "
                                            + s.pid()
                                            + ") at "
                                            + s.metricsUrl()));
        }
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
        int expected =
                expectedSlots != null
                        ? expectedSlots
                        : serve.map(ServeEndpoint::slots)
                                .orElse(Math.max(1, total.executorSlots()));
        System.out.println(total.describe(expected));
        return total.readySlots() >= expected ? 0 : 3;
    }
}
