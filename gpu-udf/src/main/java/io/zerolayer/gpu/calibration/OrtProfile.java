package io.zerolayer.gpu.calibration;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Per-operator kernel times from an ONNX Runtime profile (the JSON trace written when profiling is
 * enabled on a session): microseconds summed by operator type over all profiled runs.
 */
public record OrtProfile(Map<String, Long> microsByOp) {
    /**
     * Operators that are matrix products (FusedMatMul is ORT's MatMul with a scale or transpose).
     */
    public static final Set<String> PRODUCTS =
            Set.of(
                    "MatMul",
                    "FusedMatMul",
                    "MatMulInteger",
                    "Gemm",
                    "QLinearMatMul",
                    "DynamicQuantizeMatMul",
                    "MatMulIntegerToFloat");

    public static OrtProfile read(Path trace) {
        try {
            Map<String, Long> byOp = new TreeMap<>();
            for (JsonNode event : new ObjectMapper().readTree(trace.toFile())) {
                if ("Node".equals(event.path("cat").asText())
                        && event.path("name").asText().endsWith("_kernel_time")) {
                    byOp.merge(
                            event.path("args").path("op_name").asText("?"),
                            event.path("dur").asLong(),
                            Long::sum);
                }
            }
            return new OrtProfile(byOp);
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot read ONNX Runtime profile " + trace, e);
        }
    }

    public long productMicros() {
        return microsByOp.entrySet().stream()
                .filter(e -> PRODUCTS.contains(e.getKey()))
                .mapToLong(Map.Entry::getValue)
                .sum();
    }

    public long otherMicros() {
        return microsByOp.values().stream().mapToLong(Long::longValue).sum() - productMicros();
    }
}
