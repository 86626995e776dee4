package io.zerolayer.sql;

import io.zerolayer.operators.documents.AnalysisTask;
import io.zerolayer.operators.documents.DocumentFormat;
import io.zerolayer.operators.scheduling.InProcessAnalyzer;
import java.io.Serializable;
import java.util.Map;

/**
 * A ZeroLayer model as the factory checked it, and all its function runs with.
 *
 * @param analyzer the in-process analyzer's settings, from the session's {@code zerolayer.*}
 * @param task the task and its inputs, as each row's prompt states them
 * @param format how the input column is read
 * @param attributes each row's request attributes: its compliance level and quality floor
 * @param tenant whom each row's cost records name
 * @param columns the declared output columns
 * @param inFlight rows Flink keeps in flight per subtask ({@code
 *     table.exec.async-ml-predict.max-concurrent-operations})
 */
record ZeroLayerModel(
        InProcessAnalyzer.Settings analyzer,
        AnalysisTask task,
        DocumentFormat format,
        Map<String, String> attributes,
        String tenant,
        ModelColumns columns,
        int inFlight)
        implements Serializable {
    ZeroLayerModel {
        attributes = Map.copyOf(attributes);
    }
}
