package io.zerolayer.sql;

import org.apache.flink.table.functions.AsyncPredictFunction;
import org.apache.flink.table.ml.AsyncPredictRuntimeProvider;
import org.apache.flink.table.ml.ModelProvider;

/**
 * A ZeroLayer model as the planner runs it: asynchronously only, since batching rows needs several
 * in flight ({@link BatchingPredictFunction}); everything it runs with was checked when the factory
 * made it.
 */
final class ZeroLayerModelProvider implements AsyncPredictRuntimeProvider {
    private final ZeroLayerModel model;

    ZeroLayerModelProvider(ZeroLayerModel model) {
        this.model = model;
    }

    @Override
    public AsyncPredictFunction createAsyncPredictFunction(Context context) {
        return new BatchingPredictFunction(model);
    }

    @Override
    public ModelProvider copy() {
        return new ZeroLayerModelProvider(model);
    }
}
