package io.zerolayer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PipelineStatusTest {
    private static final String SCRAPE =
            """
            # HELP flink_taskmanager_job_task_operator_graphs_ready graphs_ready (scope: taskmanager_job_task_operator)
            # TYPE flink_taskmanager_job_task_operator_graphs_ready gauge
            flink_taskmanager_job_task_operator_graphs_ready{job_id="j",subtask_index="0",} 1.0
            flink_taskmanager_job_task_operator_graphs_ready{job_id="j",subtask_index="1",} 1.0
            flink_taskmanager_job_task_operator_graphs_precompiled{subtask_index="0",} 2.0
            flink_taskmanager_job_task_operator_graphs_precompiled{subtask_index="1",} 0.0
            flink_taskmanager_job_task_operator_execution_graph_cache_hit_total{subtask_index="0",} 9.0
            flink_taskmanager_job_task_operator_execution_graph_cache_miss_total{subtask_index="0",} 3.0
            flink_taskmanager_job_task_operator_execution_graph_cache_size{subtask_index="0",} 3.0
            flink_taskmanager_job_task_operator_requests_in_total{subtask_index="0",} 14.0
            flink_taskmanager_job_task_operator_requests_rejected_total{subtask_index="0",} 2.0
            flink_taskmanager_job_task_operator_code_rejections_total{code="ZL010",} 2.0
            flink_taskmanager_job_task_operator_KafkaProducer_requests_in_flight{subtask_index="0",} 7.0
            flink_jobmanager_numRunningJobs 1.0
            """;

    @Test
    void sumsTheSlotsOfAScrape() {
        PipelineStatus s = PipelineStatus.parse(SCRAPE);
        assertThat(s.readySlots()).isEqualTo(2);
        assertThat(s.precompiled()).isEqualTo(2);
        assertThat(s.hits()).isEqualTo(9);
        assertThat(s.requestsIn()).isEqualTo(14);
        assertThat(s.rejected()).isEqualTo(2);
        assertThat(s.describe(2)).startsWith("WARM: 2 of 2").contains("hit ratio 0.75");
        assertThat(s.describe(4)).startsWith("NOT READY: 2 of 4");
        assertThat(s.plus(s).readySlots()).isEqualTo(4);
    }

    @Test
    void countsTheExecutorSlotsThatReportReadyOrNot() {
        PipelineStatus s =
                PipelineStatus.parse(
                        SCRAPE.replace("subtask_index=\"1\",} 1.0", "subtask_index=\"1\",} 0.0"));
        assertThat(s.readySlots()).isEqualTo(1);
        assertThat(s.executorSlots()).isEqualTo(2);
    }
}
