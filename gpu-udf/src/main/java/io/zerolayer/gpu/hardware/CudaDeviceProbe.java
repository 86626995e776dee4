package io.zerolayer.gpu.hardware;

import static org.bytedeco.cuda.global.cudart.cudaDriverGetVersion;
import static org.bytedeco.cuda.global.cudart.cudaGetDeviceCount;
import static org.bytedeco.cuda.global.cudart.cudaGetDeviceProperties;
import static org.bytedeco.cuda.global.cudart.cudaMemGetInfo;
import static org.bytedeco.cuda.global.cudart.cudaRuntimeGetVersion;
import static org.bytedeco.cuda.global.cudart.cudaSetDevice;

import java.util.ArrayList;
import java.util.List;
import org.bytedeco.cuda.cudart.cudaDeviceProp;
import org.bytedeco.cuda.global.cudart;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.javacpp.SizeTPointer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * GPUs through the CUDA runtime, loaded by JavaCPP ({@code org.bytedeco:cuda}). When the runtime
 * cannot be loaded (no driver, no CUDA 12 runtime) it reports no device and says why at DEBUG.
 */
public final class CudaDeviceProbe implements DeviceProbe {
    private static final Logger LOG = LoggerFactory.getLogger(CudaDeviceProbe.class);

    @Override
    public List<DeviceReport> probe() {
        try {
            Loader.load(cudart.class);
        } catch (Throwable e) { // UnsatisfiedLinkError, NoClassDefFoundError: no usable CUDA here
            LOG.debug("CUDA runtime not loadable through JavaCPP: {}", e.toString());
            return List.of();
        }
        int[] count = new int[1];
        int status = cudaGetDeviceCount(count);
        if (status != 0 || count[0] == 0) {
            LOG.debug("cudaGetDeviceCount returned status {} and {} devices", status, count[0]);
            return List.of();
        }
        int[] driver = new int[1];
        int[] runtime = new int[1];
        cudaDriverGetVersion(driver);
        cudaRuntimeGetVersion(runtime);
        List<DeviceReport> devices = new ArrayList<>();
        for (int i = 0; i < count[0]; i++) {
            try (cudaDeviceProp p = new cudaDeviceProp();
                    SizeTPointer free = new SizeTPointer(1);
                    SizeTPointer total = new SizeTPointer(1)) {
                if (cudaGetDeviceProperties(p, i) != 0) {
                    continue;
                }
                long freeBytes = -1;
                if (cudaSetDevice(i) == 0 && cudaMemGetInfo(free, total) == 0) {
                    freeBytes = free.get();
                }
                devices.add(
                        DeviceReport.gpu(
                                i,
                                p.name().getString().trim(),
                                p.totalGlobalMem(),
                                freeBytes,
                                p.multiProcessorCount(),
                                p.memoryClockRate(),
                                p.memoryBusWidth(),
                                p.major() + "." + p.minor(),
                                driver[0],
                                runtime[0]));
            }
        }
        return devices;
    }
}
