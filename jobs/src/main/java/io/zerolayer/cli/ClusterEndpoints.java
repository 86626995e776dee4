package io.zerolayer.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.util.PortRange;

/**
 * The Prometheus endpoints of a Flink cluster's TaskManagers, found through the JobManager's REST
 * API: each TaskManager's host from {@code /taskmanagers}, the reporter's port range from {@code
 * /jobmanager/config}, and, on each host, the ports of that range that serve metrics. So {@code
 * zerolayer status --rest-url} needs only the address of the Web UI.
 */
final class ClusterEndpoints {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** The host in a TaskManager's RPC address, e.g. {@code pekko.tcp://flink@10.0.0.7:6122/…}. */
    private static final Pattern RPC_HOST = Pattern.compile("@([^:/]+):\\d+");

    static final String DEFAULT_PORTS = "9249";

    private final HttpClient http;
    private final URI rest;

    ClusterEndpoints(HttpClient http, URI rest) {
        this.http = http;
        this.rest = rest;
    }

    /** Every endpoint that answers, one per TaskManager reporter (and the JobManager's). */
    List<URI> discover() throws IOException, InterruptedException {
        String ports = DEFAULT_PORTS;
        for (JsonNode entry : get("/jobmanager/config")) {
            if (entry.path("key").asText().matches("metrics\\.reporter\\.[^.]+\\.port")) {
                ports = entry.path("value").asText();
            }
        }
        Set<String> hosts = new LinkedHashSet<>();
        for (JsonNode tm : get("/taskmanagers").path("taskmanagers")) {
            Matcher m = RPC_HOST.matcher(tm.path("path").asText());
            hosts.add(m.find() ? m.group(1) : rest.getHost());
        }
        List<URI> endpoints = new ArrayList<>();
        for (String host : hosts) {
            var candidates = new PortRange(ports).getPortsIterator();
            while (candidates.hasNext()) {
                URI uri = URI.create("http://" + host + ":" + candidates.next() + "/metrics");
                if (answers(uri)) {
                    endpoints.add(uri);
                }
            }
        }
        return endpoints;
    }

    private JsonNode get(String path) throws IOException, InterruptedException {
        URI uri = rest.resolve(path);
        HttpResponse<String> response =
                http.send(
                        HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).build(),
                        HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IOException(uri + " answered HTTP " + response.statusCode());
        }
        return JSON.readTree(response.body());
    }

    private boolean answers(URI uri) throws InterruptedException {
        try {
            return http.send(
                                    HttpRequest.newBuilder(uri)
                                            .timeout(Duration.ofSeconds(2))
                                            .build(),
                                    HttpResponse.BodyHandlers.discarding())
                            .statusCode()
                    == 200;
        } catch (IOException nothingThere) {
            return false;
        }
    }
}
