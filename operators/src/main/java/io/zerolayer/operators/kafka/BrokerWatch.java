package io.zerolayer.operators.kafka;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the job's Kafka cluster answers, said once when it stops and once when it is back. While
 * a broker is away every Kafka client of the job (each source, sink and checker of each subtask)
 * retries its connection and logs a WARN per attempt, and none says when it is back. The cluster's
 * log4j additions drop those connection WARNs (flink-conf/log4j-cluster.properties); this watch,
 * one per cluster address in a JVM, asks the cluster every {@link #PERIOD} and logs the two lines
 * that matter: a WARN once it has gone {@link #AWAY_AFTER} without an answer, an INFO when it
 * answers again.
 */
public final class BrokerWatch implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(BrokerWatch.class);

    /** How often the cluster is asked. */
    public static final Duration PERIOD = Duration.ofSeconds(2);

    /**
     * How long the cluster must go without an answer before it is said to be away: a busy broker or
     * machine can miss one ask without being lost.
     */
    public static final Duration AWAY_AFTER = Duration.ofSeconds(10);

    private static final Map<String, BrokerWatch> WATCHES = new HashMap<>();

    private final KafkaConnection kafka;
    private final Duration period;
    private final Duration awayAfter;
    private final BiConsumer<Boolean, String> say;
    private final Thread thread;
    private final java.util.concurrent.atomic.AtomicLong asked =
            new java.util.concurrent.atomic.AtomicLong();
    private int users;
    private volatile boolean closed;
    private boolean away;
    private Instant lastAnswer = Instant.now();
    private Instant awaySince;

    /**
     * Watches {@code kafka} for one more user: the JVM's watch of that address, started on first
     * use. Give it back with {@link #release()}.
     */
    public static synchronized BrokerWatch acquire(KafkaConnection kafka) {
        BrokerWatch watch =
                WATCHES.computeIfAbsent(
                        kafka.bootstrapServers(),
                        s -> new BrokerWatch(kafka, PERIOD, AWAY_AFTER, BrokerWatch::log));
        watch.users++;
        return watch;
    }

    /** One user fewer; the last one stops the watch. */
    public void release() {
        synchronized (BrokerWatch.class) {
            if (--users == 0) {
                WATCHES.remove(kafka.bootstrapServers());
                close();
            }
        }
    }

    /**
     * A watch of its own, not shared (tests).
     *
     * @param awayAfter how long without an answer makes the cluster away
     * @param say what to do with each change: reachable or not, and the line to log
     */
    public BrokerWatch(
            KafkaConnection kafka,
            Duration period,
            Duration awayAfter,
            BiConsumer<Boolean, String> say) {
        this.kafka = kafka;
        this.period = period;
        this.awayAfter = awayAfter;
        this.say = say;
        this.thread = new Thread(this::run, "zerolayer-broker-watch");
        thread.setDaemon(true);
        thread.start();
    }

    private static void log(boolean reachable, String line) {
        if (reachable) {
            LOG.info(line);
        } else {
            LOG.warn(line);
        }
    }

    private void run() {
        var props = kafka.properties();
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, String.valueOf(period.toMillis()));
        props.put(
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, String.valueOf(period.toMillis()));
        try (Admin admin = Admin.create(props)) {
            while (!closed) {
                long start = System.nanoTime();
                String failure = null;
                try {
                    admin.describeCluster(
                                    new DescribeClusterOptions().timeoutMs((int) period.toMillis()))
                            .nodes()
                            .get(period.toMillis() * 2, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    return;
                } catch (Exception e) {
                    failure = e.getCause() != null ? e.getCause().toString() : e.toString();
                }
                changed(failure == null, failure);
                asked.incrementAndGet();
                long left = period.toNanos() - (System.nanoTime() - start);
                if (left > 0) {
                    TimeUnit.NANOSECONDS.sleep(left);
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            LOG.warn("The watch of Kafka at {} stopped", kafka.bootstrapServers(), e);
        }
    }

    private void changed(boolean answered, String failure) {
        Instant at = Instant.now();
        if (answered) {
            if (away) {
                away = false;
                say.accept(
                        true,
                        "Kafka at "
                                + kafka.bootstrapServers()
                                + " answers again, after "
                                + Duration.between(awaySince, at).toSeconds()
                                + " s away");
            }
            lastAnswer = at;
        } else if (!away && Duration.between(lastAnswer, at).compareTo(awayAfter) >= 0) {
            away = true;
            awaySince = lastAnswer;
            say.accept(false, down(failure));
        }
    }

    private String down(String failure) {
        return "Kafka at "
                + kafka.bootstrapServers()
                + " has not answered for "
                + Duration.between(lastAnswer, Instant.now()).toSeconds()
                + " s ("
                + failure
                + "); the job's clients keep retrying without a line per attempt, and one line"
                + " follows when it is back";
    }

    /** How many times the cluster was asked so far, answering or not. */
    public long asked() {
        return asked.get();
    }

    @Override
    public void close() {
        closed = true;
        thread.interrupt();
    }
}
