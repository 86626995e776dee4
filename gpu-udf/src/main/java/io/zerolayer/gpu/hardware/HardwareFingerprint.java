package io.zerolayer.gpu.hardware;

import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The hardware a slot compiles for: the detected (or configured) profile and what was seen.
 *
 * <pre>{@code
 * HardwareFingerprint hw = HardwareFingerprint.resolve("auto", HardwareProfiles.builtIn());
 * String id = hw.profile().id();   // goes into every graph id
 * }</pre>
 *
 * @param devices what detection saw (the first device is the one graphs run on)
 * @param detected false when the profile was set by configuration (custom mode)
 */
public record HardwareFingerprint(
        HardwareProfile profile, List<DeviceReport> devices, boolean detected) {
    private static final Logger LOG = LoggerFactory.getLogger(HardwareFingerprint.class);

    public static final String AUTO = "auto";

    /**
     * {@code auto} detects (CUDA first, else the CPU); any other value names a profile. A GPU that
     * ONNX Runtime cannot use (the CPU-only build, without {@code -Pgpu}) does not count: graphs
     * are then compiled for the CPU they will run on, with one WARN.
     */
    public static HardwareFingerprint resolve(String setting, HardwareProfiles profiles) {
        return resolve(
                setting,
                profiles,
                new CudaDeviceProbe(),
                new CpuDeviceProbe(),
                io.zerolayer.gpu.SentenceEncoder.cudaProviderAvailable());
    }

    /** Detection as on a host whose ONNX Runtime has the CUDA provider. */
    static HardwareFingerprint resolve(
            String setting, HardwareProfiles profiles, DeviceProbe gpus, DeviceProbe cpus) {
        return resolve(setting, profiles, gpus, cpus, true);
    }

    static HardwareFingerprint resolve(
            String setting,
            HardwareProfiles profiles,
            DeviceProbe gpus,
            DeviceProbe cpus,
            boolean cudaProvider) {
        if (!AUTO.equals(setting)) {
            HardwareProfile chosen =
                    profiles.get(setting)
                            .orElseThrow(
                                    () ->
                                            new IllegalArgumentException(
                                                    "Unknown hardware profile '"
                                                            + setting
                                                            + "'; use auto or one of "
                                                            + profiles.all().stream()
                                                                    .map(HardwareProfile::id)
                                                                    .toList()));
            List<DeviceReport> devices = chosen.kind().equals("gpu") ? gpus.probe() : cpus.probe();
            return new HardwareFingerprint(
                    chosen, devices.isEmpty() ? cpus.probe() : devices, false);
        }
        List<DeviceReport> devices = gpus.probe();
        if (!devices.isEmpty() && !cudaProvider) {
            LOG.warn(
                    "{} is here but this ONNX Runtime has no CUDA provider (build with -Pgpu):"
                            + " compiling for the CPU",
                    devices.get(0).name());
            devices = List.of();
        }
        if (devices.isEmpty()) {
            devices = cpus.probe();
        }
        DeviceReport primary = devices.get(0);
        HardwareProfile profile = profiles.match(primary).orElse(null);
        if (profile == null) {
            profile = profiles.get(primary.isGpu() ? "gpu-generic" : "cpu-generic").orElseThrow();
            LOG.warn(
                    "No hardware profile matches '{}' (normalised '{}'); compiling for {}. Add a"
                        + " profile to hardware-profiles.yaml or set zerolayer.hardware-profile."
                        + " Seen: {}",
                    primary.name(),
                    HardwareProfiles.normalise(primary.name()),
                    profile.id(),
                    primary.summary());
        }
        return new HardwareFingerprint(profile, devices, true);
    }

    public DeviceReport primary() {
        return devices.get(0);
    }
}
