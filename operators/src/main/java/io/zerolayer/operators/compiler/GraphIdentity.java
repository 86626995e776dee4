package io.zerolayer.operators.compiler;

import io.zerolayer.gpu.ModelChecksums;
import io.zerolayer.gpu.SentenceEncoder;
import io.zerolayer.operators.structure.StructureSignature;
import java.io.Serializable;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Everything besides the structure that decides what a compiled graph is. The graph id ({@code
 * X-Execution-Graph-ID}) is the SHA-256 over the signature and all of these, so graphs compiled by
 * another compiler, for other models, runtime or hardware never share an id.
 */
public record GraphIdentity(
        String contractVersion,
        String compilerVersion,
        String runtimeVersion,
        String hardwareProfile,
        SortedMap<String, String> modelChecksums)
        implements Serializable {

    /** Bumped whenever the compiler would emit a different graph for the same inputs. */
    public static final String COMPILER_VERSION = "zlc-4";

    /**
     * Hardware profile of routing ids: the classifier does not know which slot, and so which
     * hardware, will run a request.
     */
    public static final String ANY_HARDWARE = "any";

    public GraphIdentity {
        modelChecksums = new TreeMap<>(modelChecksums);
    }

    /**
     * The identity of this JVM: the task contracts' version, shipped models, loaded ONNX Runtime
     * and the given hardware profile.
     */
    public static GraphIdentity current(String contractVersion, String hardwareProfile) {
        return new GraphIdentity(
                contractVersion,
                COMPILER_VERSION,
                SentenceEncoder.runtimeVersion(),
                hardwareProfile,
                ModelChecksums.all());
    }

    /**
     * The identity of this JVM compiling for {@code profile}: its id and the fingerprint of its
     * figures ({@code cpu-avx2@1a2b3c4d}), since plans follow from those figures.
     */
    public static GraphIdentity current(
            String contractVersion, io.zerolayer.gpu.hardware.HardwareProfile profile) {
        return current(contractVersion, profile.id() + "@" + profile.fingerprint());
    }

    public String graphId(StructureSignature signature) {
        StringBuilder sb = new StringBuilder();
        sb.append("signature=").append(signature.canonical()).append('\n');
        sb.append("contract=").append(contractVersion).append('\n');
        sb.append("compiler=").append(compilerVersion).append('\n');
        sb.append("runtime=").append(runtimeVersion).append('\n');
        sb.append("hardware=").append(hardwareProfile).append('\n');
        for (Map.Entry<String, String> m : modelChecksums.entrySet()) {
            sb.append("model=").append(m.getKey()).append(':').append(m.getValue()).append('\n');
        }
        try {
            return HexFormat.of()
                    .formatHex(
                            MessageDigest.getInstance("SHA-256")
                                    .digest(sb.toString().getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
