package io.zerolayer.operators.quality;

import io.zerolayer.gpu.ModelCatalog;
import java.io.Serializable;
import java.nio.file.Path;

/**
 * Where a job's encoder tiers come from beyond the shipped ones: a model catalog of the user's own
 * encoders ({@code zerolayer.models.file}) and a quality profile ({@code
 * zerolayer.quality-profiles.file}, e.g. written by {@code zerolayer eval}). Installed in every JVM
 * that compiles or runs graphs (the client, each task's open), before anything is compiled: graph
 * ids name every known encoder, and tiers are chosen from the profile.
 *
 * @param modelsFile the model catalog file, or null
 * @param qualityFile the quality profile file, or null for the shipped one
 */
public record TierSources(String modelsFile, String qualityFile) implements Serializable {
    /** The shipped encoders and quality profile only. */
    public static final TierSources SHIPPED = new TierSources(null, null);

    /** Adds the catalog's encoders (checked) and makes the profile the one compilers use. */
    public void install() {
        if (modelsFile != null) {
            ModelCatalog.install(Path.of(modelsFile));
        }
        QualityProfile.use(qualityFile);
    }
}
