package io.zerolayer.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.zerolayer.operators.contracts.SafeModePolicy;
import io.zerolayer.operators.documents.AnalysisTask;
import io.zerolayer.operators.documents.DocumentFormat;
import io.zerolayer.operators.execution.ExecutionSettings;
import io.zerolayer.operators.execution.WarmGraphCache;
import io.zerolayer.operators.scheduling.ExecutorSetup;
import io.zerolayer.operators.scheduling.InProcessAnalyzer;
import io.zerolayer.schemas.AnalysisRequest;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.data.ArrayData;
import org.apache.flink.table.data.MapData;
import org.apache.flink.table.data.RowData;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Each task's output columns, read from a real answer of the in-process analyzer into the types
 * Flink SQL declares; a column a task does not fill is refused with the list of those it does.
 */
class ModelColumnsTest {
    private static final String LEASE =
            "The Tenant shall pay a monthly rent of 1,450 euros on the first day of each month."
                    + " Rent paid more than five days late incurs a fee of fifty euros. The lease"
                    + " runs for twelve months from 1 March 2026. Pets are not allowed without the"
                    + " Landlord's written consent.";

    private static InProcessAnalyzer analyzer;

    @BeforeAll
    static void open() {
        analyzer =
                InProcessAnalyzer.open(
                        new InProcessAnalyzer.Settings(
                                ExecutorSetup.of(
                                        null,
                                        "cpu-generic",
                                        new WarmGraphCache.Bounds(8, 64 << 20, 3_600_000),
                                        ExecutionSettings.DEFAULTS),
                                SafeModePolicy.of(SafeModePolicy.Policy.STRICT, Map.of()),
                                16_384,
                                io.zerolayer.operators.execution.EmbeddingCache.Settings.OFF));
    }

    @AfterAll
    static void close() {
        analyzer.close();
    }

    private static RowData answer(AnalysisTask task, String... columns) {
        return answer(task.task(), task, columns);
    }

    /** {@code task}'s answer read into the columns of a model of task {@code model}. */
    private static RowData answer(String model, AnalysisTask task, String... columns) {
        ResolvedSchema schema =
                ResolvedSchema.of(
                        java.util.Arrays.stream(columns)
                                .map(c -> (Column) Column.physical(c, type(c)))
                                .toList());
        ModelColumns read = ModelColumns.of("m", model, schema);
        String prompt = task.promptForText(LEASE, DocumentFormat.TEXT);
        InProcessAnalyzer.Answer answer =
                analyzer.analyse(
                                List.of(
                                        AnalysisRequest.newBuilder()
                                                .setRequestId("r-" + task.task())
                                                .setTenantId("sql")
                                                .setPrompt(prompt)
                                                .setSubmittedAt(Instant.now())
                                                .build()))
                        .get(0);
        return read.row(answer);
    }

    private static org.apache.flink.table.types.DataType type(String column) {
        return switch (column) {
            case "score" -> DataTypes.DOUBLE();
            case "cost_nano_usd" -> DataTypes.BIGINT();
            case "fields" -> DataTypes.MAP(DataTypes.STRING(), DataTypes.STRING());
            case "embedding" -> DataTypes.ARRAY(DataTypes.FLOAT());
            default -> DataTypes.STRING();
        };
    }

    private static AnalysisTask.Builder task(String name) {
        return AnalysisTask.builder(name).outputFormat("json");
    }

    @Test
    void everyTasksColumnsAreFilledFromItsAnswer() {
        RowData classify =
                answer(
                        task("classify").labels("rent, pets").buildForContracts(),
                        "label",
                        "score",
                        "status",
                        "cost_nano_usd");
        assertThat(classify.getString(0).toString()).isIn("rent", "pets");
        assertThat(classify.getDouble(1)).isBetween(0.5, 1.0);
        assertThat(classify.getString(2).toString()).isEqualTo("OK");
        assertThat(classify.getLong(3)).isPositive();

        RowData answer =
                answer(
                        task("answer").question("How much is the late fee?").buildForContracts(),
                        "answer",
                        "score");
        assertThat(answer.getString(0).toString()).contains("fifty euros");

        RowData summary =
                answer(task("summarize").sentences(1).buildForContracts(), "summary", "output");
        assertThat(summary.getString(0).toString()).isNotBlank();
        assertThat(LEASE).contains(summary.getString(0).toString());
        assertThat(summary.getString(1).toString()).startsWith("{");

        RowData fields = answer(task("extract").fields("rent, pets").buildForContracts(), "fields");
        MapData map = fields.getMap(0);
        assertThat(map.size()).isEqualTo(2);
        assertThat(map.keyArray().getString(0).toString()).isEqualTo("rent");
        // the document's sentence most like the field's name
        assertThat(LEASE).contains(map.valueArray().getString(0).toString());
        assertThat(map.valueArray().getString(0).toString()).containsIgnoringCase("rent");

        RowData embedding = answer(task("embed").buildForContracts(), "embedding");
        ArrayData vector = embedding.getArray(0);
        assertThat(vector.size()).isEqualTo(384);
        double norm = 0;
        for (int i = 0; i < vector.size(); i++) {
            norm += vector.getFloat(i) * vector.getFloat(i);
        }
        assertThat(Math.sqrt(norm)).isCloseTo(1.0, org.assertj.core.data.Offset.offset(1e-3));
    }

    @Test
    void aRowTheContractsRejectHasNoAnswerButItsStatusAndDiagnostics() {
        // what a row over a contract's limit meets at run time; a misspelt task stands in for it
        RowData answered =
                answer(
                        task("classify").labels("rent, pets").buildForContracts(),
                        "label",
                        "status",
                        "diagnostics",
                        "cost_nano_usd");
        assertThat(answered.getString(1).toString()).isEqualTo("OK");
        assertThat(answered.isNullAt(2)).as("no diagnostics").isTrue();
        RowData refused =
                answer(
                        "classify",
                        AnalysisTask.builder("clasify").outputFormat("json").buildForContracts(),
                        "label",
                        "status",
                        "diagnostics",
                        "cost_nano_usd");
        assertThat(refused.isNullAt(0)).as("no label").isTrue();
        assertThat(refused.getString(1).toString()).isEqualTo("REJECTED");
        assertThat(refused.getString(2).toString()).startsWith("error[ZL010]: Unknown task");
        assertThat(refused.getLong(3)).isZero();
    }

    @Test
    void aColumnTheTaskDoesNotFillIsRefusedNamingThoseItDoes() {
        assertThatThrownBy(
                        () ->
                                ModelColumns.of(
                                        "m",
                                        "classify",
                                        ResolvedSchema.of(
                                                Column.physical("summary", DataTypes.STRING()))))
                .isInstanceOf(ValidationException.class)
                .hasMessageContaining("output column summary STRING is not one ZeroLayer fills")
                .hasMessageContaining("label STRING: the best label")
                .hasMessageContaining("kernel_costs ARRAY<ROW<");
        assertThatThrownBy(
                        () ->
                                ModelColumns.of(
                                        "m",
                                        "classify",
                                        ResolvedSchema.of(
                                                Column.physical("score", DataTypes.FLOAT()))))
                .as("a type the column is not filled with")
                .isInstanceOf(ValidationException.class);
    }
}
