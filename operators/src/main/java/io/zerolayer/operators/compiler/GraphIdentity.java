package io.zerolayer.operators.compiler;

import io.zerolayer.gpu.ModelCatalog;
import io.zerolayer.gpu.SentenceEncoder;
import io.zerolayer.operators.structure.StructureSignature;
import io.zerolayer.schemas.Sha256;
import java.io.Serializable;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Everything besides the plan itself that decides what a compiled graph is. The graph id ({@code
 * X-Execution-Graph-ID}) is the SHA-256 over the plan's canonical form ({@link
 * ExecutionPlan#canonicalForm}) and all of these ({@link #planId}), so graphs compiled by another
 * compiler, for other models, runtime or hardware never share an id. A structure's own id ({@link
 * #structureId}) is the SHA-256 over its signature and the same parts: it names what a prompt
 * looked like, which many structures' plans share.
 */
public record GraphIdentity(
        String contractVersion,
        String compilerVersion,
        String runtimeVersion,
        String hardwareProfile,
        SortedMap<String, String> modelChecksums)
        implements Serializable {

    /**
     * Bumped whenever the compiler would run a plan differently for the same canonical form (a
     * change to what a plan says changes its id by itself).
     */
    public static final String COMPILER_VERSION = "zlc-6";

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
                ModelCatalog.checksums());
    }

    /**
     * The identity of this JVM compiling for {@code profile}: its id and the fingerprint of its
     * figures ({@code cpu-avx2@1a2b3c4d}), since plans follow from those figures.
     */
    public static GraphIdentity current(
            String contractVersion, io.zerolayer.gpu.hardware.HardwareProfile profile) {
        return current(contractVersion, profile.id() + "@" + profile.fingerprint());
    }

    /** The id of a structure: what a prompt looked like, not what runs it. */
    public String structureId(StructureSignature signature) {
        return sha256("signature=" + signature.canonical() + "\n" + parts());
    }

    /**
     * The id of a plan, from its canonical form ({@link ExecutionPlan#canonicalForm}): the graph id
     * its requests are keyed, cached, batched and answered by.
     */
    public String planId(String canonicalPlan) {
        return sha256("plan=" + canonicalPlan + "\n" + parts());
    }

    private String parts() {
        StringBuilder sb = new StringBuilder();
        sb.append("contract=").append(contractVersion).append('\n');
        sb.append("compiler=").append(compilerVersion).append('\n');
        sb.append("runtime=").append(runtimeVersion).append('\n');
        sb.append("hardware=").append(hardwareProfile).append('\n');
        for (Map.Entry<String, String> m : modelChecksums.entrySet()) {
            sb.append("model=").append(m.getKey()).append(':').append(m.getValue()).append('\n');
        }
        return sb.toString();
    }

    private static String sha256(String text) {
        return Sha256.hex(text);
    }
}
