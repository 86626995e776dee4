package io.zerolayer.embedded;

import io.zerolayer.jobs.TenancyOptions;
import io.zerolayer.operators.tenants.AuthMode;
import io.zerolayer.operators.tenants.TenantRegistry;
import io.zerolayer.schemas.auth.TenantCredentials;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Map;
import java.util.Optional;
import org.apache.flink.configuration.Configuration;

/**
 * The tenant the embedded modes (demo, serve, a local cluster) run as, so that they verify requests
 * exactly as a deployment does: tenant {@value #ID}, with a random key in {@value #FILE} beside the
 * broker's data, readable by its owner only. A kept data folder keeps its key, so clients of a
 * restarted {@code serve --data DIR} go on signing with it.
 */
public final class DemoTenant {
    public static final String ID = "demo";
    public static final String FILE = "tenants.yaml";

    private DemoTenant() {}

    /**
     * Makes {@code conf} verify requests: when it uses hmac and names no tenants file, writes (or
     * reuses) {@code folder/tenants.yaml} and names it.
     *
     * @return what to sign the demo tenant's requests with; empty when auth is off or the
     *     configured tenants file has no {@value #ID} tenant
     */
    public static Optional<TenantCredentials> prepare(Configuration conf, Path folder) {
        if (conf.get(TenancyOptions.AUTH_MODE) == AuthMode.NONE) {
            return Optional.empty();
        }
        Path file;
        if (conf.contains(TenancyOptions.TENANTS_FILE)) {
            file = Path.of(conf.get(TenancyOptions.TENANTS_FILE));
        } else {
            file = folder.resolve(FILE);
            if (!Files.exists(file)) {
                write(file);
            }
            conf.set(TenancyOptions.TENANTS_FILE, file.toAbsolutePath().toString());
        }
        TenantRegistry registry = TenantRegistry.load(file);
        return registry.tenant(ID).map(t -> registry.credentials(ID));
    }

    private static void write(Path file) {
        byte[] key = new byte[32];
        new SecureRandom().nextBytes(key);
        String yaml =
                "# The embedded modes' tenant; zerolayer submit signs with it (docs/tenants.md)\n"
                        + TenantRegistry.yamlOf(Map.of(ID, key));
        try {
            Files.createDirectories(file.getParent());
            try {
                Files.createFile(
                        file,
                        PosixFilePermissions.asFileAttribute(
                                PosixFilePermissions.fromString("rw-------")));
            } catch (UnsupportedOperationException notPosix) {
                Files.createFile(file);
            }
            Files.writeString(file, yaml);
        } catch (FileAlreadyExistsException raced) {
            // another process wrote it first: use theirs
        } catch (IOException e) {
            throw new UncheckedIOException("Cannot write the demo tenant's key to " + file, e);
        }
    }
}
