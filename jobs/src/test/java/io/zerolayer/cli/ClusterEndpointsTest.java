package io.zerolayer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ClusterEndpointsTest {

    private static HttpServer serve(String path, String body) throws Exception {
        HttpServer server =
                HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext(
                path,
                exchange -> {
                    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
                    exchange.sendResponseHeaders(200, bytes.length);
                    exchange.getResponseBody().write(bytes);
                    exchange.close();
                });
        server.start();
        return server;
    }

    @Test
    void theTaskManagersHostsAndTheReportersRangeGiveTheEndpointsThatAnswer() throws Exception {
        HttpServer metrics = serve("/metrics", "flink_taskmanager_Status_JVM_CPU_Load 0.1\n");
        int port = metrics.getAddress().getPort();
        HttpServer rest = serve("/", "");
        rest.createContext(
                "/jobmanager/config",
                exchange -> {
                    byte[] b =
                            ("[{\"key\":\"metrics.reporter.prom.port\",\"value\":\""
                                            + (port - 1)
                                            + "-"
                                            + (port + 1)
                                            + "\"}]")
                                    .getBytes(StandardCharsets.UTF_8);
                    exchange.sendResponseHeaders(200, b.length);
                    exchange.getResponseBody().write(b);
                    exchange.close();
                });
        rest.createContext(
                "/taskmanagers",
                exchange -> {
                    byte[] b =
                            ("{\"taskmanagers\":[{\"id\":\"tm-1\",\"path\":"
                                 + "\"pekko.tcp://flink@127.0.0.1:6122/user/rpc/taskmanager_0\"}]}")
                                    .getBytes(StandardCharsets.UTF_8);
                    exchange.sendResponseHeaders(200, b.length);
                    exchange.getResponseBody().write(b);
                    exchange.close();
                });
        try {
            URI restUrl = URI.create("http://localhost:" + rest.getAddress().getPort() + "/");
            assertThat(new ClusterEndpoints(HttpClient.newHttpClient(), restUrl).discover())
                    .containsExactly(URI.create("http://127.0.0.1:" + port + "/metrics"));
        } finally {
            rest.stop(0);
            metrics.stop(0);
        }
    }
}
