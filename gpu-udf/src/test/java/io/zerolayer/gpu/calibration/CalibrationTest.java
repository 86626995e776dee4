package io.zerolayer.gpu.calibration;

import static io.zerolayer.gpu.calibration.OnnxModelBuilder.FLOAT;
import static io.zerolayer.gpu.calibration.OnnxModelBuilder.tensor;
import static org.assertj.core.api.Assertions.assertThat;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtSession;
import io.zerolayer.gpu.hardware.DeviceReport;
import io.zerolayer.gpu.hardware.HardwareProfile;
import io.zerolayer.gpu.hardware.HardwareProfiles;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CalibrationTest {
    @Test
    void theHandWrittenOnnxModelRunsAndMultiplies() throws Exception {
        byte[] model =
                OnnxModelBuilder.singleOp(
                        "MatMul",
                        List.of(tensor("A", FLOAT, 2, 2), tensor("B", FLOAT, 2, 2)),
                        tensor("C", FLOAT, 2, 2));
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        try (OrtSession session = env.createSession(model, new OrtSession.SessionOptions());
                OnnxTensor a = OnnxTensor.createTensor(env, new float[][] {{1, 2}, {3, 4}});
                OnnxTensor b = OnnxTensor.createTensor(env, new float[][] {{5, 6}, {7, 8}});
                OrtSession.Result result = session.run(Map.of("A", a, "B", b))) {
            float[][] c = (float[][]) result.get(0).getValue();
            assertThat(c[0]).containsExactly(19, 22);
            assertThat(c[1]).containsExactly(43, 50);
        }
    }

    @Test
    void aSmallCalibrationYieldsAProfileTheDetectorAccepts() {
        DeviceReport cpu = DeviceReport.cpu("Test CPU \"X\"", 2, 2.0, 1L << 30, Set.of());
        Calibration.Result r = new Calibration(line -> {}).run(cpu, 128, 2);
        assertThat(r.fp32FlopsPerCore()).isPositive();
        assertThat(r.int8OpsPerCore()).isPositive();
        assertThat(r.memoryBytesPerSec()).isPositive();
        assertThat(r.encoderOverheadMicros()).isPositive();
        assertThat(r.productEfficiency()).isBetween(0.01, 1.0);
        assertThat(r.otherOpsMicrosPerToken()).isPositive();
        String id = r.suggestedId();
        assertThat(id).isEqualTo("calibrated-test-cpu-x");
        HardwareProfile p =
                HardwareProfiles.builtInWith("version: 1\nprofiles:\n" + r.profileYaml(id))
                        .get(id)
                        .orElseThrow();
        // per core and GHz in the file, back to the measured rate for the device
        assertThat(p.peakFlops("fp32", cpu) / cpu.cores())
                .isCloseTo(
                        r.fp32FlopsPerCore(), org.assertj.core.data.Percentage.withPercentage(1));
        assertThat(p.productEfficiency())
                .isCloseTo(r.productEfficiency(), org.assertj.core.data.Offset.offset(0.001));
        assertThat(p.launchOverheadMicros())
                .isCloseTo(r.encoderOverheadMicros(), org.assertj.core.data.Offset.offset(1.0));
    }
}
