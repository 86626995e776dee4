package io.zerolayer.tests.testutils;

import io.zerolayer.cluster.ClusterRest;
import java.net.URI;
import java.time.Duration;
import org.apache.flink.api.common.JobID;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.test.junit5.MiniClusterExtension;

/**
 * Waits on a job's checkpoints through its MiniCluster's REST API: the condition a test waits on
 * when it needs what the job wrote to be committed (transactional sinks commit on checkpoints),
 * instead of a fixed pause.
 */
public final class JobCheckpoints {
    private JobCheckpoints() {}

    /**
     * Waits until a checkpoint of {@code job} that started after this call has completed: what the
     * job wrote before the call is then committed, and a duplicate of it would be visible.
     */
    public static void awaitAfterNow(MiniClusterExtension cluster, JobID job) throws Exception {
        Configuration client = cluster.getClientConfiguration();
        URI rest =
                URI.create(
                        "http://"
                                + client.get(RestOptions.ADDRESS)
                                + ":"
                                + client.get(RestOptions.PORT)
                                + "/");
        new ClusterRest(rest, null)
                .awaitCheckpointAfterNow(job.toHexString(), Duration.ofMinutes(1));
    }
}
