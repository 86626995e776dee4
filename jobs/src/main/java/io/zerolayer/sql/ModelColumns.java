package io.zerolayer.sql;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.zerolayer.operators.scheduling.InProcessAnalyzer;
import io.zerolayer.schemas.AnalysisResponse;
import io.zerolayer.schemas.KernelCostRecord;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.data.GenericArrayData;
import org.apache.flink.table.data.GenericMapData;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.data.StringData;
import org.apache.flink.table.types.DataType;
import org.apache.flink.table.types.logical.LogicalType;

/**
 * The columns a model's {@code OUTPUT} may declare, by name: the task's answer ({@code label} and
 * {@code score} of classify, {@code answer} and {@code score} of answer, {@code summary}, {@code
 * fields}, {@code embedding}) and, for any task, how the row ran and what it cost. Checked against
 * the declared schema at planning time; each row's reply is read into exactly the declared columns.
 */
final class ModelColumns implements Serializable {
    private static final long serialVersionUID = 1L;
    private static final ObjectMapper JSON = new ObjectMapper();

    /** A column the provider can fill: its type, and its value from a row's answer. */
    private record Known(DataType type, String what, Reader reader) {}

    @FunctionalInterface
    private interface Reader extends Serializable {
        Object read(AnalysisResponse response, JsonNode output, List<KernelCostRecord> costs);
    }

    private static final DataType KERNEL_COST =
            DataTypes.ROW(
                    DataTypes.FIELD("record_id", DataTypes.STRING()),
                    DataTypes.FIELD("node", DataTypes.STRING()),
                    DataTypes.FIELD("kernel", DataTypes.STRING()),
                    DataTypes.FIELD("device", DataTypes.STRING()),
                    DataTypes.FIELD("duration_nanos", DataTypes.BIGINT()),
                    DataTypes.FIELD("batch_size", DataTypes.INT()),
                    DataTypes.FIELD("request_items", DataTypes.INT()),
                    DataTypes.FIELD("nano_usd", DataTypes.BIGINT()));

    /** Columns of every task: how the row ran and what it cost. */
    private static final Map<String, Known> COMMON = new LinkedHashMap<>();

    /** The task's own columns, by task. */
    private static final Map<String, Map<String, Known>> TASKS = new LinkedHashMap<>();

    static {
        COMMON.put(
                "status",
                new Known(
                        DataTypes.STRING(),
                        "OK, REJECTED or FAILED",
                        (r, o, c) -> StringData.fromString(r.getStatus().name())));
        COMMON.put(
                "output",
                new Known(
                        DataTypes.STRING(),
                        "the task's whole answer as JSON",
                        (r, o, c) -> string(r.getOutput())));
        COMMON.put(
                "diagnostics",
                new Known(
                        DataTypes.STRING(),
                        "why a row was rejected or failed, one diagnostic a line",
                        (r, o, c) ->
                                r.getDiagnostics().isEmpty()
                                        ? null
                                        : StringData.fromString(
                                                r.getDiagnostics().stream()
                                                        .map(
                                                                d ->
                                                                        d.getSeverity()
                                                                                + "["
                                                                                + d.getCode()
                                                                                + "]: "
                                                                                + d.getMessage())
                                                        .collect(Collectors.joining("\n")))));
        COMMON.put(
                "graph_id",
                new Known(
                        DataTypes.STRING(),
                        "the X-Execution-Graph-ID the row ran on",
                        (r, o, c) -> string(r.getGraphId())));
        COMMON.put(
                "cost_nano_usd",
                new Known(
                        DataTypes.BIGINT(),
                        "what the row's kernels cost, in nano-dollars",
                        (r, o, c) -> c.stream().mapToLong(ModelColumns::nanoUsd).sum()));
        COMMON.put(
                "kernel_costs",
                new Known(
                        DataTypes.ARRAY(KERNEL_COST),
                        "one entry per kernel the row ran: its cost record",
                        (r, o, c) ->
                                new GenericArrayData(
                                        c.stream().map(ModelColumns::kernelCost).toArray())));

        Known score =
                new Known(
                        DataTypes.DOUBLE(),
                        "the answer's score",
                        (r, o, c) -> o == null ? null : o.path("score").asDouble());
        TASKS.put(
                "classify",
                Map.of(
                        "label",
                        new Known(
                                DataTypes.STRING(),
                                "the best label",
                                (r, o, c) -> o == null ? null : string(o.path("label").asText())),
                        "score",
                        new Known(
                                DataTypes.DOUBLE(),
                                "its probability among the labels",
                                (r, o, c) ->
                                        o == null
                                                ? null
                                                : o.path("scores")
                                                        .path(0)
                                                        .path("probability")
                                                        .asDouble())));
        TASKS.put(
                "answer",
                Map.of(
                        "answer",
                        new Known(
                                DataTypes.STRING(),
                                "the passage that answers the question",
                                (r, o, c) -> o == null ? null : string(o.path("passage").asText())),
                        "score",
                        score));
        TASKS.put(
                "summarize",
                Map.of(
                        "summary",
                        new Known(
                                DataTypes.STRING(),
                                "the summary's sentences, in document order",
                                (r, o, c) -> {
                                    if (o == null) {
                                        return null;
                                    }
                                    List<String> sentences = new ArrayList<>();
                                    o.path("sentences")
                                            .forEach(s -> sentences.add(s.path("text").asText()));
                                    return StringData.fromString(String.join(" ", sentences));
                                })));
        TASKS.put(
                "extract",
                Map.of(
                        "fields",
                        new Known(
                                DataTypes.MAP(DataTypes.STRING(), DataTypes.STRING()),
                                "each field's sentence",
                                (r, o, c) -> {
                                    if (o == null) {
                                        return null;
                                    }
                                    Map<Object, Object> fields = new LinkedHashMap<>();
                                    o.path("fields")
                                            .forEach(
                                                    f ->
                                                            fields.put(
                                                                    string(
                                                                            f.path("field")
                                                                                    .asText()),
                                                                    string(
                                                                            f.path("text")
                                                                                    .asText())));
                                    return new GenericMapData(fields);
                                })));
        TASKS.put(
                "embed",
                Map.of(
                        "embedding",
                        new Known(
                                DataTypes.ARRAY(DataTypes.FLOAT()),
                                "the document's vector",
                                (r, o, c) -> {
                                    if (o == null) {
                                        return null;
                                    }
                                    JsonNode v = o.path("vector");
                                    Float[] vector = new Float[v.size()];
                                    for (int i = 0; i < vector.length; i++) {
                                        vector[i] = (float) v.get(i).asDouble();
                                    }
                                    return new GenericArrayData(vector);
                                })));
    }

    private final String task;
    private final List<String> names;

    /** Resolved from the name of each column when first read, after the function shipped. */
    private transient List<Known> columns;

    private ModelColumns(String task, List<String> names) {
        this.task = task;
        this.names = List.copyOf(names);
    }

    private static Map<String, Known> offered(String task) {
        Map<String, Known> offered = new LinkedHashMap<>(TASKS.getOrDefault(task, Map.of()));
        offered.putAll(COMMON);
        return offered;
    }

    /**
     * The declared output columns of a model running {@code task}, each one the provider can fill
     * with the type it fills it with.
     *
     * @throws ValidationException naming the columns the task offers, when one is not
     */
    static ModelColumns of(String model, String task, ResolvedSchema output) {
        Map<String, Known> offered = offered(task);
        List<String> names = new ArrayList<>();
        for (Column column : output.getColumns()) {
            Known known = offered.get(column.getName());
            LogicalType declared = column.getDataType().getLogicalType();
            if (known == null
                    || !known.type().getLogicalType().copy(true).equals(declared.copy(true))) {
                throw new ValidationException(
                        "Model "
                                + model
                                + ": output column "
                                + column.getName()
                                + " "
                                + declared.asSummaryString()
                                + " is not one ZeroLayer fills for task "
                                + task
                                + ". It fills:\n"
                                + offered.entrySet().stream()
                                        .map(
                                                e ->
                                                        "  "
                                                                + e.getKey()
                                                                + " "
                                                                + e.getValue()
                                                                        .type()
                                                                        .getLogicalType()
                                                                        .asSummaryString()
                                                                + ": "
                                                                + e.getValue().what())
                                        .collect(Collectors.joining("\n")));
            }
            names.add(column.getName());
        }
        if (names.isEmpty()) {
            throw new ValidationException("Model " + model + " declares no output column");
        }
        return new ModelColumns(task, names);
    }

    /** A row's declared columns, from its answer; the task's columns are null unless it is OK. */
    RowData row(InProcessAnalyzer.Answer answer) {
        AnalysisResponse response = answer.response();
        JsonNode output = null;
        if (response.getStatus() == io.zerolayer.schemas.ResponseStatus.OK
                && response.getOutput() != null) {
            try {
                output = JSON.readTree(response.getOutput());
            } catch (java.io.IOException e) {
                output = null;
            }
        }
        if (columns == null) {
            Map<String, Known> offered = offered(task);
            columns = names.stream().map(offered::get).toList();
        }
        GenericRowData row = new GenericRowData(columns.size());
        for (int i = 0; i < columns.size(); i++) {
            row.setField(i, columns.get(i).reader().read(response, output, answer.costs()));
        }
        return row;
    }

    List<String> names() {
        return names;
    }

    private static StringData string(String s) {
        return s == null ? null : StringData.fromString(s);
    }

    static long nanoUsd(KernelCostRecord c) {
        return c.getComputeNanoUsd()
                + c.getMemoryNanoUsd()
                + c.getPcieNanoUsd()
                + c.getDeviceTimeNanoUsd();
    }

    private static RowData kernelCost(KernelCostRecord c) {
        return GenericRowData.of(
                StringData.fromString(c.getRecordId()),
                StringData.fromString(c.getNodeId()),
                StringData.fromString(c.getKernel()),
                StringData.fromString(c.getDevice()),
                c.getDurationNanos(),
                c.getBatchSize(),
                c.getRequestItems(),
                nanoUsd(c));
    }
}
