package io.zerolayer.operators.kafka;

import java.io.Serializable;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether a topic exists on the cluster, asked of the broker on the first use of each name and
 * remembered: found topics for good, missing ones for the refresh interval. Replies only go to
 * topics that exist: a reply to a missing topic would either block the sink (brokers that do not
 * create topics) or let any requester create topics (brokers that do). Created lazily on first use,
 * so it can travel with a Flink function; close it in {@code close()}.
 */
public final class KnownTopics implements Serializable, AutoCloseable {
    private static final long serialVersionUID = 1L;
    private static final Logger LOG = LoggerFactory.getLogger(KnownTopics.class);

    /** Missing names remembered at most; a flood of made-up names cannot grow memory. */
    private static final int MISSING_REMEMBERED = 10_000;

    private final KafkaConnection kafka;
    private final long refreshMillis;

    private transient Admin admin;
    private transient Set<String> found;
    private transient Map<String, Long> missingSince;

    /**
     * @param refreshMillis how long a topic found missing stays missing before the broker is asked
     *     again
     */
    public KnownTopics(KafkaConnection kafka, long refreshMillis) {
        this.kafka = kafka;
        this.refreshMillis = refreshMillis;
    }

    /**
     * Whether the topic exists. When the broker cannot be asked, the answer is yes: the write then
     * meets the broker's own answer, and a passing outage does not dead-letter good replies.
     */
    public synchronized boolean exists(String topic) {
        if (found == null) {
            found = new HashSet<>();
            missingSince =
                    new LinkedHashMap<>(16, 0.75f, false) {
                        @Override
                        protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
                            return size() > MISSING_REMEMBERED;
                        }
                    };
        }
        if (found.contains(topic)) {
            return true;
        }
        long now = System.currentTimeMillis();
        Long missing = missingSince.get(topic);
        if (missing != null && now - missing < refreshMillis) {
            return false;
        }
        try {
            admin().describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS);
            found.add(topic);
            missingSince.remove(topic);
            return true;
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException
                    || e.getCause() instanceof InvalidTopicException) {
                missingSince.put(topic, now);
                return false;
            }
            LOG.warn("Cannot ask {} whether topic {} exists: {}", kafka, topic, e.getCause());
            return true;
        } catch (TimeoutException e) {
            LOG.warn("Cannot ask {} whether topic {} exists: timed out", kafka, topic);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
    }

    private Admin admin() {
        if (admin == null) {
            Properties props = kafka.properties();
            props.put(AdminClientConfig.CLIENT_ID_CONFIG, "zerolayer-known-topics");
            admin = Admin.create(props);
        }
        return admin;
    }

    @Override
    public synchronized void close() {
        if (admin != null) {
            admin.close(java.time.Duration.ofSeconds(5));
            admin = null;
        }
    }
}
