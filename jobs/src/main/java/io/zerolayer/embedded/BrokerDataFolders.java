package io.zerolayer.embedded;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Properties;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an {@link EmbeddedKafkaBroker} keeps in its data folder besides Kafka's own logs: the ports
 * it listens on (kept, so clients find a restarted broker), its admin's password (owner-only), and
 * for a temporary folder the pid of the process that owns it, so a folder whose owner died is
 * removed by the next broker that starts.
 */
final class BrokerDataFolders {
    private static final Logger LOG = LoggerFactory.getLogger(BrokerDataFolders.class);

    private BrokerDataFolders() {}

    /** In a data folder: the password of the broker's admin, owner-only. */
    static final String ADMIN_FILE = "admin.properties";

    /** The admin's password of a data folder: the one it has, else a new random one, kept. */
    static String adminPassword(Path dir) throws IOException {
        Path file = dir.resolve(ADMIN_FILE);
        Properties p = new Properties();
        if (Files.exists(file)) {
            try (var in = Files.newInputStream(file)) {
                p.load(in);
            }
            return p.getProperty("password");
        }
        byte[] random = new byte[24];
        new java.security.SecureRandom().nextBytes(random);
        String password = java.util.HexFormat.of().formatHex(random);
        p.setProperty("user", EmbeddedKafkaBroker.ADMIN_USER);
        p.setProperty("password", password);
        Files.createFile(
                file,
                java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                        java.nio.file.attribute.PosixFilePermissions.fromString("rw-------")));
        try (var out = Files.newOutputStream(file)) {
            p.store(out, "The embedded broker's super user (internal listener only)");
        }
        return password;
    }

    /** Prefix of the temporary folders of brokers started without a data folder. */
    static final String TEMPORARY_PREFIX = "zerolayer-kafka-";

    /** In a temporary folder: the pid of the process that owns it. */
    static final String OWNER_FILE = "owner.pid";

    /** In a data folder: the ports its broker listens on, kept so clients find it again. */
    static final String PORTS_FILE = "ports.properties";

    /**
     * The broker and controller ports of a data folder: those it used before, so that clients and
     * the committed offsets' bootstrap address stay valid across restarts; new free ones the first
     * time.
     */
    static int[] keptPorts(Path dir) throws IOException {
        Path file = dir.resolve(PORTS_FILE);
        Properties ports = new Properties();
        if (Files.exists(file)) {
            try (var in = Files.newInputStream(file)) {
                ports.load(in);
            }
            int broker = Integer.parseInt(ports.getProperty("broker"));
            int controller = Integer.parseInt(ports.getProperty("controller"));
            if (ports.getProperty("internal") == null) { // a folder from before SCRAM brokers
                ports.setProperty("internal", Integer.toString(freePort()));
                try (var out = Files.newOutputStream(file)) {
                    ports.store(out, "Ports of the embedded broker of this data folder");
                }
            }
            int internal = Integer.parseInt(ports.getProperty("internal"));
            for (int port : new int[] {broker, controller, internal}) {
                if (!isFree(port)) {
                    throw new IllegalStateException(
                            "Port "
                                    + port
                                    + ", which the broker of "
                                    + dir
                                    + " listens on, is taken: is another zerolayer serve using"
                                    + " this folder? Stop it, or delete "
                                    + file
                                    + " to take new ports (clients then need the new address)");
                }
            }
            return new int[] {broker, controller, internal};
        }
        int[] fresh = {freePort(), freePort(), freePort()};
        ports.setProperty("broker", Integer.toString(fresh[0]));
        ports.setProperty("controller", Integer.toString(fresh[1]));
        ports.setProperty("internal", Integer.toString(fresh[2]));
        try (var out = Files.newOutputStream(file)) {
            ports.store(out, "Ports of the embedded broker of this data folder");
        }
        return fresh;
    }

    static boolean isFree(int port) {
        try (ServerSocket socket = new ServerSocket()) {
            socket.setReuseAddress(true);
            socket.bind(new java.net.InetSocketAddress("localhost", port));
            return true;
        } catch (IOException taken) {
            return false;
        }
    }

    /**
     * Deletes the temporary folders of brokers whose process has gone without closing them (killed,
     * or the JVM crashed), so a killed {@code serve} does not leave its data behind for good.
     */
    static void removeAbandonedTemporaryFolders() {
        Path tmp = Path.of(System.getProperty("java.io.tmpdir"));
        try (Stream<Path> folders = Files.list(tmp)) {
            folders.filter(p -> p.getFileName().toString().startsWith(TEMPORARY_PREFIX))
                    .filter(BrokerDataFolders::abandoned)
                    .forEach(
                            p -> {
                                LOG.info("Removing {}, left by a broker that is gone", p);
                                deleteRecursively(p);
                            });
        } catch (IOException e) {
            LOG.debug("Cannot list {} for abandoned broker folders", tmp, e);
        }
    }

    static boolean abandoned(Path folder) {
        try {
            long pid = Long.parseLong(Files.readString(folder.resolve(OWNER_FILE)).strip());
            return ProcessHandle.of(pid).map(h -> !h.isAlive()).orElse(true);
        } catch (IOException | NumberFormatException e) {
            return false; // not ours to judge: no owner recorded
        }
    }

    static void deleteRecursively(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            LOG.warn("Could not delete {}", dir, e);
        }
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        }
    }
}
