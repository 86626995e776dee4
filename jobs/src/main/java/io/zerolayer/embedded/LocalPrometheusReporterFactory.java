package io.zerolayer.embedded;

import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.exporter.HTTPServer;
import java.io.IOException;
import java.lang.reflect.Field;
import java.net.InetSocketAddress;
import java.util.Iterator;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.metrics.prometheus.AbstractPrometheusReporter;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;
import org.apache.flink.util.PortRange;

/**
 * Flink's Prometheus pull reporter, listening on one address ({@code host}, default {@code
 * localhost}) instead of every interface, and telling which port of its range it took: what the
 * embedded modes use, so {@code serve} can print the endpoint it really serves and nothing listens
 * beyond the machine. Configured like Flink's own ({@code metrics.reporter.prom.port: 9249-9259})
 * plus {@code metrics.reporter.prom.host}.
 */
public final class LocalPrometheusReporterFactory implements MetricReporterFactory {
    static final String HOST = "host";
    static final String PORT = "port";

    /** Ports the reporters of this JVM listen on now. */
    private static final Set<Integer> BOUND = ConcurrentHashMap.newKeySet();

    /** The ports this JVM's reporters listen on, for printing the endpoint. */
    public static Set<Integer> boundPorts() {
        return Set.copyOf(BOUND);
    }

    @Override
    public MetricReporter createMetricReporter(Properties properties) {
        return new Reporter(
                properties.getProperty(HOST, "localhost"),
                new PortRange(properties.getProperty(PORT, "9249")));
    }

    /** Flink's reporter, with its HTTP server bound to one address. */
    static final class Reporter extends AbstractPrometheusReporter {
        private final HTTPServer server;
        private final int port;

        Reporter(String host, PortRange ports) {
            CollectorRegistry registry = registryOf(this);
            HTTPServer started = null;
            int taken = -1;
            Iterator<Integer> candidates = ports.getPortsIterator();
            while (started == null && candidates.hasNext()) {
                int candidate = candidates.next();
                try {
                    started =
                            new HTTPServer(new InetSocketAddress(host, candidate), registry, true);
                    taken = candidate;
                } catch (IOException inUse) {
                    log.debug("Port {} on {} is taken; trying the next", candidate, host);
                }
            }
            if (started == null) {
                throw new IllegalStateException(
                        "No free port for the Prometheus endpoint in "
                                + ports
                                + " on "
                                + host
                                + "; set metrics.reporter.prom.port to a free range");
            }
            server = started;
            port = taken;
            BOUND.add(port);
            log.info("Prometheus endpoint at http://{}:{}/metrics", host, port);
        }

        /**
         * The registry Flink's reporter collects into. It is package-private there; read once here,
         * and a Flink upgrade that renames it fails this reporter's test, not a running job.
         */
        private static CollectorRegistry registryOf(AbstractPrometheusReporter reporter) {
            try {
                Field field = AbstractPrometheusReporter.class.getDeclaredField("registry");
                field.setAccessible(true);
                return (CollectorRegistry) field.get(reporter);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException(
                        "This Flink's Prometheus reporter has no registry field to serve", e);
            }
        }

        @Override
        public void close() {
            server.stop();
            BOUND.remove(port);
            super.close();
        }
    }
}
