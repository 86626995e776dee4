package io.zerolayer.sql;

import io.zerolayer.operators.contracts.SafeModePolicy;
import io.zerolayer.operators.documents.AnalysisTask;
import io.zerolayer.operators.documents.DocumentFormat;
import io.zerolayer.operators.scheduling.ExecutorSetup;
import java.util.Map;
import org.apache.flink.table.functions.AsyncPredictFunction;
import org.apache.flink.table.ml.AsyncPredictRuntimeProvider;
import org.apache.flink.table.ml.ModelProvider;

/**
 * A ZeroLayer model as the planner runs it: asynchronously only, since batching rows needs several
 * in flight ({@link BatchingPredictFunction}); everything it runs with was checked when the factory
 * made it.
 */
final class ZeroLayerModelProvider implements AsyncPredictRuntimeProvider {
    private final ExecutorSetup setup;
    private final SafeModePolicy safeMode;
    private final AnalysisTask task;
    private final DocumentFormat format;
    private final Map<String, String> attributes;
    private final String tenant;
    private final ModelColumns columns;
    private final long passTokens;
    private final int inFlight;

    ZeroLayerModelProvider(
            ExecutorSetup setup,
            SafeModePolicy safeMode,
            AnalysisTask task,
            DocumentFormat format,
            Map<String, String> attributes,
            String tenant,
            ModelColumns columns,
            long passTokens,
            int inFlight) {
        this.passTokens = passTokens;
        this.inFlight = inFlight;
        this.setup = setup;
        this.safeMode = safeMode;
        this.task = task;
        this.format = format;
        this.attributes = attributes;
        this.tenant = tenant;
        this.columns = columns;
    }

    @Override
    public AsyncPredictFunction createAsyncPredictFunction(Context context) {
        return new BatchingPredictFunction(
                setup, safeMode, task, format, attributes, tenant, columns, passTokens, inFlight);
    }

    @Override
    public ModelProvider copy() {
        return new ZeroLayerModelProvider(
                setup, safeMode, task, format, attributes, tenant, columns, passTokens, inFlight);
    }
}
