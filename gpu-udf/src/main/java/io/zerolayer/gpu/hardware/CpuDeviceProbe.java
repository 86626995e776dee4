package io.zerolayer.gpu.hardware;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** The CPU from /proc/cpuinfo and /proc/meminfo (Linux); the JVM's view elsewhere. */
public final class CpuDeviceProbe implements DeviceProbe {
    private final Path cpuinfo;
    private final Path meminfo;

    public CpuDeviceProbe() {
        this(Path.of("/proc/cpuinfo"), Path.of("/proc/meminfo"));
    }

    CpuDeviceProbe(Path cpuinfo, Path meminfo) {
        this.cpuinfo = cpuinfo;
        this.meminfo = meminfo;
    }

    @Override
    public List<DeviceReport> probe() {
        int cores = Runtime.getRuntime().availableProcessors();
        String model = System.getProperty("os.arch");
        double ghz = 2.0;
        Set<String> flags = new HashSet<>();
        long memory = Runtime.getRuntime().maxMemory();
        try {
            if (Files.isReadable(cpuinfo)) {
                for (String line : Files.readAllLines(cpuinfo)) {
                    int colon = line.indexOf(':');
                    if (colon < 0) {
                        continue;
                    }
                    String key = line.substring(0, colon).trim();
                    String value = line.substring(colon + 1).trim();
                    switch (key) {
                        case "model name" -> model = value;
                        case "cpu MHz" -> ghz = Double.parseDouble(value) / 1000;
                        case "flags" -> flags.addAll(List.of(value.split("\\s+")));
                        default -> {}
                    }
                }
            }
            if (Files.isReadable(meminfo)) {
                for (String line : Files.readAllLines(meminfo)) {
                    if (line.startsWith("MemTotal:")) {
                        memory = Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                    }
                }
            }
        } catch (IOException | NumberFormatException e) {
            // keep what was read; the JVM's view fills the rest
        }
        return List.of(DeviceReport.cpu(model, cores, ghz, memory, flags));
    }
}
