package io.zerolayer.tests;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.zerolayer.embedded.EmbeddedKafkaBroker;
import io.zerolayer.operators.kafka.BrokerWatch;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker that goes away and comes back is one WARN and one INFO from the job, however long it is
 * away: a real broker stopped and started again on its data folder and ports.
 */
class BrokerWatchITCase {

    @Test
    void aLostBrokerIsOneLineWhenItGoesAndOneWhenItIsBack(@TempDir Path data) throws Exception {
        List<String> said = Collections.synchronizedList(new ArrayList<>());
        EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(data);
        String servers = broker.bootstrapServers();
        try (BrokerWatch watch =
                new BrokerWatch(
                        broker.adminConnection(),
                        Duration.ofMillis(300),
                        Duration.ofSeconds(1),
                        (up, line) -> said.add((up ? "INFO " : "WARN ") + line))) {
            await().atMost(Duration.ofSeconds(30)).until(() -> watch.asked() >= 3);
            assertThat(said).as("a healthy start says nothing").isEmpty();

            broker.close();
            await().atMost(Duration.ofSeconds(30)).until(() -> !said.isEmpty());
            long away = watch.asked();
            await().atMost(Duration.ofSeconds(60)).until(() -> watch.asked() >= away + 10);
            // asked ten times more while away: still one line
            assertThat(said)
                    .singleElement()
                    .asString()
                    .startsWith("WARN Kafka at " + servers + " has not answered for");

            broker = EmbeddedKafkaBroker.start(data); // the same ports
            await().atMost(Duration.ofSeconds(60)).until(() -> said.size() >= 2);
            long back = watch.asked();
            await().atMost(Duration.ofSeconds(30)).until(() -> watch.asked() >= back + 3);
            assertThat(said).hasSize(2);
            assertThat(said.get(1)).startsWith("INFO Kafka at " + servers + " answers again");
        } finally {
            broker.close();
        }
    }

    @Test
    void theJvmHasOneWatchPerClusterForAllItsUsers() {
        try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start(null)) {
            BrokerWatch first = BrokerWatch.acquire(broker.adminConnection());
            BrokerWatch second = BrokerWatch.acquire(broker.adminConnection());
            assertThat(second).isSameAs(first);
            first.release();
            second.release();
            BrokerWatch again = BrokerWatch.acquire(broker.adminConnection());
            assertThat(again).as("a new watch once the last user let go").isNotSameAs(first);
            again.release();
        }
    }
}
