package io.zerolayer.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.Collections;
import java.util.Optional;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.junit.jupiter.api.Test;

class LocalPrometheusReporterFactoryTest {

    private static MetricReporter reporter(String ports) {
        MetricConfig config = new MetricConfig();
        config.setProperty(LocalPrometheusReporterFactory.PORT, ports);
        return new LocalPrometheusReporterFactory().createMetricReporter(config);
    }

    @Test
    void theEndpointTakesTheFirstFreePortOfItsRangeOnLoopbackOnlyAndSaysWhichItTook()
            throws Exception {
        try (ServerSocket first = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            int taken = first.getLocalPort();
            MetricReporter reporter = reporter(taken + "-" + (taken + 20));
            try {
                int port =
                        LocalPrometheusReporterFactory.boundPorts().stream()
                                .filter(p -> p > taken && p <= taken + 20)
                                .findFirst()
                                .orElseThrow();
                var in = URI.create("http://localhost:" + port + "/metrics").toURL().openStream();
                in.close();
                Optional<InetAddress> external = externalAddress();
                if (external.isPresent()) {
                    try (Socket s = new Socket()) {
                        assertThatThrownBy(
                                        () ->
                                                s.connect(
                                                        new InetSocketAddress(external.get(), port),
                                                        2000))
                                .as("the endpoint is not reachable on %s", external.get())
                                .isInstanceOf(java.io.IOException.class);
                    }
                }
            } finally {
                reporter.close();
            }
            assertThat(LocalPrometheusReporterFactory.boundPorts())
                    .noneMatch(p -> p > taken && p <= taken + 20);
        }
    }

    @Test
    void aRangeWithNoFreePortSaysSo() throws Exception {
        try (ServerSocket only = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            assertThatThrownBy(() -> reporter(String.valueOf(only.getLocalPort())))
                    .hasMessageContaining("No free port for the Prometheus endpoint");
        }
    }

    private static Optional<InetAddress> externalAddress() throws Exception {
        for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (!nic.isUp() || nic.isLoopback()) {
                continue;
            }
            for (InetAddress a : Collections.list(nic.getInetAddresses())) {
                if (a instanceof Inet4Address) {
                    return Optional.of(a);
                }
            }
        }
        return Optional.empty();
    }
}
