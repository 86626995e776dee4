package io.zerolayer.sql;

import io.zerolayer.jobs.ExecutorOptions;
import io.zerolayer.jobs.JobFunctions;
import io.zerolayer.operators.contracts.TaskContracts;
import io.zerolayer.operators.documents.AnalysisTask;
import io.zerolayer.operators.scheduling.InProcessAnalyzer;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.api.config.ExecutionConfigOptions;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.table.factories.ModelProviderFactory;
import org.apache.flink.table.ml.ModelProvider;
import org.apache.flink.table.types.logical.LogicalTypeFamily;

/**
 * {@code 'provider' = 'zerolayer'}: ZeroLayer's document analysis as a Flink SQL model, found by
 * Flink's service loader in the job jar. When the planner first plans a query on the model it
 * checks everything a row could otherwise fail on: its options (unknown ones, and the task and its
 * inputs by ZeroLayer's task contracts, with their diagnostics), one {@code STRING} input column,
 * and output columns the task fills. {@code zerolayer.*} settings of the session ({@code SET}) or
 * the cluster's configuration apply as in the streaming job: contracts, prices, hardware profile,
 * warm-graph bounds, batch size.
 */
public final class ZeroLayerModelProviderFactory implements ModelProviderFactory {
    /** The value of a model's {@code provider} option. */
    public static final String IDENTIFIER = "zerolayer";

    @Override
    public String factoryIdentifier() {
        return IDENTIFIER;
    }

    @Override
    public Set<ConfigOption<?>> requiredOptions() {
        return Set.of(ZeroLayerModelOptions.TASK);
    }

    @Override
    public Set<ConfigOption<?>> optionalOptions() {
        Set<ConfigOption<?>> optional = new HashSet<>(ZeroLayerModelOptions.all());
        optional.remove(ZeroLayerModelOptions.TASK);
        return optional;
    }

    @Override
    public ModelProvider createModelProvider(Context context) {
        FactoryUtil.ModelProviderFactoryHelper helper =
                FactoryUtil.createModelProviderFactoryHelper(this, context);
        helper.validate();
        ReadableConfig options = helper.getOptions();
        String model = context.getObjectIdentifier().asSummaryString();
        Configuration settings = zerolayerSettings(context.getConfiguration());

        AnalysisTask task = ZeroLayerModelOptions.task(options);
        TaskContracts contracts =
                ZeroLayerModelOptions.withExamples(
                        model, options, JobFunctions.contracts(settings));
        ZeroLayerModelOptions.check(model, task, contracts);
        var input = context.getCatalogModel().getResolvedInputSchema().getColumns();
        if (input.size() != 1
                || !input.get(0)
                        .getDataType()
                        .getLogicalType()
                        .is(LogicalTypeFamily.CHARACTER_STRING)) {
            throw new ValidationException(
                    "Model "
                            + model
                            + " needs one STRING input column, the document; it declares ("
                            + input.stream().map(Column::toString).collect(Collectors.joining(", "))
                            + ")");
        }
        ModelColumns columns =
                ModelColumns.of(
                        model, task.task(), context.getCatalogModel().getResolvedOutputSchema());
        return new ZeroLayerModelProvider(
                new ZeroLayerModel(
                        new InProcessAnalyzer.Settings(
                                JobFunctions.inProcessSetup(settings)
                                        .withContracts(contracts.source()),
                                JobFunctions.safeMode(settings),
                                settings.get(ExecutorOptions.BATCH_MAX_TOKENS),
                                JobFunctions.embeddingCache(settings)),
                        task,
                        ZeroLayerModelOptions.format(options),
                        ZeroLayerModelOptions.attributes(options),
                        options.get(ZeroLayerModelOptions.TENANT),
                        columns,
                        context.getConfiguration()
                                .get(
                                        ExecutionConfigOptions
                                                .TABLE_EXEC_ASYNC_ML_PREDICT_MAX_CONCURRENT_OPERATIONS)));
    }

    /** The {@code zerolayer.*} settings among the session's and the cluster's. */
    private static Configuration zerolayerSettings(ReadableConfig config) {
        Map<String, String> all = config.toMap();
        return Configuration.fromMap(
                all.entrySet().stream()
                        .filter(e -> e.getKey().startsWith("zerolayer."))
                        .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue)));
    }
}
